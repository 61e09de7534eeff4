package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/models"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/klauspost/compress/zstd"
)

// lines returns a capture file's JSON lines, decompressed.
func lines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	must(t, err)
	if bytes.HasPrefix(b, []byte{0x28, 0xB5, 0x2F, 0xFD}) {
		d, err := zstd.NewReader(nil)
		must(t, err)
		b, err = d.DecodeAll(b, nil)
		d.Close()
		must(t, err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

func TestShrinkCommand(t *testing.T) {
	in := fixture(t, "duplicate-final.jsonl.zst")
	out := filepath.Join(t.TempDir(), "small.jsonl.zst")
	r := run(t, "", "shrink", in, "--rule", "duplicate-terminal", "-o", out)
	if r.code != 0 || r.stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "clawtap: shrink: 26 → 7 records (") || !strings.Contains(r.stderr, "by connection") {
		t.Errorf("progress on stderr: %q", r.stderr)
	}
	if fi, err := os.Stat(out); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("output: %v %v", fi, err)
	}
	// Every record line is the input's, byte for byte; the header is the
	// input's with a note.
	inLines, outLines := lines(t, in), lines(t, out)
	if len(outLines) != 8 {
		t.Fatalf("%d lines written, want a header and 7 records", len(outLines))
	}
	have := map[string]bool{}
	for _, l := range inLines[1:] {
		have[l] = true
	}
	for _, l := range outLines[1:] {
		if !have[l] {
			t.Errorf("a record that is not the input's: %s", l)
		}
	}
	var hin, hout capture.Header
	must(t, json.Unmarshal([]byte(inLines[0]), &hin))
	must(t, json.Unmarshal([]byte(outLines[0]), &hout))
	var note string
	must(t, json.Unmarshal(hout.Notes, &note))
	if hout.CreatedAt != hin.CreatedAt || hout.Source != hin.Source || !strings.HasPrefix(note, "Shrunk by clawtap shrink to 7 of 26 records that still show duplicate-terminal") {
		t.Errorf("header: %s", outLines[0])
	}
	if a, b := mustJSON(t, hin.Redaction), mustJSON(t, hout.Redaction); a != b {
		t.Errorf("redaction changed: %s → %s", a, b)
	}
	// check still finds it; replay runs.
	c := run(t, "", "check", "--rule", "duplicate-terminal", "--format", "json", out)
	if c.code != 1 || !strings.Contains(c.stdout, `"rule":"duplicate-terminal"`) {
		t.Errorf("check on the small capture: exit %d\n%s%s", c.code, c.stdout, c.stderr)
	}
	if rp := run(t, "", "replay", out); rp.code != 0 || rp.stdout == "" {
		t.Errorf("replay on the small capture: exit %d: %s", rp.code, rp.stderr)
	}
	// Shrinking it again keeps every record; twice the same bytes.
	again := filepath.Join(t.TempDir(), "again.jsonl.zst")
	if r := run(t, "", "shrink", out, "--rule", "duplicate-terminal", "-o", again); r.code != 0 || !strings.Contains(r.stderr, "7 → 7 records") {
		t.Fatalf("second shrink: exit %d, %s", r.code, r.stderr)
	}
	if a, b := strings.Join(outLines[1:], "\n"), strings.Join(lines(t, again)[1:], "\n"); a != b {
		t.Errorf("the second shrink changed the records")
	}
	twice := filepath.Join(t.TempDir(), "small.jsonl.zst")
	run(t, "", "shrink", in, "--rule", "duplicate-terminal", "-o", twice)
	if a, b := readFile(t, out), readFile(t, twice); a != b {
		t.Errorf("two runs wrote different bytes")
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	must(t, err)
	return string(b)
}

func TestShrinkToStdoutAndQuiet(t *testing.T) {
	in := fixture(t, "stale-terminal.jsonl.zst")
	r := run(t, "", "-q", "shrink", in, "--rule", "dropped-final", "--ui", "clawboo@1211c16", "-o", "-")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	c := run(t, r.stdout, "check", "--ui", "clawboo@1211c16", "--rule", "dropped-final", "--format", "json", "-")
	if c.code != 1 || !strings.Contains(c.stdout, `"rule":"dropped-final"`) {
		t.Fatalf("check of the stdout capture: exit %d %s %s", c.code, c.stdout, c.stderr)
	}
	// And from stdin: a shrunk capture keeps all of itself.
	again := run(t, r.stdout, "shrink", "-", "--rule", "dropped-final", "--ui", "clawboo@1211c16", "-o", "-")
	if again.code != 0 || again.stdout == "" || !strings.Contains(again.stderr, "shrink: 8 → 8 records") || !strings.Contains(again.stderr, "shrink: dropped-final at record 7: Replay: run ") {
		t.Fatalf("from stdin: exit %d, %s", again.code, again.stderr)
	}
}

func TestShrinkRun(t *testing.T) {
	in := fixture(t, "exec-approval.jsonl.zst")
	const run2 = "990e77be-a691-4d68-a4b9-379b3c203882"
	r := run(t, "", "shrink", in, "--rule", "run-seq-jump", "--run", run2, "-o", "-")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	c := run(t, r.stdout, "check", "--rule", "run-seq-jump", "--format", "json", "-")
	if !strings.Contains(c.stdout, `"runId":"`+run2+`"`) {
		t.Fatalf("the small capture's findings are not for run %s:\n%s", run2, c.stdout)
	}
	// A run the rule does not fire for: exit 2, naming those it does.
	r = run(t, "", "shrink", in, "--rule", "run-seq-jump", "--run", "nope", "-o", "-")
	if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "for run nope (it does for run ") || !strings.Contains(r.stderr, run2) {
		t.Fatalf("unknown run: exit %d, %q", r.code, r.stderr)
	}
}

