package record

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/clawtap/clawtap/internal/capturetest"
	"github.com/clawtap/clawtap/internal/fakegw"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/gateway"
)

func TestBackoff(t *testing.T) {
	b := Backoff{Base: 100 * time.Millisecond, Max: time.Second, Rand: func() float64 { return 1 }}
	want := []time.Duration{100, 200, 400, 800, 1000, 1000}
	for i, w := range want {
		if d := b.Delay(i); d != w*time.Millisecond {
			t.Errorf("attempt %d: %v, want %v", i, d, w*time.Millisecond)
		}
	}
	b.Rand = func() float64 { return 0 }
	if d := b.Delay(2); d != 200*time.Millisecond {
		t.Errorf("jitter floor: %v", d)
	}
	if d := b.Delay(10000); d != 500*time.Millisecond {
		t.Errorf("huge attempt: %v", d)
	}
	b.Rand = nil // crypto jitter stays within [half, all]
	for range 100 {
		if d := b.Delay(1); d < 100*time.Millisecond || d > 200*time.Millisecond {
			t.Fatalf("random jitter out of range: %v", d)
		}
	}
}

func TestRecordReconnectsWithNewConnAndMarkers(t *testing.T) {
	var mu sync.Mutex
	helloN := 0
	srv := fakegw.New(fakegw.Config{Unavailable: 2, OnHello: func(c *fakegw.Conn) {
		mu.Lock()
		helloN++
		n := helloN
		mu.Unlock()
		c.ChatBurst(fmt.Sprintf("run-%d", n))
		if n == 1 {
			_ = c.Event("shutdown", map[string]any{"reason": "gateway stopping"})
			c.CloseWith(1012, "service restart")
		}
	}})
	rec, w, path := newTestRecorder(t, "re.jsonl.zst")
	handshakes := 0
	rec.OnHandshake = func() error { handshakes++; return nil }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- rec.Record(ctx, quietDirect(srv.URL)) }()
	waitFor(t, func() bool { mu.Lock(); defer mu.Unlock(); return helloN >= 2 })
	// Gateway crash: the connection drops without a close frame, the
	// gateway is gone for a moment, then comes back on the same port.
	addr := srv.Addr()
	time.Sleep(100 * time.Millisecond)
	srv.Close()
	time.Sleep(150 * time.Millisecond)
	srv2, err := fakegw.NewAt(addr, fakegw.Config{OnHello: func(c *fakegw.Conn) { c.ChatBurst("after") }})
	if err != nil {
		t.Fatal(err)
	}
	defer srv2.Close()
	waitFor(t, func() bool { return len(srv2.Connects()) >= 1 && rec.Stats().State == "connected" })
	time.Sleep(100 * time.Millisecond)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	w.Close()
	if handshakes != 1 {
		t.Errorf("OnHandshake ran %d times, want once", handshakes)
	}
	h, recs, _ := capturetest.Read(t, path)
	if h == nil || h.Source.Mode != "record" || h.Source.Tool != "test" || h.Redaction == nil || !h.Redaction.Credentials {
		t.Errorf("header %+v", h)
	}
	joined := strings.Join(capturetest.Marks(recs), " ")
	// conn 1 and 2: startup UNAVAILABLE; 3: first session, closed 1012;
	// 4: second session, dropped; then failed dials; last: after restart.
	if !strings.HasPrefix(joined, "1:open 1:error 1:close 2:open 2:error 2:close 3:open 3:hello 3:close 4:open 4:hello 4:close") {
		t.Fatalf("markers: %s", joined)
	}
	last := recs[len(recs)-1]
	if last.Mark != capture.MarkClose || last.Dir != capture.DirOut {
		t.Errorf("last %+v", last)
	}
	lastConn := last.Conn
	if !strings.Contains(joined, fmt.Sprintf("%d:open %d:hello %d:close", lastConn, lastConn, lastConn)) {
		t.Errorf("no hello on the final connection: %s", joined)
	}
	for _, r := range recs {
		if r.Mark == capture.MarkClose && r.Conn == 3 && (r.Code != 1012 || r.Dir != capture.DirIn) {
			t.Errorf("conn 3 close %+v", r)
		}
		if r.Mark == capture.MarkClose && r.Conn == 4 && r.Code != 1006 {
			t.Errorf("conn 4 close %+v", r)
		}
		if r.Mark == capture.MarkError && r.Conn == 1 && !strings.Contains(r.Err, "starting") {
			t.Errorf("conn 1 error %+v", r)
		}
	}
	// Each connection's seq restarts at 1 and nothing before the restart
	// was lost.
	seqs := capturetest.FrameSeqs(recs)
	for _, c := range []int{3, 4, lastConn} {
		if fmt.Sprint(seqs[c]) != "[1 2 3 4]" && fmt.Sprint(seqs[c]) != "[1 2 3 4 5]" {
			t.Errorf("conn %d seqs %v", c, seqs[c])
		}
	}
	if s := rec.Stats(); s.State != "stopped" || s.Opened != strings.Count(joined, ":open") || s.Conns != lastConn {
		t.Errorf("stats %+v for markers %s", s, joined)
	}
}

