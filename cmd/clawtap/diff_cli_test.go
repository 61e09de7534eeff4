package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
)

func TestDiffGolden(t *testing.T) {
	runGoldenCases(t, []goldenCase{
		{"diff-same.text", []string{"diff", "--format", "text", "fixtures/tool-run.jsonl.zst", "fixtures/tool-run.jsonl.zst"}, 0},
		{"diff-streamed-vs-duplicate.text", []string{"diff", "--ui", "clawboo@1211c16", "--format", "text", "fixtures/streamed-run.jsonl.zst", "fixtures/duplicate-final.jsonl.zst"}, 1},
		{"diff-streamed-vs-duplicate.ndjson", []string{"diff", "--ui", "clawboo@1211c16", "fixtures/streamed-run.jsonl.zst", "fixtures/duplicate-final.jsonl.zst"}, 1},
		{"diff-streamed-vs-duplicate-merged.text", []string{"diff", "--ui", "clawboo@1211c16", "--format", "text", "--merge-deltas", "fixtures/streamed-run.jsonl.zst", "fixtures/duplicate-final.jsonl.zst"}, 1},
		{"diff-uis-stale-terminal.text", []string{"diff", "--ui", "clawboo@1211c16,claw3d", "--format", "text", "fixtures/stale-terminal.jsonl.zst"}, 1},
		{"diff-uis-exec-approval.ndjson", []string{"diff", "--ui", "clawboo@1211c16,claw3d", "fixtures/exec-approval.jsonl.zst"}, 1},
		{"diff-uis-abort.table", []string{"diff", "--ui", "claw3d,clawboo@1211c16", "--format", "table", "fixtures/abort.jsonl.zst"}, 0},
		// What clawboo's fix changed, run by run.
		{"diff-uis-clawboo-fix-streamed-run.text", []string{"diff", "--ui", "clawboo@1211c16,clawboo", "--format", "text", "fixtures/streamed-run.jsonl.zst"}, 1},
		{"diff-claw3d-streamed-vs-duplicate.text", []string{"diff", "--ui", "claw3d", "--format", "text", "fixtures/streamed-run.jsonl.zst", "fixtures/duplicate-final.jsonl.zst"}, 1},
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

func TestDiffUIsUsage(t *testing.T) {
	src := fixture(t, "stale-terminal.jsonl.zst")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"diff", "--ui", "clawboo,claw3d", src, src}, "got 2 captures"},
		{[]string{"diff", "--ui", "clawboo,clawboo", src}, "compares a UI with itself"},
		{[]string{"diff", "--ui", "clawboo,nope", src}, "nope"},
		{[]string{"diff", "--ui", "nope", src, src}, "nope"},
		{[]string{"diff", "--ui", "claw3d", src}, "needs two captures"},
	} {
		r := run(t, "", c.args...)
		if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q (want %q)", c.args, r.code, r.stdout, r.stderr, c.want)
		}
	}
}

// diff --ui reads its capture once, so it may come from stdin, and says
// the same as from the file.
func TestDiffUIsReadsStdin(t *testing.T) {
	src := fixture(t, "stale-terminal.jsonl.zst")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	file := run(t, "", "diff", "--ui", "clawboo,claw3d", "--format", "json", src)
	stdin := run(t, string(data), "diff", "--ui", "clawboo,claw3d", "--format", "json", "-")
	if file.code != 1 || !strings.Contains(file.stdout, `"differs"`) {
		t.Fatalf("the file: exit %d, want 1 with a run that differs\n%s%s", file.code, file.stdout, file.stderr)
	}
	if stdin.code != file.code || stdin.stdout != file.stdout {
		t.Errorf("stdin: exit %d, want %d\n%s\nthe file said\n%s", stdin.code, file.code, stdin.stdout, file.stdout)
	}
}

// The flags of an A/B diff have no meaning when one capture's UIs are
// compared: given anyway, they are a usage error, not silently ignored.
func TestDiffUIsRefusesABFlags(t *testing.T) {
	in := fixture(t, "abort.jsonl.zst")
	for _, flag := range [][]string{{"--merge-deltas"}, {"--structure"}, {"--ignore", "tick"}, {"--all-events"}, {"--context", "5"}, {"--window", "8"}, {"--divergences", "2"}} {
		r := run(t, "", append([]string{"diff", "--ui", "claw3d,clawboo", in}, flag...)...)
		if r.code != 2 || !strings.Contains(r.stderr, flag[0]) {
			t.Errorf("%v: exit %d: %s", flag, r.code, r.stderr)
		}
	}
	if r := run(t, "", "diff", "--ui", "claw3d,clawboo", in); r.code == 2 {
		t.Errorf("without them: exit 2: %s", r.stderr)
	}
}

