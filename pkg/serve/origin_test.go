package serve

import (
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/gorilla/websocket"
)

func TestListenAddress(t *testing.T) {
	cases := []struct {
		in, want string
		exposed  bool
	}{
		{"18789", "127.0.0.1:18789", false},
		{":18790", "127.0.0.1:18790", false},
		{"0", "127.0.0.1:0", false},
		{"127.0.0.1:18789", "127.0.0.1:18789", false},
		{"localhost:1", "localhost:1", false},
		{"[::1]:80", "[::1]:80", false},
		{"127.0.0.2:9", "127.0.0.2:9", false},
		{"0.0.0.0:18789", "0.0.0.0:18789", true},
		{"[::]:18789", "[::]:18789", true},
		{"192.168.1.20:18789", "192.168.1.20:18789", true},
		{"example.com:18789", "example.com:18789", true},
		{" :7 ", "127.0.0.1:7", false},
	}
	for _, c := range cases {
		got, exposed, err := ListenAddress(c.in)
		if err != nil || got != c.want || exposed != c.exposed {
			t.Errorf("ListenAddress(%q) = %q, %v, %v; want %q, %v", c.in, got, exposed, err, c.want, c.exposed)
		}
	}
	for _, bad := range []string{"", "65536", ":-1", "-1", "+80", "host", "host:port", "1.2.3.4:", ":99999", "[::1]"} {
		if got, _, err := ListenAddress(bad); err == nil {
			t.Errorf("ListenAddress(%q) = %q, want an error", bad, got)
		}
	}
}

func TestParseOrigin(t *testing.T) {
	cases := map[string]string{
		"http://localhost:5173":         "http://localhost:5173",
		"HTTP://LAN.Example:5173/":      "http://lan.example:5173",
		"https://ui.example:443":        "https://ui.example",
		"http://192.168.1.20:80":        "http://192.168.1.20",
		"http://[::1]:8080":             "http://[::1]:8080",
		"https://ui.example.com:8443":   "https://ui.example.com:8443",
		" http://192.168.1.20:5173   ":  "http://192.168.1.20:5173",
		"http://xn--bcher-kva.example/": "http://xn--bcher-kva.example",
	}
	for in, want := range cases {
		if got, err := ParseOrigin(in); err != nil || got != want {
			t.Errorf("ParseOrigin(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "null", "*", "localhost:5173", "ws://localhost", "file:///tmp/x", "http://", "http://:", "https://:8080", "http://a/b", "http://a?x=1", "http://u:p@a", "http://a:99999"} {
		if got, err := ParseOrigin(bad); err == nil {
			t.Errorf("ParseOrigin(%q) = %q, want an error", bad, got)
		}
	}
}

func TestOriginAllowed(t *testing.T) {
	allowed := []string{"http://192.168.1.20:5173"}
	for origin, want := range map[string]bool{
		"":                         true, // not a browser
		"http://localhost:5173":    true,
		"http://LOCALHOST":         true,
		"https://localhost:8443":   true,
		"http://127.0.0.1:18789":   true,
		"http://[::1]:3000":        true,
		"http://192.168.1.20:5173": true, // named by --allow-origin
		"http://192.168.1.20:5174": false,
		"http://evil.example":      false,
		"http://localhost.evil":    false,
		"http://127.0.0.1.evil":    false,
		"null":                     false,
		"file://":                  false,
		"chrome-extension://abc":   false,
	} {
		if got := originAllowed(origin, allowed); got != want {
			t.Errorf("originAllowed(%q) = %v, want %v", origin, got, want)
		}
	}
}

// A page from a foreign origin is refused with 403 before any WebSocket
// frame; loopback pages, allowed origins and non-browser clients connect.
func TestOriginOverTheWire(t *testing.T) {
	s := newCap(t).handshake(1000).script(0)
	var mu sync.Mutex
	var logs []string
	sv, url := startServer(t, s, Options{
		AllowOrigins: []string{"http://192.168.1.20:5173"},
		Pacing:       Pacing{Fast: true},
		Logf: func(format string, args ...any) {
			mu.Lock()
			defer mu.Unlock()
			logs = append(logs, format)
		},
	})
	try := func(origin string) (int, error) {
		h := http.Header{}
		if origin != "" {
			h.Set("Origin", origin)
		}
		c, resp, err := websocket.DefaultDialer.Dial(url, h)
		if err == nil {
			defer c.Close()
			connect(t, c, connectReq)
		}
		if resp == nil {
			return 0, err
		}
		return resp.StatusCode, err
	}
	for _, origin := range []string{"http://evil.example", "null", "http://192.168.1.20:9999"} {
		if code, err := try(origin); code != http.StatusForbidden || err == nil {
			t.Errorf("Origin %q: status %d, %v; want 403", origin, code, err)
		}
	}
	for _, origin := range []string{"", "http://localhost:5173", "http://127.0.0.1:18789", "http://[::1]:1", "http://192.168.1.20:5173"} {
		if code, err := try(origin); code != http.StatusSwitchingProtocols || err != nil {
			t.Errorf("Origin %q: status %d, %v; want the upgrade", origin, code, err)
		}
	}
	if st := sv.Stats(); st.Rejected != 3 || st.Total != 5 {
		t.Errorf("stats %+v: want 3 refused, 5 served", st)
	}
	refused := 0
	mu.Lock()
	defer mu.Unlock()
	for _, l := range logs {
		if strings.Contains(l, "not a loopback page") {
			refused++
		}
	}
	if refused != 3 {
		t.Errorf("logged %d refusals, want 3: %q", refused, logs)
	}
}

func FuzzListenAddress(f *testing.F) {
	for _, s := range []string{"18789", ":1", "0.0.0.0:80", "[::1]:0", "localhost:5", "a:b", "", "[", "1:2:3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		addr, exposed, err := ListenAddress(s)
		if err != nil {
			return
		}
		host, port, err := splitHostPort(addr)
		if err != nil || !isPort(port) {
			t.Fatalf("ListenAddress(%q) = %q, not host:port", s, addr)
		}
		if host == "127.0.0.1" && exposed {
			t.Fatalf("ListenAddress(%q) = %q exposed", s, addr)
		}
		// Stable: reading its own result gives it back.
		again, exposed2, err := ListenAddress(addr)
		if err != nil || again != addr || exposed2 != exposed {
			t.Fatalf("ListenAddress(%q) = %q, then %q, %v", s, addr, again, err)
		}
	})
}

func FuzzParseOrigin(f *testing.F) {
	for _, s := range []string{"http://localhost:5173", "https://a.example:443/", "http://[::1]:1", "null", "x", "http://a:0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		o, err := ParseOrigin(s)
		if err != nil {
			return
		}
		if again, err := ParseOrigin(o); err != nil || again != o {
			t.Fatalf("ParseOrigin(%q) = %q, then %q, %v", s, o, again, err)
		}
		if !originAllowed(o, []string{o}) {
			t.Fatalf("%q is not allowed when allowed", o)
		}
	})
}

func splitHostPort(s string) (string, string, error) { return net.SplitHostPort(s) }
