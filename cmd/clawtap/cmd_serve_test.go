package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/gorilla/websocket"
)

// serveStderr collects stderr and lets a test wait for a line.
type serveStderr struct {
	mu  sync.Mutex
	buf bytes.Buffer
	ch  chan struct{}
}

func newServeStderr() *serveStderr { return &serveStderr{ch: make(chan struct{}, 1)} }

func (s *serveStderr) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf.Write(p)
	select {
	case s.ch <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (s *serveStderr) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

var serveURLRe = regexp.MustCompile(`(?:serving \S+ on |"url":")(ws://[0-9.:]+)/`)

// waitURL waits for serve to say where it listens.
func (s *serveStderr) waitURL(t *testing.T, exited <-chan int) string {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		if m := serveURLRe.FindStringSubmatch(s.String()); m != nil {
			return m[1]
		}
		select {
		case <-s.ch:
		case code := <-exited:
			t.Fatalf("serve exited %d before listening:\n%s", code, s.String())
		case <-deadline:
			t.Fatalf("serve did not start:\n%s", s.String())
		}
	}
}

// startServe runs `clawtap serve` in-process and returns its URL and a
// channel with its exit code.
func startServe(t *testing.T, args ...string) (string, <-chan int, *serveStderr, *bytes.Buffer) {
	t.Helper()
	if slices.Contains(args, "--once") && !slices.Contains(args, "--grace") {
		// The tests read the whole stream, then wait for serve to end:
		// TestServeOnceGrace tests the grace period.
		args = append([]string{"--grace", "0"}, args...)
	}
	stderr := newServeStderr()
	var stdout bytes.Buffer
	exited := make(chan int, 1)
	go func() {
		exited <- Main(append([]string{"serve", "--listen", "127.0.0.1:0"}, args...), strings.NewReader(""), &stdout, stderr)
	}()
	return stderr.waitURL(t, exited), exited, stderr, &stdout
}

func writeServeCapture(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "cap.jsonl.zst")
	w, err := capture.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w.WriteHeader(capture.NewHeader(time.Unix(1_800_000_000, 0), capture.Source{Tool: "test", Mode: "record", GatewayVersion: "2026.9.6", Protocol: 4}))
	w.Write(&capture.Record{T: 1000, Conn: 1, Mark: capture.MarkOpen})
	w.WriteFrame(1000, 1, "in", []byte(`{"type":"event","event":"connect.challenge","payload":{"nonce":"n","ts":1}}`))
	w.WriteFrame(1001, 1, "out", []byte(`{"type":"req","id":"c","method":"connect","params":{"minProtocol":3,"maxProtocol":4}}`))
	w.WriteFrame(1002, 1, "in", []byte(`{"type":"res","id":"c","ok":true,"payload":{"type":"hello-ok","protocol":4,"server":{"version":"2026.9.6","connId":"x"},"features":{"methods":[],"events":[]},"snapshot":{},"policy":{"tickIntervalMs":30000}}}`))
	for i, seq := range []int{1, 2, 5} { // a gap of two
		w.WriteFrame(int64(1100+i*100), 1, "in", []byte(`{"type":"event","event":"tick","payload":{"ts":`+serveItoa(i)+`},"seq":`+serveItoa(seq)+`}`))
	}
	w.WriteFrame(1500, 1, "out", []byte(`{"type":"req","id":"h","method":"health","params":{}}`))
	w.WriteFrame(1501, 1, "in", []byte(`{"type":"res","id":"h","ok":true,"payload":{"ok":true}}`))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

func serveItoa(n int) string { return string(jsonx.AppendInt(nil, int64(n))) }

func serveDial(t *testing.T, url string) *websocket.Conn {
	t.Helper()
	c, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func serveRead(t *testing.T, c *websocket.Conn) (string, error) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, msg, err := c.ReadMessage()
	return string(msg), err
}

