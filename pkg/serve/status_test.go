package serve

import (
	"bytes"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestServeStatusText(t *testing.T) {
	st := Stats{Active: 2, Sent: 120, Items: 200, Clients: []ClientStats{{ID: 1, Item: 150}, {ID: 2, Item: 40, Waiting: true}}}
	got := StatusText("demo.jsonl.zst", st)
	want := "clawtap: serving demo.jsonl.zst · 2 client(s) · 120 frame(s) sent · at 40–150/200 · waiting for chat.send"
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	if got := StatusText("x", Stats{Items: 10}); !strings.HasSuffix(got, "waiting for a client") {
		t.Fatalf("got %q", got)
	}
	var b bytes.Buffer
	l := NewStatusLine(&b, true)
	l.Set("status")
	l.Println("clawtap: client 1 connected")
	if want := "\r\x1b[Kstatus\r\x1b[Kclawtap: client 1 connected\nstatus"; b.String() != want {
		t.Fatalf("terminal output %q", b.String())
	}
}

func TestServeControlUI(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "index.html"), []byte(`<html data-openclaw-control-ui-build-id="b-1">ui</html>`), 0o644)
	os.MkdirAll(filepath.Join(dir, "assets"), 0o755)
	os.WriteFile(filepath.Join(dir, "assets", "app.js"), []byte("js"), 0o644)
	h, err := ControlUI(dir)
	if err != nil {
		t.Fatal(err)
	}
	sv := New(&Script{}, Options{HTTP: h})
	for path, want := range map[string]string{"/": `<html data-openclaw-control-ui-build-id="b-1">ui</html>`, "/assets/app.js": "js", "/chat/agent:main": `<html data-openclaw-control-ui-build-id="b-1">ui</html>`} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", path, nil)
		req.Host = "127.0.0.1:18789"
		sv.ServeHTTP(rec, req)
		if got := rec.Body.String(); got != want {
			t.Errorf("GET %s = %q, want %q", path, got, want)
		}
	}
	// A page on a foreign name (DNS rebinding) reads nothing, unless the
	// name is allowed.
	rec := httptest.NewRecorder()
	sv.ServeHTTP(rec, httptest.NewRequest("GET", "http://rebind.example/", nil))
	if rec.Code != 403 || sv.Stats().Rejected != 1 {
		t.Errorf("Host rebind.example: %d %q, rejected %d", rec.Code, rec.Body.String(), sv.Stats().Rejected)
	}
	sv = New(&Script{}, Options{HTTP: h, AllowHosts: []string{"rebind.example"}})
	rec = httptest.NewRecorder()
	sv.ServeHTTP(rec, httptest.NewRequest("GET", "http://rebind.example/", nil))
	if rec.Code != 200 {
		t.Errorf("allowed Host rebind.example: %d %q", rec.Code, rec.Body.String())
	}
	if _, err := ControlUI(t.TempDir()); err == nil {
		t.Error("a folder without index.html was accepted")
	}
}

func TestDescribe(t *testing.T) {
	s := newCap(t).handshake(1000).in(1100, tick(1, 1)).script(0)
	<-s.Ready()
	got := Describe(s, Options{Pacing: Pacing{Speed: 2, MaxGap: 2 * time.Second}, Loop: true, OnSend: OnSendNextRun, Token: "t"})
	for _, want := range []string{"connection 1 of 1: 1 frame(s), protocol 4, gateway 2026.9.6, ", "recorded pacing ×2, gaps ≤ 2s", "looping", "chat.send plays the next run", "token required"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
	if got := Describe(s, Options{Pacing: Pacing{Fast: true}, Reconnects: true}); !strings.Contains(got, "no pacing") || !strings.Contains(got, "0 reconnect(s) follow") {
		t.Errorf("%q", got)
	}
}
