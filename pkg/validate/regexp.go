package validate

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/dlclark/regexp2"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Pattern time is bounded: the engine backtracks, and a --schema is
// untrusted input (a pattern like ^(a+)+$ takes exponential time on a
// long "aaa…!"). The bounds are far above what any real match takes
// (microseconds), so that a loaded machine does not turn a slow match
// into a different output:
//
//   - one match may take patternTimeout;
//   - a pattern whose matches have taken patternBudget in all, at more
//     than slowAverage each on average, is as slow as that by design;
//   - a pattern that ran out of time, or that slow, is given up on: it is
//     not run again, its values are given the benefit of the doubt and
//     counted (patternTimeouts), and the first time is a finding
//     (schema-pattern-timeout);
//   - when the patterns given up on have cost totalBudget together, every
//     pattern is given up on, so no schema costs more than a few seconds
//     of matching however many slow patterns it has.
const (
	patternTimeout = 1 * time.Second
	patternBudget  = 1 * time.Second
	slowAverage    = 1 * time.Millisecond
	totalBudget    = 3 * time.Second
)

// patterns is the time account of a schema's patterns.
type patterns struct {
	skipped atomic.Int64 // matches not made or run out of time
	allOff  atomic.Bool  // totalBudget spent: no pattern runs

	mu     sync.Mutex
	spent  time.Duration // by the patterns given up on
	events []string      // patterns given up on, not yet reported ("" for all of them)
}

// giveUp records that a pattern (or, with "", every pattern) is given up
// on after costing d.
func (p *patterns) giveUp(pattern string, d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.events = append(p.events, pattern)
	p.spent += d
	if p.spent >= totalBudget && !p.allOff.Load() {
		p.allOff.Store(true)
		p.events = append(p.events, "")
	}
}

// drain returns the patterns given up on since the last call.
func (p *patterns) drain() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	ev := p.events
	p.events = nil
	return ev
}

// ecmaRegexp is a schema "pattern" in the dialect JSON Schema prescribes
// (ECMA-262). The protocol's schema uses lookaheads and \uXXXX escapes that
// Go's regexp (RE2) cannot parse.
type ecmaRegexp struct {
	re  *regexp2.Regexp
	acc *patterns

	off   atomic.Bool
	mu    sync.Mutex
	n     int64
	total time.Duration
}

func (r *ecmaRegexp) MatchString(s string) bool {
	if r.off.Load() || r.acc.allOff.Load() {
		r.acc.skipped.Add(1)
		return true
	}
	start := time.Now()
	ok, err := r.re.MatchString(s)
	d := time.Since(start)
	r.mu.Lock()
	r.n++
	r.total += d
	slow := err != nil || r.total >= patternBudget && r.total > slowAverage*time.Duration(r.n)
	total := r.total
	r.mu.Unlock()
	if slow && !r.off.Swap(true) {
		r.acc.giveUp(r.re.String(), total)
	}
	if err != nil {
		// Out of time: the value is not accused of a violation it may
		// not have; the summary counts it.
		r.acc.skipped.Add(1)
		return true
	}
	return ok
}

func (r *ecmaRegexp) String() string { return r.re.String() }

// ecmaEngine compiles patterns for the schema compiler, accounting their
// time in acc.
func ecmaEngine(acc *patterns) jsonschema.RegexpEngine {
	return func(s string) (jsonschema.Regexp, error) {
		re, err := regexp2.Compile(s, regexp2.ECMAScript)
		if err != nil {
			return nil, err
		}
		re.MatchTimeout = patternTimeout
		return &ecmaRegexp{re: re, acc: acc}, nil
	}
}