func TestShrinkMaxTests(t *testing.T) {
	out := filepath.Join(t.TempDir(), "small.jsonl")
	r := run(t, "", "shrink", fixture(t, "duplicate-final.jsonl.zst"), "--rule", "duplicate-terminal", "--max-tests", "3", "-o", out)
	if r.code != 0 || !strings.Contains(r.stderr, "clawtap: warning: --max-tests 3 reached") || !strings.Contains(r.stderr, "(3 tests)") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if c := run(t, "", "check", "--rule", "duplicate-terminal", out); c.code != 1 {
		t.Errorf("the capture written at the bound lost the finding: exit %d", c.code)
	}
	if !strings.Contains(lines(t, out)[0], "stopped at --max-tests") {
		t.Errorf("the header does not say the search stopped early: %s", lines(t, out)[0])
	}
}

func TestShrinkRefusals(t *testing.T) {
	dir := t.TempDir()
	demo := fixture(t, "demo.jsonl.zst")
	out := filepath.Join(dir, "out.jsonl")
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"not shown", []string{"shrink", demo, "--rule", "duplicate-terminal", "-o", out}, []string{"does not show duplicate-terminal", "hint: run 'clawtap check --rule duplicate-terminal"}},
		{"no rule", []string{"shrink", demo, "-o", out}, []string{"no --rule given"}},
		{"no output", []string{"shrink", demo, "--rule", "seq-gap"}, []string{"no output given"}},
		{"unknown rule", []string{"shrink", demo, "--rule", "nope", "-o", out}, []string{`unknown rule "nope"`, "check --list"}},
		{"unknown ui", []string{"shrink", demo, "--rule", "seq-gap", "--ui", "nope", "-o", out}, []string{`unknown UI "nope"`, "use --ui NAME[@VERSION]: " + strings.Join(models.Names(), ", ")}},
		{"truncation", []string{"shrink", fixture(t, "truncated.jsonl.zst"), "--rule", "capture-truncated", "-o", out}, []string{"capture-truncated cannot be shrunk", "shrink for another rule"}},
		{"negative bound", []string{"shrink", demo, "--rule", "seq-gap", "--max-tests", "-1", "-o", out}, []string{"--max-tests must not be negative"}},
		{"zero threshold", []string{"shrink", demo, "--rule", "slow-response", "--slow-ms", "0", "-o", out}, []string{"--slow-ms and --idle-ms must be positive"}},
		{"not a capture", []string{"shrink", filepath.Join(repoRoot(t), "README.md"), "--rule", "seq-gap", "-o", out}, []string{"not a clawtap capture"}},
		{"input is output", []string{"shrink", demo, "--rule", "seq-gap", "-o", demo, "--force"}, []string{"is the input"}},
	} {
		r := run(t, "", c.args...)
		if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "clawtap: error:") || !strings.Contains(r.stderr, "clawtap: hint:") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", c.name, r.code, r.stdout, r.stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%s: stderr lacks %q: %s", c.name, w, r.stderr)
			}
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%s: left an output file", c.name)
		}
	}
	// An existing output is kept unless --force.
	must(t, os.WriteFile(out, []byte("keep me"), 0o600))
	args := []string{"shrink", fixture(t, "duplicate-final.jsonl.zst"), "--rule", "duplicate-terminal", "-o", out}
	if r := run(t, "", args...); r.code != 2 || readFile(t, out) != "keep me" || !strings.Contains(r.stderr, "--force") {
		t.Fatalf("existing output: exit %d, %q", r.code, r.stderr)
	}
	if r := run(t, "", append(args, "--force")...); r.code != 0 || len(lines(t, out)) != 8 {
		t.Fatalf("--force: exit %d, %q", r.code, r.stderr)
	}
}

