// Package shrinkcli runs 'clawtap shrink': it reads the capture, shrinks
// it with pkg/shrink while reporting progress, writes the small capture
// through the safe writer and says what was kept.
package shrinkcli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/pkg/human"
	"github.com/clawtap/clawtap/pkg/shrink"
)

// Config is a shrink as the command line asks for it, its flags checked.
type Config struct {
	In       string     // the capture; "-" is stdin
	Out      cli.Output // the small capture
	Target   shrink.Target
	MaxTests int
}

// Run shrinks c.In to c.Out.
func Run(env *cli.Env, c Config) error {
	in := cli.DisplayName(c.In)
	// The search takes a while: an output it could not write is refused first.
	if err := env.CheckOutput(c.Out); err != nil {
		return err
	}
	h, recs, err := env.ReadRecords(c.In)
	if err != nil {
		return err
	}
	res, err := shrink.Shrink(h, recs, c.Target, shrink.Options{
		MaxTests: c.MaxTests,
		Progress: func(p shrink.Progress) {
			env.Infof("shrink: by %s: %d records (%s)", strings.TrimSuffix(p.Stage, "s"), p.Kept, human.Count(p.Tests, "test", "tests"))
		},
	})
	var ns *shrink.NotShownError
	switch {
	case errors.As(err, &ns):
		ui := ""
		if c.Target.UI != "" {
			ui = " --ui " + c.Target.UI
		}
		return cli.Usage("run 'clawtap check --rule "+c.Target.Rule+ui+" "+in+"' to see what it reports; shrink keeps a finding, it cannot make one",
			"%s does not show %s: %v", in, c.Target, err)
	case err != nil:
		return cli.Trouble(fmt.Errorf("shrink %s: %w", in, err), "")
	}
	if err := env.WriteCapture(c.Out, shrink.Header(h, recs, c.Target, res), res.Records(recs)); err != nil {
		return err
	}
	if res.Exhausted {
		env.Warnf("--max-tests %d reached: the capture written still shows %s, but a smaller one may exist", c.MaxTests, c.Target)
	}
	msg := fmt.Sprintf("shrink: %d → %d records (%s)", res.Total, len(res.Kept), human.Count(res.Tests, "test", "tests"))
	if c.Out.Path != "-" {
		msg += " → " + c.Out.Path
	}
	env.Infof("%s", msg)
	env.Infof("shrink: %s at record %d: %s", res.Finding.Rule, res.Finding.I, res.Finding.Message)
	return nil
}
