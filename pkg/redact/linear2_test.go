package redact

import (
	"strings"
	"testing"
	"time"

	"github.com/clawtap/clawtap/pkg/capture"
)

// The pre-scan, the text rules and the walk look at each byte a bounded
// number of times, for the new anchors too: 1 MB of one short pattern
// repeated is redacted in well under a second.
func TestScansAreLinear(t *testing.T) {
	skipLarge(t)
	units := []string{".", "a.", "eyJabcdefghijkl.", "eyJ", "MTA4NzY1NDMyMTA5ODc2NTQzMg.", "-us1", "0123456789abcdef", "12345:",
		"glx-", "gl", "ghx_", "\\u0041", "\\\\", "https:\\/\\/", "https:\\\\\\/\\\\\\/", ":\\/\\/a@", "key=", "a = ", "x : ",
		"\"token\":", "\"token\":{", "\"apiKey\":{\"a\":\"", "Bearer", "bearer ", "AWS Secret Access Key [x]: ", "[", "<", "${",
		"-----BEGIN ", "/__openclaw__/cap/", "sk_live_", "SG.", "AIza", "password: \"", "\\\"token\\\": \\\"", "hooks.slack.com/services/"}
	for _, unit := range units {
		in := []byte(strings.Repeat(unit, (1<<20)/len(unit)))
		start := time.Now()
		mayHaveCredentials(in)
		mayHaveText(in)
		scanText(in, nil)
		New(Options{}).Record(&capture.Record{Conn: 1, IsRaw: true, Raw: in})
		frame := append(append([]byte(`{"text":"`), in...), `"}`...)
		New(Options{}).Frame("in", frame)
		t.Logf("%q %v", unit, time.Since(start))
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%q repeated to 1 MB took %v", unit, d)
		}
	}
}
