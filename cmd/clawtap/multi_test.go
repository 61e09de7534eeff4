package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestSeveralCaptures: check, stats and gaps take several captures: a
// section per file (a heading in text and table, a "file" key on every json
// line), in argument order, each the bytes the command prints for that file
// alone, and the exit code of the worst.
func TestSeveralCaptures(t *testing.T) {
	demo, stale, gap := fixture(t, "demo.jsonl.zst"), fixture(t, "stale-terminal.jsonl.zst"), fixture(t, "seq-gap.jsonl.zst")
	for _, c := range []struct {
		cmd  string
		code int
	}{{"check", 1}, {"stats", 0}, {"gaps", 1}} {
		files := []string{demo, stale, gap}
		for _, format := range []string{"text", "table"} {
			r := run(t, "", append([]string{c.cmd, "--format", format}, files...)...)
			if r.code != c.code {
				t.Fatalf("%s %s: exit %d, want %d: %s", c.cmd, format, r.code, c.code, r.stderr)
			}
			var want strings.Builder
			for k, f := range files {
				if k > 0 {
					want.WriteString("\n")
				}
				want.WriteString("==> " + f + " <==\n" + run(t, "", c.cmd, "--format", format, f).stdout)
			}
			if r.stdout != want.String() {
				t.Errorf("%s %s: sections differ from the files run alone:\n%s", c.cmd, format, r.stdout)
			}
		}
		r := run(t, "", append([]string{c.cmd, "--format", "json"}, files...)...)
		if r.code != c.code {
			t.Fatalf("%s json: exit %d", c.cmd, r.code)
		}
		var lines []string
		for _, f := range files {
			for _, line := range strings.Split(strings.TrimSuffix(run(t, "", c.cmd, "--format", "json", f).stdout, "\n"), "\n") {
				var alone map[string]any
				if err := json.Unmarshal([]byte(line), &alone); err != nil {
					t.Fatal(err)
				}
				if _, ok := alone["file"]; ok {
					t.Fatalf("%s: one file's json has a file key", c.cmd)
				}
				lines = append(lines, line)
			}
		}
		got := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
		if len(got) != len(lines) {
			t.Fatalf("%s json: %d lines, want %d", c.cmd, len(got), len(lines))
		}
		k := 0
		for _, f := range files {
			for ; k < len(got); k++ {
				var m map[string]json.RawMessage
				if err := json.Unmarshal([]byte(got[k]), &m); err != nil {
					t.Fatalf("%s json line %d: %v", c.cmd, k, err)
				}
				var file string
				json.Unmarshal(m["file"], &file)
				if file != f {
					break
				}
				if want := `{"file":` + string(m["file"]) + "," + lines[k][1:]; got[k] != want {
					t.Errorf("%s json line %d: %s, want %s", c.cmd, k, got[k], want)
				}
			}
		}
		if k != len(got) {
			t.Errorf("%s json: the files are out of order at line %d", c.cmd, k)
		}
	}
}

// TestSeveralCapturesUnreadable: a capture that cannot be read is reported
// and the others still run; the exit code is 2, the worst.
func TestSeveralCapturesUnreadable(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "gone.jsonl")
	r := run(t, "", "check", "--ui", "clawboo@1211c16", "--format", "text", missing, fixture(t, "stale-terminal.jsonl.zst"))
	if r.code != 2 || !strings.Contains(r.stdout, "dropped-final") || !strings.Contains(r.stderr, "gone.jsonl: no such file") ||
		!strings.Contains(r.stderr, "1 of 2 capture(s) could not be read") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	if r := run(t, "", "stats", "-", "-"); r.code != 2 || !strings.Contains(r.stderr, "stdin") {
		t.Errorf("stdin twice: exit %d, %s", r.code, r.stderr)
	}
}
