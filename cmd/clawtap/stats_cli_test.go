package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func TestStatsGolden(t *testing.T) {
	runGoldenCases(t, []goldenCase{
		{"stats-demo.json", []string{"stats", "fixtures/demo.jsonl.zst"}, 0},
		{"stats-reconnect.table", []string{"stats", "--format", "table", "fixtures/reconnect.jsonl.zst"}, 0},
		{"stats-exec-approval.table", []string{"stats", "--format", "table", "fixtures/exec-approval.jsonl.zst"}, 0},
		{"stats-junk.json", []string{"stats", "fixtures/junk.jsonl"}, 0},
	})
}

func TestStatsStdinAndErrors(t *testing.T) {
	data, err := os.ReadFile(fixture(t, "tool-run.jsonl.zst"))
	if err != nil {
		t.Fatal(err)
	}
	viaStdin := run(t, string(data), "stats", "-")
	viaFile := run(t, "", "stats", fixture(t, "tool-run.jsonl.zst"))
	if viaStdin.code != 0 || viaStdin.stdout != viaFile.stdout {
		t.Fatalf("stdin differs from file: %s", viaStdin.stderr)
	}
	var s map[string]any
	if err := json.Unmarshal([]byte(viaFile.stdout), &s); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"capture", "gateway", "connections", "frames", "runs", "deltas", "approvals", "gaps", "errors", "methods"} {
		if _, ok := s[k]; !ok {
			t.Errorf("stats JSON has no %q", k)
		}
	}
	for _, args := range [][]string{{"stats", "--format", "yaml", "x"}, {"stats", "/nonexistent"}, {"stats", "a", "b"}} {
		if r := run(t, "", args...); r.code != 2 || r.stdout != "" {
			t.Errorf("%v: exit %d stdout %q", args, r.code, r.stdout)
		}
	}
}

// A header that names how a capture was made but not the tool says only
// that: no "from -" for the tool it does not name.
func TestStatsSourceWithoutTool(t *testing.T) {
	lines := []string{
		`{"clawtap":1,"source":{"mode":"record"}}`,
		`{"t":1000,"conn":1,"dir":"in","frame":{"type":"event","event":"tick","payload":{"ts":1},"seq":1}}`,
	}
	r := run(t, strings.Join(lines, "\n")+"\n", "stats", "--format", "text", "-")
	if r.code != 0 || !strings.Contains(r.stdout, ", source record") || strings.Contains(r.stdout, "from -") {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
