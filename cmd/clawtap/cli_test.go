package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/internal/cli"
)

// goldenCase is one CLI run compared with a golden file.
type goldenCase struct {
	name string
	args []string
	code int
}

func runGoldenCases(t *testing.T, cases []goldenCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{}, c.args...)
			for i, a := range args {
				if strings.HasPrefix(a, "fixtures/") {
					args[i] = fixture(t, strings.TrimPrefix(a, "fixtures/"))
				}
			}
			r := run(t, "", args...)
			if r.code != c.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, c.code, r.stderr)
			}
			golden(t, c.name, r.stdout)
		})
	}
}

// Golden CLI cases: args → stdout (golden file), exit code. Stderr is
// compared too when it matters. Add a case by adding a line.
func TestCLIGolden(t *testing.T) {
	runGoldenCases(t, []goldenCase{
		{"classify-demo.ndjson", []string{"classify", "fixtures/demo.jsonl.zst"}, 0},
		{"classify-demo.table", []string{"classify", "--format", "table", "--color", "never", "fixtures/demo.jsonl.zst"}, 0},
		{"classify-demo.text", []string{"classify", "--format", "text", "fixtures/demo.jsonl.zst"}, 0},
		{"classify-junk.ndjson", []string{"classify", "fixtures/junk.jsonl"}, 0},
		{"classify-bare.ndjson", []string{"classify", "fixtures/bare-frames.jsonl"}, 0},
		{"classify-chat-main.ndjson", []string{"classify", "--kind", "runtime-chat", "--agent", "main", "fixtures/streamed-run.jsonl.zst"}, 0},
		{"intents-demo.ndjson", []string{"intents", "fixtures/demo.jsonl.zst"}, 0},
		{"intents-streamed.ndjson", []string{"intents", "--skip-ignore", "fixtures/streamed-run.jsonl.zst"}, 0},
		{"intents-junk.ndjson", []string{"intents", "fixtures/junk.jsonl"}, 0},
		{"intents-approval.ndjson", []string{"intents", "--skip-ignore", "fixtures/exec-approval.jsonl.zst"}, 0},
		{"gaps-seq-gap.ndjson", []string{"gaps", "fixtures/seq-gap.jsonl.zst"}, 1},
		{"gaps-reconnect.ndjson", []string{"gaps", "fixtures/reconnect.jsonl.zst"}, 0},
		{"gaps-seq-gap.table", []string{"gaps", "--format", "table", "--color", "never", "fixtures/seq-gap.jsonl.zst"}, 1},
		{"gaps-demo.ndjson", []string{"gaps", "--frame-only", "fixtures/demo.jsonl.zst"}, 0},
	})
}

func TestClassifyJSONShape(t *testing.T) {
	r := run(t, "", "classify", fixture(t, "demo.jsonl.zst"))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) < 10 {
		t.Fatalf("only %d lines", len(lines))
	}
	kinds := map[string]int{}
	for i, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %d is not JSON: %v", i, err)
		}
		if int(m["i"].(float64)) != i {
			t.Fatalf("line %d has i=%v", i, m["i"])
		}
		for _, k := range []string{"t", "conn", "kind", "timestamp"} {
			if _, ok := m[k]; !ok {
				t.Fatalf("line %d lacks %q: %s", i, k, l)
			}
		}
		kinds[m["kind"].(string)]++
	}
	for _, k := range []string{"runtime-chat", "runtime-agent", "summary-refresh", "request", "response", "marker"} {
		if kinds[k] == 0 {
			t.Errorf("the demo should show kind %s; kinds seen: %v", k, kinds)
		}
	}
}

// classify | jq select | intents - : the intents of a filtered classify
// stream equal the filtered intents of the capture.
func TestClassifyPipesIntoIntents(t *testing.T) {
	path := fixture(t, "streamed-run.jsonl.zst")
	cl := run(t, "", "classify", "--agent", "main", path)
	if cl.code != 0 {
		t.Fatal(cl.stderr)
	}
	viaPipe := run(t, cl.stdout, "intents", "-")
	direct := run(t, "", "intents", "--agent", "main", path)
	if viaPipe.code != 0 || direct.code != 0 {
		t.Fatalf("exit %d/%d: %s %s", viaPipe.code, direct.code, viaPipe.stderr, direct.stderr)
	}
	if viaPipe.stdout != direct.stdout || viaPipe.stdout == "" {
		t.Fatalf("classify | intents - differs from intents --agent:\n%s", firstDiff(direct.stdout, viaPipe.stdout))
	}
}

// classify | intents - : the whole classify stream, markers included, reads
// as classified events (not as a broken capture) and gives the capture's
// intents, on every fixture; Claw3D refuses it.
func TestWholeClassifyStreamIntoIntents(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(repoRoot(t), "fixtures", "*.jsonl*"))
	for _, f := range files {
		cl := run(t, "", "classify", "--format", "json", f)
		viaPipe := run(t, cl.stdout, "intents", "--format", "json", "-")
		direct := run(t, "", "intents", "--format", "json", f)
		if viaPipe.code != 0 || viaPipe.stderr != "" || viaPipe.stdout != direct.stdout {
			t.Errorf("%s: classify | intents -: exit %d, stderr %q, equal %v", filepath.Base(f), viaPipe.code, viaPipe.stderr, viaPipe.stdout == direct.stdout)
		}
	}
	cl := run(t, "", "classify", "--format", "json", fixture(t, "demo.jsonl.zst"))
	if r := run(t, cl.stdout, "intents", "--ui", "claw3d", "-"); r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "classify output") {
		t.Errorf("claw3d on classify output: exit %d, %q", r.code, r.stderr)
	}
}