// With --once, a request sent after the stream is still answered during
// --grace; then serve closes the client with 1000 and exits 0.
func TestServeOnceGrace(t *testing.T) {
	p := writeServeCapture(t)
	start := time.Now()
	url, exited, stderr, _ := startServe(t, "--once", "--grace", "1500ms", "--as-fast-as-possible", p)
	c := serveDial(t, url)
	serveRead(t, c) // the challenge
	c.WriteMessage(websocket.TextMessage, []byte(`{"type":"req","id":"1","method":"connect","params":{"minProtocol":3,"maxProtocol":4,"client":{"id":"cli","mode":"cli"}}}`))
	serveRead(t, c) // hello-ok
	for range 3 {
		if f, err := serveRead(t, c); err != nil || !strings.Contains(f, `"tick"`) {
			t.Fatalf("frame %q, %v", f, err)
		}
	}
	time.Sleep(200 * time.Millisecond)
	c.WriteMessage(websocket.TextMessage, []byte(`{"type":"req","id":"late","method":"health","params":{}}`))
	if f, err := serveRead(t, c); err != nil || !strings.Contains(f, `"id":"late"`) || !strings.Contains(f, `"ok":true`) {
		t.Fatalf("a request after the stream: %q, %v\n%s", f, err, stderr)
	}
	if _, err := serveRead(t, c); err == nil {
		t.Fatal("a frame after the answer")
	} else if ce, ok := err.(*websocket.CloseError); !ok || ce.Code != 1000 {
		t.Fatalf("end: %v", err)
	}
	if code := <-exited; code != 0 || time.Since(start) < 1500*time.Millisecond {
		t.Fatalf("exit %d after %s:\n%s", code, time.Since(start), stderr)
	}
	if !strings.Contains(stderr.String(), "--once: requests are answered for 1.5s more (--grace), then serve stops") {
		t.Errorf("the log does not say so:\n%s", stderr)
	}
	if res := run(t, "", "serve", "--grace", "1s", p); res.code != 2 || !strings.Contains(res.stderr, "--grace is how long --once keeps answering") {
		t.Errorf("--grace without --once: exit %d\n%s", res.code, res.stderr)
	}
}