func TestRecordFlushIntervalMakesFileReadableWithoutClose(t *testing.T) {
	release := make(chan struct{})
	srv := fakegw.New(fakegw.Config{OnHello: func(c *fakegw.Conn) {
		for i := 0; i < 100; i++ {
			_ = c.Event("tick", map[string]any{"ts": i})
		}
		<-release
	}})
	defer srv.Close()
	defer close(release)
	rec, _, path := newTestRecorder(t, "crash.jsonl.zst")
	rec.FlushInterval = 20 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go rec.Record(ctx, quietDirect(srv.URL))
	waitFor(t, func() bool { return rec.Stats().Frames >= 103 })
	time.Sleep(100 * time.Millisecond)
	// Never closed: read what a crash right now would leave behind.
	_, recs, st := capturetest.Read(t, path)
	if st.Frames != 103 || !st.Truncated {
		t.Errorf("frames %d truncated %v", st.Frames, st.Truncated)
	}
	if got := strings.Join(capturetest.Marks(recs), " "); got != "1:open 1:hello" {
		t.Errorf("markers %s", got)
	}
}

// stepClock is a fake clock: Now is fixed, Sleep notes the wait and
// returns at once; the stopAt-th wait calls stop instead.
type stepClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
	stopAt int
	stop   func()
}

func (c *stepClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *stepClock) Sleep(ctx context.Context, d time.Duration) bool {
	c.mu.Lock()
	c.sleeps = append(c.sleeps, d)
	if len(c.sleeps) == c.stopAt {
		c.stop()
	}
	c.mu.Unlock()
	return ctx.Err() == nil
}

func TestRecordUsesItsClock(t *testing.T) {
	srv := fakegw.New(fakegw.Config{Unavailable: 3, OnHello: func(c *fakegw.Conn) {
		c.ChatBurst("r")
		c.CloseWith(1000, "bye")
	}})
	defer srv.Close()
	rec, w, path := newTestRecorder(t, "clock.jsonl")
	clk := &stepClock{now: time.UnixMilli(1795317835055)}
	rec.Clock, rec.FlushInterval = clk, -1
	d := quietDirect(srv.URL)
	d.Backoff = Backoff{Base: time.Second, Max: time.Minute, Rand: func() float64 { return 1 }}
	ctx, cancel := context.WithCancel(context.Background())
	clk.stopAt, clk.stop = 4, cancel
	if err := rec.Record(ctx, d); err != nil {
		t.Fatal(err)
	}
	w.Close()
	// Three UNAVAILABLE answers with retryAfterMs 50: 50 ms plus the 20 %
	// jitter each; then the gateway closed and the reconnect waits the
	// first backoff step (1 s, all of it with Rand 1). All on the fake
	// clock, which stops the test at that fourth wait.
	if got := fmt.Sprint(clk.sleeps); got != "[60ms 60ms 60ms 1s]" {
		t.Errorf("waits %s", got)
	}
	h, recs, _ := capturetest.Read(t, path)
	if h.CreatedAt != "2026-11-22T03:23:55Z" {
		t.Errorf("header time %s", h.CreatedAt)
	}
	for _, r := range recs {
		if r.T != 1795317835055 {
			t.Fatalf("record time %d not from the clock: %+v", r.T, r)
		}
	}
}

func TestRecordGatewayNotRunning(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	rec, w, path := newTestRecorder(t, "none.jsonl")
	called := false
	rec.OnHandshake = func() error { called = true; return nil }
	err := rec.Record(context.Background(), quietDirect("ws://"+addr))
	w.Close()
	var ge *gateway.Error
	if !errors.As(err, &ge) || ge.Kind != gateway.KindNetwork || IsWriteError(err) {
		t.Fatalf("err = %v", err)
	}
	if s := rec.Stats(); s.Opened != 0 || s.Conns != 1 || called {
		t.Errorf("stats %+v, OnHandshake called %v", s, called)
	}
	if _, recs, _ := capturetest.Read(t, path); strings.Join(capturetest.Marks(recs), " ") != "1:error" {
		t.Errorf("markers %v", capturetest.Marks(recs))
	}
}

