package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/models"
	"github.com/clawtap/clawtap/pkg/replay"
)

func TestRunReplayGoldenRoundTrip(t *testing.T) {
	golden := filepath.Join(t.TempDir(), "demo.golden")
	opts := replayOptions{path: "../../fixtures/demo.jsonl.zst", output: cli.Output{Path: "-", Cmd: "clawtap replay"}, golden: golden, update: true,
		printer: output.Replay{Show: output.ReplayFinal, Width: 80}}
	e, stdout, stderr := testEnv(nil)
	if err := runReplay(e, opts); err != nil || stdout.Len() != 0 || !strings.Contains(stderr.String(), "updated") {
		t.Fatalf("update: %v %q %q", err, stdout, stderr)
	}
	opts.update = false
	e, _, stderr = testEnv(nil)
	if err := runReplay(e, opts); err != nil || !strings.Contains(stderr.String(), "matches") {
		t.Fatalf("compare: %v %q", err, stderr)
	}
	opts.replay = replay.Options{UI: models.MustLookup("claw3d")}
	e, stdout, _ = testEnv(nil)
	if err := runReplay(e, opts); !cli.IsFinding(err) || !strings.HasPrefix(stdout.String(), "--- ") {
		t.Fatalf("another UI's final state should differ: %v\n%s", err, stdout)
	}
}

func TestRunReplayPrintsToOutput(t *testing.T) {
	e, stdout, _ := testEnv(nil)
	opts := replayOptions{path: "../../fixtures/demo.jsonl.zst", output: cli.Output{Path: "-", Human: output.Text}, printer: output.Replay{Show: output.ReplayFinal, Width: 80}}
	if err := runReplay(e, opts); err != nil || !strings.HasPrefix(stdout.String(), `{"final":`) {
		t.Fatalf("%v %s", err, stdout)
	}
}

func TestJoinInts(t *testing.T) {
	if got := joinInts([]int{2, 3}); got != "2, 3" {
		t.Errorf("%q", got)
	}
}
