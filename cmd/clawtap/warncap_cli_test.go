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
	good, err := os.ReadFile(fixture(t, "bare-frames.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.Write(good)
	for i := range 5000 {
		fmt.Fprintf(&b, "broken %d\n", i)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "broken.jsonl")
	if err := os.WriteFile(in, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
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
