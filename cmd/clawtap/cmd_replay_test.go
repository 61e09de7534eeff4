package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// replayGolden runs `clawtap replay --golden` (or --update with -update)
// on a fixture, so the goldens exercise the command's own golden mode.
func replayGolden(t *testing.T, golden, fixtureName string, extra ...string) {
	t.Helper()
	path := filepath.Join("testdata", "replay", golden)
	args := append([]string{"replay", "--golden", path}, extra...)
	if *update {
		args = append(args, "--update")
	}
	args = append(args, fixture(t, fixtureName))
	r := run(t, "", args...)
	if r.code != 0 {
		t.Fatalf("replay %s: exit %d\n%s%s", fixtureName, r.code, r.stdout, r.stderr)
	}
}

// TestReplayGoldenFixtures replays every fixture under each UI model
// (NAME.txt for clawboo@1211c16, NAME.clawboo-59639f1.txt for the clawboo
// after it, NAME.claw3d.txt for Claw3D, NAME.control-ui.txt for the
// Control UI); review a changed golden as a
// story: it is what that UI would do with that capture. NAME.txt is
// replayed without --ui: the golden names the version it was made with.
// Regenerate with: go test ./cmd/clawtap -run Replay -update
func TestReplayGoldenFixtures(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(repoRoot(t), "fixtures", "*.jsonl*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, f := range files {
		name := filepath.Base(f)
		base := strings.TrimSuffix(strings.TrimSuffix(name, ".zst"), ".jsonl")
		t.Run(base, func(t *testing.T) {
			replayGolden(t, base+".txt", name)
		})
		t.Run(base+"/clawboo@59639f1", func(t *testing.T) {
			replayGolden(t, base+".clawboo-59639f1.txt", name, "--ui", "clawboo@59639f1")
		})
		t.Run(base+"/claw3d", func(t *testing.T) {
			replayGolden(t, base+".claw3d.txt", name, "--ui", "claw3d")
		})
		t.Run(base+"/control-ui", func(t *testing.T) {
			replayGolden(t, base+".control-ui.txt", name, "--ui", "control-ui")
		})
	}
}

func TestReplayGoldenVariants(t *testing.T) {
	for _, tc := range []struct {
		golden, fixture string
		args            []string
	}{
		{"stale-terminal.ndjson", "stale-terminal.jsonl.zst", []string{"--format", "json"}},
		{"exec-approval-conn2.txt", "exec-approval.jsonl.zst", []string{"--conn", "2"}},
		{"tool-run.transcript.txt", "tool-run.jsonl.zst", []string{"--transcript", "--ui", "clawboo@1211c16"}}, // a transcript names no UI
		{"tool-run.clawboo-59639f1.transcript.txt", "tool-run.jsonl.zst", []string{"--transcript", "--ui", "clawboo@59639f1"}},
		{"abort.clawboo-59639f1.final.json", "abort.jsonl.zst", []string{"--ui", "clawboo@59639f1", "--final", "--format", "json"}},
		{"error-run.clawboo-59639f1.transcript.txt", "error-run.jsonl.zst", []string{"--transcript", "--ui", "clawboo@59639f1"}},
		{"demo.final.json", "demo.jsonl.zst", []string{"--final", "--format", "json"}},
		{"presence-burst.frame-50ms.txt", "presence-burst.jsonl.zst", []string{"--frame-ms", "50"}},
		{"stale-terminal.window.txt", "stale-terminal.jsonl.zst", []string{"--from", "2.2s", "--to", "2.4s", "--agent", "main"}},
		{"stale-terminal.claw3d.ndjson", "stale-terminal.jsonl.zst", []string{"--ui", "claw3d", "--format", "json"}},
		{"demo.claw3d.final.json", "demo.jsonl.zst", []string{"--ui", "claw3d", "--final", "--format", "json"}},
		{"tool-run.claw3d.transcript.txt", "tool-run.jsonl.zst", []string{"--ui", "claw3d", "--transcript"}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			replayGolden(t, tc.golden, tc.fixture, tc.args...)
		})
	}
}

