package main

import (
	"github.com/clawtap/clawtap/internal/checkcli"
	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/check"
	"github.com/clawtap/clawtap/pkg/validate"
	"github.com/spf13/cobra"
)

type validateFlags struct {
	out    outFlags
	schema string
	failOn string
}

func (a *app) validateCmd() *cobra.Command {
	var f validateFlags
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
does not allow, usually a sender newer than the schema), and as info the
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
			failOn, err := check.ParseSeverity(f.failOn)
			if err != nil {
				return cli.Usage("use --fail-on info|warn|error", "%v", err)
			}
			path := inputArg(args)
			if err := a.CheckStdin(cmd.CommandPath(), path); err != nil {
				return err
			}
			defer cli.AllocHeavy.Apply()()
			s, err := checkcli.LoadSchema(f.schema)
			if err != nil {
				return err
			}
			out, err := f.out.spec(cmd)
			if err != nil {
				return err
			}
			return checkcli.Validate(a.Env, path, out, s, failOn)
		},
	}
	a.printFlags(cmd, &f.out, output.Text)
	fl := cmd.Flags()
	fl.StringVar(&f.schema, "schema", "", "validate against this protocol.schema.json, or a directory holding one (default: the built-in snapshot)")
	_ = cmd.MarkFlagFilename("schema")
	fl.StringVar(&f.failOn, "fail-on", "error", "exit 1 when a finding of this severity or above exists: info, warn or error")
	_ = cmd.RegisterFlagCompletionFunc("fail-on", cobra.FixedCompletions([]string{"info", "warn", "error"}, cobra.ShellCompDirectiveNoFileComp))
	cmd.Long += "\n\nBuilt-in schema: " + validate.SnapshotName() + " (MIT licence, shipped with it)."
	return cmd
}
