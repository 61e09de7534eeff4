//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clawtap/clawtap/internal/fakemodel"
	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
)

// waitHello waits until the capture at path has a hello marker on a
// connection > after, and returns that connection.
func waitHello(t *testing.T, p *proc, path string, after int, d time.Duration) int {
	t.Helper()
	conn := 0
	eventually(t, d, fmt.Sprintf("a hello marker after conn %d in %s (recorder log:\n%s)", after, filepath.Base(path), "see below"), func() bool {
		if p.exited() {
			t.Fatalf("recorder exited early (%d):\n%s", p.exitCode(), tail(p.log(), 30))
		}
		c, err := tryReadCap(path)
		if err != nil {
			return false
		}
		for _, r := range c.recs {
			if r.Mark == capture.MarkHello && r.Conn > after {
				conn = r.Conn
				return true
			}
		}
		return false
	})
	return conn
}

// TestRecordLiveSession: a passive recorder captures the handshake, a
// streamed reply, a tool run, an abort and a slash command that a second
// connection sends.
func TestRecordLiveSession(t *testing.T) {
	path := h.capPath("session.jsonl.zst")
	rec := h.record(t, "record-session", []string{"OPENCLAW_GATEWAY_TOKEN=" + h.token},
		"--url", h.url, "-o", path, "--subscribe-sessions", "--identity-dir", filepath.Join(h.root, "ids", "recorder"))
	waitHello(t, rec, path, 0, 30*time.Second)

	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cl := h.driver(t, h.url, "driver")

	reply := send(t, ctx, cl, mainSession, "Hi there, say hello.")
	if p := waitChat(t, ctx, cl, reply, "final", "error", "aborted"); p.State != "final" || p.text() != fakemodel.DefaultReply {
		t.Fatalf("reply run ended %s with %q", p.State, p.text())
	}
	tool := send(t, ctx, cl, mainSession, "Please run a TOOL call now.")
	if p := waitChat(t, ctx, cl, tool, "final", "error", "aborted"); p.State != "final" || p.text() != fakemodel.ToolDoneReply {
		t.Fatalf("tool run ended %s with %q", p.State, p.text())
	}
	slow := send(t, ctx, cl, mainSession, "Tell me a SLOW story.")
	waitChat(t, ctx, cl, slow, "delta")
	time.Sleep(1500 * time.Millisecond)
	res, err := cl.Call(ctx, "chat.abort", map[string]any{"sessionKey": mainSession, "runId": slow})
	if err != nil || !res.OK {
		t.Fatalf("chat.abort: %v %v", err, res.Err())
	}
	if p := waitChat(t, ctx, cl, slow, "final", "error", "aborted"); p.State != "aborted" {
		t.Fatalf("aborted run ended %s", p.State)
	}
	status := send(t, ctx, cl, mainSession, "/status")
	statusEnd := waitChat(t, ctx, cl, status, "final", "error", "aborted")
	if statusEnd.State != "final" || statusEnd.text() == "" {
		t.Fatalf("/status ended %s with %q", statusEnd.State, statusEnd.text())
	}
	time.Sleep(2 * time.Second) // trailing lifecycle and sessions events

	rec.signal(syscall.SIGINT)
	if code := waitExit(t, rec, 15*time.Second); code != 0 {
		t.Fatalf("recorder exit %d after SIGINT:\n%s", code, rec.log())
	}
	c := readCap(t, path)
	if c.stats.Truncated || c.stats.Malformed > 0 {
		t.Fatalf("capture not clean: %+v %v", c.stats, c.warns)
	}

	// Header and markers.
	if c.header == nil || c.header.Source.Mode != "record" || c.header.Source.URL != h.url || c.header.Redaction == nil || !c.header.Redaction.Credentials {
		t.Errorf("header %+v", c.header)
	}
	if got := strings.Join(c.marks(), " "); got != "1:open 1:hello 1:close" {
		t.Errorf("markers: %s", got)
	}
	hello := c.mark(1, capture.MarkHello)
	if hello == nil || hello.Protocol != 4 || hello.Server != "2026.9.6" || hello.BootID == "" || hello.ConnID == "" {
		t.Errorf("hello marker %+v", hello)
	}
	if cm := c.mark(1, capture.MarkClose); cm == nil || cm.Code != 1000 || cm.Dir != capture.DirOut {
		t.Errorf("close marker %+v", cm)
	}

	// The handshake, redacted.
	fr := c.frames(1)
	if len(fr) < 3 || fr[0].ev.Event != "connect.challenge" || fr[1].ev.Method != "connect" || fr[1].rec.Dir != capture.DirOut ||
		fr[2].ev.Kind != bridge.Response || !strings.Contains(string(fr[2].ev.Payload), `"hello-ok"`) {
		t.Fatalf("handshake frames wrong: %v", fr[:min(3, len(fr))])
	}
	params := c.connectParams(t, 1)
	auth, _ := params["auth"].(map[string]any)
	dev, _ := params["device"].(map[string]any)
	if auth["token"] != redacted || dev["signature"] != redacted {
		t.Errorf("connect credentials not redacted: auth=%v device=%v", auth, dev)
	}
	if params["minProtocol"] != 3.0 || params["maxProtocol"] != 4.0 {
		t.Errorf("protocol range %v-%v", params["minProtocol"], params["maxProtocol"])
	}
	if strings.Contains(c.text(), h.token) || strings.Contains(rec.log(), h.token) {
		t.Error("the gateway token reached the capture or the recorder's output")
	}

	// Seq and runs.
	c.checkSeqContiguous(t)
	runs := c.runs(1)
	check := func(name, id, state, text string) *runInfo {
		ri := runs[id]
		if ri == nil {
			t.Errorf("%s run %s not in the capture", name, id)
			return &runInfo{}
		}
		if ri.terminal() != state {
			t.Errorf("%s run: terminal %q, want %q (states %v)", name, ri.terminal(), state, ri.states)
		}
		if text != "" && ri.finalText != text {
			t.Errorf("%s run: final text %q, want %q", name, ri.finalText, text)
		}
		return ri
	}
	if ri := check("reply", reply, "final", fakemodel.DefaultReply); ri.deltas < 2 {
		t.Errorf("reply run: %d deltas recorded, want a streamed reply", ri.deltas)
	}
	if ri := check("tool", tool, "final", fakemodel.ToolDoneReply); ri.session == 0 && ri.itemTool == 0 {
		t.Errorf("tool run: no session.tool or tool item events recorded (%+v)", ri)
	}
	check("abort", slow, "aborted", "")
	// The /status text is recorded redacted (its "Auth: <kind>" line looks
	// like a credential to the redactor), so compare its first line.
	statusFirst, _, _ := strings.Cut(statusEnd.text(), "\n")
	if ri := check("slash", status, "final", ""); ri.agentEvts != 0 || !strings.HasPrefix(ri.finalText, statusFirst) {
		t.Errorf("/status: %d agent events (want a command run), final text %q", ri.agentEvts, ri.finalText)
	}
	for id, ri := range runs {
		if ri.terminal() == "" {
			t.Errorf("run %s has no terminal chat event (states %v)", id, ri.states)
		}
	}

	// The other commands agree: no gaps.
	out, errOut, code := h.clawtapRun(t, "gaps", "--frame-only", path)
	if code != 0 {
		t.Errorf("clawtap gaps: exit %d\n%s%s", code, out, errOut)
	}
	// Replayed as clawboo and as Claw3D: each run ends as that UI shows it.
	checkUIs(t, path, runs)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// TestProxyRecordsBothDirections: a client that connects through clawtap's
// proxy does its own handshake; both directions are recorded as it saw
// them, including the tool events only the sender gets.
func TestProxyRecordsBothDirections(t *testing.T) {
	path := h.capPath("proxy.jsonl.zst")
	rec, listen := h.proxy(t, "record-proxy", path)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cl := h.driver(t, "ws://"+listen, "proxy-client")
	run := send(t, ctx, cl, mainSession, "Through the proxy, run a TOOL please.")
	if p := waitChat(t, ctx, cl, run, "final", "error", "aborted"); p.State != "final" || p.text() != fakemodel.ToolDoneReply {
		t.Fatalf("proxied tool run ended %s with %q", p.State, p.text())
	}
	time.Sleep(time.Second)
	if err := cl.Close(); err != nil {
		t.Logf("client close: %v", err)
	}
	sent := len(cl.Messages()) // complete: Close waits for the reader
	time.Sleep(500 * time.Millisecond)
	rec.signal(syscall.SIGTERM)
	if code := waitExit(t, rec, 15*time.Second); code != 0 {
		t.Fatalf("proxy exit %d:\n%s", code, rec.log())
	}

	c := readCap(t, path)
	if c.header.Source.Mode != "proxy" || c.header.Source.Listen != listen || c.header.Source.URL != h.url {
		t.Errorf("header source %+v", c.header.Source)
	}
	if got := strings.Join(c.marks(), " "); got != "1:open 1:hello 1:close" {
		t.Errorf("markers: %s", got)
	}
	if o := c.mark(1, capture.MarkOpen); o == nil || !strings.HasPrefix(o.Peer, "127.0.0.1:") {
		t.Errorf("open marker %+v", o)
	}
	if cm := c.mark(1, capture.MarkClose); cm == nil || cm.Dir != capture.DirOut || cm.Code != 1000 {
		t.Errorf("close marker (client closed with 1000) %+v", cm)
	}
	var out, in []string
	inCount := 0
	for _, f := range c.frames(1) {
		if f.rec.Dir == capture.DirOut {
			out = append(out, f.ev.Method)
		} else {
			inCount++
			in = append(in, f.ev.Event)
		}
	}
	if strings.Join(out, ",") != "connect,chat.send" {
		t.Errorf("client→gateway frames: %v", out)
	}
	// Every frame the client received is in the capture: what its Client
	// kept, plus the challenge and hello-ok read during the handshake.
	if inCount != sent+2 {
		t.Errorf("gateway→client frames recorded %d, client received %d (+2 handshake)", inCount, sent)
	}
	params := c.connectParams(t, 1)
	if auth, _ := params["auth"].(map[string]any); auth["token"] != redacted {
		t.Errorf("proxied connect token not redacted: %v", auth)
	}
	if strings.Contains(c.text(), h.token) {
		t.Error("token in the proxy capture")
	}
	ri := c.runs(1)[run]
	if ri == nil || ri.toolEvts == 0 || ri.terminal() != "final" || ri.finalText != fakemodel.ToolDoneReply {
		t.Errorf("proxied run: %+v (want agent tool events, routed only to the sender)", ri)
	}
	c.checkSeqContiguous(t)
	checkUIs(t, path, c.runs(1))
}

// TestWrongTokenExits2: a wrong token gives one clear line, a hint, exit 2,
// and the secret is never echoed.
func TestWrongTokenExits2(t *testing.T) {
	tokenFile := filepath.Join(h.root, "wrong-token")
	if err := os.WriteFile(tokenFile, []byte("not-the-token-"+randHex(4)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	wrong, _ := os.ReadFile(tokenFile)
	path := h.capPath("wrong.jsonl.zst")
	rec := h.record(t, "record-wrong", nil, "--url", h.url, "--token-file", tokenFile, "-o", path,
		"--identity-dir", filepath.Join(h.root, "ids", "wrong"))
	if code := waitExit(t, rec, 30*time.Second); code != 2 {
		t.Fatalf("exit %d, want 2:\n%s", code, rec.log())
	}
	log := rec.log()
	var errs, hints []string
	for _, l := range strings.Split(log, "\n") {
		if strings.HasPrefix(l, "clawtap: error: ") {
			errs = append(errs, l)
		}
		if strings.HasPrefix(l, "clawtap: hint: ") {
			hints = append(hints, l)
		}
	}
	if len(errs) != 1 || !strings.Contains(errs[0], "token mismatch") || len(hints) != 1 || !strings.Contains(hints[0], "--token-file") {
		t.Errorf("want one error line about the token and one hint:\n%s", log)
	}
	if strings.Contains(log, strings.TrimSpace(string(wrong))) {
		t.Error("the wrong token was echoed")
	}
	c := readCap(t, path)
	if !c.hasMark(capture.MarkError, func(r *capture.Record) bool { return strings.Contains(r.Err, "token mismatch") }) ||
		!c.hasMark(capture.MarkClose, func(r *capture.Record) bool { return r.Code == 1008 }) {
		t.Errorf("markers %v", c.marks())
	}
}

// TestGatewayKilledMidRunRecorderReconnects: SIGKILL the gateway during a
// streamed run; the recorder notices, keeps retrying, reconnects once the
// gateway is back, and loses nothing it had recorded. Then SIGKILL the
// recorder itself: the file still reads.
func TestGatewayKilledMidRunRecorderReconnects(t *testing.T) {
	path := h.capPath("restart.jsonl.zst")
	rec := h.record(t, "record-restart", []string{"OPENCLAW_GATEWAY_TOKEN=" + h.token},
		"--url", h.url, "-o", path, "--identity-dir", filepath.Join(h.root, "ids", "recorder-restart"))
	waitHello(t, rec, path, 0, 30*time.Second)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cl := h.driver(t, h.url, "driver-restart")
	slow := send(t, ctx, cl, mainSession, "Another SLOW story, please.")
	waitDeltas(t, cl, slow, 3)
	time.Sleep(600 * time.Millisecond) // > the recorder's 250 ms flush interval
	before := readCap(t, path)
	beforeRuns := before.runs(1)[slow]
	if beforeRuns == nil || beforeRuns.deltas < 3 {
		t.Fatalf("before the kill the capture has %+v for the slow run", beforeRuns)
	}

	h.gw.signal(syscall.SIGKILL)
	h.gw.stop(5 * time.Second)
	eventually(t, 20*time.Second, "the recorder to record the lost connection", func() bool {
		c, err := tryReadCap(path)
		return err == nil && c.mark(1, capture.MarkClose) != nil
	})
	if err := h.startGateway(); err != nil {
		t.Fatal(err)
	}
	conn := waitHello(t, rec, path, 1, 60*time.Second)

	// A send to the session whose turn the kill cut short waits behind that
	// turn, which the gateway resumes under a new run id: the send's own
	// run ends with an empty final.
	cl2 := h.driver(t, h.url, "driver-after")
	queued := send(t, ctx, cl2, mainSession, "Are you still there?")
	if p := waitChat(t, ctx, cl2, queued, "final", "error", "aborted"); p.State != "final" || p.Message != nil {
		t.Fatalf("a send to the interrupted session ended %s with message %+v: after a restart the gateway queues it behind the resumed turn", p.State, p.Message)
	}
	// Frames flow again on the new connection: a quick run on a session of
	// its own.
	after := send(t, ctx, cl2, "agent:main:after-restart", "Hello again after the restart.")
	if p := waitChat(t, ctx, cl2, after, "final", "error", "aborted"); p.State != "final" {
		t.Fatalf("run after restart ended %s", p.State)
	}
	eventually(t, 20*time.Second, "the recorder to capture the run after the restart", func() bool {
		c, err := tryReadCap(path)
		if err != nil {
			return false
		}
		ri := c.runs(conn)[after]
		return ri != nil && ri.terminal() == "final"
	})

	rec.signal(syscall.SIGKILL)
	waitExit(t, rec, 10*time.Second)
	c := readCap(t, path)
	if c.stats.Malformed > 0 {
		t.Errorf("malformed records after SIGKILL: %+v", c.stats)
	}
	// Nothing recorded before the kill was lost: the old capture is a prefix.
	if len(c.recs) < len(before.recs) {
		t.Fatalf("capture shrank from %d to %d records", len(before.recs), len(c.recs))
	}
	for i, r := range before.recs {
		if !bytes.Equal(r.AppendJSON(nil), c.recs[i].AppendJSON(nil)) {
			t.Fatalf("record %d changed after the restart:\nbefore %s\nafter  %s", i, r.AppendJSON(nil), c.recs[i].AppendJSON(nil))
		}
	}
	if cm := c.mark(1, capture.MarkClose); cm == nil || cm.Code != 1006 || cm.Dir != capture.DirIn {
		t.Errorf("conn 1 close marker %+v (want 1006 from the gateway side)", cm)
	}
	h1, h2 := c.mark(1, capture.MarkHello), c.mark(conn, capture.MarkHello)
	if h1 == nil || h2 == nil || h1.BootID == h2.BootID {
		t.Errorf("boot ids: %+v / %+v", h1, h2)
	}
	for i := 2; i < conn; i++ { // failed attempts while the gateway was down
		if c.mark(i, capture.MarkError) == nil {
			t.Errorf("conn %d: no error marker for a failed reconnect attempt", i)
		}
	}
	c.checkSeqContiguous(t)
	if ri := c.runs(conn)[after]; ri == nil || ri.finalText != fakemodel.DefaultReply {
		t.Errorf("run after restart: %+v", ri)
	}
	// check explains the queued send's empty final by the turn the restart
	// cut short, on the connection that closed.
	out, errOut, _ := h.clawtapRun(t, "check", "--rule", "empty-final", "--format", "json", path)
	if got := findingRuns(t, out, "empty-final"); !slices.Equal(got, []string{queued}) ||
		!strings.Contains(out, "busy with run "+slow) || !strings.Contains(out, "which closed while the run was live") {
		t.Errorf("check should explain run %s's empty final by run %s, cut short on connection 1:\n%s%s", queued, slow, out, errOut)
	}
	t.Logf("markers: %s", strings.Join(c.marks(), " "))
	// The gateway resumes the slow reply the kill cut short, under a new
	// run id: let it end here rather than stream into the next test.
	waitIdle(t, cl2, 2*time.Second, 2*time.Minute)
}

// TestProxyControlUI: the real Control UI, served by the gateway through
// the proxy's HTTP passthrough and running in headless Chromium, connects
// its WebSocket through clawtap and is recorded. Skipped where Chromium is
// not installed (Debian's chromium package; CLAWTAP_E2E_CHROMIUM overrides),
// except in CI, where `make e2e` installs it and a missing one is a failure.
func TestProxyControlUI(t *testing.T) {
	chromium := chromiumOrSkip(t)
	path := h.capPath("control-ui.jsonl.zst")
	rec, listen := h.proxy(t, "record-ui", path)
	ui := h.browse(t, chromium, "chromium", "http://"+listen+"/#token="+h.token)
	defer ui.stop(5 * time.Second)
	// The UI has connected and is talking: hello-ok, a burst of requests
	// and the gateway's answers (how many came within a fixed time
	// depended on the machine's load).
	eventually(t, 90*time.Second, "the Control UI to connect through the proxy and be answered", func() bool {
		c, err := tryReadCap(path)
		if err != nil || c.mark(1, capture.MarkHello) == nil {
			return false
		}
		reqs, in := 0, 0
		for _, f := range c.frames(1) {
			switch {
			case f.rec.Dir == capture.DirIn:
				in++
			case f.ev.Kind == bridge.Request:
				reqs++
			}
		}
		return reqs >= 5 && in >= 10
	})
	ui.stop(5 * time.Second)
	eventually(t, 10*time.Second, "the UI's connection to close", func() bool {
		c, err := tryReadCap(path)
		return err == nil && c.mark(1, capture.MarkClose) != nil
	})
	rec.signal(syscall.SIGINT)
	if code := waitExit(t, rec, 15*time.Second); code != 0 {
		t.Fatalf("proxy exit %d:\n%s", code, rec.log())
	}
	c := readCap(t, path)
	params := c.connectParams(t, 1)
	client, _ := params["client"].(map[string]any)
	dev, _ := params["device"].(map[string]any)
	if client["id"] != "openclaw-control-ui" || dev["signature"] != redacted || dev["id"] == nil {
		t.Errorf("the Control UI's connect as recorded: client=%v device=%v", client, dev)
	}
	var in, out int
	for _, f := range c.frames(1) {
		if f.rec.Dir == capture.DirIn {
			in++
		} else {
			out++
		}
	}
	if in < 10 || out < 5 {
		t.Errorf("only %d in / %d out frames recorded from the Control UI", in, out)
	}
	if strings.Contains(c.text(), h.token) {
		t.Error("token in the Control UI capture")
	}
	c.checkSeqContiguous(t)
	t.Logf("Control UI through the proxy: %d frames in, %d out; markers %s", in, out, strings.Join(c.marks(), " "))
}

// chromiumOrSkip finds Debian's chromium (CLAWTAP_E2E_CHROMIUM overrides).
// The Control UI checks are skipped without it, except in CI, where
// `make e2e` installs it and a missing one is a failure.
func chromiumOrSkip(t *testing.T) string {
	t.Helper()
	chromium := os.Getenv("CLAWTAP_E2E_CHROMIUM")
	if chromium == "" {
		chromium, _ = exec.LookPath("chromium")
	}
	if chromium == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("no chromium on PATH in CI: make e2e installs it (scripts/chromium-setup.sh)")
		}
		t.Skip("no chromium on PATH: the Control UI check needs Debian's chromium package")
	}
	return chromium
}

// browse opens url in a headless chromium with a fresh profile of its own.
func (hh *harness) browse(t *testing.T, chromium, name, url string) *proc {
	t.Helper()
	home := filepath.Join(hh.root, name+"-home")
	env := append(baseEnv(), "HOME="+home)
	ui, err := hh.start(name, env, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+filepath.Join(home, "profile"), "--remote-debugging-port=0", url)
	if err != nil {
		t.Fatal(err)
	}
	return ui
}