func TestIntentsHandWrittenLine(t *testing.T) {
	r := run(t, `{"kind":"summary-refresh","event":"heartbeat"}`+"\n"+`{"kind":"runtime-chat","event":"chat","agentId":"given","sessionKey":"x","timestamp":7,"payload":{"runId":"r","sessionKey":"x","state":"aborted"}}`+"\n", "intents", "-")
	want := `{"i":0,"t":0,"intent":{"kind":"scheduleSummaryRefresh","plane":"agent","delayMs":750,"includeHeartbeatRefresh":true}}` + "\n" +
		`{"i":1,"t":7,"intent":{"kind":"clearPendingLivePatch","plane":"work","agentId":"given"}}` + "\n" +
		`{"i":1,"t":7,"intent":{"kind":"commitChat","plane":"work","agentId":"given","sessionKey":"x","runId":"r","patch":{"status":"idle","runId":null,"runStartedAt":null,"streamText":null,"thinkingTrace":null},"outputLines":[],"cost":null}}` + "\n"
	if r.code != 0 || r.stdout != want {
		t.Fatalf("exit %d\n got: %s\nwant: %s\nstderr: %s", r.code, r.stdout, want, r.stderr)
	}
}

func TestIntentsBadClassifiedLinesAreReportedNotFatal(t *testing.T) {
	r := run(t, `{"kind":"summary-refresh","event":"presence"}`+"\n"+`{"kind":`+"\n"+`{"kind":"summary-refresh","event":"presence"}`+"\n", "intents", "-")
	if r.code != 0 || strings.Count(r.stdout, "scheduleSummaryRefresh") != 2 || !strings.Contains(r.stdout, `"reason":"invalid frame: line 2: invalid JSON"`) {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "1 line(s) were not classified events") {
		t.Fatalf("stderr: %s", r.stderr)
	}
}

func TestTruncatedCaptureNeverCrashes(t *testing.T) {
	path := fixture(t, "truncated.jsonl.zst")
	for _, cmd := range []string{"classify", "intents", "gaps"} {
		r := run(t, "", cmd, path)
		if r.code == cli.ExitTrouble || r.stdout == "" {
			t.Errorf("%s: exit %d, stdout %d bytes; stderr: %s", cmd, r.code, len(r.stdout), r.stderr)
		}
		if !strings.Contains(r.stderr, "clawtap: warning:") || !strings.Contains(r.stderr, "truncated") {
			t.Errorf("%s must warn about the truncation: %s", cmd, r.stderr)
		}
	}
}

func TestErrorsAndExitCodes(t *testing.T) {
	cases := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"classify", "/nonexistent/cap.jsonl"}, 2, "clawtap: error: open /nonexistent/cap.jsonl: no such file"},
		{[]string{"classify", "--format", "yaml", "x"}, 2, `unknown format "yaml"`},
		{[]string{"classify", "--kind", "bogus", "x"}, 2, `unknown --kind "bogus"`},
		{[]string{"classify", "a", "b"}, 2, "accepts at most 1 arg"},
		{[]string{"nope"}, 2, "unknown command"},
		{[]string{"--color", "sometimes", "classify", "x"}, 2, "unknown --color"},
		{[]string{"gaps", "--bogus"}, 2, "unknown flag: --bogus"},
		{[]string{"check", "--fromat", "json", "x"}, 2, "hint: did you mean --format? run 'clawtap check --help'"},
		{[]string{"stats", "--qiuet", "x"}, 2, "did you mean --quiet?"},
	}
	for _, c := range cases {
		r := run(t, "", c.args...)
		if r.code != c.code || !strings.Contains(r.stderr, c.stderr) || r.stdout != "" {
			t.Errorf("%v: exit %d stdout %q stderr %q; want exit %d and %q", c.args, r.code, r.stdout, r.stderr, c.code, c.stderr)
		}
	}
}

func TestStdinAndDash(t *testing.T) {
	data, err := os.ReadFile(fixture(t, "demo.jsonl.zst"))
	if err != nil {
		t.Fatal(err)
	}
	viaStdin := run(t, string(data), "classify", "-")
	viaFile := run(t, "", "classify", fixture(t, "demo.jsonl.zst"))
	if viaStdin.code != 0 || viaStdin.stdout != viaFile.stdout {
		t.Fatalf("stdin (zstd detected by magic) differs from file: %s", viaStdin.stderr)
	}
	// A file named like plain JSONL that holds zstd is still read: magic, not name.
	odd := filepath.Join(t.TempDir(), "looks-plain.jsonl")
	os.WriteFile(odd, data, 0o600)
	if r := run(t, "", "classify", odd); r.stdout != viaFile.stdout {
		t.Fatal("compression must be detected by magic bytes, not by file name")
	}
}

func TestNoColorWhenPiped(t *testing.T) {
	r := run(t, "", "classify", "--format", "table", fixture(t, "demo.jsonl.zst"))
	if strings.Contains(r.stdout, "\x1b[") {
		t.Fatal("colour escapes written to a pipe")
	}
	r = run(t, "", "--color", "always", "classify", "--format", "table", fixture(t, "demo.jsonl.zst"))
	if !strings.Contains(r.stdout, "\x1b[") {
		t.Fatal("--color always must colour")
	}
}
