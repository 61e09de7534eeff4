package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func TestCheckGolden(t *testing.T) {
	runGoldenCases(t, []goldenCase{
		// clawboo@1211c16's findings, as they were before clawtap modelled versions.
		{"check-seq-gap.ndjson", []string{"check", "--ui", "clawboo@1211c16", "fixtures/seq-gap.jsonl.zst"}, 1},
		{"check-seq-gap.text", []string{"check", "--ui", "clawboo@1211c16", "--format", "text", "fixtures/seq-gap.jsonl.zst"}, 1},
		{"check-stale-terminal.ndjson", []string{"check", "--ui", "clawboo@1211c16", "fixtures/stale-terminal.jsonl.zst"}, 1},
		{"check-error-run.text", []string{"check", "--ui", "clawboo@1211c16", "--format", "text", "fixtures/error-run.jsonl.zst"}, 0},
		{"check-junk.text", []string{"check", "--ui", "clawboo@1211c16", "--format", "text", "fixtures/junk.jsonl"}, 0},
		{"check-demo.text", []string{"check", "--ui", "clawboo@1211c16", "--format", "text", "fixtures/demo.jsonl.zst"}, 0},
		{"check-demo.ndjson", []string{"check", "--ui", "clawboo@1211c16", "fixtures/demo.jsonl.zst"}, 0},
		// Every UI version at once.
		{"check-uis-all-streamed-run.text", []string{"check", "--ui", "all", "--format", "text", "fixtures/streamed-run.jsonl.zst"}, 0},
		{"check-uis-all-stale-terminal.ndjson", []string{"check", "--ui", "all", "fixtures/stale-terminal.jsonl.zst"}, 1},
		{"check-uis-two-stale-terminal.table", []string{"check", "--ui", "claw3d,clawboo@1211c16", "--format", "table", "fixtures/stale-terminal.jsonl.zst"}, 1},
		// The default, the newest clawboo.
		{"check-demo.newest.text", []string{"check", "--format", "text", "fixtures/demo.jsonl.zst"}, 0},
		{"check-stale-terminal.newest.ndjson", []string{"check", "fixtures/stale-terminal.jsonl.zst"}, 0},
		{"check-error-run.newest.text", []string{"check", "--format", "text", "fixtures/error-run.jsonl.zst"}, 0},
		{"check-duplicate-final-warn.ndjson", []string{"check", "--ui", "claw3d", "--fail-on", "warn", "--skip", "duplicate-terminal", "fixtures/duplicate-final.jsonl.zst"}, 0},
		{"check-list.text", []string{"check", "--list"}, 0},
	})
}

func TestCheckFailOnAndRules(t *testing.T) {
	abort := fixture(t, "abort.jsonl.zst")
	if r := run(t, "", "check", abort); r.code != 0 {
		t.Fatalf("abort (info only) exit %d with the default --fail-on error", r.code)
	}
	if r := run(t, "", "check", "--fail-on", "info", abort); r.code != 1 {
		t.Fatalf("--fail-on info: exit %d, want 1", r.code)
	}
	errRun := fixture(t, "error-run.jsonl.zst")
	if r := run(t, "", "check", "--fail-on", "warn", errRun); r.code != 1 {
		t.Fatalf("--fail-on warn on a failed run: exit %d, want 1", r.code)
	}
	if r := run(t, "", "check", "--fail-on", "warn", "--rule", "replace-delta", errRun); r.code != 0 || strings.Count(r.stdout, `"rule":"replace-delta"`) != 2 {
		t.Fatalf("--rule replace-delta: exit %d\n%s", r.code, r.stdout)
	}
	stale := fixture(t, "stale-terminal.jsonl.zst")
	if r := run(t, "", "check", "--no-replay", stale); r.code != 0 || strings.Contains(r.stdout, "dropped-final") {
		t.Fatalf("--no-replay must turn off dropped-final: exit %d\n%s", r.code, r.stdout)
	}
	for _, args := range [][]string{
		{"check", "--rule", "no-such-rule", abort},
		{"check", "--skip", "nope", abort},
		{"check", "--fail-on", "fatal", abort},
		{"check", "--slow-ms", "0", abort},
		{"check", "--format", "yaml", abort},
		{"check", "/nonexistent.jsonl"},
	} {
		r := run(t, "", args...)
		if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "clawtap: error:") {
			t.Errorf("%v: exit %d stdout %q stderr %q; want exit 2, a one-line error", args, r.code, r.stdout, r.stderr)
		}
	}
}

