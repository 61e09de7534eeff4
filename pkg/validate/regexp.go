package validate

import (
	"sync/atomic"
	"time"

	"github.com/dlclark/regexp2"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// patternTimeout bounds one pattern match: the engine backtracks, and a
// capture (or a --schema) is untrusted input. It is a last resort against a
// pathological pattern, far above any real match (microseconds), so that a
// loaded machine never turns a slow match into a different output.
const patternTimeout = 10 * time.Second

// ecmaRegexp is a schema "pattern" in the dialect JSON Schema prescribes
// (ECMA-262). The protocol's schema uses lookaheads and \uXXXX escapes that
// Go's regexp (RE2) cannot parse.
type ecmaRegexp struct {
	re       *regexp2.Regexp
	timeouts *atomic.Int64
}

func (r ecmaRegexp) MatchString(s string) bool {
	ok, err := r.re.MatchString(s)
	if err != nil {
		// Out of time: the value is not accused of a violation it may not
		// have; the summary counts it.
		r.timeouts.Add(1)
		return true
	}
	return ok
}

func (r ecmaRegexp) String() string { return r.re.String() }

// ecmaEngine compiles patterns for the schema compiler, counting matches
// that ran out of time in timeouts.
func ecmaEngine(timeouts *atomic.Int64) jsonschema.RegexpEngine {
	return func(s string) (jsonschema.Regexp, error) {
		re, err := regexp2.Compile(s, regexp2.ECMAScript)
		if err != nil {
			return nil, err
		}
		re.MatchTimeout = patternTimeout
		return ecmaRegexp{re: re, timeouts: timeouts}, nil
	}
}
