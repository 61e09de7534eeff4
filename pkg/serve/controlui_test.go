package serve

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// serve --ui hands out the files of its folder only: a link that leads out
// of it (to a file or a directory) is not followed, a link inside it is,
// and only regular files are served (a FIFO would block the handler).
func TestControlUIStaysInItsFolder(t *testing.T) {
	base := t.TempDir()
	outside := filepath.Join(base, "outside")
	os.MkdirAll(filepath.Join(outside, "dir"), 0o755)
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("SECRET-OUTSIDE"), 0o644)
	os.WriteFile(filepath.Join(outside, "dir", "secret.txt"), []byte("SECRET-OUTSIDE-DIR"), 0o644)
	ui := filepath.Join(base, "ui")
	os.MkdirAll(filepath.Join(ui, "assets"), 0o755)
	index := `<html>ui</html>`
	os.WriteFile(filepath.Join(ui, "index.html"), []byte(index), 0o644)
	os.WriteFile(filepath.Join(ui, "assets", "app.js"), []byte("js"), 0o644)
	for link, to := range map[string]string{
		"leak.txt":        filepath.Join(outside, "secret.txt"),
		"leakdir":         filepath.Join(outside, "dir"),
		"up.txt":          "../outside/secret.txt",
		"assets/alias.js": "app.js", // inside: followed
	} {
		if err := os.Symlink(to, filepath.Join(ui, link)); err != nil {
			t.Skip(err)
		}
	}
	fifo := filepath.Join(ui, "pipe.js")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Logf("no FIFO: %v", err)
	}
	h, err := ControlUI(ui)
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string) string {
		done := make(chan string, 1)
		go func() {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
			done <- rec.Body.String()
		}()
		select {
		case s := <-done:
			return s
		case <-time.After(5 * time.Second):
			t.Fatalf("GET %s hangs", path)
			return ""
		}
	}
	for _, p := range []string{"/leak.txt", "/leakdir/secret.txt", "/up.txt", "/leakdir/", "/%2e%2e/outside/secret.txt", "/../outside/secret.txt", "/pipe.js"} {
		if body := get(p); strings.Contains(body, "SECRET") {
			t.Errorf("GET %s = %q", p, body)
		}
	}
	for p, want := range map[string]string{"/": index, "/index.html": "", "/assets/app.js": "js", "/assets/alias.js": "js", "/chat/agent:main": index} {
		body := get(p)
		if want != "" && body != want {
			t.Errorf("GET %s = %q, want %q", p, body, want)
		}
	}
	// index.html itself a link out of the folder: not served.
	ui2 := filepath.Join(base, "ui2")
	os.MkdirAll(ui2, 0o755)
	os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(ui2, "index.html"))
	if h2, err := ControlUI(ui2); err == nil {
		rec := httptest.NewRecorder()
		h2.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
		if strings.Contains(rec.Body.String(), "SECRET") {
			t.Errorf("index.html through a link out of the folder was served")
		}
	}
}
