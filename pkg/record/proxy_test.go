package record

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/clawtap/clawtap/internal/capturetest"
	"github.com/clawtap/clawtap/internal/fakegw"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/gateway"
	"github.com/gorilla/websocket"
)

const testToken = "sekrit-gateway-token-0123456789"

func TestProxyRelaysAndRecordsBothDirections(t *testing.T) {
	up := fakegw.New(fakegw.Config{Token: testToken, RequireDevice: true, OnRequest: func(c *fakegw.Conn, r fakegw.Request) {
		_ = c.Respond(r.ID, true, map[string]any{"runId": "p1", "status": "started"}, nil)
		c.ChatBurst("p1")
	}})
	defer up.Close()
	rec, w, path := newTestRecorder(t, "proxy.jsonl.zst")
	handshakes := 0
	rec.OnHandshake = func() error { handshakes++; return nil }
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- rec.Proxy(ctx, Proxy{Listener: ln, Upstream: up.URL}) }()
	proxyURL := "ws://" + ln.Addr().String()

	// Two clients doing their own (signed) handshakes through the proxy.
	id, _ := gateway.NewIdentity(nil)
	c1, err := gateway.Dial(ctx, proxyURL, gateway.Options{Token: testToken, Identity: id})
	if err != nil {
		t.Fatalf("dial through proxy: %v", err)
	}
	c2, err := gateway.Dial(ctx, proxyURL, gateway.Options{Token: testToken, Identity: id})
	if err != nil {
		t.Fatal(err)
	}
	cl := gateway.NewClient(c1)
	cctx, ccancel := context.WithTimeout(ctx, 5*time.Second)
	defer ccancel()
	if res, err := cl.Call(cctx, "chat.send", map[string]any{"message": "hi"}); err != nil || !res.OK {
		t.Fatalf("call: %v", err)
	}
	if _, err := cl.Wait(cctx, func(m gateway.Message) bool { return m.Event == "chat" && strings.Contains(string(m.Payload), "final") }); err != nil {
		t.Fatal(err)
	}
	if err := cl.Close(); err != nil {
		t.Fatal(err)
	}
	// Plain HTTP passes through to the gateway (which refuses a non-upgrade).
	resp, err := http.Get("http://" + ln.Addr().String() + "/")
	if err != nil || resp.StatusCode != http.StatusBadRequest {
		t.Errorf("http passthrough: %v %v", resp, err)
	}
	if resp != nil {
		resp.Body.Close()
	}
	// Stopping the proxy closes the still-open client with 1001.
	c2done := make(chan error, 1)
	go func() {
		_, err := c2.Read()
		for err == nil {
			_, err = c2.Read()
		}
		c2done <- err
	}()
	// Client 1's close is recorded (its relay gone) before the proxy stops.
	waitFor(t, func() bool { s := rec.Stats(); return s.Frames >= 12 && s.Peers == 1 })
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-c2done:
		if code, _ := gateway.CloseStatus(err); code != 1001 {
			t.Errorf("client 2 closed with %d (%v)", code, err)
		}
	case <-time.After(5 * time.Second):
		t.Error("client 2 not closed")
	}
	w.Close()
	if handshakes != 1 {
		t.Errorf("OnHandshake ran %d times, want once", handshakes)
	}
	h, recs, _ := capturetest.Read(t, path)
	if h.Source.Mode != "proxy" || h.Source.Listen != ln.Addr().String() || h.Source.URL != up.URL {
		t.Errorf("header source %+v", h.Source)
	}
	byConn := map[int][]string{}
	for _, r := range recs {
		switch {
		case r.Mark != "":
			byConn[r.Conn] = append(byConn[r.Conn], r.Mark+":"+r.Dir)
			if r.Mark == capture.MarkOpen && (r.Peer == "" || !strings.HasPrefix(r.URL, up.URL)) {
				t.Errorf("open marker %+v", r)
			}
		case r.Frame != nil:
			ev, _ := capturetest.Str(r.Frame, "event")
			m, _ := capturetest.Str(r.Frame, "method")
			ty, _ := capturetest.Str(r.Frame, "type")
			byConn[r.Conn] = append(byConn[r.Conn], r.Dir+":"+ty+":"+ev+m)
			if m == "connect" && (strings.Contains(string(r.Frame), testToken) || !strings.Contains(string(r.Frame), "__CLAWTAP_REDACTED__")) {
				t.Errorf("connect not redacted: %s", r.Frame)
			}
		}
	}
	want1 := "open: in:event:connect.challenge out:req:connect in:res: hello: out:req:chat.send in:res: in:event:agent in:event:chat in:event:chat in:event:chat close:out"
	if got := strings.Join(byConn[1], " "); got != want1 {
		t.Errorf("conn 1\n got %s\nwant %s", got, want1)
	}
	want2 := "open: in:event:connect.challenge out:req:connect in:res: hello: close:"
	if got := strings.Join(byConn[2], " "); got != want2 {
		t.Errorf("conn 2\n got %s\nwant %s", got, want2)
	}
	if cs := up.Connects(); len(cs) != 2 || !cs[0].SignatureOK || !cs[1].SignatureOK {
		t.Errorf("upstream connects %+v", cs)
	}
}

