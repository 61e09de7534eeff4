// Package diffcli runs 'clawtap diff': two captures compared by what the
// UI pipeline makes of them, or one capture replayed under two UIs, the
// result printed, and exit 1 when they differ.
package diffcli

import (
	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/diff"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/replay"
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
	// Two replays and their comparison are much slower than reading: one
	// batch ahead each is as fast, and holds less.
	ra.SetAhead(1)
	rb.SetAhead(1)
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

// UIs replays the capture at path ("-": stdin) under two UIs and prints
// where what each left the user with differs, run by run.
func UIs(env *cli.Env, path string, uis [2]replay.UI, out cli.Output) error {
	ra, err := env.OpenCapture(path)
	if err != nil {
		return err
	}
	defer ra.Close()
	s, err := env.OpenSink(out)
	if err != nil {
		return err
	}
	p := &output.DiffUIs{W: s, Format: s.Format, Style: s.Style, Path: path}
	ra.SetAhead(1) // two replays are much slower than reading (see Captures)
	res, err := diff.CompareUIs(pipeline.Records(ra), uis, p.Run)
	if err != nil {
		return s.Close(cli.ReadErr(path, err))
	}
	env.ReadSummary(path, ra.Stats())
	err = p.Summary(res)
	if err == nil && !res.Equal() {
		err = cli.ErrFinding
	}
	return s.Close(err)
}

// abFlags are the comparison flags of an A/B diff, which a comparison of
// UIs has no use for.
var abFlags = []string{"structure", "merge-deltas", "ignore", "all-events", "context", "window", "divergences"}

// CheckUIs checks the command line of diff --ui UI,UI: one capture (a
// file or "-"), two different UIs, and none of the A/B diff's
// flags (changed says which flags were given). It returns the capture and
// the UIs' names.
func CheckUIs(args []string, names [2]string, changed func(string) bool) (string, [2]replay.UI, error) {
	var uis [2]replay.UI
	if len(args) != 1 {
		return "", uis, cli.Usage("give one capture with --ui UI,UI", "--ui %s,%s compares one capture under two UIs, got %d captures", names[0], names[1], len(args))
	}
	for k, u := range names {
		p, err := cli.ParseUI(u)
		if err != nil {
			return "", uis, err
		}
		uis[k] = p
	}
	if uis[0] == uis[1] {
		return "", uis, cli.Usage("name two different UIs, e.g. --ui clawboo,claw3d or --ui clawboo@1211c16,clawboo", "--ui %s,%s compares a UI with itself", uis[0], uis[1])
	}
	for _, f := range abFlags {
		if changed(f) {
			return "", uis, cli.Usage("drop --"+f+", or diff two captures", "--%s compares two captures step by step; --ui %s,%s compares one capture's outcomes, run by run", f, names[0], names[1])
		}
	}
	return args[0], uis, nil
}
