// Package diffcli runs 'clawtap diff': two captures compared by what the
// UI pipeline makes of them, or one capture replayed under two UIs, the
// result printed, and exit 1 when they differ.
package diffcli

import (
	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/diff"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/redact"
)

// Captures compares the captures at pa and pb and prints the result.
func Captures(env *cli.Env, pa, pb string, out cli.Output, opts diff.Options) error {
	ra, err := env.OpenCapture(pa)
	if err != nil {
		return err
	}
	defer ra.Close()
	rb, err := env.OpenCapture(pb)
	if err != nil {
		return err
	}
	defer rb.Close()
	res := diff.Compare(pipeline.Records(ra), pipeline.Records(rb), opts)
	env.ReadSummary(pa, ra.Stats())
	env.ReadSummary(pb, rb.Stats())
	s, err := env.OpenSink(out)
	if err != nil {
		return err
	}
	err = output.Diff(s, s.Format, s.Style, res, pa, pb)
	if err == nil && !res.Equal {
		err = cli.ErrFinding
	}
	return s.Close(err)
}

// UIs replays the capture at path (a file: it is read twice) under two
// UIs and prints where what each left the user with differs, run by run.
func UIs(env *cli.Env, path string, uis [2]string, out cli.Output) error {
	ra, err := env.OpenCapture(path)
	if err != nil {
		return err
	}
	defer ra.Close()
	rb, err := capture.Open(path, capture.Options{}) // the second read repeats the first's warnings: stay quiet
	if err != nil {
		return cli.InputError(path, err)
	}
	defer rb.Close()
	if !env.ShowCredentials {
		redact.OnRead(rb)
	}
	res, err := diff.CompareUIs(pipeline.Records(ra), pipeline.Records(rb), uis)
	if err != nil {
		return cli.ReadErr(path, err)
	}
	env.ReadSummary(path, ra.Stats())
	s, err := env.OpenSink(out)
	if err != nil {
		return err
	}
	err = output.DiffUIs(s, s.Format, s.Style, res, path)
	if err == nil && !res.Equal() {
		err = cli.ErrFinding
	}
	return s.Close(err)
}
