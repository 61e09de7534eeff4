package webguard

import (
	"context"
	"net"
	"net/http"
	"testing"
)

func request(host, origin string, local net.Addr) *http.Request {
	r, _ := http.NewRequest("GET", "http://x/", nil)
	r.Host = host
	if origin != "" {
		r.Header.Set("Origin", origin)
	}
	if local != nil {
		r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, local))
	}
	return r
}

func TestHostAllowed(t *testing.T) {
	lan := &net.TCPAddr{IP: net.ParseIP("192.168.1.5"), Port: 18790}
	g := Guard{AllowOrigins: []string{"http://gw.lan:5173"}, AllowHosts: []string{"box.lan"}}
	for host, want := range map[string]bool{
		"":                       true, // HTTP/1.0, no Host
		"localhost":              true,
		"LOCALHOST:18790":        true,
		"localhost.:1":           true,
		"ui.localhost:5173":      true,
		"127.0.0.1:18790":        true,
		"127.5.6.7":              true,
		"[::1]:18790":            true,
		"192.168.1.5:18790":      true, // the address the connection came in on
		"192.168.1.6:18790":      false,
		"gw.lan:18790":           true, // an allowed origin's host
		"box.lan":                true,
		"Box.Lan:1":              true,
		"evil.example":           false,
		"localhost.evil.example": false,
		"127.0.0.1.nip.io":       false,
		"0.0.0.0:18790":          false,
	} {
		if got := g.HostAllowed(request(host, "", lan)); got != want {
			t.Errorf("Host %q: %v, want %v", host, got, want)
		}
	}
}

func TestCheck(t *testing.T) {
	g := Guard{}
	for _, c := range []struct {
		host, origin string
		ok           bool
	}{
		{"127.0.0.1:1", "", true},
		{"127.0.0.1:1", "http://127.0.0.1:1", true},
		{"127.0.0.1:1", "http://app.localhost:3000", true},
		{"127.0.0.1:1", "https://evil.example", false},
		{"127.0.0.1:1", "null", false},
		{"evil.example:1", "http://evil.example:1", false},
	} {
		if ok, why := g.Check(request(c.host, c.origin, nil)); ok != c.ok || ok != (why == "") {
			t.Errorf("Host %q Origin %q: %v %q, want %v", c.host, c.origin, ok, why, c.ok)
		}
	}
}

func FuzzHostAllowed(f *testing.F) {
	for _, s := range []string{"localhost", "[::1]:1", "a.localhost.", "[", "]:", "::1", "127.0.0.1:99999"} {
		f.Add(s, "http://a.localhost")
	}
	f.Fuzz(func(t *testing.T, host, origin string) {
		g := Guard{}
		ok := g.HostAllowed(request(host, origin, nil))
		if ok && host != "" {
			h := hostOnly(host)
			if !IsLoopbackName(h) && h != "" {
				t.Fatalf("Host %q allowed, %q is not a loopback name", host, h)
			}
		}
		g.Check(request(host, origin, nil))
	})
}
