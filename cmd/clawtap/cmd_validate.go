package main

import (
	"fmt"
	"strings"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/check"
	"github.com/clawtap/clawtap/pkg/human"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/validate"
	"github.com/spf13/cobra"
)

// validateOptions is a validate as the command line asks for it.
type validateOptions struct {
	out      outFlags
	schema   string // a protocol.schema.json or a folder holding one; "" is the built-in snapshot
	failOn   string
	perFrame bool

	path      string         // the capture; "-" is stdin
	output    cli.Output     // checked from out
	threshold check.Severity // --fail-on, checked
}

func (a *app) validateCmd() *cobra.Command {
	var opts validateOptions
	cmd := &cobra.Command{
		Use:   "validate [FILE|-]",
		Short: "Check every frame of a capture against the gateway protocol's JSON Schema",
		Long: `validate checks every frame of a capture against the JSON Schema the OpenClaw
project publishes for its gateway protocol (npm @openclaw/gateway-protocol):
the envelope of every req, res and event frame, each event's payload by event
name, each request's params and each response's result by method (a response
is paired with its request by id on its connection).

A snapshot of the schema is built in (its version is named below); --schema
uses another one, a protocol.schema.json or a directory holding one (an
unpacked npm package), to validate against the version a gateway runs.

Findings: schema-violation (error: a wrong type, a missing required field, a
value outside the allowed set), schema-extra-field (warn: a field the schema
does not allow, usually a gateway newer than the schema: each field once per
definition and JSON pointer, at the end, with how many frames had it, the
first of them and the gateway's release; --per-frame reports every frame),
and as info the
events and methods the schema does not describe (first occurrence of each),
responses whose request is not in the capture, and on protocol 3 connections
each difference from the schema (which describes protocol 4) once. Each
finding has the record index i, the event or method, the definition, the
JSON pointer of the offending field within the frame, and expected vs actual.

Output: text grouped by severity, rule and field on a terminal; NDJSON (one
finding per line, then a {"summary":…} line) otherwise; --format table for
one row per finding. Exit status 1 when a finding at or above --fail-on
(default error) exists. See docs/validate.md.`,
		Example: `  clawtap validate fixtures/demo.jsonl.zst
  clawtap validate --fail-on warn fixtures/demo.jsonl.zst || echo "frames differ from the schema"
  clawtap validate --format json fixtures/seq-gap.jsonl.zst | jq -c 'select(.rule=="schema-violation") | {i, pointer, expected, actual}'
  clawtap validate -o findings.ndjson --format json fixtures/demo.jsonl.zst
  zstdcat fixtures/demo.jsonl.zst | clawtap validate -
  clawtap check --schema fixtures/seq-gap.jsonl.zst`,
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: captureArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.threshold, err = check.ParseSeverity(opts.failOn); err != nil {
				return cli.Usage("use --fail-on info|warn|error", "%v", err)
			}
			opts.path = inputArg(args)
			if opts.output, err = opts.out.spec(cmd); err != nil {
				return err
			}
			return a.run(cli.AllocHeavy, func() error { return runValidate(a.Env, opts) })
		},
	}
	a.printFlags(cmd, &opts.out, output.Text)
	fl := cmd.Flags()
	fl.StringVar(&opts.schema, "schema", "", "validate against this protocol.schema.json, or a directory holding one (default: the built-in snapshot)")
	_ = cmd.MarkFlagFilename("schema")
	fl.StringVar(&opts.failOn, "fail-on", "error", "exit 1 when a finding of this severity or above exists: info, warn or error")
	fl.BoolVar(&opts.perFrame, "per-frame", false, "report a field the schema does not declare at every frame that has it, not once with a count")
	_ = cmd.RegisterFlagCompletionFunc("fail-on", cobra.FixedCompletions([]string{"info", "warn", "error"}, cobra.ShellCompDirectiveNoFileComp))
	cmd.Long += "\n\nBuilt-in schema: " + validate.SnapshotName() + " (MIT licence, shipped with it)."
	return cmd
}

// runValidate checks every frame of the capture against the schema.
func runValidate(env *cli.Env, opts validateOptions) error {
	if err := env.CheckStdin(opts.output.Cmd, opts.path); err != nil {
		return err
	}
	schema, err := loadSchema(opts.schema)
	if err != nil {
		return err
	}
	r, err := env.OpenCapture(opts.path)
	if err != nil {
		return err
	}
	defer r.Close()
	s, err := env.OpenSink(opts.output)
	if err != nil {
		return err
	}
	p := &output.Check{W: s, Format: s.Format, Style: s.Style, Rules: validate.Rules()}
	v := validate.New(schema, validate.Options{PerFrame: opts.perFrame})
	err = cli.ReadErr(opts.path, pipeline.New(pipeline.Options{}, p, v).Run(pipeline.Records(r)))
	env.ReadSummary(opts.path, r.Stats())
	sum := v.Summary()
	if err == nil {
		unchecked := 0
		for _, n := range sum.Unchecked {
			unchecked += n
		}
		err = p.Summary(sum, output.Counts{Errors: sum.Errors, Warnings: sum.Warnings, Infos: sum.Infos, Records: sum.Records},
			fmt.Sprintf("%d frames; %d part(s) checked against %s%s, %d without a schema", sum.Frames, sum.Validated, sum.Schema, vintage(sum), unchecked))
	}
	if err == nil && sum.Count(opts.threshold) > 0 {
		err = cli.ErrFinding
	}
	return s.Close(err)
}

// loadSchema returns the built-in snapshot for "", or the schema at path
// (a protocol.schema.json, or a folder holding one): validate's --schema,
// and check's.
func loadSchema(path string) (*validate.Schema, error) {
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

// vintage says how the schema and the capture's gateway releases compare,
// for validate's summary line.
func vintage(sum validate.Summary) string {
	switch {
	case len(sum.Gateways) == 0:
		return ", gateway release unknown"
	case sum.SchemaOlder:
		return fmt.Sprintf(", older than gateway %s (%s from %d frame(s) are not in the schema)", strings.Join(sum.Gateways, ", "), human.Count(sum.ByRule[validate.RuleExtraField], "field", "fields"), sum.DriftFrames)
	}
	return ", gateway " + strings.Join(sum.Gateways, ", ")
}