// diff shows the first divergence and says how many more there are;
// --divergences N shows the first N.
func TestDiffDivergences(t *testing.T) {
	a, b := fixture(t, "streamed-run.jsonl.zst"), fixture(t, "duplicate-final.jsonl.zst")
	r := run(t, "", "diff", "--format", "text", a, b)
	if r.code != 1 || !strings.Contains(r.stdout, "first divergence after 5 equal step(s)") || !strings.Contains(r.stdout, "2 more divergences not shown: --divergences 3 shows every one") {
		t.Fatalf("exit %d\n%s", r.code, r.stdout)
	}
	// The counts by kind are of every divergence: the summary says so.
	if !strings.Contains(r.stdout, "  chat final: 1 changed") || !strings.Contains(r.stdout, "(these counts are of all 3 divergences; 1 shown: --divergences 3 shows each)") {
		t.Errorf("the summary does not point at the divergences it counts:\n%s", r.stdout)
	}
	r = run(t, "", "diff", "--format", "text", "--divergences", "3", a, b)
	if r.code != 1 || !strings.Contains(r.stdout, "divergence 3 of 3, after ") || strings.Contains(r.stdout, "not shown") || strings.Contains(r.stdout, "these counts") {
		t.Fatalf("--divergences 3: exit %d\n%s", r.code, r.stdout)
	}
	r = run(t, "", "diff", "--format", "json", "--divergences", "2", a, b)
	if n := strings.Count(r.stdout, `{"divergence":`); r.code != 1 || n != 2 || !strings.Contains(r.stdout, `"divergences":3`) {
		t.Errorf("JSON: exit %d, %d divergence lines\n%s", r.code, n, r.stdout)
	}
	r = run(t, "", "diff", "--format", "table", "--divergences", "2", a, b)
	if r.code != 1 || !strings.Contains(r.stdout, "divergence 2 of 3") || !strings.Contains(r.stdout, "1 more divergence not shown") {
		t.Errorf("table: exit %d\n%s", r.code, r.stdout)
	}
	if r := run(t, "", "diff", "--divergences", "0", a, b); r.code != 2 || !strings.Contains(r.stderr, "--divergences 0 shows no divergence") {
		t.Errorf("--divergences 0: exit %d, %s", r.code, r.stderr)
	}
}

// A recording against the same frames without its connection markers
// (bare frames, a console copy) compares the frames: the markers are left
// out, and the summary says so.
func TestDiffBareFramesLeavesMarkersOut(t *testing.T) {
	a := fixture(t, "streamed-run.jsonl.zst")
	var bare strings.Builder
	r, err := capture.Open(a, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	marks := 0
	for {
		rec, err := r.Next()
		if err != nil {
			break
		}
		if rec.Mark != "" {
			marks++
			continue
		}
		bare.Write(rec.Frame)
		bare.WriteString("\n")
	}
	r.Close()
	b := filepath.Join(t.TempDir(), "bare.jsonl")
	if err := os.WriteFile(b, []byte(bare.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{a, b}, {b, a}} {
		res := run(t, "", append([]string{"diff", "--format", "text"}, args...)...)
		other := "B"
		if args[0] == b {
			other = "A"
		}
		if res.code != 0 || !strings.Contains(res.stdout, "equivalent:") || !strings.Contains(res.stdout, fmt.Sprintf("starts with none (bare frames), so %s's %d markers were left out", map[string]string{"A": "B", "B": "A"}[other], marks)) {
			t.Errorf("diff %v: exit %d\n%s%s", args, res.code, res.stdout, res.stderr)
		}
		res = run(t, "", append([]string{"diff", "--format", "json"}, args...)...)
		if !strings.Contains(res.stdout, fmt.Sprintf(`"markersLeftOut":%d`, marks)) {
			t.Errorf("diff --format json %v:\n%s", args, res.stdout)
		}
	}
}