func TestServeCLIOnce(t *testing.T) {
	p := writeServeCapture(t)
	url, exited, stderr, stdout := startServe(t, "--once", "--as-fast-as-possible", p)
	c := serveDial(t, url)
	if ch, _ := serveRead(t, c); !strings.Contains(ch, `"connect.challenge"`) {
		t.Fatalf("challenge: %s", ch)
	}
	c.WriteMessage(websocket.TextMessage, []byte(`{"type":"req","id":"1","method":"connect","params":{"minProtocol":3,"maxProtocol":4,"client":{"id":"cli","mode":"cli"}}}`))
	if hello, _ := serveRead(t, c); !strings.Contains(hello, `"hello-ok"`) {
		t.Fatalf("hello: %s", hello)
	}
	var seqs []int64
	for {
		f, err := serveRead(t, c)
		if err != nil {
			ce, ok := err.(*websocket.CloseError)
			if !ok || ce.Code != 1000 || ce.Text != "end of capture" {
				t.Fatalf("end: %v", err)
			}
			break
		}
		n, _ := jsonx.GetInt([]byte(f), "seq")
		seqs = append(seqs, n)
	}
	if got := seqs; len(got) != 3 || got[0] != 1 || got[1] != 2 || got[2] != 5 {
		t.Fatalf("seqs %v, want [1 2 5]", got)
	}
	select {
	case code := <-exited:
		if code != 0 {
			t.Fatalf("exit %d:\n%s", code, stderr)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve --once did not exit")
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout not empty: %q", stdout)
	}
	for _, want := range []string{"connection 1 of 1: 3 frame(s)", "protocol 4", "gateway 2026.9.6", "client 1 connected", "served 1 client(s), 3 frame(s)"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

// TestServeCLIJSONLog: --format json makes the log one object a line:
// where it listens, the capture, each client, the summary.
func TestServeCLIJSONLog(t *testing.T) {
	p := writeServeCapture(t)
	url, exited, stderr, _ := startServe(t, "--once", "--as-fast-as-possible", "--format", "json", p)
	c := serveDial(t, url)
	serveRead(t, c)
	c.WriteMessage(websocket.TextMessage, []byte(`{"type":"req","id":"1","method":"connect","params":{"minProtocol":3,"maxProtocol":4,"client":{"id":"cli","mode":"cli"}}}`))
	for {
		if _, err := serveRead(t, c); err != nil {
			break
		}
	}
	select {
	case code := <-exited:
		if code != 0 {
			t.Fatalf("exit %d:\n%s", code, stderr)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve --once did not exit")
	}
	var keys []string
	for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &obj); err != nil || len(obj) != 1 {
			t.Fatalf("not one JSON object a line: %q (%v)", line, err)
		}
		for k := range obj {
			keys = append(keys, k)
		}
	}
	if got := strings.Join(keys, " "); !strings.HasPrefix(got, "listening ") || !strings.Contains(got, "capture") || !strings.Contains(got, "log") || !strings.HasSuffix(got, " summary") {
		t.Errorf("log objects %s", got)
	}
	if !strings.Contains(stderr.String(), `{"summary":{"clients":1,"frames":3,"rejected":0}}`) {
		t.Errorf("summary:\n%s", stderr)
	}
}

func TestServeCLIAnswersAndToken(t *testing.T) {
	p := writeServeCapture(t)
	tf := filepath.Join(t.TempDir(), "token")
	os.WriteFile(tf, []byte("tok\n"), 0o600)
	url, exited, stderr, _ := startServe(t, "--once", "--token-file", tf, "--max-gap", "10ms", p)
	bad := serveDial(t, url)
	serveRead(t, bad)
	bad.WriteMessage(websocket.TextMessage, []byte(`{"type":"req","id":"1","method":"connect","params":{"minProtocol":3,"maxProtocol":4}}`))
	if res, _ := serveRead(t, bad); !strings.Contains(res, `"AUTH_TOKEN_MISSING"`) {
		t.Fatalf("no token: %s", res)
	}
	bad.Close()
	c := serveDial(t, url)
	serveRead(t, c)
	c.WriteMessage(websocket.TextMessage, []byte(`{"type":"req","id":"1","method":"connect","params":{"minProtocol":3,"maxProtocol":4,"auth":{"token":"tok"}}}`))
	serveRead(t, c)
	c.WriteMessage(websocket.TextMessage, []byte(`{"type":"req","id":"mine","method":"health"}`))
	c.WriteMessage(websocket.TextMessage, []byte(`{"type":"req","id":"nope","method":"status"}`))
	var got []string
	for {
		f, err := serveRead(t, c)
		if err != nil {
			break
		}
		if strings.Contains(f, `"type":"res"`) {
			got = append(got, f)
		}
	}
	want := []string{
		`{"type":"res","id":"mine","ok":true,"payload":{"ok":true}}`,
		`{"type":"res","id":"nope","ok":false,"error":{"code":"UNAVAILABLE","message":"not in capture"}}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("responses:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if code := <-exited; code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	if !strings.Contains(stderr.String(), "1 client(s) turned away") {
		t.Errorf("stderr:\n%s", stderr)
	}
}

func TestServeCLIUsage(t *testing.T) {
	p := writeServeCapture(t)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"serve"}, "accepts 1 arg"},
		{[]string{"serve", "--speed", "0", p}, "--speed must be more than 0"},
		{[]string{"serve", "--on-send", "later", p}, `unknown --on-send "later"`},
		{[]string{"serve", "--once", "--loop", p}, "--loop never reaches"},
		{[]string{"serve", "--reconnects", "--loop", p}, "drop --loop, or --reconnects"},
		{[]string{"serve", "--conn", "7", p}, "capture has no connection 7 (it has 1)"},
		{[]string{"serve", filepath.Join(t.TempDir(), "missing.jsonl")}, "no such file"},
		{[]string{"serve", "--ui", t.TempDir(), p}, "no index.html"},
		{[]string{"serve", "--listen", "256.0.0.1:1", p}, "listen on 256.0.0.1:1"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		code := Main(c.args, strings.NewReader(""), &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant %q", c.args, code, errb.String(), c.want)
		}
	}
}

func TestServeCLIHelp(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Main([]string{"serve", "--help"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"clawtap serve fixtures/demo.jsonl.zst", "--on-send next-run", "ws://127.0.0.1:18789", "--as-fast-as-possible", "--max-gap"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("help lacks %q", want)
		}
	}
}

func TestServeCLISignal(t *testing.T) {
	p := writeServeCapture(t)
	url, exited, stderr, _ := startServe(t, "--max-gap", "1h", p)
	c := serveDial(t, url)
	serveRead(t, c)
	c.WriteMessage(websocket.TextMessage, []byte(`{"type":"req","id":"1","method":"connect","params":{"minProtocol":3,"maxProtocol":4}}`))
	serveRead(t, c)
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := serveRead(t, c); err != nil {
			if ce, ok := err.(*websocket.CloseError); !ok || ce.Code != websocket.CloseGoingAway {
				t.Fatalf("close: %v", err)
			}
			break
		}
	}
	select {
	case code := <-exited:
		if code != 0 {
			t.Fatalf("exit %d:\n%s", code, stderr)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop on SIGTERM")
	}
	if !strings.Contains(stderr.String(), "served 1 client(s)") {
		t.Errorf("stderr:\n%s", stderr)
	}
}

// --reconnects on the restart fixture: the client is closed with the
// recorded 1012, and when it reconnects it gets the second connection; with
// --once serve exits after that one.
func TestServeCLIReconnects(t *testing.T) {
	url, exited, stderr, _ := startServe(t, "--reconnects", "--once", "--as-fast-as-possible", fixture(t, "reconnect.jsonl.zst"))
	hello := `{"type":"req","id":"1","method":"connect","params":{"minProtocol":3,"maxProtocol":4,"client":{"id":"cli","mode":"cli"}}}`
	play := func() (frames int, end *websocket.CloseError) {
		c := serveDial(t, url)
		serveRead(t, c) // challenge
		c.WriteMessage(websocket.TextMessage, []byte(hello))
		if h, _ := serveRead(t, c); !strings.Contains(h, `"hello-ok"`) {
			t.Fatalf("hello: %s", h)
		}
		for {
			_, err := serveRead(t, c)
			if err != nil {
				ce, ok := err.(*websocket.CloseError)
				if !ok {
					t.Fatalf("after %d frames: %v", frames, err)
				}
				return frames, ce
			}
			frames++
		}
	}
	n1, end1 := play()
	if end1.Code != 1012 || end1.Text != "service restart" || n1 == 0 {
		t.Fatalf("first connection: %d frames, closed %v; want the recorded 1012", n1, end1)
	}
	n2, end2 := play()
	if end2.Code != 1000 || n2 == 0 {
		t.Fatalf("after the reconnect: %d frames, closed %v", n2, end2)
	}
	select {
	case code := <-exited:
		if code != 0 {
			t.Fatalf("exit %d:\n%s", code, stderr)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve --once --reconnects did not exit after the last connection")
	}
	for _, want := range []string{"then closes with 1012; 1 reconnect(s) follow", `closes it with 1012 "service restart"`, "reconnected from", "plays recorded connection 2"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

// playOnce connects to a `serve --once` as a plain client and reads its
// stream to the end.
func playOnce(t *testing.T, url string, h http.Header, token string) {
	t.Helper()
	c, _, err := websocket.DefaultDialer.Dial(url, h)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	serveRead(t, c)
	auth := ""
	if token != "" {
		auth = `,"auth":{"token":"` + token + `"}`
	}
	c.WriteMessage(websocket.TextMessage, []byte(`{"type":"req","id":"1","method":"connect","params":{"minProtocol":3,"maxProtocol":4`+auth+`}}`))
	if hello, _ := serveRead(t, c); !strings.Contains(hello, `"hello-ok"`) {
		t.Fatalf("hello: %s", hello)
	}
	for {
		if _, err := serveRead(t, c); err != nil {
			return
		}
	}
}

func waitExit(t *testing.T, exited <-chan int, stderr *serveStderr) {
	t.Helper()
	select {
	case code := <-exited:
		if code != 0 {
			t.Fatalf("exit %d:\n%s", code, stderr)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("serve did not exit:\n%s", stderr)
	}
}

// ":PORT" and a bare port listen on loopback, without a warning; another
// address is exposed, and serve says so.
func TestServeCLIListen(t *testing.T) {
	p := writeServeCapture(t)
	for _, listen := range []string{":0", "0"} {
		url, exited, stderr, _ := startServe(t, "--listen", listen, "--once", "--as-fast-as-possible", p)
		if !strings.HasPrefix(url, "ws://127.0.0.1:") {
			t.Fatalf("--listen %s serves on %s", listen, url)
		}
		playOnce(t, url, nil, "")
		waitExit(t, exited, stderr)
		if strings.Contains(stderr.String(), "not loopback") {
			t.Fatalf("--listen %s warned:\n%s", listen, stderr)
		}
	}
	stderr := newServeStderr()
	exited := make(chan int, 1)
	go func() { // --grace 0, as startServe gives: TestServeOnceGrace tests the grace period
		exited <- Main([]string{"serve", "--listen", "0.0.0.0:0", "--once", "--grace", "0", "--as-fast-as-possible", p}, strings.NewReader(""), io.Discard, stderr)
	}()
	port := regexp.MustCompile(`serving \S+ on ws://\S+:(\d+)/`)
	deadline := time.Now().Add(10 * time.Second)
	for port.FindStringSubmatch(stderr.String()) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start:\n%s", stderr)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(stderr.String(), "clawtap: warning: listening on") || !strings.Contains(stderr.String(), "not loopback: anyone who can reach it can read the capture") {
		t.Fatalf("no warning for an exposed address:\n%s", stderr)
	}
	playOnce(t, "ws://127.0.0.1:"+port.FindStringSubmatch(stderr.String())[1], nil, "")
	waitExit(t, exited, stderr)
}

// The token comes from CLAWTAP_TOKEN or --token-file (which wins), never
// from the command line.
func TestServeCLITokenSources(t *testing.T) {
	p := writeServeCapture(t)
	t.Setenv("CLAWTAP_TOKEN", " from-env\n")
	tryToken := func(args []string, good, bad string) {
		t.Helper()
		url, exited, stderr, _ := startServe(t, append(args, "--once", "--as-fast-as-possible", p)...)
		c := serveDial(t, url)
		serveRead(t, c)
		c.WriteMessage(websocket.TextMessage, []byte(`{"type":"req","id":"1","method":"connect","params":{"minProtocol":3,"maxProtocol":4,"auth":{"token":"`+bad+`"}}}`))
		if res, _ := serveRead(t, c); !strings.Contains(res, `"AUTH_TOKEN_MISMATCH"`) {
			t.Fatalf("%v: token %q accepted: %s", args, bad, res)
		}
		c.Close()
		playOnce(t, url, nil, good)
		waitExit(t, exited, stderr)
		if !strings.Contains(stderr.String(), "token required") || strings.Contains(stderr.String(), good) {
			t.Fatalf("%v: stderr:\n%s", args, stderr)
		}
	}
	tryToken(nil, "from-env", "from-file")
	tf := filepath.Join(t.TempDir(), "token")
	os.WriteFile(tf, []byte("from-file\n"), 0o600)
	tryToken([]string{"--token-file", tf}, "from-file", "from-env")

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--token", "s3cret", p}, "does not take a secret on the command line"},
		{[]string{"serve", "--token-file", filepath.Join(t.TempDir(), "missing"), p}, "read --token-file"},
		{[]string{"serve", "--token-file", "-", "-"}, "cannot both read stdin"},
		{[]string{"serve", "--allow-origin", "localhost:5173", p}, "--allow-origin: \"localhost:5173\" is not an origin"},
		{[]string{"serve", "--listen", "host", p}, "--listen: \"host\" is not host:port"},
	} {
		var out, errb bytes.Buffer
		code := Main(c.args, strings.NewReader(""), &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), c.want) || strings.Contains(errb.String(), "s3cret") {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant %q", c.args, code, errb.String(), c.want)
		}
	}
}

// A page of a foreign origin is refused; one named by --allow-origin, a
// loopback page and a non-browser client are served.
func TestServeCLIAllowOrigin(t *testing.T) {
	p := writeServeCapture(t)
	url, exited, stderr, _ := startServe(t, "--allow-origin", "http://192.168.1.20:5173/", "--once", "--as-fast-as-possible", p)
	for _, origin := range []string{"http://evil.example", "http://192.168.1.20:5174"} {
		_, resp, err := websocket.DefaultDialer.Dial(url, http.Header{"Origin": {origin}})
		if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("Origin %s: %v %v", origin, resp, err)
		}
	}
	for _, origin := range []string{"http://localhost:5173", "http://192.168.1.20:5173"} {
		c, _, err := websocket.DefaultDialer.Dial(url, http.Header{"Origin": {origin}})
		if err != nil {
			t.Fatalf("Origin %s refused: %v", origin, err)
		}
		c.Close()
	}
	playOnce(t, url, nil, "")
	waitExit(t, exited, stderr)
	if !strings.Contains(stderr.String(), `browser origin "http://evil.example" is not a loopback page (allow it with --allow-origin)`) {
		t.Fatalf("stderr:\n%s", stderr)
	}
}
