package replaycli

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/ui/models"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/replay"
)

func testEnv() (*cli.Env, *bytes.Buffer, *bytes.Buffer) {
	var stdout, stderr bytes.Buffer
	e := cli.NewEnv(strings.NewReader(""), &stdout, &stderr)
	e.IsTerminal = func(any) bool { return false }
	e.Getenv = func(string) string { return "" }
	return e, &stdout, &stderr
}

func TestGoldenRoundTrip(t *testing.T) {
	golden := filepath.Join(t.TempDir(), "demo.golden")
	c := Config{Path: "../../fixtures/demo.jsonl.zst", Out: cli.Output{Path: "-", Cmd: "clawtap replay"}, Golden: golden, Update: true,
		Printer: output.Replay{Show: output.ReplayFinal, Width: 80}}
	e, stdout, stderr := testEnv()
	if err := Run(e, c); err != nil || stdout.Len() != 0 || !strings.Contains(stderr.String(), "updated") {
		t.Fatalf("update: %v %q %q", err, stdout, stderr)
	}
	c.Update = false
	e, _, stderr = testEnv()
	if err := Run(e, c); err != nil || !strings.Contains(stderr.String(), "matches") {
		t.Fatalf("compare: %v %q", err, stderr)
	}
	c.Replay = replay.Options{UI: models.MustLookup("claw3d")}
	e, stdout, _ = testEnv()
	if err := Run(e, c); !cli.IsFinding(err) || !strings.HasPrefix(stdout.String(), "--- ") {
		t.Fatalf("another UI's final state should differ: %v\n%s", err, stdout)
	}
}

func TestPrintsToOutput(t *testing.T) {
	e, stdout, _ := testEnv()
	c := Config{Path: "../../fixtures/demo.jsonl.zst", Out: cli.Output{Path: "-", Human: output.Text}, Printer: output.Replay{Show: output.ReplayFinal, Width: 80}}
	if err := Run(e, c); err != nil || !strings.HasPrefix(stdout.String(), `{"final":`) {
		t.Fatalf("%v %s", err, stdout)
	}
}

func TestJoinInts(t *testing.T) {
	if got := joinInts([]int{2, 3}); got != "2, 3" {
		t.Errorf("%q", got)
	}
}
