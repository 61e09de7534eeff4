package check

import (
	"strings"
	"testing"
)

// A request whose method is not known (a response to a request the capture
// does not hold, a request without one) reads as a sentence: "Request 9
// (method unknown) failed…", never "Request 9 ((none))"; a failure
// without a code says so.
func TestUnknownMethodReadsAsASentence(t *testing.T) {
	recs := hand(t,
		`{"t":1000,"conn":1,"mark":"open","url":"ws://127.0.0.1:18789"}`,
		`{"t":1001,"conn":1,"dir":"out","frame":{"type":"req","id":"c1","method":"connect","params":{}}}`,
		`{"t":1002,"conn":1,"dir":"in","frame":{"type":"res","id":"c1","ok":true,"payload":{"type":"hello-ok","protocol":4}}}`,
		`{"t":1003,"conn":1,"dir":"in","frame":{"type":"res","id":"9","ok":false,"error":{"message":"nope"}}}`,
		`{"t":1004,"conn":1,"dir":"in","frame":{"type":"res","id":"10","ok":false,"error":{"message":"no scope","details":{"code":"MISSING_SCOPE"}}}}`,
		`{"t":1005,"conn":1,"dir":"out","frame":{"type":"req","id":"11","params":{}}}`,
		`{"t":9000,"conn":1,"dir":"in","frame":{"type":"event","event":"tick","payload":{},"seq":1}}`,
	)
	var got []string
	for _, f := range analyze(t, recs, Options{Only: []string{RuleRequestFailed, RuleRequestUnanswered}}, false) {
		got = append(got, f.Message)
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{
		"Request 9 (method unknown) failed with no error code: nope.",
		"Request 10 (method unknown) failed with MISSING_SCOPE: no scope.",
		"Request 11 (method unknown) got no response",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no %q in:\n%s", want, all)
		}
	}
	if strings.Contains(all, "(none)") {
		t.Errorf("(none) in:\n%s", all)
	}
}
