package record

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// startGuardedProxy runs a proxy in front of an upstream that counts the
// requests that reach it (plain HTTP and WebSocket).
func startGuardedProxy(t *testing.T, p Proxy) (addr string, reached *atomic.Int64) {
	t.Helper()
	reached = new(atomic.Int64)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		if websocket.IsWebSocketUpgrade(r) {
			c, err := (&websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}).Upgrade(w, r, nil)
			if err == nil {
				c.Close()
			}
			return
		}
		w.Write([]byte("gateway page"))
	}))
	t.Cleanup(up.Close)
	rec, _, _ := newTestRecorder(t, "guard.jsonl.zst")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.Listener = ln
	p.Upstream = "ws" + strings.TrimPrefix(up.URL, "http")
	p.CloseWait = 100 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- rec.Proxy(ctx, p) }()
	t.Cleanup(func() { cancel(); <-done })
	return ln.Addr().String(), reached
}

func get(t *testing.T, addr, host, origin, method string) int {
	t.Helper()
	req, _ := http.NewRequest(method, "http://"+addr+"/v1/chat/completions", nil)
	req.Host = host
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// The recording proxy forwards plain HTTP (and WebSockets) only for a Host
// naming this machine's listener: a page on a foreign name that DNS
// rebinding points at 127.0.0.1 cannot reach the gateway through it. A
// browser page of another origin is refused too, as serve refuses it.
func TestProxyChecksHostAndOrigin(t *testing.T) {
	addr, reached := startGuardedProxy(t, Proxy{})
	_, port, _ := net.SplitHostPort(addr)
	for _, c := range []struct {
		host, origin, method string
		want                 int
	}{
		{"evil.example:" + port, "", "GET", http.StatusForbidden},
		{"evil.example", "", "POST", http.StatusForbidden},
		{"localhost.evil.example:" + port, "", "GET", http.StatusForbidden},
		{"127.0.0.1:" + port, "http://evil.example", "POST", http.StatusForbidden},
		{"127.0.0.1:" + port, "null", "POST", http.StatusForbidden},
		{"127.0.0.1:" + port, "", "GET", http.StatusOK},
		{"localhost:" + port, "", "GET", http.StatusOK},
		{"app.localhost:" + port, "http://app.localhost:" + port, "POST", http.StatusOK},
		{"[::1]:" + port, "", "GET", http.StatusOK},
		{"127.0.0.1:" + port, "http://localhost:5173", "POST", http.StatusOK},
	} {
		before := reached.Load()
		if got := get(t, addr, c.host, c.origin, c.method); got != c.want {
			t.Errorf("Host %q Origin %q: %d, want %d", c.host, c.origin, got, c.want)
		}
		if c.want == http.StatusForbidden && reached.Load() != before {
			t.Errorf("Host %q Origin %q reached the gateway", c.host, c.origin)
		}
	}
	// WebSocket upgrades: the same checks.
	for _, c := range []struct {
		host, origin string
		ok           bool
	}{
		{"evil.example:" + port, "http://evil.example:" + port, false},
		{"127.0.0.1:" + port, "https://evil.example", false},
		{"127.0.0.1:" + port, "http://127.0.0.1:" + port, true},
		{"127.0.0.1:" + port, "", true},
	} {
		h := http.Header{}
		if c.origin != "" {
			h.Set("Origin", c.origin)
		}
		d := websocket.Dialer{NetDial: func(network, _ string) (net.Conn, error) { return net.Dial(network, addr) }}
		conn, resp, err := d.Dial("ws://"+c.host+"/", h)
		if conn != nil {
			conn.Close()
		}
		if ok := err == nil; ok != c.ok {
			code := 0
			if resp != nil {
				code = resp.StatusCode
			}
			t.Errorf("WebSocket Host %q Origin %q: %v (%d), want ok %v", c.host, c.origin, err, code, c.ok)
		}
	}
}

// Widened as serve widens it: an allowed origin's host, and allowed
// hosts, pass.
func TestProxyAllowedHostsAndOrigins(t *testing.T) {
	addr, _ := startGuardedProxy(t, Proxy{AllowOrigins: []string{"http://gw.lan:18790"}, AllowHosts: []string{"box.lan"}})
	_, port, _ := net.SplitHostPort(addr)
	for _, c := range []struct {
		host, origin string
		want         int
	}{
		{"gw.lan:" + port, "http://gw.lan:18790", http.StatusOK},
		{"box.lan:" + port, "", http.StatusOK},
		{"BOX.LAN:" + port, "", http.StatusOK},
		{"other.lan:" + port, "", http.StatusForbidden},
		{"box.lan:" + port, "http://box.lan", http.StatusForbidden},
	} {
		if got := get(t, addr, c.host, c.origin, "POST"); got != c.want {
			t.Errorf("Host %q Origin %q: %d, want %d", c.host, c.origin, got, c.want)
		}
	}
}
