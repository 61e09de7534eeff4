//go:build e2e

package e2e

import (
	"context"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestBusySessionQueuesTheSend: a message sent to a session while its run
// streams is not run under its own id. The real gateway queues it into
// the running turn and ends the send's run with an empty final when the
// turn takes the message up; the turn's final answers it. check explains
// that final (empty-final, naming the busy run) and what it costs
// (stale-terminal on it, and in clawboo's replay dropped-final on the busy
// run's own final).
func TestBusySessionQueuesTheSend(t *testing.T) {
	path := h.capPath("busy.jsonl.zst")
	cl, rec := h.recordQuiet(t, "busy", path)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	session := "agent:main:busy-" + randHex(4)
	slow := send(t, ctx, cl, session, "Tell a SLOW story, please.")
	waitDeltas(t, cl, slow, 3)
	queued := send(t, ctx, cl, session, "And a second message while you stream.")
	if p := waitChat(t, ctx, cl, queued, "final", "error", "aborted"); p.State != "final" || p.Message != nil {
		t.Fatalf("the queued send's run ended %s with message %+v: the gateway ends a queued send with an empty final", p.State, p.Message)
	}
	if p := waitChat(t, ctx, cl, slow, "final", "error", "aborted"); p.State != "final" || p.text() == "" {
		t.Fatalf("the busy run ended %s with %q", p.State, p.text())
	}
	time.Sleep(time.Second) // the trailing lifecycle and session events
	rec.signal(syscall.SIGINT)
	if code := waitExit(t, rec, 15*time.Second); code != 0 {
		t.Fatalf("recorder exit %d:\n%s", code, rec.log())
	}

	// clawboo@1211c16's guard loses the busy run's final (its fix does not).
	out, errOut, code := h.clawtapRun(t, "check", "--ui", "clawboo@1211c16", "--format", "json", path)
	if code != 1 {
		t.Fatalf("check: exit %d, want 1 (a dropped final is an error)\n%s%s", code, out, errOut)
	}
	for rule, want := range map[string][]string{"empty-final": {queued}, "stale-terminal": {queued}, "dropped-final": {slow}, "text-not-cumulative": {slow}} {
		if got := findingRuns(t, out, rule); !slices.Equal(got, want) {
			t.Errorf("%s findings for runs %v, want %v\n%s", rule, got, want, out)
		}
	}
	if !strings.Contains(out, "was busy with run "+slow) {
		t.Errorf("empty-final should name the busy run %s:\n%s", slow, out)
	}
	// The turn's second model call streams the answer to the queued
	// message afresh on the agent stream: not a gateway bug.
	if !strings.Contains(out, `"rule":"text-not-cumulative","severity":"info"`) || !strings.Contains(out, "called the model again") {
		t.Errorf("the busy run's agent text starts over at its second model call: want an info finding\n%s", out)
	}
}
