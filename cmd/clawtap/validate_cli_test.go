package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
)

func TestValidateGolden(t *testing.T) {
	runGoldenCases(t, []goldenCase{
		{"validate-demo.ndjson", []string{"validate", "fixtures/demo.jsonl.zst"}, 0},
		{"validate-demo.text", []string{"validate", "--format", "text", "fixtures/demo.jsonl.zst"}, 0},
		{"validate-junk.text", []string{"validate", "--format", "text", "fixtures/junk.jsonl"}, 1},
		{"validate-seq-gap.table", []string{"validate", "--format", "table", "--color", "never", "fixtures/seq-gap.jsonl.zst"}, 1},
		// A protocol 3 connection in 2026.4.15's shapes (docs/validate.md).
		{"validate-v3.text", []string{"validate", "--format", "text", "testdata/validate/v3.jsonl"}, 0},
	})
}

// plantedCapture is a fixture with one chat delta's payload seq turned
// into a string, as plain JSON Lines, and that record's index.
func plantedCapture(t *testing.T) (string, int) {
	t.Helper()
	r, err := capture.Open(fixture(t, "streamed-run.jsonl.zst"), capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var b []byte
	target := -1
	for {
		rec, err := r.Next()
		if err != nil {
			break
		}
		if target < 0 && rec.IsFrame() && bytes.Contains(rec.Frame, []byte(`"state":"delta"`)) {
			target = rec.Index
			c := rec.Clone()
			// The payload's own seq: the first after "payload".
			p := bytes.Index(c.Frame, []byte(`"payload":{`))
			j := bytes.Index(c.Frame[p:], []byte(`"seq":`))
			if p < 0 || j < 0 {
				t.Fatalf("no payload seq in %s", c.Frame)
			}
			k := p + j + len(`"seq":`)
			end := k
			for end < len(c.Frame) && c.Frame[end] >= '0' && c.Frame[end] <= '9' {
				end++
			}
			c.Frame = append(append(append(append([]byte{}, c.Frame[:k]...), '"'), c.Frame[k:end]...), append([]byte{'"'}, c.Frame[end:]...)...)
			rec = c
		}
		b = rec.AppendJSON(b)
	}
	if target < 0 {
		t.Fatal("no chat delta in the fixture")
	}
	return string(b), target
}

func TestValidatePlantedViolation(t *testing.T) {
	clean := run(t, "", "validate", fixture(t, "streamed-run.jsonl.zst"))
	if clean.code != 0 {
		t.Fatalf("clean fixture: exit %d\n%s", clean.code, clean.stderr)
	}
	text, target := plantedCapture(t)
	r := run(t, text, "validate", "-")
	if r.code != 1 {
		t.Fatalf("planted violation: exit %d, want 1\n%s", r.code, r.stderr)
	}
	cleanLines := strings.Split(strings.TrimSpace(clean.stdout), "\n")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != len(cleanLines)+1 {
		t.Fatalf("%d lines before planting, %d after:\n%s", len(cleanLines), len(lines), r.stdout)
	}
	var hit map[string]any
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not JSON: %s", l)
		}
		if m["rule"] == "schema-violation" {
			hit = m
		}
	}
	if hit == nil || int(hit["i"].(float64)) != target || hit["pointer"] != "/payload/seq" || hit["expected"] != "integer" || hit["event"] != "chat" {
		t.Fatalf("planted at #%d: %v", target, hit)
	}
}

func TestValidateOutputFile(t *testing.T) {
	demo := fixture(t, "demo.jsonl.zst")
	dir := t.TempDir()
	out := filepath.Join(dir, "findings.ndjson")
	want := run(t, "", "validate", demo).stdout
	if r := run(t, "", "validate", "-o", out, demo); r.code != 0 || r.stdout != "" {
		t.Fatalf("-o: exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil || string(b) != want {
		t.Fatalf("the file differs from stdout's json (%v)", err)
	}
	if fi, _ := os.Stat(out); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	r := run(t, "", "validate", "-o", out, "--format", "text", demo)
	if r.code != 2 || !strings.Contains(r.stderr, "clawtap: error:") || !strings.Contains(r.stderr, "clawtap: hint:") || !strings.Contains(r.stderr, "--force") {
		t.Fatalf("existing file: exit %d stderr %s", r.code, r.stderr)
	}
	if b2, _ := os.ReadFile(out); string(b2) != want {
		t.Fatal("a refused run changed the file")
	}
	if r := run(t, "", "validate", "-o", out, "--format", "text", "--force", demo); r.code != 0 {
		t.Fatalf("--force: exit %d %s", r.code, r.stderr)
	}
	if b3, _ := os.ReadFile(out); !strings.Contains(string(b3), "schema-extra-field") || strings.Contains(string(b3), "\x1b[") {
		t.Fatalf("--force text output:\n%s", b3)
	}
}

func TestValidateFlags(t *testing.T) {
	demo := fixture(t, "demo.jsonl.zst")
	if r := run(t, "", "validate", "--fail-on", "warn", demo); r.code != 1 {
		t.Errorf("--fail-on warn on the demo (extra fields): exit %d, want 1", r.code)
	}
	if r := run(t, "", "validate", "--fail-on", "info", fixture(t, "presence-burst.jsonl.zst")); r.code != 1 {
		t.Errorf("--fail-on info: exit %d, want 1", r.code)
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "protocol.schema.json")
	os.WriteFile(bad, []byte(`{"definitions":{"X":{"type":"nonsense"}}}`), 0o600)
	for _, args := range [][]string{
		{"validate", "--format", "yaml", demo},
		{"validate", "--fail-on", "fatal", demo},
		{"validate", "--schema", filepath.Join(dir, "missing.json"), demo},
		{"validate", "--schema", bad, demo},
		{"validate", "/nonexistent.jsonl"},
	} {
		r := run(t, "", args...)
		if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "clawtap: error:") {
			t.Errorf("%v: exit %d stdout %q stderr %q; want exit 2, a one-line error", args, r.code, r.stdout, r.stderr)
		}
	}
	// Another schema: the snapshot's own directory, as a user would give an
	// unpacked package.
	snap := filepath.Join(repoRoot(t), "pkg", "validate", "schema")
	r := run(t, "", "validate", "--schema", snap, demo)
	if r.code != 0 || !strings.Contains(r.stdout, `"schema":"`+snap+`"`) {
		t.Fatalf("--schema DIR: exit %d\n%s", r.code, r.stderr)
	}
	if want := run(t, "", "validate", demo).stdout; strings.Count(want, "\n") != strings.Count(r.stdout, "\n") {
		t.Errorf("the same schema from a directory gives other findings")
	}
}
