package serve

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/gorilla/websocket"
)

func (b *capBuilder) end(tms int64, code int, reason, dir string) *capBuilder {
	b.t.Helper()
	if err := b.w.Write(&capture.Record{T: tms, Conn: b.conn, Mark: capture.MarkClose, Code: code, Reason: reason, Dir: dir}); err != nil {
		b.t.Fatal(err)
	}
	return b
}

func (b *capBuilder) fail(tms int64, why string) *capBuilder {
	b.t.Helper()
	if err := b.w.Write(&capture.Record{T: tms, Conn: b.conn, Mark: capture.MarkError, Err: why}); err != nil {
		b.t.Fatal(err)
	}
	return b
}

func (b *capBuilder) loadReconnects() *Script { return b.load(LoadOptions{Reconnects: true}) }

// restartCapture: the gateway restarts under a client (1012), a first
// reconnect attempt fails, the second gets in; the recorder stops later.
// With end set, the first connection instead breaks with no close frame.
func restartCapture(t *testing.T, broke bool) *capBuilder {
	b := newCap(t).handshake(1000)
	b.in(1100, tick(1, 1))
	b.in(1200, tick(2, 2))
	if broke {
		b.fail(1500, "read tcp: connection reset by peer")
	} else {
		b.end(1500, 1012, "service restart", capture.DirIn)
	}
	b.conn = 2
	b.fail(1600, "dial tcp 127.0.0.1:18789: connect: connection refused")
	b.conn = 3
	b.handshake(3000)
	b.in(3100, tick(1, 10))
	b.in(3200, tick(2, 11))
	b.end(3500, 1000, "recorder stopped", capture.DirOut)
	return b
}

// turnedAway writes a connect the restarting gateway answered with
// UNAVAILABLE and closed with 1013, as clawtap record files it: an open
// marker, the challenge, the connect and its error, then error and close
// markers.
func (b *capBuilder) turnedAway(tms int64) *capBuilder {
	b.mark(tms, capture.MarkOpen)
	b.in(tms, `{"type":"event","event":"connect.challenge","payload":{"nonce":"n2","ts":1}}`)
	b.out(tms+1, `{"type":"req","id":"c2","method":"connect","params":{"minProtocol":3,"maxProtocol":4,"client":{"id":"cli","mode":"cli"}}}`)
	b.in(tms+2, `{"type":"res","id":"c2","ok":false,"error":{"code":"UNAVAILABLE","message":"gateway starting","retryable":true}}`)
	b.fail(tms+3, "the gateway is starting or restarting")
	return b.end(tms+3, 1013, "gateway starting", capture.DirIn)
}

// A real restart as the recorder files it (TestRealRestartServedTo… in
// e2e/ records one): refused dials, connects the starting gateway turned
// away, then the attempt that got hello-ok. The chain goes from the first
// connection straight to that attempt.
func TestReconnectSkipsTheAttemptsTurnedAway(t *testing.T) {
	b := newCap(t).handshake(1000)
	b.in(1100, tick(1, 1))
	b.end(1500, 1012, "service restart", capture.DirIn)
	b.conn = 2
	b.fail(1600, "dial tcp: connection refused")
	b.conn = 3
	b.turnedAway(2000)
	b.conn = 4
	b.turnedAway(2500)
	b.conn = 5
	b.handshake(3000)
	b.in(3100, tick(1, 10))
	s := b.loadReconnects()
	if n := s.Next(); n == nil || n.Conn != 5 || n.Frames() != 1 {
		t.Fatalf("next %+v: want connection 5, the attempt that got hello-ok", n)
	}
	if d := Describe(s, Options{Reconnects: true}); !strings.Contains(d, "1 reconnect(s) follow") {
		t.Errorf("description: %s", d)
	}
}

