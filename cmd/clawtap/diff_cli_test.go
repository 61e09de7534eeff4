package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDiffGolden(t *testing.T) {
	runGoldenCases(t, []goldenCase{
		{"diff-same.text", []string{"diff", "--format", "text", "fixtures/tool-run.jsonl.zst", "fixtures/tool-run.jsonl.zst"}, 0},
		{"diff-streamed-vs-duplicate.text", []string{"diff", "--format", "text", "fixtures/streamed-run.jsonl.zst", "fixtures/duplicate-final.jsonl.zst"}, 1},
		{"diff-streamed-vs-duplicate.ndjson", []string{"diff", "fixtures/streamed-run.jsonl.zst", "fixtures/duplicate-final.jsonl.zst"}, 1},
		{"diff-streamed-vs-duplicate-merged.text", []string{"diff", "--format", "text", "--merge-deltas", "fixtures/streamed-run.jsonl.zst", "fixtures/duplicate-final.jsonl.zst"}, 1},
	})
}

func TestDiffRedactedCopyAndStdin(t *testing.T) {
	dir := t.TempDir()
	red := filepath.Join(dir, "red.jsonl.zst")
	src := fixture(t, "exec-approval.jsonl.zst")
	if r := run(t, "", "redact", src, "-o", red); r.code != 0 {
		t.Fatalf("clawtap redact failed: exit %d %s", r.code, r.stderr)
	}
	if r := run(t, "", "diff", src, red); r.code != 0 {
		t.Fatalf("a redacted copy must be equivalent: exit %d\n%s", r.code, r.stdout)
	}
	data, _ := os.ReadFile(src)
	if r := run(t, string(data), "diff", "-", red); r.code != 0 || !strings.Contains(r.stdout, `"equal":true`) {
		t.Fatalf("stdin: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, args := range [][]string{{"diff", src}, {"diff", "-", "-"}, {"diff", src, "/nonexistent"}, {"diff", "--format", "yaml", src, src}} {
		if r := run(t, "", args...); r.code != 2 || r.stdout != "" {
			t.Errorf("%v: exit %d stdout %q", args, r.code, r.stdout)
		}
	}
}
