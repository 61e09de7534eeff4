package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clawtap/clawtap/internal/capturetest"
	"github.com/clawtap/clawtap/internal/fakegw"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/gateway"
	"github.com/gorilla/websocket"
)

// ticker is a gateway that, after the handshake, sends a tick every
// millisecond until the client leaves.
func ticker(t *testing.T, cfg fakegw.Config) *fakegw.Server {
	cfg.OnHello = func(c *fakegw.Conn) {
		for i := 0; c.Event("tick", map[string]any{"ts": i}) == nil; i++ {
			time.Sleep(time.Millisecond)
		}
	}
	srv := fakegw.New(cfg)
	t.Cleanup(srv.Close)
	return srv
}

// TestRecordFileAppearsAtTheHandshake: while the gateway is still starting
// there is no file at the path; once the handshake succeeded the file is
// there, 0600, and readable while the recording goes on.
func TestRecordFileAppearsAtTheHandshake(t *testing.T) {
	srv := ticker(t, fakegw.Config{Unavailable: 6})
	dir := t.TempDir()
	out := filepath.Join(dir, "cap.jsonl.zst")
	if err := os.WriteFile(out, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	resc := make(chan result, 1)
	go func() {
		var o, e bytes.Buffer
		code := Main(recordArgs(srv.URL, out, "--no-device", "--force", "--duration", "1500ms"), strings.NewReader(""), &o, &e)
		resc <- result{code, o.String(), e.String()}
	}()
	waitFor(t, func() bool { return len(srv.Connects()) >= 1 })
	if b, _ := os.ReadFile(out); len(srv.Connects()) < 6 && string(b) != "old" {
		t.Errorf("the old file was replaced before the handshake")
	}
	waitFor(t, func() bool { return capturetest.CountFrames(out) > 10 })
	fi, err := os.Stat(out)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("capture mode while recording: %v %v", fi.Mode(), err)
	}
	res := <-resc
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	_, recs, st := capturetest.Read(t, out)
	if st.Truncated || !strings.HasPrefix(strings.Join(capturetest.Marks(recs), " "), "1:open 1:error 1:close") {
		t.Errorf("stats %+v markers %v", st, capturetest.Marks(recs))
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("files: %v", ents)
	}
}

