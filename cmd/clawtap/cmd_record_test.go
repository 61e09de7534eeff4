package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/clawtap/clawtap/internal/capturetest"
	"github.com/clawtap/clawtap/internal/fakegw"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/gateway"
	"github.com/gorilla/websocket"
)

const recTestToken = "sekrit-gateway-token-0123456789"

// recordArgs is a recording of a fake gateway. The tests count the frames
// the fake gateway sends, so they record without sessions.subscribe, whose
// answer would come among them in any order; a later --subscribe-sessions
// wins. TestRecordSubscribesByDefault tests the default.
func recordArgs(srvURL, out string, extra ...string) []string {
	return append([]string{"record", "--url", srvURL, "-o", out, "--flush-interval", "20ms", "--subscribe-sessions=false"}, extra...)
}

func TestRecordCapturesHandshakeFramesAndMarkers(t *testing.T) {
	srv := fakegw.New(fakegw.Config{Token: recTestToken, IssueDeviceTokens: true, OnHello: func(c *fakegw.Conn) {
		c.ChatBurst("run-1")
		time.Sleep(50 * time.Millisecond)
		_ = c.Event("shutdown", map[string]any{"reason": "gateway stopping"})
		c.CloseWith(1012, "service restart")
	}})
	defer srv.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "cap.jsonl.zst")
	t.Setenv("OPENCLAW_GATEWAY_TOKEN", recTestToken)
	res := run(t, "", recordArgs(srv.URL, out, "--no-reconnect", "--identity-dir", filepath.Join(dir, "id"))...)
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	fi, err := os.Stat(out)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("capture mode: %v %v", fi.Mode(), err)
	}
	h, recs, st := capturetest.Read(t, out)
	if st.Truncated || st.Malformed > 0 {
		t.Fatalf("stats %+v", st)
	}
	if h == nil || h.Source.Mode != "record" || h.Source.URL != srv.URL || !strings.HasPrefix(h.Source.Tool, "clawtap ") || h.Redaction == nil || !h.Redaction.Credentials {
		t.Fatalf("header %+v", h)
	}
	if got := strings.Join(capturetest.Marks(recs), " "); got != "1:open 1:hello 1:close" {
		t.Fatalf("markers %s", got)
	}
	var hello, closeM *capture.Record
	var kinds []string
	for _, r := range recs {
		switch {
		case r.Mark == capture.MarkHello:
			hello = r
		case r.Mark == capture.MarkClose:
			closeM = r
		case r.Frame != nil:
			ev, _ := capturetest.Str(r.Frame, "event")
			m, _ := capturetest.Str(r.Frame, "method")
			kinds = append(kinds, r.Dir+":"+ev+m)
			if r.T <= 0 || r.Conn != 1 {
				t.Errorf("frame time/conn: %+v", r)
			}
		}
	}
	if hello.Protocol != 4 || hello.Server != "2026.9.6-fake" || hello.ConnID != "conn-1" || hello.BootID != "boot-1" {
		t.Errorf("hello marker %+v", hello)
	}
	if closeM.Code != 1012 || closeM.Reason != "service restart" || closeM.Dir != capture.DirIn {
		t.Errorf("close marker %+v", closeM)
	}
	want := "in:connect.challenge out:connect in: in:agent in:chat in:chat in:chat in:shutdown"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("frames\n got %s\nwant %s", got, want)
	}
	if seqs := capturetest.FrameSeqs(recs)[1]; fmt.Sprint(seqs) != "[1 2 3 4 5]" {
		t.Errorf("seqs %v", seqs)
	}
	if strings.Contains(res.stderr, recTestToken) {
		t.Error("token on stderr")
	}
	if !strings.Contains(res.stderr, "shut down") || !strings.Contains(res.stderr, "--no-reconnect") {
		t.Errorf("stderr: %s", res.stderr)
	}
	// The device token hello-ok handed out was kept for next time.
	cs := srv.Connects()
	if len(cs) != 1 || !cs[0].SignatureOK || strings.Join(cs[0].Scopes, ",") != "operator.read" {
		t.Errorf("connect %+v", cs)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "id", "device-tokens.json"))
	if !bytes.Contains(b, []byte("devtok-")) {
		t.Error("device token not stored")
	}
}