func TestCheckStdinAndSummary(t *testing.T) {
	data, err := os.ReadFile(fixture(t, "seq-gap.jsonl.zst"))
	if err != nil {
		t.Fatal(err)
	}
	viaStdin := run(t, string(data), "check", "-")
	viaFile := run(t, "", "check", fixture(t, "seq-gap.jsonl.zst"))
	if viaStdin.code != 1 || viaStdin.stdout != viaFile.stdout {
		t.Fatalf("stdin differs from file (exit %d): %s", viaStdin.code, viaStdin.stderr)
	}
	lines := strings.Split(strings.TrimSpace(viaFile.stdout), "\n")
	var last struct {
		Summary struct {
			Records int            `json:"records"`
			Error   int            `json:"error"`
			Rules   map[string]int `json:"rules"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatal(err)
	}
	if last.Summary.Records != 75 || last.Summary.Error != 1 || last.Summary.Rules["seq-gap"] != 1 {
		t.Fatalf("summary %+v", last.Summary)
	}
	for _, l := range lines[:len(lines)-1] {
		var f map[string]any
		if err := json.Unmarshal([]byte(l), &f); err != nil || f["rule"] == nil || f["message"] == nil {
			t.Fatalf("bad finding line %q: %v", l, err)
		}
	}
}

func TestCheckTruncatedWarnsAndReports(t *testing.T) {
	r := run(t, "", "check", fixture(t, "truncated.jsonl.zst"))
	if r.code != 0 || !strings.Contains(r.stdout, `"rule":"capture-truncated"`) || !strings.Contains(r.stderr, "truncated") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
}

// TestCheckSchema: check --schema folds validate's findings into check's,
// in one pass: the same schema findings validate reports, counted in the
// summary and gating the exit code.
func TestCheckSchema(t *testing.T) {
	fx := fixture(t, "seq-gap.jsonl.zst")
	plain := run(t, "", "check", "--format", "json", fx)
	withSchema := run(t, "", "check", "--schema", "--format", "json", fx)
	valid := run(t, "", "validate", "--format", "json", fx)
	if withSchema.code != 1 || valid.code != 1 {
		t.Fatalf("exit %d / %d: %s %s", withSchema.code, valid.code, withSchema.stderr, valid.stderr)
	}
	count := func(out, rule string) int { return strings.Count(out, `"rule":"`+rule+`"`) }
	for _, rule := range []string{"schema-violation", "schema-extra-field"} {
		if got, want := count(withSchema.stdout, rule), count(valid.stdout, rule); got != want || want == 0 {
			t.Errorf("%s: check --schema has %d, validate %d", rule, got, want)
		}
	}
	if count(plain.stdout, "seq-gap") != count(withSchema.stdout, "seq-gap") || count(plain.stdout, "schema-violation") != 0 {
		t.Error("check's own findings changed with --schema, or schema findings without it")
	}
	text := run(t, "", "check", "--schema", "--format", "text", fx)
	if !strings.Contains(text.stdout, "schema-violation (") || !strings.Contains(text.stdout, "ERROR seq-gap") {
		t.Errorf("text output lacks the schema group or check's own:\n%s", text.stdout)
	}
	if r := run(t, "", "check", "--schema=/nonexistent", fx); r.code != 2 {
		t.Errorf("a missing schema: exit %d", r.code)
	}
}
