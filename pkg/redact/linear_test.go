package redact

import (
	"strings"
	"testing"
	"time"

	"github.com/clawtap/clawtap/pkg/capture"
)

// The text rules look at each byte a bounded number of times: a hostile
// text of 1 MB made of one short pattern repeated is redacted in well under
// a second, where work growing with the square of its length would take
// minutes (token=token=… did, each value running to the end of the text).
func TestTextRulesAreLinear(t *testing.T) {
	for _, unit := range []string{"pw=", "token=", "token:", "password: ", `"token":"`, "a=", "ghp_", "sk-", " sk-1", "xoxb-", "AKIA", " A", "github_pat_", "bearer ", "://", "-----BEGIN ", "/__openclaw__/cap/"} {
		in := []byte(strings.Repeat(unit, (1<<20)/len(unit)))
		start := time.Now()
		New(Options{}).Record(&capture.Record{Conn: 1, IsRaw: true, Raw: in})
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%q repeated to 1 MB took %v", unit, d)
		}
	}
}
