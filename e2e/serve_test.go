//go:build e2e

package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServeReconnectsControlUI: the real Control UI, served by `clawtap
// serve --ui` from the installed openclaw package and running in headless
// Chromium, plays the restart fixture. It completes serve's handshake, is
// closed with the recorded 1012 when the recorded gateway restarted, and
// reconnects by itself; serve knows it again and plays it the connection
// the recorded client opened after the restart.
func TestServeReconnectsControlUI(t *testing.T) {
	chromium := chromiumOrSkip(t)
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	listen := fmt.Sprintf("127.0.0.1:%d", port)
	uiDir := filepath.Join(filepath.Dir(h.openclaw), "dist", "control-ui")
	fixture := filepath.Join(repoRoot(), "fixtures", "reconnect.jsonl.zst")
	srv, err := h.start("serve-ui", baseEnv(), h.clawtap, "serve", "--reconnects", "--ui", uiDir,
		"--max-gap", "500ms", "--listen", listen, fixture)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.stop(10 * time.Second)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("serve log:\n%s", srv.log())
		}
	})
	eventually(t, 15*time.Second, "serve to listen", func() bool { return strings.Contains(srv.log(), "serving reconnect.jsonl.zst") })
	ui := h.browse(t, chromium, "chromium-serve", "http://"+listen+"/")
	defer ui.stop(5 * time.Second)
	for _, want := range []string{
		"client 1 connected from", // the UI accepted serve's challenge and hello-ok
		"(openclaw-control-ui/",
		`recorded connection 1 ended here after 18 frames: serve closes it with 1012 "service restart"`,
		"reconnected from",
		"plays recorded connection 2",
	} {
		eventually(t, 90*time.Second, fmt.Sprintf("serve's log to say %q", want), func() bool {
			return strings.Contains(srv.log(), want)
		})
	}
	ui.stop(5 * time.Second)
	srv.signal(syscall.SIGINT)
	if code := waitExit(t, srv, 15*time.Second); code != 0 {
		t.Fatalf("serve exit %d:\n%s", code, srv.log())
	}
	t.Logf("serve log:\n%s", tail(srv.log(), 12))
}
