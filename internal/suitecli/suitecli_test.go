package suitecli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/output"
)

func env(getenv map[string]string) (*cli.Env, *bytes.Buffer, *bytes.Buffer) {
	var stdout, stderr bytes.Buffer
	e := cli.NewEnv(strings.NewReader(""), &stdout, &stderr)
	e.IsTerminal = func(any) bool { return false }
	e.Getenv = func(k string) string { return getenv[k] }
	return e, &stdout, &stderr
}

func TestRunUpdateThenPassThenFail(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile("../../fixtures/demo.jsonl.zst")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "demo.jsonl.zst"), b, 0o644)
	out := cli.Output{Path: "-", Format: output.JSON, Cmd: "clawtap test"}
	e, _, stderr := env(nil)
	if err := Run(context.Background(), e, Config{Paths: []string{dir}, Jobs: 1, Update: true, Out: out}); err != nil {
		t.Fatalf("update: %v %s", err, stderr)
	}
	golden := filepath.Join(dir, "demo.golden")
	if _, err := os.Stat(golden); err != nil {
		t.Fatalf("no golden written: %v", err)
	}
	e, stdout, _ := env(nil)
	if err := Run(context.Background(), e, Config{Paths: []string{dir}, Jobs: 2, Out: out}); err != nil || !strings.Contains(stdout.String(), `"summary"`) {
		t.Fatalf("check: %v\n%s", err, stdout)
	}
	os.WriteFile(golden, []byte("changed\n"), 0o644)
	e, stdout, _ = env(map[string]string{"GITHUB_ACTIONS": "true"})
	if err := Run(context.Background(), e, Config{Paths: []string{dir}, Jobs: 1, Out: out}); !cli.IsFinding(err) {
		t.Fatalf("a changed golden: %v", err)
	}
	if strings.Contains(stdout.String(), "::error") {
		t.Errorf("an annotation in the json report:\n%s", stdout)
	}
}

func TestRunUsage(t *testing.T) {
	e, _, _ := env(nil)
	for _, c := range []Config{{Jobs: 0}, {Jobs: 1, UIs: []string{"nope"}}, {Jobs: 1, Paths: []string{filepath.Join(t.TempDir(), "none")}}} {
		var ce *cli.Error
		if err := Run(context.Background(), e, c); err == nil || !errors.As(err, &ce) || ce.Code != cli.ExitTrouble {
			t.Errorf("%+v: %v", c, err)
		}
	}
}