func TestLoadFollowsReconnects(t *testing.T) {
	s := restartCapture(t, false).loadReconnects()
	if s.Conn != 1 || s.End() == nil || *s.End() != (Closing{T: 1500, Code: 1012, Reason: "service restart"}) {
		t.Fatalf("first connection %d ends %+v", s.Conn, s.End())
	}
	n := s.Next()
	if n == nil || n.Conn != 3 || n.Frames() != 2 || n.Hello == nil || n.HelloFromConn != 3 || n.StartT != 3000 {
		t.Fatalf("next %+v: want connection 3 (the failed attempt 2 skipped) with its hello and 2 frames", n)
	}
	if n.End() != nil || n.Next() != nil {
		t.Fatalf("the recorder stopping is not an end to play: %+v", n.End())
	}
	if s := restartCapture(t, false).script(0); s.Next() != nil {
		t.Fatal("without Reconnects nothing follows")
	}
	if s := restartCapture(t, true).loadReconnects(); s.End() == nil || s.End().Code != 0 || s.Next() == nil {
		t.Fatalf("a broken connection: %+v", s.End())
	}
}

func TestStreamPlaysTheRecordedEnd(t *testing.T) {
	s := restartCapture(t, false).loadReconnects()
	clk := NewFakeClock(time.Unix(1_800_000_000, 0))
	st := NewStreamer(s, StreamOptions{Clock: clk, PlayClose: true})
	start := clk.Now()
	var sent []time.Duration
	done := make(chan error, 1)
	go func() {
		done <- st.Run(context.Background(), func([]byte) error { sent = append(sent, clk.Now().Sub(start)); return nil })
	}()
	var err error
	for err == nil {
		select {
		case err = <-done:
		case <-clk.TimerAdded():
			clk.AdvanceToNext()
		case <-time.After(10 * time.Second):
			t.Fatal("streamer hung")
		}
	}
	var end *EndError
	if !errors.As(err, &end) || end.Code != 1012 || end.Reason != "service restart" {
		t.Fatalf("Run = %v, want the recorded 1012", err)
	}
	// Ticks at +100 and +200 ms after the hello, the close at +500.
	if len(sent) != 2 || sent[1] != 200*time.Millisecond || clk.Now().Sub(start) != 500*time.Millisecond {
		t.Fatalf("frames at %v, end at %v", sent, clk.Now().Sub(start))
	}
}

const uiConnect = `{"type":"req","id":"ui-connect","method":"connect","params":{"minProtocol":3,"maxProtocol":4,"client":{"id":"openclaw-control-ui","version":"1","platform":"web","mode":"webchat","instanceId":"tab-1"},"role":"operator","scopes":["operator.read"]}}`

func TestReconnectsOverTheWire(t *testing.T) {
	s := restartCapture(t, false).loadReconnects()
	sv, url := startServer(t, s, Options{Reconnects: true, Once: true, Pacing: Pacing{Fast: true}})
	ui := dial(t, url)
	connect(t, ui, uiConnect)
	for i := 1; i <= 2; i++ {
		if got := read(t, ui); got != tick(i, int64(i)) {
			t.Fatalf("frame %d: %s", i, got)
		}
	}
	if code, reason := expectClose(t, ui); code != 1012 || reason != "service restart" {
		t.Fatalf("closed with %d %q, want the recorded 1012", code, reason)
	}
	select {
	case <-sv.Done():
		t.Fatal("--once ended at the restart, before the reconnect played")
	case <-time.After(100 * time.Millisecond):
	}
	// Another client starts at the beginning.
	other := dial(t, url)
	connect(t, other, connectReq)
	if got := read(t, other); got != tick(1, 1) {
		t.Fatalf("another client got %s", got)
	}
	// The UI comes back: it gets the connection that followed, its seq from 1.
	ui = dial(t, url)
	if hello := connect(t, ui, uiConnect); str(t, hello, "payload", "type") != "hello-ok" {
		t.Fatalf("reconnect: %s", hello)
	}
	for i := 1; i <= 2; i++ {
		if got := read(t, ui); got != tick(i, int64(9+i)) {
			t.Fatalf("after the reconnect, frame %d: %s", i, got)
		}
	}
	select {
	case <-sv.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("--once did not end after the last connection of the chain")
	}
}