func TestReplayGoldenMismatch(t *testing.T) {
	dir := t.TempDir()
	g := filepath.Join(dir, "x.golden")
	fx := fixture(t, "duplicate-final.jsonl.zst")
	// Missing golden: trouble, with a hint.
	r := run(t, "", "replay", "--golden", g, fx)
	if r.code != 2 || !strings.Contains(r.stderr, "--update") {
		t.Fatalf("missing golden: exit %d, stderr %q", r.code, r.stderr)
	}
	// --update writes it; then it matches.
	if r = run(t, "", "replay", "--golden", g, "--update", fx); r.code != 0 || r.stdout != "" {
		t.Fatalf("update: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	if r = run(t, "", "replay", "--golden", g, fx); r.code != 0 {
		t.Fatalf("match: exit %d %q", r.code, r.stderr)
	}
	// A changed golden: exit 1 and a unified diff on stdout.
	b, _ := os.ReadFile(g)
	os.WriteFile(g, []byte(strings.Replace(string(b), "agents.main.status: running → idle", "agents.main.status: running → error", 1)), 0o644)
	r = run(t, "", "replay", "--golden", g, fx)
	if r.code != 1 || !strings.Contains(r.stdout, "--- "+g) || !strings.Contains(r.stdout, "-  Δ agents.main.status: running → error") ||
		!strings.Contains(r.stdout, "+  Δ agents.main.status: running → idle") || !strings.Contains(r.stderr, "differs") {
		t.Fatalf("mismatch: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
}

func TestReplayOutputs(t *testing.T) {
	fx := fixture(t, "stale-terminal.jsonl.zst")
	// Piped: NDJSON steps then the final line.
	r := run(t, "", "replay", "--ui", "clawboo@1211c16", fx) // its guard's hazard
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) < 5 || !strings.HasPrefix(lines[0], `{"i":`) || !strings.HasPrefix(lines[len(lines)-1], `{"final":{`) {
		t.Fatalf("json: exit %d, %d lines, first %q", r.code, len(lines), lines[0])
	}
	if !strings.Contains(r.stdout, `"action":"hazard"`) {
		t.Fatal("the hazard is not in the JSON output")
	}
	// Text: the hazard line and a diff in arrow form.
	r = run(t, "", "replay", "--ui", "clawboo@1211c16", "--format", "text", fx)
	if !strings.Contains(r.stdout, "HAZARD: commitChat for run") || !strings.Contains(r.stdout, "agents.main.status: running → idle") {
		t.Fatalf("text output:\n%s", r.stdout)
	}
	if strings.Contains(r.stdout, "\x1b[") {
		t.Fatal("colour when piped")
	}
	// --color always colours text.
	if r = run(t, "", "--color", "always", "replay", "--format", "text", fx); !strings.Contains(r.stdout, "\x1b[") {
		t.Fatal("no colour with --color always")
	}
	// --final json is one line.
	r = run(t, "", "replay", "--final", "--format", "json", fx)
	if n := strings.Count(r.stdout, "\n"); n != 1 || !strings.Contains(r.stdout, `"status":"idle"`) {
		t.Fatalf("final: %q", r.stdout)
	}
	// --transcript shows the late r1 answer; r2's final was dropped by
	// clawboo@1211c16's guard and is lost; --history-sync brings it back
	// through the history refresh it requested. The clawboo after it keeps
	// both.
	r = run(t, "", "replay", "--ui", "clawboo@1211c16", "--transcript", fx)
	if !strings.Contains(r.stdout, "The report covers Q3 revenue.") || strings.Contains(r.stdout, "2026.") {
		t.Fatalf("transcript: %q", r.stdout)
	}
	r = run(t, "", "replay", "--transcript", fx)
	if !strings.Contains(r.stdout, "The report covers Q3 revenue.") || !strings.Contains(r.stdout, "2026.") {
		t.Fatalf("transcript: %q", r.stdout)
	}
	r = run(t, "", "replay", "--ui", "clawboo@1211c16", "--transcript", "--history-sync", fx)
	if !strings.Contains(r.stdout, "The report covers Q3 revenue.") || !strings.Contains(r.stdout, "2026.") {
		t.Fatalf("transcript with history sync: %q", r.stdout)
	}
	// stdin works.
	b, _ := os.ReadFile(fx)
	if r = run(t, string(b), "replay", "--final", "-"); r.code != 0 || !strings.Contains(r.stdout, `"final"`) {
		t.Fatalf("stdin: %d %q", r.code, r.stderr)
	}
}

func TestReplayFiltersAndWindows(t *testing.T) {
	fx := fixture(t, "presence-burst.jsonl.zst")
	all := run(t, "", "replay", fx)
	steps := strings.Count(all.stdout, "\n") - 1
	// --agent with an agent the replay never met: a usage error, nothing
	// printed (TestReplayRefusesWhatMatchesNothing).
	r := run(t, "", "replay", "--agent", "nobody", fx)
	if r.code != 2 || r.stdout != "" {
		t.Fatalf("--agent nobody: exit %d:\n%s", r.code, r.stdout)
	}
	// --to 3 stops after record 3: fewer steps, no drain.
	r = run(t, "", "replay", "--to", "3", fx)
	if n := strings.Count(r.stdout, "\n") - 1; n >= steps {
		t.Fatalf("--to 3 kept %d of %d steps", n, steps)
	}
	// --from past the end keeps nothing but the final state.
	if r = run(t, "", "replay", "--from", "100000", fx); strings.Count(r.stdout, "\n") != 1 {
		t.Fatalf("--from 100000: %q", r.stdout)
	}
	// Offsets work too.
	if r = run(t, "", "replay", "--from", "1s", "--to", "2s", fx); r.code != 0 {
		t.Fatalf("offset window: %d %s", r.code, r.stderr)
	}
	// --session keeps only that session's frames.
	r = run(t, "", "replay", "--format", "text", "--session", "agent:main:main", fixture(t, "demo.jsonl.zst"))
	if r.code != 0 || strings.Contains(r.stdout, "presence") || !strings.Contains(r.stdout, "agents.main.status") {
		t.Fatalf("--session:\n%s", r.stdout)
	}
}

func TestReplayUsageErrors(t *testing.T) {
	fx := fixture(t, "demo.jsonl.zst")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"replay", "--final", "--transcript", fx}, "cannot be combined"},
		{[]string{"replay", "--update", fx}, "--update needs --golden"},
		{[]string{"replay", "--frame-ms", "0", fx}, "invalid --frame-ms"},
		{[]string{"replay", "--frame-ms", "a/b", fx}, "invalid --frame-ms"},
		{[]string{"replay", "--from", "soon", fx}, "invalid --from"},
		{[]string{"replay", "--from", "1", "--to", "2s", fx}, "mix an index and an offset"},
		{[]string{"replay", "--format", "yaml", fx}, "unknown format"},
		{[]string{"replay", "/no/such/file"}, "no such file"},
		{[]string{"replay", "--conn", "-1", fx}, "invalid --conn"},
	} {
		r := run(t, "", tc.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) || r.stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q (want %q)", tc.args, r.code, r.stdout, r.stderr, tc.want)
		}
	}
}

