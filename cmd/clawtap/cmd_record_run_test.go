package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/fakegw"
)

func noneChanged(string) bool { return false }

func TestRecordSizeFlags(t *testing.T) {
	for in, want := range map[string]int64{"1000": 1000, "1k": 1000, "50MB": 50_000_000, "50MiB": 50 << 20, "1.5GiB": 3 << 29, "": 0} {
		if n, err := parseSizeFlag("--max-bytes", in); err != nil || n != want {
			t.Errorf("%q → %d %v, want %d", in, n, err, want)
		}
	}
	for _, bad := range []string{"x", "-1", "0", "0MB", "5 parsecs"} {
		if _, err := parseSizeFlag("--max-bytes", bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestRecordDialOptions(t *testing.T) {
	dir := t.TempDir()
	tok := filepath.Join(dir, "tok")
	os.WriteFile(tok, []byte("  s3cret\n"), 0o644)
	var stderr bytes.Buffer
	env := cli.NewEnv(strings.NewReader(""), &bytes.Buffer{}, &stderr)
	env.LookupEnv = func(k string) (string, bool) {
		v, ok := map[string]string{"OPENCLAW_GATEWAY_PASSWORD": " pw ", "CLAWTAP_IDENTITY_DIR": filepath.Join(dir, "id")}[k]
		return v, ok
	}
	opts := recordOptions{tokenFile: tok, scopes: "a, ,b"}
	if err := opts.check(noneChanged); err != nil {
		t.Fatal(err)
	}
	opts.version = "9"
	o, err := dialOptions(env, opts)
	if err != nil {
		t.Fatal(err)
	}
	if o.Token != "s3cret" || o.Password != "pw" || strings.Join(o.Scopes, "|") != "a|b" || o.Identity == nil || o.UserAgent != "clawtap/9" {
		t.Errorf("options %+v", o)
	}
	if !strings.Contains(stderr.String(), "readable by other users (mode 0644)") || strings.Contains(stderr.String(), "s3cret") {
		t.Errorf("stderr %q", stderr.String())
	}
	empty := recordOptions{scopes: " , "}
	if err := empty.check(noneChanged); err == nil || !strings.Contains(err.Error(), "--scopes is empty") {
		t.Errorf("empty scopes: %v", err)
	}
	both := recordOptions{scopes: "a", tokenFile: "-", passwordFile: "-"}
	if err := both.check(noneChanged); err == nil {
		t.Error("both secrets from stdin accepted")
	}
}

func TestRecordRedaction(t *testing.T) {
	salt := filepath.Join(t.TempDir(), "salt")
	os.WriteFile(salt, []byte("k"), 0o600)
	if r, err := recordRedaction(recordOptions{redactContent: true, saltFile: salt}); err != nil || !r.Content || string(r.Salt) != "k" {
		t.Errorf("%+v %v", r, err)
	}
	os.WriteFile(salt, nil, 0o600)
	if _, err := recordRedaction(recordOptions{saltFile: salt}); err == nil || !strings.Contains(err.Error(), "is empty") {
		t.Errorf("empty salt: %v", err)
	}
}

// TestRunRecordStopsWithTheContext: cancelling the context stops a
// recording as a signal does: the capture is finished and kept, exit 0.
func TestRunRecordStopsWithTheContext(t *testing.T) {
	srv := fakegw.New(fakegw.Config{OnHello: func(c *fakegw.Conn) {
		for i := 0; c.Event("tick", map[string]any{"ts": i}) == nil; i++ {
			time.Sleep(time.Millisecond)
		}
	}})
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "cap.jsonl")
	var stderr bytes.Buffer
	env := cli.NewEnv(strings.NewReader(""), &bytes.Buffer{}, &stderr)
	env.LookupEnv = func(string) (string, bool) { return "", false }
	scopes := []string{"operator.read"}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := runRecord(ctx, env, recordOptions{version: "test", out: out, url: srv.URL, noDevice: true, scopeList: scopes}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil || !bytes.Contains(b, []byte(`"event":"tick"`)) || !strings.Contains(stderr.String(), "clawtap: recorded ") {
		t.Fatalf("%v\n%.200s\n%s", err, b, stderr.String())
	}
	// A gateway never reached leaves nothing.
	none := filepath.Join(t.TempDir(), "none.jsonl")
	ctx, cancel = context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err = runRecord(ctx, env, recordOptions{out: none, url: "ws://127.0.0.1:1", noDevice: true, scopeList: scopes})
	if _, serr := os.Stat(none); err == nil || serr == nil {
		t.Errorf("unreached gateway: %v, file %v", err, serr)
	}
}

// The proxy takes --allow-origin and --allow-host as serve does, and only
// in proxy mode.
func TestRecordProxyGuardFlags(t *testing.T) {
	only := func(name string) func(string) bool { return func(n string) bool { return n == name } }
	o := recordOptions{guardFlags: guardFlags{allowOrigins: []string{"http://192.168.1.20:5173/"}}}
	if err := o.check(only("allow-origin")); err == nil || !strings.Contains(err.Error(), "--allow-origin only makes sense with --listen") {
		t.Errorf("without --listen: %v", err)
	}
	o = recordOptions{listen: "127.0.0.1:0", proxyBuffer: "1MiB", guardFlags: guardFlags{
		allowOrigins: []string{"http://192.168.1.20:5173/"}, allowHosts: []string{"gw.lan"}}}
	if err := o.check(only("allow-origin")); err != nil || strings.Join(o.origins, " ") != "http://192.168.1.20:5173" || strings.Join(o.hosts, " ") != "gw.lan" {
		t.Errorf("with --listen: %v %q %q", err, o.origins, o.hosts)
	}
	for _, bad := range []string{"http://gw.lan", "gw.lan:80", " "} {
		o.allowHosts = []string{bad}
		if err := o.check(noneChanged); err == nil || !strings.Contains(err.Error(), "--allow-host") {
			t.Errorf("--allow-host %q: %v", bad, err)
		}
	}
}