func TestReconnectsDropsABrokenConnection(t *testing.T) {
	s := restartCapture(t, true).loadReconnects()
	_, url := startServer(t, s, Options{Reconnects: true, Pacing: Pacing{Fast: true}})
	c := dial(t, url)
	connect(t, c, uiConnect)
	read(t, c)
	read(t, c)
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, _, err := c.ReadMessage()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.CloseAbnormalClosure {
		t.Fatalf("got %v, want the connection dropped without a close frame (1006)", err)
	}
}

// A capture holding invalid UTF-8 (a damaged file, a gateway bug) never
// makes serve send a text message or close reason a browser would fail the
// connection over: every one it sends is valid UTF-8 (the capture reader
// repairs and counts the bytes, see pkg/capture), the rest of each frame as
// recorded, and a close reason is cut between characters.
func TestInvalidUTF8IsNeverSent(t *testing.T) {
	b := newCap(t).handshake(1000)
	b.in(1100, "{\"type\":\"event\",\"event\":\"chat\",\"payload\":{\"text\":\"caf\xc3 \xff\"},\"seq\":1}")
	b.in(1200, "not json \xfe")
	b.in(1300, tick(2, 2))
	b.end(1400, 1012, strings.Repeat("é", 61)+"\xff restart", capture.DirIn)
	s := b.loadReconnects()
	var mu sync.Mutex
	var logs []string
	_, url := startServer(t, s, Options{Reconnects: true, Pacing: Pacing{Fast: true}, Logf: func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		logs = append(logs, fmt.Sprintf(format, args...))
	}})
	c := dial(t, url)
	connect(t, c, uiConnect)
	var got []string
	for {
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, msg, err := c.ReadMessage()
		if err != nil {
			var ce *websocket.CloseError
			if !errors.As(err, &ce) || ce.Code != 1012 || !utf8.ValidString(ce.Text) || len(ce.Text) > 123 {
				t.Fatalf("end: %v", err)
			}
			break
		}
		if !utf8.Valid(msg) {
			t.Fatalf("sent invalid UTF-8: %q", msg)
		}
		got = append(got, string(msg))
	}
	if len(got) != 3 || !strings.Contains(got[0], `"payload":{"text":"caf`) || !strings.HasSuffix(got[0], `"},"seq":1}`) || got[2] != tick(2, 2) {
		t.Fatalf("frames %q", got)
	}
	c.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		all := strings.Join(logs, "\n")
		mu.Unlock()
		if strings.Contains(all, "gone") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no summary:\n%s", all)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The client that reconnects reads on from where its previous stream
// ended, instead of reading the capture again from the start.
func TestReconnectReadsOn(t *testing.T) {
	data := restartCapture(t, false).bytes()
	src := BytesSource(data)
	s, err := Load(src, LoadOptions{Reconnects: true})
	if err != nil {
		t.Fatal(err)
	}
	<-s.Ready()
	_, url := startServer(t, s, Options{Reconnects: true, Pacing: Pacing{Fast: true}})
	for round, want := range []int64{1, 10} {
		ui := dial(t, url)
		connect(t, ui, uiConnect)
		for i := int64(1); i <= 2; i++ {
			if got := read(t, ui); got != tick(int(i), want+i-1) {
				t.Fatalf("connection %d, frame %d: %s", round+1, i, got)
			}
		}
		if round == 0 {
			if code, _ := expectClose(t, ui); code != 1012 {
				t.Fatalf("closed with %d", code)
			}
		}
	}
	if n := src.opened.Load(); n != 2 {
		t.Fatalf("the capture was opened %d times, want 2: the pre-pass and the client's first connection", n)
	}
}
