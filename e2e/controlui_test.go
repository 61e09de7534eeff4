//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/clawtap/clawtap/internal/fakemodel"
	"github.com/clawtap/clawtap/pkg/capture"
)

// The real Control UI is the ground truth of the control-ui model: a
// capture is played by `clawtap serve --ui` into the UI the installed
// openclaw package ships, running in headless Chromium; once the capture
// has played and the pane's 5 s run status has passed, the pane's own
// state (its chatMessages, chatStream, chatRunId, chatRunError and the
// Stop button) is read and compared with `clawtap replay --ui control-ui
// --final` of the same capture.

// paneExpr reads the main pane's state (docs/ui-controlui.md, "Checked
// against the real UI"): the element's own properties, steadier than its
// DOM.
const paneExpr = `(() => {
  const p = [...document.querySelectorAll('openclaw-chat-pane')].find(p => p.state && p.active)
    || [...document.querySelectorAll('openclaw-chat-pane')].find(p => p.state);
  if (!p) return { mounted: false };
  const s = p.state;
  const text = (m) => {
    const c = m?.content ?? m?.text;
    if (typeof c === 'string') return c;
    return Array.isArray(c) ? c.filter(b => b?.type === 'text' && typeof b.text === 'string' && b.text.trim()).map(b => b.text).join('\n') : '';
  };
  return {
    mounted: true, sessionKey: s.sessionKey || '',
    messages: (s.chatMessages || []).map(m => ({ role: m.role || '', text: text(m) })),
    stream: s.chatStream ?? null, runId: s.chatRunId ?? null,
    stop: !!p.querySelector('button.chat-send-btn--stop'),
    runError: s.chatRunError?.summary ?? null,
  };
})()`

type paneMessage struct {
	Role string `json:"role"`
	Text string `json:"text"`
}

// paneState is what a pane shows, read from the real UI or the model.
type paneState struct {
	Mounted    bool          `json:"mounted"`
	SessionKey string        `json:"sessionKey"`
	Messages   []paneMessage `json:"messages"`
	Stream     *string       `json:"stream"`
	RunID      *string       `json:"runId"`
	Stop       bool          `json:"stop"`
	RunError   *string       `json:"runError"`
}

func (p paneState) String() string {
	str := func(s *string) string {
		if s == nil {
			return "null"
		}
		return fmt.Sprintf("%q", *s)
	}
	var msgs []string
	for _, m := range p.Messages {
		msgs = append(msgs, m.Role+": "+fmt.Sprintf("%q", m.Text))
	}
	return fmt.Sprintf("messages [%s] stream %s runId %s stop %v error %s", strings.Join(msgs, ", "), str(p.Stream), str(p.RunID), p.Stop, str(p.RunError))
}

// lead is serve's --lead: the pause before a capture's first frame after
// hello-ok. The pane mounts a few seconds after the page loads, and sees
// nothing before.
const lead = "8s"

// firstConn writes a copy of connection 1 of a capture, without its
// closing mark: what serve plays and the model replays.
func firstConn(t *testing.T, in, out string) {
	t.Helper()
	r, err := capture.Open(in, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var b []byte
	if hd := r.Header(); hd != nil {
		hb, err := json.Marshal(hd)
		if err != nil {
			t.Fatal(err)
		}
		b = append(append(b, hb...), '\n')
	}
	conn, hello := 0, false
	for {
		rec, err := r.Next()
		if err != nil {
			break
		}
		if conn == 0 {
			conn = rec.Conn
		}
		if rec.Conn != conn || rec.Mark == capture.MarkClose || rec.Mark == capture.MarkError {
			continue
		}
		if rec.IsFrame() && bytes.Contains(rec.Frame, []byte(`"hello-ok"`)) {
			hello = true
		}
		b = rec.AppendJSON(b)
	}
	if !hello {
		t.Fatalf("%s: no hello-ok", in)
	}
	if err := os.WriteFile(out, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// modelPane is the control-ui model's pane of a session at the end.
func modelPane(t *testing.T, path, session string) paneState {
	t.Helper()
	out, errOut, code := h.clawtapRun(t, "replay", "--ui", "control-ui", "--final", "--format", "json", path)
	if code != 0 {
		t.Fatalf("replay --ui control-ui: exit %d\n%s", code, errOut)
	}
	var final struct {
		Final struct {
			Chat map[string]struct {
				StreamText *string `json:"streamText"`
				RunID      *string `json:"runId"`
				RunError   *string `json:"runError"`
				Stop       bool    `json:"stop"`
			} `json:"chat"`
		} `json:"final"`
	}
	if err := json.Unmarshal([]byte(lastLine(out)), &final); err != nil {
		t.Fatalf("replay --final: %v\n%s", err, out)
	}
	p := paneState{Mounted: true, SessionKey: session}
	if c, ok := final.Final.Chat[session]; ok {
		p.Stream, p.RunID, p.RunError, p.Stop = c.StreamText, c.RunID, c.RunError, c.Stop
	}
	out, errOut, code = h.clawtapRun(t, "replay", "--ui", "control-ui", "--transcript", "--format", "json", path)
	if code != 0 {
		t.Fatalf("replay --ui control-ui --transcript: exit %d\n%s", code, errOut)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue // no transcript at all
		}
		var tr struct {
			Lines []struct {
				Role       string `json:"role"`
				SessionKey string `json:"sessionKey"`
				Text       string `json:"text"`
			} `json:"lines"`
		}
		if err := json.Unmarshal([]byte(line), &tr); err != nil {
			t.Fatalf("transcript line %q: %v", line, err)
		}
		for _, l := range tr.Lines {
			if l.SessionKey == session {
				p.Messages = append(p.Messages, paneMessage{l.Role, l.Text})
			}
		}
	}
	return p
}

// realPane plays path into the real Control UI and reads its pane when
// the capture has played and the run status has passed.
func realPane(t *testing.T, chromium, uiDir, path string) paneState {
	t.Helper()
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	listen := fmt.Sprintf("127.0.0.1:%d", port)
	srv, err := h.start("serve-pane-"+filepath.Base(path), baseEnv(), h.clawtap, "serve", "--ui", uiDir, "--lead", lead, "--listen", listen, path)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.stop(10 * time.Second)
	eventually(t, 15*time.Second, "serve to listen", func() bool { return strings.Contains(srv.log(), "serving ") })

	dir := t.TempDir()
	actx, acancel := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromium), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(filepath.Join(dir, "profile")))
	defer acancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate("http://"+listen+"/")); err != nil {
		t.Fatalf("open the Control UI: %v", err)
	}
	read := func() paneState {
		p, err := chromedp.Run(ctx, chromedp.Evaluate[paneState](paneExpr))
		if err != nil {
			t.Fatalf("read the pane: %v", err)
		}
		return p
	}
	eventually(t, 60*time.Second, "the chat pane to mount", func() bool { return read().Mounted })
	eventually(t, 3*time.Minute, "the capture to play", func() bool { return strings.Contains(srv.log(), "end of capture after") })
	time.Sleep(7 * time.Second) // the pane's done/interrupted status shows for 5 s
	p := read()
	if strings.Count(srv.log(), "connected from") != 1 {
		t.Errorf("the UI connected more than once:\n%s", srv.log())
	}
	// The UI's start-up requests a CLI's capture never holds are answered
	// from what it shows.
	if !strings.Contains(srv.log(), "chat.startup") || !strings.Contains(srv.log(), "synthesized from the capture") {
		t.Errorf("chat.startup was not answered by synthesis:\n%s", srv.log())
	}
	srv.signal(syscall.SIGINT)
	return p
}

