package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/internal/cli"
)

// A capture with thousands of broken lines gets the first
// cli.MaxLineWarnings warnings about them, one line saying how many more
// there were, and the summary: not one line each, in every command.
func TestLineWarningsAreCapped(t *testing.T) {
	in := brokenCapture(t)
	dir := t.TempDir()
	for _, cmd := range [][]string{
		{"stats", in}, {"intents", in}, {"check", in}, {"gaps", in},
		{"redact", in, "-o", filepath.Join(dir, "r.jsonl")},
		{"import", in, "-o", filepath.Join(dir, "i.jsonl")},
	} {
		t.Run(cmd[0], func(t *testing.T) {
			r := run(t, "", cmd...)
			if r.code == cli.ExitTrouble {
				t.Fatalf("exit 2\n%.2000s", r.stderr)
			}
			lines := strings.Count(r.stderr, "\n")
			perLine := strings.Count(r.stderr, ": line ")
			more := fmt.Sprintf("broken.jsonl: %d more warning(s) about its lines not shown (only the first %d are)\n", 5000-cli.MaxLineWarnings, cli.MaxLineWarnings)
			if perLine != cli.MaxLineWarnings || !strings.Contains(r.stderr, more) || lines > cli.MaxLineWarnings+5 {
				t.Fatalf("%d stderr lines, %d about lines; want %d and %q\n%.3000s", lines, perLine, cli.MaxLineWarnings, more, r.stderr)
			}
		})
	}
}

// brokenCapture writes broken.jsonl: the bare frames of a session (with
// its handshake, so that serve can play it) and 5000 lines that are not
// JSON.
func brokenCapture(t *testing.T) string {
	t.Helper()
	good, err := os.ReadFile(fixture(t, "bare-frames.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.Write(good)
	for i := range 5000 {
		fmt.Fprintf(&b, "broken %d\n", i)
	}
	in := filepath.Join(t.TempDir(), "broken.jsonl")
	if err := os.WriteFile(in, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return in
}

// serve caps its warnings about the capture's lines as every command
// does: the first cli.MaxLineWarnings, then one line with the count of
// the rest, once, though serve reads the capture again for its client.
func TestServeLineWarningsAreCapped(t *testing.T) {
	in := brokenCapture(t)
	url, exited, stderr, _ := startServe(t, "--once", "--as-fast-as-possible", in)
	playOnce(t, url, nil, "")
	waitExit(t, exited, stderr)
	got := stderr.String()
	perLine := strings.Count(got, "broken.jsonl: line ")
	more := fmt.Sprintf("clawtap: warning: %s: %d more warning(s) about its lines not shown (only the first %d are)\n", in, 5000-cli.MaxLineWarnings, cli.MaxLineWarnings)
	if perLine != cli.MaxLineWarnings || strings.Count(got, more) != 1 || strings.Count(got, "more warning(s)") != 1 {
		t.Fatalf("%d warnings about lines, want %d and once %q:\n%.4000s", perLine, cli.MaxLineWarnings, more, got)
	}
	if sum := "5000 unreadable line(s) kept as invalid records"; !strings.Contains(got, sum) {
		t.Errorf("stderr lacks the summary %q:\n%.4000s", sum, got)
	}
	if lines := strings.Count(got, "\n"); lines > cli.MaxLineWarnings+15 {
		t.Errorf("%d stderr lines:\n%.4000s", lines, got)
	}
}
