package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// liveOnly names the commands whose examples need a running gateway or a
// client and run until stopped: their own tests drive them (record_test,
// serve_test, e2e/); every other command's examples run here.
var liveOnly = map[string]string{
	"record": "needs a gateway to record",
	"serve":  "serves until stopped, waiting for a client",
}

// requireTools skips the test when one of the tools it runs is missing,
// so that go test ./... passes on a machine without them. In CI (CI set,
// or CLAWTAP_REQUIRE_TOOLS=1, as make test sets) a missing tool fails it.
func requireTools(t *testing.T, what string, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			msg := what + " use " + tool + ", which is not installed (scripts/tools-setup.sh installs it; make test does)"
			if os.Getenv("CI") != "" || os.Getenv("CLAWTAP_REQUIRE_TOOLS") == "1" {
				t.Fatal(msg)
			}
			t.Skip(msg + "; skipped: set CI or CLAWTAP_REQUIRE_TOOLS=1 to make it a failure")
		}
	}
}

// TestHelpExamplesRun runs every example in every command's --help, the
// way a user pastes it, in a fresh folder beside the bundled fixtures: it
// must not fail (exit 1 is a finding, and allowed) or warn.
func TestHelpExamplesRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds clawtap and runs every example")
	}
	requireTools(t, "the examples", "bash", "jq", "zstd", "zstdcat")
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "clawtap"), ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // as make build
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	root := newApp(nil, nil, nil).rootCmd()
	cmds := append(root.Commands(), root)
	n := 0
	for _, c := range cmds {
		name := c.Name()
		if c == root {
			name = "clawtap"
		}
		if name == "completion" || name == "help" {
			continue
		}
		for _, line := range strings.Split(c.Example, "\n") {
			line = strings.TrimSpace(line)
			if !strings.HasPrefix(line, "clawtap ") && !strings.Contains(line, "| clawtap ") && !strings.Contains(line, "&& clawtap ") {
				continue
			}
			if why, ok := liveOnly[name]; ok {
				t.Logf("%s example not run here (%s): %s", name, why, line)
				continue
			}
			n++
			t.Run(name, func(t *testing.T) {
				dir := t.TempDir()
				if err := os.Symlink(filepath.Join(repoRoot(t), "fixtures"), filepath.Join(dir, "fixtures")); err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				sh := exec.CommandContext(ctx, "bash", "-c", line)
				sh.Dir = dir
				sh.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "NO_COLOR=1")
				var stderr bytes.Buffer
				sh.Stderr = &stderr
				sh.Stdout = &bytes.Buffer{}
				err := sh.Run()
				code := 0
				if ee, ok := err.(*exec.ExitError); ok {
					code = ee.ExitCode()
				} else if err != nil {
					t.Fatalf("%s: %v", line, err)
				}
				if code > 1 || strings.Contains(stderr.String(), "clawtap: warning") || strings.Contains(stderr.String(), "clawtap: error") {
					t.Errorf("%s\n  exit %d\n  %s", line, code, stderr.String())
				}
			})
		}
	}
	if n < 30 {
		t.Fatalf("only %d examples found: the parser lost them", n)
	}
}