func TestRecordWrongTokenExits2WithHint(t *testing.T) {
	srv := fakegw.New(fakegw.Config{Token: recTestToken})
	defer srv.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "cap.jsonl")
	tf := filepath.Join(dir, "token")
	os.WriteFile(tf, []byte("wrong-token-value\n"), 0o600)
	res := run(t, "", recordArgs(srv.URL, out, "--token-file", tf, "--identity-dir", filepath.Join(dir, "id"))...)
	if res.code != 2 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	var errLine, hintLine string
	for _, l := range strings.Split(res.stderr, "\n") {
		if strings.HasPrefix(l, "clawtap: error: ") {
			errLine = l
		}
		if strings.HasPrefix(l, "clawtap: hint: ") {
			hintLine = l
		}
	}
	if !strings.Contains(errLine, "rejected the token (token mismatch)") || !strings.Contains(hintLine, "--token-file") {
		t.Errorf("stderr:\n%s", res.stderr)
	}
	if strings.Contains(res.stderr, "wrong-token-value") {
		t.Error("token echoed on stderr")
	}
	_, recs, _ := capturetest.Read(t, out)
	if got := strings.Join(capturetest.Marks(recs), " "); got != "1:open 1:error 1:close" {
		t.Errorf("markers %s", got)
	}
	for _, r := range recs {
		if r.Mark == capture.MarkClose && r.Code != 1008 {
			t.Errorf("close %+v", r)
		}
	}
}

func TestRecordRefusesSecretsInArgv(t *testing.T) {
	for _, flag := range []string{"--token", "--password"} {
		res := run(t, "", "record", flag, "abc", "-o", filepath.Join(t.TempDir(), "x.jsonl"))
		if res.code != 2 || !strings.Contains(res.stderr, "does not take a secret on the command line") || strings.Contains(res.stderr, "abc") {
			t.Errorf("%s: exit %d %s", flag, res.code, res.stderr)
		}
	}
}

func TestRecordUsageErrors(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "old.jsonl")
	os.WriteFile(existing, []byte("{}\n"), 0o600)
	cases := [][]string{
		{"record", "--no-redact", "--redact-content", "-o", filepath.Join(dir, "a")},
		{"record", "--max-bytes", "lots", "-o", filepath.Join(dir, "a")},
		{"record", "--upstream", "ws://x", "-o", filepath.Join(dir, "a")},
		{"record", "--listen", "127.0.0.1:0", "--token-file", "x", "-o", filepath.Join(dir, "a")},
		{"record", "--url", "ftp://x", "-o", filepath.Join(dir, "a")},
		{"record", "--url", "ws://127.0.0.1:1", "-o", existing},
		{"record", "--token-file", filepath.Join(dir, "missing"), "-o", filepath.Join(dir, "a")},
		{"record", "--max-bytes", "0", "-o", filepath.Join(dir, "a")},
		{"record", "--proxy-buffer", "1MiB", "-o", filepath.Join(dir, "a")},
		{"record", "--listen", "127.0.0.1:0", "--proxy-buffer", "huge", "-o", filepath.Join(dir, "a")},
		{"record", "--listen", "127.0.0.1:0", "--proxy-buffer", "0", "-o", filepath.Join(dir, "a")},
	}
	for _, args := range cases {
		res := run(t, "", args...)
		if res.code != 2 || !strings.Contains(res.stderr, "clawtap: error: ") || !strings.Contains(res.stderr, "clawtap: hint: ") {
			t.Errorf("%v: exit %d\n%s", args, res.code, res.stderr)
		}
	}
	if b, _ := os.ReadFile(existing); string(b) != "{}\n" {
		t.Error("existing capture overwritten")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("files left behind: %v", ents)
	}
}