func TestRecordHandshakeHookErrorEndsTheRecording(t *testing.T) {
	srv := fakegw.New(fakegw.Config{OnHello: func(c *fakegw.Conn) {
		for i := 0; c.Event("tick", map[string]any{"ts": i}) == nil; i++ {
			time.Sleep(time.Millisecond)
		}
	}})
	defer srv.Close()
	rec, w, _ := newTestRecorder(t, "hook.jsonl")
	defer w.Close()
	boom := errors.New("cannot publish")
	rec.OnHandshake = func() error { return boom }
	done := make(chan error, 1)
	go func() { done <- rec.Record(context.Background(), quietDirect(srv.URL)) }()
	select {
	case err := <-done:
		if !errors.Is(err, boom) || IsWriteError(err) {
			t.Fatalf("err = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the recording went on after OnHandshake failed")
	}
}

// failAfter is a writer that fails once n bytes were written.
type failAfter struct {
	mu  sync.Mutex
	n   int
	err error
	buf bytes.Buffer
}

func (f *failAfter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.buf.Len()+len(p) > f.n {
		return 0, f.err
	}
	return f.buf.Write(p)
}

func TestRecordWriteErrorEndsTheRecording(t *testing.T) {
	srv := fakegw.New(fakegw.Config{OnHello: func(c *fakegw.Conn) {
		for i := 0; c.Event("tick", map[string]any{"ts": i}) == nil; i++ {
			time.Sleep(time.Millisecond)
		}
	}})
	defer srv.Close()
	sink := &failAfter{n: 4000, err: syscall.EPIPE}
	w, _ := capture.NewWriter(sink, false)
	rec := &Recorder{Capture: w, FlushInterval: 5 * time.Millisecond}
	done := make(chan error, 1)
	go func() { done <- rec.Record(context.Background(), quietDirect(srv.URL)) }()
	select {
	case err := <-done:
		if !IsWriteError(err) || !errors.Is(err, syscall.EPIPE) {
			t.Fatalf("err = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the recording went on after the capture could not be written")
	}
	if s := rec.Stats(); s.Opened != 1 || s.Frames == 0 {
		t.Errorf("stats %+v", s)
	}
}

func TestRecordAbortStopsWriting(t *testing.T) {
	srv := fakegw.New(fakegw.Config{OnHello: func(c *fakegw.Conn) {
		for i := 0; c.Event("tick", map[string]any{"ts": i}) == nil; i++ {
			time.Sleep(time.Millisecond)
		}
	}})
	defer srv.Close()
	var sink failAfter
	sink.n = 1 << 30
	w, _ := capture.NewWriter(&sink, false)
	rec := &Recorder{Capture: w, FlushInterval: time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- rec.Record(ctx, quietDirect(srv.URL)) }()
	waitFor(t, func() bool { return rec.Stats().Frames > 20 })
	rec.Abort()
	frames := rec.Stats().Frames
	time.Sleep(50 * time.Millisecond)
	sink.mu.Lock()
	n := sink.buf.Len()
	sink.mu.Unlock()
	time.Sleep(100 * time.Millisecond)
	cancel()
	<-done
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if sink.buf.Len() != n || rec.Stats().Frames > frames+1 {
		t.Errorf("written after Abort: %d → %d bytes, %d → %d frames", n, sink.buf.Len(), frames, rec.Stats().Frames)
	}
}

func TestRecordRefusesASecondRunAndANilCapture(t *testing.T) {
	if err := (&Recorder{}).Record(context.Background(), Direct{URL: "ws://127.0.0.1:1"}); err == nil {
		t.Error("nil Capture accepted")
	}
	rec, w, _ := newTestRecorder(t, "twice.jsonl")
	defer w.Close()
	_ = rec.Record(context.Background(), Direct{URL: "ws://127.0.0.1:1"})
	if err := rec.Record(context.Background(), Direct{URL: "ws://127.0.0.1:1"}); err == nil || !strings.Contains(err.Error(), "once") {
		t.Errorf("second run: %v", err)
	}
}