// echoServer is a WebSocket server that sends back every message it gets,
// plus, after a message "big:N", a message of N bytes of its own.
func echoServer(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		for {
			typ, b, err := c.ReadMessage()
			if err != nil {
				return
			}
			if err := c.WriteMessage(typ, b); err != nil {
				return
			}
			var n int
			if _, err := fmt.Sscanf(string(b), `{"big":%d}`, &n); err == nil {
				if err := c.WriteMessage(websocket.TextMessage, jsonOfSize(n, 'g')); err != nil {
					return
				}
			}
		}
	}))
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http")
}

// jsonOfSize is a JSON object of exactly n bytes (n ≥ 12).
func jsonOfSize(n int, fill byte) []byte {
	b := make([]byte, 0, n)
	b = append(b, `{"text":"`...)
	b = append(b, bytes.Repeat([]byte{fill}, n-len(b)-2)...)
	return append(b, `"}`...)
}

func TestProxyForwardsMessagesLargerThanTheBufferWithoutHoldingThem(t *testing.T) {
	up := echoServer(t)
	rec, w, path := newTestRecorder(t, "big.jsonl")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	const buffer = 1000
	go func() { done <- rec.Proxy(ctx, Proxy{Listener: ln, Upstream: up, Buffer: buffer}) }()
	c, _, err := websocket.DefaultDialer.Dial("ws://"+ln.Addr().String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	exchange := func(msg []byte, want ...[]byte) {
		t.Helper()
		if err := c.WriteMessage(websocket.TextMessage, msg); err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			_, got, err := c.ReadMessage()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, w) {
				t.Fatalf("got %d bytes %.40q…, want %d bytes %.40q…", len(got), got, len(w), w)
			}
		}
	}
	small, exact, over := jsonOfSize(100, 's'), jsonOfSize(buffer, 'e'), jsonOfSize(buffer+1, 'o')
	huge := jsonOfSize(5<<20, 'h')
	exchange(small, small)
	exchange(exact, exact)
	exchange(over, over)
	exchange(huge, huge)
	ask := []byte(fmt.Sprintf(`{"big":%d}`, 3<<20))
	exchange(ask, ask, jsonOfSize(3<<20, 'g'))
	// The proxy records a streamed message before its end reaches the
	// receiver, so a reply cannot be recorded first; the records above are
	// in before the client has read the last reply.
	if n := rec.Stats().Oversize; n != 5 {
		t.Errorf("%d oversize messages recorded once the client had read them all, want 5", n)
	}
	exchange(small, small) // still relaying, still recording
	c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(1000, "done"), time.Now().Add(time.Second))
	waitFor(t, func() bool { return rec.Stats().Peers == 0 })
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	w.Close()
	_, recs, _ := capturetest.Read(t, path)
	var got []string
	for _, r := range recs {
		switch {
		case r.Mark == capture.MarkOversize:
			got = append(got, fmt.Sprintf("oversize:%s:%d", r.Dir, r.Size))
			if !strings.Contains(r.Reason, "1000 bytes") {
				t.Errorf("oversize reason %q", r.Reason)
			}
		case r.Mark != "":
			got = append(got, r.Mark)
		default:
			got = append(got, fmt.Sprintf("%s:%d", r.Dir, len(r.Frame)))
		}
	}
	want := fmt.Sprintf("open out:100 in:100 out:1000 in:1000 oversize:out:1001 oversize:in:1001 oversize:out:%d oversize:in:%d out:%d in:%d oversize:in:%d out:100 in:100 close",
		5<<20, 5<<20, len(ask), len(ask), 3<<20)
	if s := strings.Join(got, " "); s != want {
		t.Errorf("records\n got %s\nwant %s", s, want)
	}
	if s := rec.Stats(); s.Oversize != 5 || s.Frames != 8 {
		t.Errorf("stats %+v", s)
	}
}

func TestResolveListenDefaultsToLoopback(t *testing.T) {
	cases := []struct {
		in, addr string
		loop     bool
	}{
		{"18790", "127.0.0.1:18790", true},
		{":18790", "127.0.0.1:18790", true},
		{"localhost:1", "localhost:1", true},
		{"[::1]:5", "[::1]:5", true},
		{"0.0.0.0:18790", "0.0.0.0:18790", false},
		{"192.168.1.4:80", "192.168.1.4:80", false},
	}
	for _, c := range cases {
		addr, loop, err := ResolveListen(c.in)
		if err != nil || addr != c.addr || loop != c.loop {
			t.Errorf("%q → %q %v %v", c.in, addr, loop, err)
		}
	}
	for _, bad := range []string{"127.0.0.1:", "a:b:c"} {
		if _, _, err := ResolveListen(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestParseHello(t *testing.T) {
	h, ok := parseHello([]byte(`{"type":"res","id":"1","ok":true,"payload":{"type":"hello-ok","protocol":4,"server":{"version":"2026.9.6","connId":"c1","bootId":"b1"}}}`))
	if !ok || h != (hello{4, "2026.9.6", "c1", "b1"}) {
		t.Errorf("hello %+v %v", h, ok)
	}
	for _, not := range []string{`{"type":"event","payload":{"type":"hello-ok"}}`, `{"type":"res","payload":{"type":"other"}}`, `{"type":"res"}`, `nope`} {
		if _, ok := parseHello([]byte(not)); ok {
			t.Errorf("%s taken for hello-ok", not)
		}
	}
}
