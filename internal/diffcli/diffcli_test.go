package diffcli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/ui/models"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/diff"
	"github.com/clawtap/clawtap/pkg/replay"
)

func testEnv() (*cli.Env, *bytes.Buffer) {
	var stdout bytes.Buffer
	e := cli.NewEnv(strings.NewReader(""), &stdout, &bytes.Buffer{})
	e.IsTerminal = func(any) bool { return false }
	return e, &stdout
}

var out = cli.Output{Path: "-", Format: output.JSON}

func TestCaptures(t *testing.T) {
	demo, streamed := "../../fixtures/demo.jsonl.zst", "../../fixtures/streamed-run.jsonl.zst"
	e, _ := testEnv()
	if err := Captures(e, demo, demo, out, diff.Options{}); err != nil {
		t.Errorf("a capture against itself: %v", err)
	}
	e, stdout := testEnv()
	if err := Captures(e, demo, streamed, out, diff.Options{}); !cli.IsFinding(err) || !strings.Contains(stdout.String(), `"summary"`) {
		t.Errorf("two captures: %v\n%s", err, stdout)
	}
}

func TestUIs(t *testing.T) {
	e, stdout := testEnv()
	err := UIs(e, "../../fixtures/stale-terminal.jsonl.zst", [2]replay.UI{models.MustLookup("clawboo@1211c16"), models.MustLookup("claw3d")}, out)
	if !cli.IsFinding(err) || stdout.Len() == 0 {
		t.Errorf("%v\n%s", err, stdout)
	}
}
