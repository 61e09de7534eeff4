package serve

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// connectAs is a connect from a client that names its instance, as the
// Control UI does.
func connectAs(instance string) string {
	return `{"type":"req","id":"c","method":"connect","params":{"minProtocol":3,"maxProtocol":4,"client":{"id":"openclaw-control-ui","mode":"webchat","instanceId":"` + instance + `"},"role":"operator"}}`
}

// noFrame fails if c is sent a frame within d.
func noFrame(t *testing.T, c *websocket.Conn, d time.Duration) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(d))
	if _, msg, err := c.ReadMessage(); err == nil {
		t.Fatalf("sent %s", msg)
	}
}

// A client that comes back after its whole stream gets the handshake and
// answers, and no frames: before, it was played the capture again.
func TestReconnectAfterTheEndGetsNoFrames(t *testing.T) {
	_, url := startServer(t, longScript(t, 3, 1), Options{Pacing: Pacing{Fast: true}})
	c := dial(t, url)
	connect(t, c, connectAs("ui-1"))
	if err := readStream(t, c, 3); err != nil {
		t.Fatal(err)
	}
	c.Close()
	time.Sleep(100 * time.Millisecond) // the server sees it go
	c = dial(t, url)
	if hello := connect(t, c, connectAs("ui-1")); str(t, hello, "payload", "type") != "hello-ok" {
		t.Fatalf("hello: %s", hello)
	}
	send(t, c, `{"type":"req","id":"h","method":"health","params":{}}`)
	if res := read(t, c); str(t, res, "id") != "h" {
		t.Fatalf("the first frame after the hello is not the answer: %s", res)
	}
	noFrame(t, c, 300*time.Millisecond)

	// Another instance gets the capture; so does the first one with FromStart.
	c2 := dial(t, url)
	connect(t, c2, connectAs("ui-2"))
	if err := readStream(t, c2, 3); err != nil {
		t.Fatal(err)
	}
	_, url = startServer(t, longScript(t, 3, 1), Options{Pacing: Pacing{Fast: true}, FromStart: true})
	for range 2 {
		c := dial(t, url)
		connect(t, c, connectAs("ui-1"))
		if err := readStream(t, c, 3); err != nil {
			t.Fatal(err)
		}
		c.Close()
		time.Sleep(50 * time.Millisecond)
	}
}

// A client that leaves in the middle of its stream resumes it where it
// left off, seq from 1 again as on any new connection; a client that names
// no instance or device starts over, as before.
func TestReconnectMidStreamResumes(t *testing.T) {
	b := newCap(t).handshake(1000)
	for i := 1; i <= 6; i++ {
		b.in(1000+int64(i)*100, tick(i, int64(i)))
	}
	_, url := startServer(t, b.script(0), Options{Pacing: Pacing{MaxGap: 20 * time.Millisecond}})
	c := dial(t, url)
	connect(t, c, connectAs("ui-1"))
	if err := readStream(t, c, 2); err != nil {
		t.Fatal(err)
	}
	c.Close()
	time.Sleep(100 * time.Millisecond)
	c = dial(t, url)
	connect(t, c, connectAs("ui-1"))
	for i := 3; i <= 6; i++ {
		f := read(t, c)
		if str(t, f, "payload", "ts") != fmt.Sprint(i) {
			t.Fatalf("frame %d after the reconnect: %s", i, f)
		}
		if seq := str(t, f, "seq"); seq != fmt.Sprint(i-2) {
			t.Fatalf("frame %d has seq %s, want %d", i, seq, i-2)
		}
	}
	// connectReq names only client.id and mode: a kind of client, not one.
	c = dial(t, url)
	connect(t, c, connectReq)
	if err := readStream(t, c, 2); err != nil {
		t.Fatal(err)
	}
	c.Close()
	time.Sleep(100 * time.Millisecond)
	c = dial(t, url)
	connect(t, c, connectReq)
	if err := readStream(t, c, 6); err != nil {
		t.Fatal(err)
	}
}

