package checkcli

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/check"
	"github.com/clawtap/clawtap/pkg/ui/models"
)

func testEnv() (*cli.Env, *bytes.Buffer) {
	var stdout bytes.Buffer
	e := cli.NewEnv(strings.NewReader(""), &stdout, &bytes.Buffer{})
	e.IsTerminal = func(any) bool { return false }
	e.Getenv = func(string) string { return "" }
	return e, &stdout
}

func TestCheck(t *testing.T) {
	stale := "../../fixtures/stale-terminal.jsonl.zst"
	schema, err := LoadSchema("")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		check Check
		want  string
		fail  bool
	}{
		{Check{Paths: []string{stale}, FailOn: check.Error, UI: models.MustLookup("clawboo@1211c16")}, `"rule":"dropped-final"`, true},
		{Check{Paths: []string{stale}, FailOn: check.Error, Options: check.Options{NoReplay: true}}, `"summary"`, false},
		{Check{Paths: []string{stale}, FailOn: check.Error, Options: check.Options{Only: []string{"seq-gap"}}, Schema: schema}, `"summary"`, false},
	} {
		e, stdout := testEnv()
		c.check.Out = cli.Output{Path: "-", Format: output.JSON}
		err := c.check.Run(e)
		if cli.IsFinding(err) != c.fail || err != nil && !c.fail || !strings.Contains(stdout.String(), c.want) {
			t.Errorf("%+v: %v\n%s", c.check, err, stdout)
		}
	}
}

func TestValidate(t *testing.T) {
	schema, err := LoadSchema("")
	if err != nil {
		t.Fatal(err)
	}
	e, stdout := testEnv()
	err = Validate(e, "../../fixtures/demo.jsonl.zst", cli.Output{Path: "-", Format: output.JSON}, schema, check.Info)
	if !cli.IsFinding(err) || !strings.Contains(stdout.String(), `"summary"`) {
		t.Errorf("%v\n%s", err, stdout)
	}
	var ce *cli.Error
	if _, err := LoadSchema(filepath.Join(t.TempDir(), "none.json")); !errors.As(err, &ce) || ce.Code != cli.ExitTrouble {
		t.Errorf("a missing schema: %v", err)
	}
}
