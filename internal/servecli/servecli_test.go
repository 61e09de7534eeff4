package servecli

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

func valid() Config { return Config{File: "cap.jsonl", Speed: 1, OnSend: "reply"} }

func TestCheck(t *testing.T) {
	for _, change := range []func(*Config){
		func(c *Config) { c.Speed = 0 },
		func(c *Config) { c.MaxGap = -1 },
		func(c *Config) { c.Conn = -1 },
		func(c *Config) { c.OnSend = "never" },
		func(c *Config) { c.Once, c.Loop = true, true },
		func(c *Config) { c.Reconnects, c.Loop = true, true },
		func(c *Config) { c.File, c.TokenFile = "-", "-" },
	} {
		c := valid()
		change(&c)
		var ce *cli.Error
		if err := c.check(); !errors.As(err, &ce) || ce.Code != cli.ExitTrouble || ce.Hint == "" {
			t.Errorf("%+v: %v", c, err)
		}
	}
	c := valid()
	if err := c.check(); err != nil {
		t.Errorf("valid: %v", err)
	}
}

func TestOptions(t *testing.T) {
	dir := t.TempDir()
	env := cli.NewEnv(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
	env.Getenv = func(k string) string { return map[string]string{"CLAWTAP_TOKEN": " from-env "}[k] }
	c := valid()
	c.AllowOrigins = []string{"http://192.168.1.20:5173"}
	o, err := c.options(env)
	if err != nil || o.Token != "from-env" || len(o.AllowOrigins) != 1 || o.HTTP != nil || o.ConfiguredUI {
		t.Fatalf("%+v %v", o, err)
	}
	tok := filepath.Join(dir, "tok")
	os.WriteFile(tok, []byte("from-file\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "index.html"), []byte("ui"), 0o644)
	c.TokenFile, c.UI, c.OnSend = tok, dir, string(serve.OnSendNextRun)
	if o, err = c.options(env); err != nil || o.Token != "from-file" || o.HTTP == nil || !o.ConfiguredUI || o.OnSend != serve.OnSendNextRun {
		t.Fatalf("%+v %v", o, err)
	}
	c.UI = t.TempDir()
	if _, err := c.options(env); err == nil || !strings.Contains(err.Error(), "no index.html there") {
		t.Errorf("a UI folder without index.html: %v", err)
	}
	c.UI, c.AllowOrigins = "", []string{"not an origin"}
	if _, err := c.options(env); err == nil || !strings.HasPrefix(err.Error(), "--allow-origin: ") {
		t.Errorf("a bad origin: %v", err)
	}
}

func TestRejectedNote(t *testing.T) {
	if rejectedNote(0) != "" || rejectedNote(2) != "; 2 client(s) turned away during the handshake" {
		t.Error(rejectedNote(2))
	}
}
