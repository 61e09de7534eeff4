package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/output"
)

func TestRunSuiteUpdateThenPassThenFail(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile("../../fixtures/demo.jsonl.zst")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "demo.jsonl.zst"), b, 0o644)
	out := cli.Output{Path: "-", Format: output.JSON, Cmd: "clawtap test"}
	e, _, stderr := testEnv(nil)
	if err := runSuite(context.Background(), e, suiteOptions{paths: []string{dir}, jobs: 1, update: true, output: out}); err != nil {
		t.Fatalf("update: %v %s", err, stderr)
	}
	golden := filepath.Join(dir, "demo.golden")
	if _, err := os.Stat(golden); err != nil {
		t.Fatalf("no golden written: %v", err)
	}
	e, stdout, _ := testEnv(nil)
	if err := runSuite(context.Background(), e, suiteOptions{paths: []string{dir}, jobs: 2, output: out}); err != nil || !strings.Contains(stdout.String(), `"summary"`) {
		t.Fatalf("check: %v\n%s", err, stdout)
	}
	os.WriteFile(golden, []byte("changed\n"), 0o644)
	e, stdout, _ = testEnv(map[string]string{"GITHUB_ACTIONS": "true"})
	if err := runSuite(context.Background(), e, suiteOptions{paths: []string{dir}, jobs: 1, output: out}); !cli.IsFinding(err) {
		t.Fatalf("a changed golden: %v", err)
	}
	if strings.Contains(stdout.String(), "::error") {
		t.Errorf("an annotation in the json report:\n%s", stdout)
	}
}

// A bad -j or --ui is the command line's trouble, refused before any
// capture is looked for; a path with no captures is refused by runSuite.
func TestSuiteUsage(t *testing.T) {
	for _, args := range [][]string{{"-j", "0"}, {"-j", "1", "--ui", "nope"}} {
		if r := run(t, "", append([]string{"test"}, args...)...); r.code != cli.ExitTrouble {
			t.Errorf("%v: exit %d, %s", args, r.code, r.stderr)
		}
	}
	e, _, _ := testEnv(nil)
	var ce *cli.Error
	if err := runSuite(context.Background(), e, suiteOptions{jobs: 1, paths: []string{filepath.Join(t.TempDir(), "none")}}); err == nil || !errors.As(err, &ce) || ce.Code != cli.ExitTrouble {
		t.Errorf("no captures: %v", err)
	}
}
