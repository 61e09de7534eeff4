package record

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/clawtap/clawtap/internal/capturetest"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/gorilla/websocket"
)

func TestPumpGrowsItsBufferOnlyToTheLimit(t *testing.T) {
	p := pump{limit: 100 << 10}
	for range 10 {
		p.grow(p.limit + 1)
	}
	if cap(p.buf) != 100<<10+1 {
		t.Errorf("cap %d, want the limit + 1", cap(p.buf))
	}
	p = pump{limit: 1 << 62}
	p.grow(1 << 62)
	if cap(p.buf) != 64<<10 {
		t.Errorf("first buffer %d bytes", cap(p.buf))
	}
}

// TestProxyNeverPassesOnACutMessage: a client that dies in the middle of
// a message longer than the buffer, which the proxy was forwarding as it
// arrived: the gateway must not receive the part as a whole message.
func TestProxyNeverPassesOnACutMessage(t *testing.T) {
	got := make(chan string, 4)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		for {
			_, b, err := c.ReadMessage()
			if err != nil {
				got <- "error"
				return
			}
			got <- fmt.Sprintf("message of %d bytes", len(b))
		}
	}))
	defer up.Close()
	rec, w, path := newTestRecorder(t, "cut.jsonl")
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- rec.Proxy(ctx, Proxy{Listener: ln, Upstream: "ws" + strings.TrimPrefix(up.URL, "http"), Buffer: 1000})
	}()
	c, _, err := websocket.DefaultDialer.Dial("ws://"+ln.Addr().String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	mw, _ := c.NextWriter(websocket.TextMessage)
	part := []byte(`{"text":"` + strings.Repeat("y", 20000))
	if _, err := mw.Write(part); err != nil { // more than the client's write buffer: frames go out
		t.Fatal(err)
	}
	waitFor(t, func() bool { return rec.Stats().Peers == 1 })
	time.Sleep(100 * time.Millisecond)
	c.NetConn().Close() // gone, mid-message
	select {
	case g := <-got:
		if g != "error" {
			t.Fatalf("the gateway got a %s: a cut message passed on as whole", g)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the gateway's side was not closed")
	}
	waitFor(t, func() bool { return rec.Stats().Peers == 0 })
	cancel()
	<-done
	w.Close()
	_, recs, _ := capturetest.Read(t, path)
	var over *capture.Record
	for _, r := range recs {
		if r.Mark == capture.MarkOversize {
			over = r
		}
	}
	if over == nil || over.Dir != capture.DirOut || over.Size <= 1000 || over.Size > int64(len(part)) || !strings.Contains(over.Reason, "ended after") {
		t.Errorf("oversize marker %+v; markers %v", over, capturetest.Marks(recs))
	}
}

// wsPair returns both ends of one WebSocket connection: the server's and
// the client's.
func wsPair(t *testing.T) (server, client *websocket.Conn) {
	t.Helper()
	conns := make(chan *websocket.Conn, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
		if err != nil {
			t.Error(err)
			return
		}
		conns <- c
	}))
	t.Cleanup(srv.Close)
	client, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	server = <-conns
	t.Cleanup(func() { client.Close(); server.Close() })
	return server, client
}

// TestPumpLeavesAStreamedMessageOpenUntilRecorded: a message longer than
// the buffer reaches the receiver whole only when the caller ends it, after
// recording it; so the receiver's reply cannot be recorded first.
func TestPumpLeavesAStreamedMessageOpenUntilRecorded(t *testing.T) {
	src, sender := wsPair(t)
	dst, receiver := wsPair(t)
	msg := []byte(`{"text":"` + strings.Repeat("z", 5000) + `"}`)
	if err := sender.WriteMessage(websocket.TextMessage, msg); err != nil {
		t.Fatal(err)
	}
	p := pump{limit: 1000}
	m, err := p.read(src, dst)
	if err != nil || !m.streamed || m.size != int64(len(msg)) || m.end == nil {
		t.Fatalf("read: %+v, %v", m, err)
	}
	got := make(chan int, 1)
	go func() {
		_, b, err := receiver.ReadMessage()
		if err != nil {
			got <- -1
			return
		}
		got <- len(b)
	}()
	select {
	case n := <-got:
		t.Fatalf("the receiver had the message (%d) before it was ended", n)
	case <-time.After(200 * time.Millisecond):
	}
	if err := m.end.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case n := <-got:
		if n != len(msg) {
			t.Fatalf("the receiver got %d bytes, want %d", n, len(msg))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the receiver never got the message")
	}
}