// TestRecordGatewayNotRunningExits2: a recording that never reaches the
// gateway is an error and leaves nothing: no file, no temporary file,
// nothing on stdout.
func TestRecordGatewayNotRunningExits2(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	for _, out := range []string{filepath.Join(dir, "c.jsonl.zst"), "-"} {
		res := run(t, "", recordArgs("ws://"+addr, out, "--no-device")...)
		if res.code != 2 || !strings.Contains(res.stderr, "cannot reach the gateway") || !strings.Contains(res.stderr, "openclaw gateway run") {
			t.Errorf("%s: exit %d: %s", out, res.code, res.stderr)
		}
		if res.stdout != "" {
			t.Errorf("%s: stdout %q", out, res.stdout)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left behind: %v", ents)
	}
	// The same for a proxy whose clients never reach the gateway, and one
	// that no client used.
	gw := "ws://" + addr
	p := proxyArgs(t, gw, filepath.Join(dir, "p.jsonl"))
	res := runWhile(t, p, func(listen string) {
		c, _, err := websocket.DefaultDialer.Dial("ws://"+listen, nil)
		if err == nil {
			c.Close()
			t.Error("a client was upgraded without a gateway")
		}
	})
	if res.code != 2 || !strings.Contains(res.stderr, "no client reached the gateway") || !strings.Contains(res.stderr, "no capture written") {
		t.Errorf("proxy: exit %d: %s", res.code, res.stderr)
	}
	res = runWhile(t, proxyArgs(t, gw, filepath.Join(dir, "q.jsonl")), func(string) {})
	if res.code != 2 || !strings.Contains(res.stderr, "no client connected") {
		t.Errorf("idle proxy: exit %d: %s", res.code, res.stderr)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left behind: %v", ents)
	}
}

// proxyArgs is a proxy recording on a free loopback port for a second.
func proxyArgs(t *testing.T, upstream, out string) []string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return []string{"record", "--listen", addr, "--upstream", upstream, "-o", out, "--duration", "1s"}
}

