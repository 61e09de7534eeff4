// Package checkcli runs the commands that report findings, 'clawtap
// check' and 'clawtap validate': one pass per capture through the
// analyzer and, when asked, the schema validator, their findings printed
// together, and exit 1 for a finding at or above the --fail-on severity.
package checkcli

import (
	"fmt"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/check"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/replay"
	"github.com/clawtap/clawtap/pkg/validate"
)

// Check is a check of captures as the command line asks for it, its
// flags checked.
type Check struct {
	Paths   []string // none is stdin
	Out     cli.Output
	Options check.Options
	FailOn  check.Severity
	UI      replay.UI
	// UIs, when two or more, checks the capture under each at once
	// (check.Multi): the findings that depend on the UI say which show
	// them.
	UIs    []replay.UI
	Schema *validate.Schema // also validate every frame; nil: no
}

// Run checks every capture, a section each when there are several.
func (c Check) Run(env *cli.Env) error {
	return env.EachCapture(c.Out, c.Paths, func(path string, r *capture.Reader, s cli.Section) error {
		p := &output.Check{W: s.W, Format: s.Format, Style: s.Style}
		var v *validate.Validator
		var schema []pipeline.Observer
		if c.Schema != nil {
			// Schema findings join check's, in the same pass and printer.
			v = validate.New(c.Schema, validate.Options{})
			v.OnFinding = p.Finding
			p.Rules = append(check.Rules(), validate.Rules()...)
			schema = append(schema, v)
		}
		var pass *pipeline.Pass
		var summary func() check.Summary
		if len(c.UIs) > 1 {
			m, err := check.NewMulti(c.Options, c.UIs) // one read, a replay per UI
			if err != nil {
				return err
			}
			m.OnFinding = p.Finding
			pass, summary = m.Pass(pipeline.Options{}, append([]pipeline.Observer{p}, schema...)...), m.Summary
		} else {
			an, err := check.New(c.Options) // a fresh analyzer per capture
			if err != nil {
				return err
			}
			p.Attach(an)
			pass, summary = pipeline.New(pipeline.Options{Replay: replay.Options{UI: c.UI}}, append([]pipeline.Observer{p, an}, schema...)...), an.Summary
		}
		err := cli.ReadErr(path, pass.Run(pipeline.Records(r)))
		env.ReadSummary(path, r.Stats())
		sum := summary()
		if v != nil {
			vs := v.Summary()
			vs.Fold(&sum)
		}
		if err == nil {
			err = p.Summary(&sum, output.Counts{Errors: sum.Errors, Warnings: sum.Warnings, Infos: sum.Infos, Records: sum.Records},
				fmt.Sprintf("%d connection(s), %d run(s)", sum.Connections, sum.Runs))
		}
		if err == nil && sum.Count(c.FailOn) > 0 {
			err = cli.ErrFinding
		}
		return err
	})
}

// LoadSchema returns the built-in snapshot for "", or the schema at path
// (a protocol.schema.json, or a folder holding one).
func LoadSchema(path string) (*validate.Schema, error) {
	if path == "" {
		s, err := validate.Embedded()
		if err != nil {
			return nil, fmt.Errorf("the built-in schema: %w", err)
		}
		return s, nil
	}
	s, err := validate.Load(path)
	if err != nil {
		return nil, cli.Usage("give a protocol.schema.json, or a directory holding one (an unpacked @openclaw/gateway-protocol package)", "--schema %s: %v", path, err)
	}
	return s, nil
}

// Validate checks every frame of the capture at path against schema.
func Validate(env *cli.Env, path string, out cli.Output, schema *validate.Schema, failOn check.Severity) error {
	r, err := env.OpenCapture(path)
	if err != nil {
		return err
	}
	defer r.Close()
	s, err := env.OpenSink(out)
	if err != nil {
		return err
	}
	p := &output.Check{W: s, Format: s.Format, Style: s.Style, Rules: validate.Rules()}
	v := validate.New(schema, validate.Options{})
	v.OnFinding = p.Finding
	err = cli.ReadErr(path, pipeline.New(pipeline.Options{}, p, v).Run(pipeline.Records(r)))
	env.ReadSummary(path, r.Stats())
	sum := v.Summary()
	if err == nil {
		unchecked := 0
		for _, n := range sum.Unchecked {
			unchecked += n
		}
		err = p.Summary(sum, output.Counts{Errors: sum.Errors, Warnings: sum.Warnings, Infos: sum.Infos, Records: sum.Records},
			fmt.Sprintf("%d frames; %d part(s) checked against %s, %d without a schema", sum.Frames, sum.Validated, sum.Schema, unchecked))
	}
	if err == nil && sum.Count(failOn) > 0 {
		err = cli.ErrFinding
	}
	return s.Close(err)
}
