package shrinkcli

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/check"
	"github.com/clawtap/clawtap/pkg/shrink"
)

func TestRun(t *testing.T) {
	small := filepath.Join(t.TempDir(), "small.jsonl")
	var stderr bytes.Buffer
	e := cli.NewEnv(strings.NewReader(""), &bytes.Buffer{}, &stderr)
	target := shrink.Target{Rule: "duplicate-terminal", SlowMs: check.DefaultSlowMs, IdleMs: check.DefaultIdleMs}
	if err := Run(e, Config{In: "../../fixtures/duplicate-final.jsonl.zst", Out: cli.Output{Path: small}, Target: target}); err != nil {
		t.Fatal(err)
	}
	r, err := capture.Open(small, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	if !strings.Contains(stderr.String(), "→ "+small) || !strings.Contains(stderr.String(), "shrink: duplicate-terminal at record ") {
		t.Errorf("stderr %s", stderr.String())
	}
	target.Rule = "seq-gap"
	var ce *cli.Error
	err = Run(e, Config{In: "../../fixtures/demo.jsonl.zst", Out: cli.Output{Path: filepath.Join(t.TempDir(), "x.jsonl")}, Target: target})
	if !errors.As(err, &ce) || ce.Code != cli.ExitTrouble || !strings.Contains(ce.Hint, "clawtap check --rule seq-gap") {
		t.Errorf("a finding the capture does not show: %v", err)
	}
}