// With Once, requests are answered for the grace period after the first
// client's stream, then Done closes; a first client that leaves and comes
// back within it goes on.
func TestOnceGrace(t *testing.T) {
	clk := NewFakeClock(time.Unix(1_800_000_000, 0))
	sv, url := startServer(t, longScript(t, 3, 1), Options{Once: true, Grace: 5 * time.Second, Pacing: Pacing{Fast: true}, Clock: clk})
	c := dial(t, url)
	connect(t, c, connectAs("ui-1"))
	if err := readStream(t, c, 3); err != nil {
		t.Fatal(err)
	}
	<-clk.TimerAdded() // the grace period started
	send(t, c, `{"type":"req","id":"late","method":"chat.history","params":{"sessionKey":"agent:main:main"}}`)
	if res := read(t, c); str(t, res, "id") != "late" {
		t.Fatalf("a request after the stream: %s", res)
	}
	select {
	case <-sv.Done():
		t.Fatal("done before the grace period passed")
	case <-time.After(50 * time.Millisecond):
	}
	clk.Advance(5 * time.Second)
	select {
	case <-sv.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("not done after the grace period")
	}

	// Left mid-stream and back within the grace period: not done until its
	// stream is over and the grace period after it has passed.
	clk = NewFakeClock(time.Unix(1_800_000_000, 0))
	b := newCap(t).handshake(1000)
	for i := 1; i <= 4; i++ {
		b.in(1000+int64(i)*1000, tick(i, int64(i)))
	}
	sv, url = startServer(t, b.script(0), Options{Once: true, Grace: 5 * time.Second, Clock: clk})
	c = dial(t, url)
	connect(t, c, connectAs("ui-1"))
	<-clk.TimerAdded()
	clk.AdvanceToNext()
	if f := read(t, c); str(t, f, "seq") != "1" {
		t.Fatalf("first frame %s", f)
	}
	<-clk.TimerAdded() // waiting for frame 2
	c.Close()
	<-clk.TimerAdded() // the grace period started
	c = dial(t, url)
	connect(t, c, connectAs("ui-1"))
	for i := 2; i <= 4; i++ {
		<-clk.TimerAdded()
		clk.AdvanceToNext()
		if f := read(t, c); str(t, f, "payload", "ts") != fmt.Sprint(i) {
			t.Fatalf("frame %d after coming back: %s", i, f)
		}
	}
	<-clk.TimerAdded() // the grace period after its end
	clk.Advance(4 * time.Second)
	select {
	case <-sv.Done():
		t.Fatal("done before the grace period after the end passed")
	case <-time.After(50 * time.Millisecond):
	}
	clk.Advance(time.Second)
	select {
	case <-sv.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("not done after the grace period")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	go sv.CloseWith(ctx, websocket.CloseNormalClosure, "end of capture")
	if code, _ := expectClose(t, c); code != 1000 {
		t.Fatalf("close %d", code)
	}
}

// Lead delays the first frame after the hello, for a UI that mounts its
// panes late; the gaps after it are as recorded.
func TestStreamLead(t *testing.T) {
	clk := NewFakeClock(time.Unix(1_800_000_000, 0))
	st := NewStreamer(pacingScript(t), StreamOptions{Clock: clk, Lead: 8 * time.Second})
	if got, want := atMs(drive(t, st, clk, 0)), []int64{8100, 8400, 38400, 38450}; !eqInts(got, want) {
		t.Fatalf("frame times %v, want %v", got, want)
	}
	// A resumed stream skips what was sent, and keeps the recorded gap.
	clk = NewFakeClock(time.Unix(1_800_000_000, 0))
	st = NewStreamer(pacingScript(t), StreamOptions{Clock: clk, Resume: true, After: 5, AfterT: 1400})
	out := drive(t, st, clk, 0)
	if got, want := atMs(out), []int64{30000, 30050}; !eqInts(got, want) {
		t.Fatalf("resumed: frame times %v, want %v", got, want)
	}
	if seq, _ := seqOf(t, out[0].frame); seq != 1 {
		t.Fatalf("resumed: first seq %d, want 1", seq)
	}
}
