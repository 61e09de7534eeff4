package main

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/check"
	"github.com/clawtap/clawtap/pkg/models"
	"github.com/clawtap/clawtap/pkg/replay"
)

var jsonToStdout = cli.Output{Path: "-", Format: output.JSON}

func TestRunCheck(t *testing.T) {
	stale := "../../fixtures/stale-terminal.jsonl.zst"
	for _, c := range []struct {
		opts checkOptions
		want string
		fail bool
	}{
		{checkOptions{paths: []string{stale}, threshold: check.Error, uis: []replay.UI{models.MustLookup("clawboo@1211c16")}}, `"rule":"dropped-final"`, true},
		{checkOptions{paths: []string{stale}, threshold: check.Error, uis: models.All()}, `"uis":[`, true},
		{checkOptions{paths: []string{stale}, threshold: check.Error, check: check.Options{NoReplay: true}}, `"summary"`, false},
		{checkOptions{paths: []string{stale}, threshold: check.Error, check: check.Options{Only: []string{"seq-gap"}}, withSchema: true}, `"summary"`, false},
	} {
		e, stdout, _ := testEnv(nil)
		c.opts.output = jsonToStdout
		err := runCheck(e, c.opts)
		if cli.IsFinding(err) != c.fail || err != nil && !c.fail || !strings.Contains(stdout.String(), c.want) {
			t.Errorf("%+v: %v\n%s", c.opts, err, stdout)
		}
	}
}

func TestRunValidate(t *testing.T) {
	e, stdout, _ := testEnv(nil)
	err := runValidate(e, validateOptions{path: "../../fixtures/demo.jsonl.zst", output: jsonToStdout, threshold: check.Info})
	if !cli.IsFinding(err) || !strings.Contains(stdout.String(), `"summary"`) {
		t.Errorf("%v\n%s", err, stdout)
	}
	if _, err := loadSchema(""); err != nil {
		t.Errorf("the built-in schema: %v", err)
	}
	var ce *cli.Error
	if _, err := loadSchema(filepath.Join(t.TempDir(), "none.json")); !errors.As(err, &ce) || ce.Code != cli.ExitTrouble {
		t.Errorf("a missing schema: %v", err)
	}
}