func TestReplayWarnings(t *testing.T) {
	// Reader warnings and skipped concurrent connections go to stderr.
	r := run(t, "", "replay", "--final", fixture(t, "junk.jsonl"))
	if r.code != 0 || !strings.Contains(r.stderr, "clawtap: warning:") {
		t.Fatalf("junk: %d %q", r.code, r.stderr)
	}
	r = run(t, "", "replay", "--final", fixture(t, "exec-approval.jsonl.zst"))
	if !strings.Contains(r.stderr, "skipped") || !strings.Contains(r.stderr, "--conn") {
		t.Fatalf("no skipped-connection warning: %q", r.stderr)
	}
	if r = run(t, "", "-q", "replay", "--final", fixture(t, "exec-approval.jsonl.zst")); r.stderr != "" {
		t.Fatalf("-q still warned: %q", r.stderr)
	}
}

func TestReplayHelp(t *testing.T) {
	r := run(t, "", "replay", "--help")
	for _, want := range []string{"--golden", "--update", "--frame-ms", "clawtap replay fixtures/stale-terminal.jsonl.zst", "HAZARD"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("help lacks %q", want)
		}
	}
}

// replay --conn/--agent that name nothing in the capture, and a --from after
// --to, are usage errors (exit 2) that print nothing and name what exists,
// not an empty replay with exit 0.
func TestReplayRefusesWhatMatchesNothing(t *testing.T) {
	demo := fixture(t, "demo.jsonl.zst")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--conn", "9"}, "no connection 9 in " + demo + " (it has 1)"},
		{[]string{"--conn", "7", fixture(t, "exec-approval.jsonl.zst")}, "(it has 1, 2)"},
		{[]string{"--agent", "nobody", "--final"}, `no agent "nobody" in the replay of ` + demo + " (it has main)"},
		{[]string{"--agent", "nobody", "--format", "json"}, "(it has main)"},
		{[]string{"--from", "5s", "--to", "1s"}, "--from 5s is after --to 1s"},
		{[]string{"--from", "5", "--to", "1"}, "--from 5 is after --to 1"},
	} {
		args := append([]string{"replay"}, c.args...)
		if !strings.HasSuffix(args[len(args)-1], ".zst") {
			args = append(args, demo)
		}
		r := run(t, "", args...)
		if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, c.want) || strings.Contains(r.stderr, "skipped") {
			t.Errorf("%v: exit %d, stdout %q, stderr:\n%s", c.args, r.code, r.stdout, r.stderr)
		}
	}
	for _, args := range [][]string{{"--conn", "1"}, {"--agent", "main"}, {"--from", "1s", "--to", "1s"}} {
		if r := run(t, "", append(append([]string{"replay"}, args...), demo)...); r.code != 0 || r.stdout == "" {
			t.Errorf("%v: exit %d, %s", args, r.code, r.stderr)
		}
	}
}