// runWhile runs clawtap with args in-process and, once its --listen
// address accepts connections, calls during with that address.
func runWhile(t *testing.T, args []string, during func(listen string)) result {
	t.Helper()
	listen := ""
	for i, a := range args {
		if a == "--listen" {
			listen = args[i+1]
		}
	}
	resc := make(chan result, 1)
	go func() {
		var out, errb bytes.Buffer
		code := Main(args, strings.NewReader(""), &out, &errb)
		resc <- result{code, out.String(), errb.String()}
	}()
	waitFor(t, func() bool {
		c, err := net.Dial("tcp", listen)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	during(listen)
	return <-resc
}

func TestRecordLimits(t *testing.T) {
	blast := func(c *fakegw.Conn) {
		for i := 0; i < 200; i++ {
			if c.Event("tick", map[string]any{"ts": i}) != nil {
				return
			}
		}
		time.Sleep(5 * time.Second)
	}
	srv := fakegw.New(fakegw.Config{OnHello: blast})
	defer srv.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "frames.jsonl")
	res := run(t, "", recordArgs(srv.URL, out, "--no-device", "--max-frames", "10")...)
	if res.code != 0 || !strings.Contains(res.stderr, "limit reached") {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	_, recs, st := capturetest.Read(t, out)
	if st.Frames != 10 {
		t.Errorf("frames = %d, want 10", st.Frames)
	}
	if last := recs[len(recs)-1]; last.Mark != capture.MarkClose || last.Dir != capture.DirOut || last.Code != 1000 {
		t.Errorf("last record %+v", last)
	}

	out2 := filepath.Join(dir, "bytes.jsonl")
	res = run(t, "", recordArgs(srv.URL, out2, "--no-device", "--max-bytes", "1k")...)
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	_, recs, _ = capturetest.Read(t, out2)
	total := 0
	for _, r := range recs {
		total += len(r.Frame)
	}
	if total > 1000 || total < 500 {
		t.Errorf("recorded %d frame bytes with --max-bytes 1k (1000 bytes)", total)
	}

	out3 := filepath.Join(dir, "dur.jsonl")
	start := time.Now()
	res = run(t, "", recordArgs(srv.URL, out3, "--no-device", "--duration", "300ms")...)
	if res.code != 0 || time.Since(start) > 4*time.Second || !strings.Contains(res.stderr, "--duration reached") {
		t.Fatalf("duration: exit %d after %v: %s", res.code, time.Since(start), res.stderr)
	}
}

func TestRecordStdoutIsPlainJSONL(t *testing.T) {
	srv := fakegw.New(fakegw.Config{OnHello: func(c *fakegw.Conn) { c.ChatBurst("r"); c.CloseWith(1000, "bye") }})
	defer srv.Close()
	res := run(t, "", recordArgs(srv.URL, "-", "--no-device", "--no-reconnect")...)
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	lines := strings.Split(strings.TrimSpace(res.stdout), "\n")
	if len(lines) < 8 || !strings.HasPrefix(lines[0], `{"clawtap":1`) {
		t.Fatalf("stdout:\n%s", res.stdout)
	}
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Errorf("not JSON: %s", l)
		}
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestRecordHelperProcess runs clawtap in a child process for the tests
// that signal or kill it.
func TestRecordHelperProcess(t *testing.T) {
	args := os.Getenv("CLAWTAP_RECORD_HELPER_ARGS")
	if args == "" {
		t.Skip("helper process only")
	}
	os.Exit(Main(strings.Split(args, "\x1f"), os.Stdin, os.Stdout, os.Stderr))
}

func startHelper(t *testing.T, args ...string) (*exec.Cmd, *lockedBuffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestRecordHelperProcess$")
	cmd.Env = append(os.Environ(), "CLAWTAP_RECORD_HELPER_ARGS="+strings.Join(args, "\x1f"))
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return cmd, &stderr
}

// lockedBuffer is a buffer a child process writes while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestRecordSurvivesSIGKILLAndStopsCleanlyOnSIGTERM(t *testing.T) {
	srv := fakegw.New(fakegw.Config{OnHello: func(c *fakegw.Conn) {
		for i := 0; i < 50; i++ {
			_ = c.Event("tick", map[string]any{"ts": i})
		}
		time.Sleep(30 * time.Second)
	}})
	defer srv.Close()
	dir := t.TempDir()

	killed := filepath.Join(dir, "killed.jsonl.zst")
	cmd, _ := startHelper(t, recordArgs(srv.URL, killed, "--no-device", "--quiet")...)
	waitFor(t, func() bool { return capturetest.CountFrames(killed) >= 53 })
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	_, recs, st := capturetest.Read(t, killed)
	if st.Frames != 53 || st.Malformed != 0 {
		t.Errorf("after SIGKILL: %+v", st)
	}
	if got := strings.Join(capturetest.Marks(recs), " "); got != "1:open 1:hello" {
		t.Errorf("markers %s", got)
	}

	termed := filepath.Join(dir, "termed.jsonl.zst")
	cmd, stderr := startHelper(t, recordArgs(srv.URL, termed, "--no-device")...)
	waitFor(t, func() bool { return capturetest.CountFrames(termed) >= 53 })
	_ = cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	if err != nil {
		t.Fatalf("SIGTERM exit: %v\n%s", err, stderr)
	}
	_, recs, st = capturetest.Read(t, termed)
	if st.Truncated || st.Frames != 53 {
		t.Errorf("after SIGTERM: %+v", st)
	}
	if last := recs[len(recs)-1]; last.Mark != capture.MarkClose || last.Code != 1000 || last.Dir != capture.DirOut {
		t.Errorf("last %+v", last)
	}
	if !strings.Contains(stderr.String(), "stopping; finishing") {
		t.Errorf("stderr %s", stderr)
	}
}

func TestRecordStatusLineOnTerminal(t *testing.T) {
	srv := fakegw.New(fakegw.Config{OnHello: func(c *fakegw.Conn) {
		_ = c.Event("agent", map[string]any{"runId": "r9", "stream": "lifecycle", "data": map[string]any{"phase": "start"}})
		_ = c.Event("tick", map[string]any{"ts": 1})
		_ = c.Event("tick", map[string]any{"ts": 2})
		c.Raw([]byte(`{"type":"event","event":"tick","payload":{},"seq":7}`))
		time.Sleep(5 * time.Second)
	}})
	defer srv.Close()
	var stdout, stderr bytes.Buffer
	a := newApp(strings.NewReader(""), &stdout, &stderr)
	a.IsTerminal = func(w any) bool { return w == io.Writer(&stderr) }
	root := a.rootCmd()
	root.SetArgs(recordArgs(srv.URL, filepath.Join(t.TempDir(), "s.jsonl"), "--no-device", "--duration", "1200ms", "--color", "never"))
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	s := stderr.String()
	if !strings.Contains(s, "\r\x1b[2K● connected · conn 1 · 7 frames") || !strings.Contains(s, "1 gap ·") || !strings.Contains(s, "1 run in flight") {
		t.Errorf("status line missing:\n%q", s)
	}
	// On a pipe, no status line.
	res := run(t, "", recordArgs(srv.URL, filepath.Join(t.TempDir(), "p.jsonl"), "--no-device", "--duration", "700ms")...)
	if strings.Contains(res.stderr, "\x1b[2K") || !strings.Contains(res.stderr, "frame seq skipped") {
		t.Errorf("pipe stderr: %q", res.stderr)
	}
	res = run(t, "", recordArgs(srv.URL, filepath.Join(t.TempDir(), "q.jsonl"), "--no-device", "--duration", "300ms", "--quiet")...)
	if res.stderr != "" {
		t.Errorf("--quiet stderr: %q", res.stderr)
	}
}

// decompressed returns a capture's text.
func decompressed(t *testing.T, path string) string {
	t.Helper()
	h, recs, _ := capturetest.Read(t, path)
	var b strings.Builder
	hb, _ := json.Marshal(h)
	b.Write(hb)
	for _, r := range recs {
		b.Write(r.AppendJSON(nil))
	}
	return b.String()
}

func TestRecordSecretsNeverReachFileOrStderr(t *testing.T) {
	srv := fakegw.New(fakegw.Config{Token: recTestToken, IssueDeviceTokens: true, OnHello: func(c *fakegw.Conn) {
		c.ChatBurst("secret-run")
		c.CloseWith(1000, "bye")
	}})
	defer srv.Close()
	dir := t.TempDir()
	tf := filepath.Join(dir, "token")
	os.WriteFile(tf, []byte(recTestToken+"\n"), 0o644) // too open: warned about
	out := filepath.Join(dir, "cap.jsonl.zst")
	res := run(t, "", recordArgs(srv.URL+"/?token="+recTestToken, out, "--token-file", tf, "--no-reconnect", "--identity-dir", filepath.Join(dir, "id"))...)
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	if !strings.Contains(res.stderr, "readable by other users") {
		t.Errorf("no warning about the token file mode: %s", res.stderr)
	}
	text := decompressed(t, out)
	for _, secret := range []string{recTestToken, "devtok-", `"nonce":"nonce-`} {
		if strings.Contains(text, secret) || strings.Contains(res.stderr, secret) {
			t.Errorf("%q reached the capture or stderr", secret)
		}
	}
	_, recs, _ := capturetest.Read(t, out)
	for _, r := range recs {
		if m, _ := capturetest.Str(r.Frame, "method"); m == "connect" {
			var p struct {
				Params struct {
					Auth   map[string]string
					Device map[string]any
				}
			}
			json.Unmarshal(r.Frame, &p)
			if p.Params.Auth["token"] != "__CLAWTAP_REDACTED__" || p.Params.Device["signature"] != "__CLAWTAP_REDACTED__" {
				t.Errorf("connect not redacted: %s", r.Frame)
			}
		}
	}
	if !strings.Contains(text, "Hello") {
		t.Error("message text should be kept without --redact-content")
	}

	// --redact-content also hides the text.
	srv.Connects()
	out2 := filepath.Join(dir, "content.jsonl.zst")
	res = run(t, "", recordArgs(srv.URL, out2, "--token-file", tf, "--no-reconnect", "--redact-content", "--identity-dir", filepath.Join(dir, "id"))...)
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	h, _, _ := capturetest.Read(t, out2)
	text = decompressed(t, out2)
	if strings.Contains(text, "Hello") || strings.Contains(text, recTestToken) || !h.Redaction.Content {
		t.Errorf("content not redacted: %v", h.Redaction)
	}

	// --no-redact is honoured (and says so in the header).
	out3 := filepath.Join(dir, "raw.jsonl")
	res = run(t, "", recordArgs(srv.URL, out3, "--token-file", tf, "--no-reconnect", "--no-redact", "--identity-dir", filepath.Join(dir, "id"))...)
	h, _, _ = capturetest.Read(t, out3)
	if res.code != 0 || !strings.Contains(decompressed(t, out3), recTestToken) || h.Redaction.Credentials {
		t.Errorf("--no-redact: exit %d, header %+v", res.code, h.Redaction)
	}
	if strings.Contains(res.stderr, recTestToken) {
		t.Error("token on stderr")
	}
}

func TestRecordSubscribeSessions(t *testing.T) {
	var mu sync.Mutex
	var methods []string
	srv := fakegw.New(fakegw.Config{
		OnRequest: func(c *fakegw.Conn, r fakegw.Request) {
			mu.Lock()
			methods = append(methods, r.Method)
			mu.Unlock()
			_ = c.Respond(r.ID, false, nil, map[string]any{"code": "INVALID_REQUEST", "message": "missing scope: operator.read"})
			c.CloseWith(1000, "bye")
		},
	})
	defer srv.Close()
	res := run(t, "", recordArgs(srv.URL, filepath.Join(t.TempDir(), "s.jsonl"), "--no-device", "--no-reconnect", "--subscribe-sessions")...)
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(methods, ",") != "sessions.subscribe" {
		t.Errorf("requests sent: %v", methods)
	}
	if !strings.Contains(res.stderr, "warning: sessions.subscribe failed: missing scope: operator.read") ||
		!strings.Contains(res.stderr, "warning: the gateway refused sessions.subscribe on 1 connection: tool calls show only as agent item events") {
		t.Errorf("stderr: %s", res.stderr)
	}
}

// record subscribes to the sessions' events by default, as the Control UI
// does; without it, the closing summary says in one line what is missing
// and how to get it.
func TestRecordSubscribesByDefault(t *testing.T) {
	var mu sync.Mutex
	var methods []string
	srv := fakegw.New(fakegw.Config{
		OnHello: func(c *fakegw.Conn) {
			time.Sleep(100 * time.Millisecond)
			c.CloseWith(1000, "bye")
		},
		OnRequest: func(c *fakegw.Conn, r fakegw.Request) {
			mu.Lock()
			methods = append(methods, r.Method)
			mu.Unlock()
			_ = c.Respond(r.ID, true, map[string]any{"ok": true}, nil)
		},
	})
	defer srv.Close()
	const note = "tool and session events were not subscribed (--subscribe-sessions=false)"
	out := filepath.Join(t.TempDir(), "s.jsonl")
	res := run(t, "", "record", "--url", srv.URL, "-o", out, "--no-device", "--no-reconnect")
	mu.Lock()
	got := strings.Join(methods, ",")
	methods = nil
	mu.Unlock()
	if res.code != 0 || got != "sessions.subscribe" || strings.Contains(res.stderr, note) {
		t.Fatalf("exit %d, requests %q:\n%s", res.code, got, res.stderr)
	}
	_, recs, _ := capturetest.Read(t, out)
	sent := false
	for _, r := range recs {
		if m, _ := capturetest.Str(r.Frame, "method"); m == "sessions.subscribe" && r.Dir == capture.DirOut {
			sent = true
		}
	}
	if !sent {
		t.Error("the capture does not hold the sessions.subscribe request")
	}
	res = run(t, "", "record", "--url", srv.URL, "-o", filepath.Join(t.TempDir(), "n.jsonl"), "--no-device", "--no-reconnect", "--subscribe-sessions=false")
	mu.Lock()
	got = strings.Join(methods, ",")
	mu.Unlock()
	if res.code != 0 || got != "" || strings.Count(res.stderr, note) != 1 {
		t.Errorf("--subscribe-sessions=false: exit %d, requests %q:\n%s", res.code, got, res.stderr)
	}
}

func TestRecordStoredDeviceTokenRejected(t *testing.T) {
	srv := fakegw.New(fakegw.Config{Token: recTestToken, IssueDeviceTokens: true})
	defer srv.Close()
	dir := t.TempDir()
	store := &gateway.Store{Dir: dir}
	id, _ := store.Identity()
	if err := store.SaveDeviceToken(srv.URL, "operator", id.DeviceID, "stale-device-token", nil); err != nil {
		t.Fatal(err)
	}
	res := run(t, "", recordArgs(srv.URL, filepath.Join(t.TempDir(), "s.jsonl"), "--identity-dir", dir)...)
	if res.code != 2 || !strings.Contains(res.stderr, "rejected the device token clawtap stored") ||
		!strings.Contains(res.stderr, "hint: pass the gateway's shared token") || strings.Contains(res.stderr, "stale-device-token") {
		t.Errorf("exit %d: %s", res.code, res.stderr)
	}
}

// TestRecordSummaryFormats: the closing summary on stderr follows
// --format (json is one {"summary":…} line, table a table, text the
// sentence); the old --out still names the capture, with a warning.
func TestRecordSummaryFormats(t *testing.T) {
	srv := fakegw.New(fakegw.Config{OnHello: func(c *fakegw.Conn) { c.ChatBurst("r"); c.CloseWith(1000, "bye") }})
	defer srv.Close()
	dir := t.TempDir()
	for _, c := range []struct{ format, want string }{
		{"json", `{"summary":{"output":`},
		{"table", "│ frames"},
		{"text", "clawtap: recorded 7 frames"},
	} {
		out := filepath.Join(dir, c.format+".jsonl")
		res := run(t, "", "record", "--url", srv.URL, "--out", out, "--no-device", "--no-reconnect", "--subscribe-sessions=false", "--format", c.format)
		if res.code != 0 || !strings.Contains(res.stderr, c.want) || !strings.Contains(res.stderr, "--out is now --output") {
			t.Fatalf("--format %s: exit %d, stderr:\n%s", c.format, res.code, res.stderr)
		}
		if _, recs, _ := capturetest.Read(t, out); len(recs) == 0 {
			t.Errorf("--out %s: nothing recorded", out)
		}
		if c.format == "json" {
			var line struct {
				Summary struct {
					Frames      int    `json:"frames"`
					Connections int    `json:"connections"`
					Stop        string `json:"stop"`
				} `json:"summary"`
			}
			i := strings.Index(res.stderr, `{"summary"`)
			if err := json.Unmarshal([]byte(strings.SplitN(res.stderr[i:], "\n", 2)[0]), &line); err != nil || line.Summary.Frames != 7 || line.Summary.Connections != 1 {
				t.Errorf("json summary: %+v %v\n%s", line, err, res.stderr)
			}
		}
	}
	if r := run(t, "", "record", "--url", srv.URL, "-o", filepath.Join(dir, "x.jsonl"), "--format", "yaml"); r.code != 2 || !strings.Contains(r.stderr, "--format") {
		t.Errorf("--format yaml: exit %d %s", r.code, r.stderr)
	}
}

// Attempts that never reached the gateway are counted apart from the
// connections that recorded something.
func TestRecordSummaryCountsFailedAttemptsApart(t *testing.T) {
	var once sync.Once
	var srv *fakegw.Server
	srv = fakegw.New(fakegw.Config{OnHello: func(c *fakegw.Conn) {
		c.ChatBurst("r")
		once.Do(func() { go srv.Close() }) // the gateway goes away for good
	}})
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "cap.jsonl")
	res := run(t, "", "record", "--url", srv.URL, "-o", out, "--no-device", "--duration", "2s", "--subscribe-sessions=false", "--format", "json")
	var line struct {
		Summary struct {
			Connections    int `json:"connections"`
			FailedAttempts int `json:"failedAttempts"`
		} `json:"summary"`
	}
	i := strings.Index(res.stderr, `{"summary"`)
	if res.code != 0 || i < 0 {
		t.Fatalf("exit %d:\n%s", res.code, res.stderr)
	}
	if err := json.Unmarshal([]byte(strings.SplitN(res.stderr[i:], "\n", 2)[0]), &line); err != nil || line.Summary.Connections != 1 || line.Summary.FailedAttempts < 1 {
		t.Errorf("summary %+v %v:\n%s", line.Summary, err, res.stderr)
	}
}