// TestRecordToStdoutWhoseReaderLeaves: `record -o - | head -1` ends quietly
// with exit 0, in-process (a pipe that is not fd 1 gives EPIPE) and as a
// process whose stdout is the pipe (SIGPIPE must not kill it: exit 141).
func TestRecordToStdoutWhoseReaderLeaves(t *testing.T) {
	srv := ticker(t, fakegw.Config{})
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	resc := make(chan result, 1)
	go func() {
		var e bytes.Buffer
		code := Main(recordArgs(srv.URL, "-", "--no-device"), strings.NewReader(""), pw, &e)
		resc <- result{code, "", e.String()}
	}()
	first, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil || !strings.HasPrefix(first, `{"clawtap":1`) {
		t.Fatalf("first line %q %v", first, err)
	}
	pr.Close()
	select {
	case res := <-resc:
		if res.code != 0 || strings.Contains(res.stderr, "error") || !strings.Contains(res.stderr, "stdout was closed by its reader") {
			t.Errorf("in-process: exit %d: %s", res.code, res.stderr)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("in-process: the recorder did not notice its reader left")
	}
	pw.Close()

	cmd := exec.Command(os.Args[0], "-test.run=^TestRecordHelperProcess$")
	cmd.Env = append(os.Environ(), "CLAWTAP_RECORD_HELPER_ARGS="+strings.Join(recordArgs(srv.URL, "-", "--no-device"), "\x1f"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	first, err = bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(first, `{"clawtap":1`) {
		t.Fatalf("child's first line %q %v", first, err)
	}
	stdout.Close() // as head -1 exits
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil || strings.Contains(stderr.String(), "error") {
			t.Errorf("child: %v (%s)\n%s", err, cmd.ProcessState, stderr.String())
		}
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("child: the recorder did not notice its reader left")
	}
}

// TestRecordSecondSignalAborts: the first SIGTERM stops cleanly, which
// takes a while when a proxied client never answers the close; a second
// aborts at once with 130, and the file reads up to the last flush.
func TestRecordSecondSignalAborts(t *testing.T) {
	up := fakegw.New(fakegw.Config{})
	defer up.Close()
	out := filepath.Join(t.TempDir(), "aborted.jsonl.zst")
	args := proxyArgs(t, up.URL, out)
	args = args[:len(args)-2] // no --duration
	cmd, stderr := startHelper(t, args...)
	listen := args[2]
	waitFor(t, func() bool { return strings.Contains(stderr.String(), "proxy listening") })
	c, err := gateway.Dial(context.Background(), "ws://"+listen, gateway.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close() // never reads again: the proxy's close goes unanswered
	waitFor(t, func() bool { return capturetest.CountFrames(out) >= 3 })
	_ = cmd.Process.Signal(syscall.SIGTERM)
	waitFor(t, func() bool { return strings.Contains(stderr.String(), "stopping; finishing") })
	time.Sleep(100 * time.Millisecond)
	_ = cmd.Process.Signal(syscall.SIGTERM)
	start := time.Now()
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 || time.Since(start) > time.Second {
		t.Fatalf("exit %v after %v\n%s", err, time.Since(start), stderr)
	}
	if !strings.Contains(stderr.String(), "clawtap: error: aborted; "+out+" is readable up to the last flush") {
		t.Errorf("stderr %s", stderr)
	}
	if _, recs, st := capturetest.Read(t, out); st.Frames != 3 || !st.Truncated || strings.Join(capturetest.Marks(recs), " ") != "1:open 1:hello 1:close" {
		t.Errorf("after the abort: %+v %v", st, capturetest.Marks(recs))
	}
}

// TestRecordToSpecialFiles: a FIFO and a character device are written in
// place: never replaced, removed or chmodded, and no --force needed.
func TestRecordToSpecialFiles(t *testing.T) {
	srv := fakegw.New(fakegw.Config{OnHello: func(c *fakegw.Conn) { c.ChatBurst("r"); c.CloseWith(1000, "bye") }})
	defer srv.Close()
	res := run(t, "", recordArgs(srv.URL, os.DevNull, "--no-device", "--no-reconnect")...)
	if res.code != 0 {
		t.Errorf("%s: exit %d: %s", os.DevNull, res.code, res.stderr)
	}
	if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode()&os.ModeCharDevice == 0 || fi.Mode().Perm() != 0o666 {
		t.Errorf("%s is now %v %v", os.DevNull, fi.Mode(), err)
	}

	fifo, got := readFIFO(t, filepath.Join(t.TempDir(), "pipe.jsonl"))
	res = run(t, "", recordArgs(srv.URL, fifo, "--no-device", "--no-reconnect")...)
	if res.code != 0 {
		t.Fatalf("fifo: exit %d: %s", res.code, res.stderr)
	}
	b := <-got
	r, err := capture.NewReader(bytes.NewReader(b), capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := r.Next(); err != nil {
			break
		}
	}
	if st := r.Stats(); st.Frames != 7 || st.Marks != 3 {
		t.Errorf("read from the fifo: %+v", st)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 || fi.Mode().Perm() != 0o644 {
		t.Errorf("fifo is now %v %v", fi.Mode(), err)
	}
}

// TestRecordProxyBufferFlag: a message longer than --proxy-buffer is
// relayed whole, and the capture and stderr say it was not recorded.
func TestRecordProxyBufferFlag(t *testing.T) {
	big := `{"type":"req","id":"1","method":"chat.send","params":{"message":"` + strings.Repeat("z", 5000) + `"}}`
	up := fakegw.New(fakegw.Config{})
	defer up.Close()
	out := filepath.Join(t.TempDir(), "p.jsonl")
	args := proxyArgs(t, up.URL, out)
	args = append(args, "--proxy-buffer", "4kB")
	res := runWhile(t, args, func(listen string) {
		c, _, err := websocket.DefaultDialer.Dial("ws://"+listen, nil)
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Close()
		_, _, _ = c.ReadMessage() // the challenge
		if err := c.WriteMessage(websocket.TextMessage, []byte(big)); err != nil {
			t.Error(err)
		}
		_, _, _ = c.ReadMessage() // the fake refuses a connect it cannot read: the close
	})
	if res.code != 0 || !strings.Contains(res.stderr, "larger than the proxy buffer (4000 bytes)") ||
		!strings.Contains(res.stderr, "1 message(s) longer than --proxy-buffer were forwarded but not recorded") {
		t.Errorf("exit %d: %s", res.code, res.stderr)
	}
	_, recs, _ := capturetest.Read(t, out)
	found := false
	for _, r := range recs {
		if r.Mark == capture.MarkOversize && r.Dir == capture.DirOut && r.Size == int64(len(big)) {
			found = true
		}
		if r.Frame != nil && strings.Contains(string(r.Frame), "zzzz") {
			t.Error("the oversize message was recorded")
		}
	}
	if !found {
		t.Errorf("no oversize marker: %v", capturetest.Marks(recs))
	}
}
