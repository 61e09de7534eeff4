//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clawtap/clawtap/internal/fakemodel"
	"github.com/clawtap/clawtap/pkg/capture"
)

// TestShrinkRealGateway: a real gateway's session, recorded through the
// proxy (a reply, then a slow reply aborted), shrinks for the gateway's
// own finding (run-aborted) and, with the reply's final planted a second
// time, for duplicate-terminal: each to a handful of records that check
// still flags, that replay plays, and that shrink keeps whole.
func TestShrinkRealGateway(t *testing.T) {
	path := h.capPath("shrink-" + randHex(4) + ".jsonl.zst")
	// Its capture holds its own runs only (see TestUIModelsOnRealGateway).
	waitIdle(t, h.driver(t, h.url, "shrink-idle"), 2*time.Second, 2*time.Minute)
	rec, listen := h.proxy(t, "record-shrink", path)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cl := h.driver(t, "ws://"+listen, "shrink-client")
	session := "agent:main:shrink-" + randHex(4)
	reply := send(t, ctx, cl, session, "Hello, say hello back.")
	if p := waitChat(t, ctx, cl, reply, "final", "error", "aborted"); p.State != "final" || p.text() != fakemodel.DefaultReply {
		t.Fatalf("reply run ended %s with %q", p.State, p.text())
	}
	slow := send(t, ctx, cl, session, "Tell me a SLOW story.")
	waitChat(t, ctx, cl, slow, "delta")
	if res, err := cl.Call(ctx, "chat.abort", map[string]any{"sessionKey": session, "runId": slow}); err != nil || !res.OK {
		t.Fatalf("chat.abort: %v %v", err, res.Err())
	}
	waitChat(t, ctx, cl, slow, "final", "error", "aborted")
	time.Sleep(time.Second)
	_ = cl.Close()
	time.Sleep(500 * time.Millisecond)
	rec.signal(syscall.SIGTERM)
	if code := waitExit(t, rec, 15*time.Second); code != 0 {
		t.Fatalf("proxy exit %d:\n%s", code, rec.log())
	}
	total := len(readCap(t, path).recs)

	// The gateway's own finding.
	small := shrinkTo(t, path, "run-aborted", "--run", slow)
	t.Logf("run-aborted: %d → %d records", total, small)
	if small > 10 {
		t.Errorf("run-aborted kept %d of %d records", small, total)
	}

	// The reply's chat final, delivered twice.
	r, err := capture.Open(path, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b []byte
	planted := false
	if hd := r.Header(); hd != nil {
		hb, err := json.Marshal(hd)
		if err != nil {
			t.Fatal(err)
		}
		b = append(append(b, hb...), '\n')
	}
	for {
		rc, err := r.Next()
		if err != nil {
			break
		}
		b = rc.AppendJSON(b)
		if !planted && rc.IsFrame() && bytes.Contains(rc.Frame, []byte(`"state":"final"`)) && bytes.Contains(rc.Frame, []byte(reply)) {
			dup := rc.Clone()
			dup.T += 3
			b = dup.AppendJSON(b)
			planted = true
		}
	}
	r.Close()
	if !planted {
		t.Fatal("no chat final of the reply run in the capture")
	}
	dupPath := strings.TrimSuffix(path, ".jsonl.zst") + "-dup.jsonl"
	if err := os.WriteFile(dupPath, b, 0o600); err != nil {
		t.Fatal(err)
	}
	small = shrinkTo(t, dupPath, "duplicate-terminal")
	t.Logf("duplicate-terminal: %d → %d records", total+1, small)
	if small > 8 {
		t.Errorf("duplicate-terminal kept %d of %d records", small, total+1)
	}
}

// shrinkTo shrinks a capture for a rule and checks the result: check
// still reports the rule, replay plays it, and shrinking it again keeps
// every record. It returns the records kept.
func shrinkTo(t *testing.T, in, rule string, extra ...string) int {
	t.Helper()
	out := strings.TrimSuffix(strings.TrimSuffix(in, ".zst"), ".jsonl") + "-" + rule + ".jsonl.zst"
	args := append([]string{"shrink", in, "--rule", rule, "-o", out}, extra...)
	if _, stderr, code := h.clawtapRun(t, args...); code != 0 {
		t.Fatalf("shrink --rule %s: exit %d\n%s", rule, code, stderr)
	}
	if stdout, stderr, code := h.clawtapRun(t, "check", "--rule", rule, "--fail-on", "info", "--format", "json", out); code != 1 || !strings.Contains(stdout, `"rule":"`+rule+`"`) {
		t.Errorf("check --rule %s on the shrunk capture: exit %d\n%s%s", rule, code, stdout, stderr)
	}
	if _, stderr, code := h.clawtapRun(t, "replay", out); code != 0 {
		t.Errorf("replay of the shrunk capture: exit %d\n%s", code, stderr)
	}
	n := len(readCap(t, out).recs)
	again := strings.TrimSuffix(out, ".jsonl.zst") + "-again.jsonl.zst"
	if _, stderr, code := h.clawtapRun(t, append([]string{"shrink", out, "--rule", rule, "-o", again}, extra...)...); code != 0 || !strings.Contains(stderr, fmt.Sprintf("%d → %d records", n, n)) {
		t.Errorf("shrinking the shrunk capture again: exit %d\n%s", code, stderr)
	}
	return n
}
