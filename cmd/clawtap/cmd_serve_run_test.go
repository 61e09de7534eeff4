package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/pkg/serve"
)

func validServe() serveOptions {
	return serveOptions{path: "cap.jsonl", listen: "127.0.0.1:18789", speed: 1, onSend: "reply"}
}

func TestServeOptionsCheck(t *testing.T) {
	for _, change := range []func(*serveOptions){
		func(c *serveOptions) { c.speed = 0 },
		func(c *serveOptions) { c.maxGap = -1 },
		func(c *serveOptions) { c.conn = -1 },
		func(c *serveOptions) { c.onSend = "never" },
		func(c *serveOptions) { c.once, c.loop = true, true },
		func(c *serveOptions) { c.reconnects, c.loop = true, true },
		func(c *serveOptions) { c.path, c.tokenFile = "-", "-" },
	} {
		c := validServe()
		change(&c)
		var ce *cli.Error
		if err := c.check(); !errors.As(err, &ce) || ce.Code != cli.ExitTrouble || ce.Hint == "" {
			t.Errorf("%+v: %v", c, err)
		}
	}
	c := validServe()
	if err := c.check(); err != nil {
		t.Errorf("valid: %v", err)
	}
}

func TestServeOptionsServer(t *testing.T) {
	dir := t.TempDir()
	env := cli.NewEnv(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
	env.LookupEnv = func(k string) (string, bool) {
		v, ok := map[string]string{"CLAWTAP_TOKEN": " from-env "}[k]
		return v, ok
	}
	c := validServe()
	c.allowOrigins = []string{"http://192.168.1.20:5173"}
	if err := c.check(); err != nil {
		t.Fatal(err)
	}
	o, err := c.server(env)
	if err != nil || o.Token != "from-env" || len(o.AllowOrigins) != 1 || o.HTTP != nil || o.ConfiguredUI {
		t.Fatalf("%+v %v", o, err)
	}
	tok := filepath.Join(dir, "tok")
	os.WriteFile(tok, []byte("from-file\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "index.html"), []byte("ui"), 0o644)
	c.tokenFile, c.ui, c.onSend = tok, dir, string(serve.OnSendNextRun)
	if o, err = c.server(env); err != nil || o.Token != "from-file" || o.HTTP == nil || !o.ConfiguredUI || o.OnSend != serve.OnSendNextRun {
		t.Fatalf("%+v %v", o, err)
	}
	c.ui = t.TempDir()
	if _, err := c.server(env); err == nil || !strings.Contains(err.Error(), "no index.html there") {
		t.Errorf("a UI folder without index.html: %v", err)
	}
	c.ui, c.allowOrigins = "", []string{"not an origin"}
	if err := c.check(); err == nil || !strings.HasPrefix(err.Error(), "--allow-origin: ") {
		t.Errorf("a bad origin: %v", err)
	}
}

func TestRejectedNote(t *testing.T) {
	if rejectedNote(0) != "" || rejectedNote(2) != "; 2 client(s) turned away during the handshake" {
		t.Error(rejectedNote(2))
	}
}

// A secret variable that is set but blank is refused, not read as no
// secret: serve would otherwise run without a token.
func TestBlankSecretEnvRefused(t *testing.T) {
	for _, v := range []string{"", "  \n"} {
		env := cli.NewEnv(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
		env.LookupEnv = func(k string) (string, bool) {
			if k == "CLAWTAP_TOKEN" || k == "OPENCLAW_GATEWAY_TOKEN" {
				return v, true
			}
			return "", false
		}
		c := validServe()
		if _, err := c.server(env); err == nil || !strings.Contains(err.Error(), "CLAWTAP_TOKEN is set but empty") {
			t.Errorf("serve, CLAWTAP_TOKEN=%q: %v", v, err)
		}
		opts := recordOptions{noDevice: true}
		if _, err := dialOptions(env, opts); err == nil || !strings.Contains(err.Error(), "OPENCLAW_GATEWAY_TOKEN is set but empty") {
			t.Errorf("record, OPENCLAW_GATEWAY_TOKEN=%q: %v", v, err)
		}
	}
}
