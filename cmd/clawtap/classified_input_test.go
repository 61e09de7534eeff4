package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// classify | CMD - : every command that reads a capture refuses classify's
// NDJSON at once, exit 2, with one line and a hint, instead of reading
// each event as an invalid record (only intents reads it).
func TestClassifyOutputIsRefusedAsACapture(t *testing.T) {
	demo := fixture(t, "demo.jsonl.zst")
	cl := run(t, "", "classify", "--format", "json", demo)
	if cl.code != 0 {
		t.Fatal(cl.stderr)
	}
	file := filepath.Join(t.TempDir(), "classified.jsonl")
	if err := os.WriteFile(file, []byte(cl.stdout), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"replay", "-"}, {"check", "-"}, {"stats", "-"}, {"gaps", "-"}, {"validate", "-"},
		{"report", "-", "-o", "-"}, {"diff", "-", demo}, {"diff", demo, file},
		{"shrink", "-", "--rule", "lost-reply", "-o", "-"}, {"classify", "-"},
		{"redact", "-", "-o", "-"}, {"check", file},
	} {
		r := run(t, cl.stdout, args...)
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		if r.code != 2 || r.stdout != "" || len(lines) != 2 ||
			!strings.Contains(lines[0], "is classify output, not a capture") || !strings.Contains(lines[1], "give the capture itself") {
			t.Errorf("%v: exit %d, stdout %d bytes, stderr:\n%s", args, r.code, len(r.stdout), r.stderr)
		}
	}
}