func TestShrinkCompletion(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"shrink", "--ui", ""}, append(models.Names(), models.Default().String())},
		{[]string{"shrink", "--rule", ""}, []string{"duplicate-terminal", "dropped-final", "seq-gap"}},
	} {
		r := run(t, "", append([]string{"__complete"}, c.args...)...)
		for _, w := range c.want {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("completing %v: %q lacks %q", c.args, r.stdout, w)
			}
		}
	}
}

// --slow-ms is check's: a finding check makes only with it is shrunk with it.
func TestShrinkSlowMs(t *testing.T) {
	demo := fixture(t, "demo.jsonl.zst")
	if r := run(t, "", "shrink", demo, "--rule", "slow-response", "-o", "-"); r.code != 2 {
		t.Fatalf("without --slow-ms the demo has no slow response: exit %d", r.code)
	}
	r := run(t, "", "shrink", demo, "--rule", "slow-response", "--slow-ms", "10", "-o", "-")
	if r.code != 0 || !strings.Contains(r.stderr, "38 → 6 records") {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	c := run(t, r.stdout, "check", "--rule", "slow-response", "--slow-ms", "10", "--format", "json", "-")
	if !strings.Contains(c.stdout, `"rule":"slow-response"`) {
		t.Fatalf("the small capture: %s", c.stdout)
	}
}

// TestShrinkUnderClaw3D: a finding only Claw3D's replay shows (the older
// run's reply it ignores in stale-terminal) shrinks with --ui claw3d, and
// the small capture shows it under Claw3D.
func TestShrinkUnderClaw3D(t *testing.T) {
	out := filepath.Join(t.TempDir(), "small.jsonl")
	r := run(t, "", "shrink", fixture(t, "stale-terminal.jsonl.zst"), "--rule", "lost-reply", "--ui", "claw3d", "-o", out)
	if r.code != 0 {
		t.Fatalf("shrink --ui claw3d: exit %d: %s", r.code, r.stderr)
	}
	c := run(t, "", "check", "--ui", "claw3d", "--rule", "lost-reply", "--fail-on", "warn", "--format", "json", out)
	if c.code != 1 || !strings.Contains(c.stdout, "Claw3D never shows run f4bbc289") {
		t.Errorf("check --ui claw3d on the small capture: exit %d\n%s%s", c.code, c.stdout, c.stderr)
	}
	if rp := run(t, "", "replay", "--ui", "claw3d", out); rp.code != 0 || rp.stdout == "" {
		t.Errorf("replay --ui claw3d on the small capture: exit %d: %s", rp.code, rp.stderr)
	}
}

// shrink -o X: an output it could not write (an existing file without
// --force, a directory, a missing directory) is refused before the search,
// not after it: no progress line, exit 2; nothing is left behind.
func TestShrinkRefusesItsOutputFirst(t *testing.T) {
	in := fixture(t, "demo.jsonl.zst")
	dir := t.TempDir()
	existing := filepath.Join(dir, "existing.jsonl")
	must(t, os.WriteFile(existing, []byte("keep\n"), 0o600))
	must(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	for _, out := range []string{existing, filepath.Join(dir, "sub"), filepath.Join(dir, "nodir", "x.jsonl")} {
		r := run(t, "", "shrink", in, "--rule", "lost-reply", "--ui", "clawboo@1211c16", "-o", out)
		if r.code != 2 || strings.Contains(r.stderr, "shrink: by") || strings.Count(r.stderr, "\n") != 2 {
			t.Errorf("-o %s: exit %d, stderr:\n%s", out, r.code, r.stderr)
		}
	}
	if b, _ := os.ReadFile(existing); string(b) != "keep\n" {
		t.Errorf("the existing file changed: %q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("left behind: %v", ents)
	}
	if r := run(t, "", "shrink", in, "--rule", "lost-reply", "--ui", "clawboo@1211c16", "-o", existing, "--force"); r.code != 0 || len(lines(t, existing)) < 2 {
		t.Errorf("--force: exit %d, %s", r.code, r.stderr)
	}
}
