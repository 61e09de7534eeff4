//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/gateway"
)

// TestRealRestartServedToAReconnectingClient records the real gateway
// through a restart as `openclaw gateway restart` makes one (the
// gateway.restart.request method: a shutdown event, close 1012, an
// in-process restart during which connects are refused or turned away),
// with a run before and a run after it. Then
// `clawtap serve --reconnects` plays the capture to a client that
// reconnects by itself (`clawtap record`, recording what it is served):
// it must be sent each run once, the run before the restart on its first
// connection and the run after it on the connection it opens after the
// recorded close — not the first connection again.
func TestRealRestartServedToAReconnectingClient(t *testing.T) {
	path := h.capPath("restart-usr1.jsonl.zst")
	rec := h.record(t, "record-usr1", []string{"OPENCLAW_GATEWAY_TOKEN=" + h.token},
		"--url", h.url, "-o", path, "--identity-dir", filepath.Join(h.root, "ids", "recorder-usr1"))
	waitHello(t, rec, path, 0, 30*time.Second)

	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	cl := h.driver(t, h.url, "driver-usr1")
	before := send(t, ctx, cl, "agent:main:before-restart", "Hello before the restart.")
	if p := waitChat(t, ctx, cl, before, "final", "error", "aborted"); p.State != "final" {
		t.Fatalf("the run before the restart ended %s", p.State)
	}
	time.Sleep(500 * time.Millisecond) // > the recorder's flush interval

	// An in-process restart, as `openclaw gateway restart` asks for one.
	restartGateway(t)
	conn := waitHello(t, rec, path, 1, 4*time.Minute)
	cl2 := h.driver(t, h.url, "driver-usr1-after")
	after := send(t, ctx, cl2, "agent:main:after-restart-usr1", "Hello again after the restart.")
	if p := waitChat(t, ctx, cl2, after, "final", "error", "aborted"); p.State != "final" {
		t.Fatalf("the run after the restart ended %s", p.State)
	}
	eventually(t, 20*time.Second, "the recorder to capture the run after the restart", func() bool {
		c, err := tryReadCap(path)
		return err == nil && c.runs(conn)[after] != nil && c.runs(conn)[after].terminal() == "final"
	})
	rec.signal(syscall.SIGINT)
	if code := waitExit(t, rec, 15*time.Second); code != 0 {
		t.Fatalf("recorder exit %d:\n%s", code, rec.log())
	}
	c := readCap(t, path)
	t.Logf("the restart as recorded: %s", strings.Join(c.marks(), " "))
	if c.mark(1, capture.MarkClose) == nil || c.mark(conn, capture.MarkHello) == nil {
		t.Fatalf("no close on connection 1 or no hello on connection %d: %s", conn, strings.Join(c.marks(), " "))
	}
	for i := 1; i < conn; i++ { // no attempt opened before its number's turn
		if h := c.mark(i, capture.MarkHello); h != nil && i != 1 {
			t.Errorf("connection %d between the restart's close and the hello on %d has a hello", i, conn)
		}
	}

	// Serve it to a client that reconnects by itself.
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	listen := fmt.Sprintf("127.0.0.1:%d", port)
	srv, err := h.start("serve-usr1", baseEnv(), h.clawtap, "serve", "--reconnects", "--once", "--grace", "3s",
		"--max-gap", "300ms", "--listen", listen, path)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.stop(10 * time.Second)
	eventually(t, 15*time.Second, "serve to listen", func() bool { return strings.Contains(srv.log(), "serving ") })
	replayed := h.capPath("restart-usr1-served.jsonl.zst")
	client := h.record(t, "record-served-usr1", []string{"OPENCLAW_GATEWAY_TOKEN=" + h.token},
		"--url", "ws://"+listen, "-o", replayed, "--identity-dir", filepath.Join(h.root, "ids", "recorder-served-usr1"))
	if code := waitExit(t, srv, 3*time.Minute); code != 0 {
		t.Fatalf("serve exit %d:\n%s", code, srv.log())
	}
	client.signal(syscall.SIGINT)
	waitExit(t, client, 15*time.Second)
	t.Logf("serve's log:\n%s", tail(srv.log(), 20))

	got := readCap(t, replayed)
	t.Logf("what the client was served: %s", strings.Join(got.marks(), " "))
	finals := map[string][]int{} // run → connections its final came on
	for _, r := range got.recs {
		if r.Mark != "" || r.Dir != capture.DirIn || r.Frame == nil {
			continue
		}
		ev := bridge.Classify(r.Frame, r.T)
		if ev.Kind == bridge.RuntimeChat && ev.State == "final" {
			finals[ev.RunID] = append(finals[ev.RunID], r.Conn)
		}
	}
	if len(finals[before]) != 1 || len(finals[after]) != 1 || finals[before][0] >= finals[after][0] {
		t.Errorf("the client was sent run %s's final on connection(s) %v and run %s's on %v: want each once, the second on a later connection\n%s",
			before, finals[before], after, finals[after], srv.log())
	}
	if strings.Contains(srv.log(), "reconnected from") && !strings.Contains(srv.log(), fmt.Sprintf("plays recorded connection %d", conn)) {
		t.Errorf("serve did not play the client recorded connection %d after the restart:\n%s", conn, srv.log())
	}
	if n := strings.Count(srv.log(), "connected from"); n < 2 {
		t.Errorf("the client connected %d time(s); it should have reconnected after the recorded close:\n%s", n, srv.log())
	}
	// The gateway resumed; let the next test find it idle.
	waitIdle(t, cl2, 2*time.Second, 2*time.Minute)
}

// restartGateway asks the gateway for an in-process restart, as
// `openclaw gateway restart` does (its gateway.restart.request method;
// SIGUSR1 on Linux needs the restart intent file the CLI writes first).
func restartGateway(t *testing.T) {
	t.Helper()
	store := &gateway.Store{Dir: filepath.Join(h.root, "ids", "admin")}
	id, err := store.Identity()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := gateway.Dial(ctx, h.url, gateway.Options{Token: h.token, Identity: id, Store: store, ClientVersion: "e2e",
		DisplayName: "clawtap e2e admin", Scopes: []string{"operator.admin"}})
	if err != nil {
		t.Fatalf("admin client: %v", err)
	}
	cl := gateway.NewClient(conn)
	defer cl.Close()
	res, err := cl.Call(ctx, "gateway.restart.request", map[string]any{"reason": "clawtap e2e restart", "skipDeferral": true})
	if err != nil || !res.OK {
		t.Fatalf("gateway.restart.request: %v %v", err, res.Err())
	}
}
