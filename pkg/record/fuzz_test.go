package record

import (
	"net"
	"strings"
	"testing"
)

func FuzzParseHello(f *testing.F) {
	for _, s := range []string{
		`{"type":"res","id":"1","ok":true,"payload":{"type":"hello-ok","protocol":4,"server":{"version":"2026.9.6","connId":"c1","bootId":"b1"}}}`,
		`{"type":"res","payload":{"type":"hello-ok","protocol":"4","server":[]}}`,
		`{"type":"res","payload":{"type":"hello-ok","protocol":1e99}}`,
		`{"type":"event","event":"connect.challenge","payload":{"nonce":"n"}}`,
		`{"type":"res","payload":`, `[]`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		h, ok := parseHello(b)
		if !ok && h != (hello{}) {
			t.Fatalf("not a hello, yet %+v", h)
		}
		if ok && !strings.Contains(string(b), "hello-ok") {
			t.Fatalf("hello-ok found in %q", b)
		}
	})
}

func FuzzSubscribeRefused(f *testing.F) {
	for _, s := range []string{
		`{"type":"res","id":"clawtap-1-sessions.subscribe","ok":false,"error":{"code":"INVALID_REQUEST","message":"missing scope"}}`,
		`{"type":"res","id":"clawtap-1-sessions.subscribe","ok":true}`,
		`{"type":"res","id":"-sessions.subscribe","ok":false,"error":"x"}`,
		`{"id":7,"ok":false}`, `{`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		msg, refused := subscribeRefused(b)
		if refused && msg == "" {
			t.Fatalf("refused without a message: %q", b)
		}
		if !refused && msg != "" {
			t.Fatalf("message %q without a refusal", msg)
		}
	})
}

func FuzzResolveListen(f *testing.F) {
	for _, s := range []string{"18790", ":18790", "127.0.0.1:0", "[::1]:5", "localhost:1", "0.0.0.0:80", "a:b:c", "[::1", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		addr, loop, err := ResolveListen(s)
		if err != nil {
			return
		}
		host, port, err := net.SplitHostPort(addr)
		if err != nil || port == "" || host == "" {
			t.Fatalf("%q → %q: %v", s, addr, err)
		}
		if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() != loop {
			t.Fatalf("%q → %q loopback %v", s, addr, loop)
		}
		if !strings.Contains(s, ":") && host != "127.0.0.1" {
			t.Fatalf("%q, a bare port, listens on %q", s, host)
		}
	})
}
