package main

import (
	"strings"
	"testing"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/pkg/diff"
	"github.com/clawtap/clawtap/pkg/models"
	"github.com/clawtap/clawtap/pkg/replay"
)

func TestRunDiffCaptures(t *testing.T) {
	demo, streamed := "../../fixtures/demo.jsonl.zst", "../../fixtures/streamed-run.jsonl.zst"
	e, _, _ := testEnv(nil)
	if err := runDiff(e, diffOptions{paths: []string{demo, demo}, output: jsonToStdout}); err != nil {
		t.Errorf("a capture against itself: %v", err)
	}
	e, stdout, _ := testEnv(nil)
	if err := runDiff(e, diffOptions{paths: []string{demo, streamed}, output: jsonToStdout, diff: diff.Options{}}); !cli.IsFinding(err) || !strings.Contains(stdout.String(), `"summary"`) {
		t.Errorf("two captures: %v\n%s", err, stdout)
	}
}

func TestRunDiffUIs(t *testing.T) {
	e, stdout, _ := testEnv(nil)
	err := runDiff(e, diffOptions{paths: []string{"../../fixtures/stale-terminal.jsonl.zst"}, uis: [2]replay.UI{models.MustLookup("clawboo@1211c16"), models.MustLookup("claw3d")}, output: jsonToStdout})
	if !cli.IsFinding(err) || stdout.Len() == 0 {
		t.Errorf("%v\n%s", err, stdout)
	}
}