// samePane compares what the model and the real UI show.
func samePane(t *testing.T, name string, model, real paneState) bool {
	t.Helper()
	if model.String() != real.String() {
		t.Errorf("%s: the model and the real Control UI differ\n model %s\n  real %s", name, model, real)
		return false
	}
	t.Logf("%s: the model and the real Control UI agree: %s", name, real)
	return true
}

func TestControlUIModelMatchesTheRealUI(t *testing.T) {
	chromium := chromiumOrSkip(t)
	uiDir := filepath.Join(filepath.Dir(h.openclaw), "dist", "control-ui")

	// A capture of the real gateway's main session: a streamed reply, a
	// tool run, and a slow reply aborted mid-stream.
	waitIdle(t, h.driver(t, h.url, "controlui-idle"), 2*time.Second, 2*time.Minute)
	live := h.capPath("controlui-live.jsonl.zst")
	cl, rec := h.recordQuiet(t, "controlui", live)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const session = "agent:main:main"
	reply := send(t, ctx, cl, session, "Hello, say hello back.")
	waitChat(t, ctx, cl, reply, "final", "error", "aborted")
	tool := send(t, ctx, cl, session, "Now run a TOOL call.")
	if p := waitChat(t, ctx, cl, tool, "final", "error", "aborted"); p.State != "final" || p.text() != fakemodel.ToolDoneReply {
		t.Fatalf("tool run ended %s with %q", p.State, p.text())
	}
	slow := send(t, ctx, cl, session, "Tell me a SLOW story.")
	waitChat(t, ctx, cl, slow, "delta")
	if res, err := cl.Call(ctx, "chat.abort", map[string]any{"sessionKey": session, "runId": slow}); err != nil || !res.OK {
		t.Fatalf("chat.abort: %v %v", err, res.Err())
	}
	waitChat(t, ctx, cl, slow, "final", "error", "aborted")
	time.Sleep(time.Second)
	rec.signal(syscall.SIGINT)
	if code := waitExit(t, rec, 15*time.Second); code != 0 {
		t.Fatalf("recorder exit %d:\n%s", code, rec.log())
	}

	captures := []string{live}
	for _, name := range []string{"streamed-run", "abort", "error-run", "tool-run", "slash-command", "duplicate-final", "stale-terminal", "demo"} {
		captures = append(captures, filepath.Join(repoRoot(), "fixtures", name+".jsonl.zst"))
	}
	agree := 0
	for _, c := range captures {
		name := strings.TrimSuffix(filepath.Base(c), ".jsonl.zst")
		path := filepath.Join(t.TempDir(), name+".jsonl")
		firstConn(t, c, path)
		model := modelPane(t, path, session)
		real := realPane(t, chromium, uiDir, path)
		if !real.Mounted || real.SessionKey != session {
			t.Fatalf("%s: the pane shows %q, not %s", name, real.SessionKey, session)
		}
		if samePane(t, name, model, real) {
			agree++
		}
	}
	t.Logf("the control-ui model ends in the real Control UI's state on %d of %d captures", agree, len(captures))
}
