package main

import (
	"fmt"
	"strings"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/check"
	"github.com/clawtap/clawtap/pkg/models"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/replay"
	"github.com/clawtap/clawtap/pkg/validate"
	"github.com/spf13/cobra"
)

// checkOptions is a check as the command line asks for it.
type checkOptions struct {
	out      outFlags
	failOn   string
	rules    []string
	skip     []string
	slowMs   int64
	idleMs   int64
	noReplay bool
	list     bool
	schema   string // "builtin" (the flag alone) or a file or folder
	ui       string // one UI, A,B or all

	paths      []string       // the captures; none is stdin
	uis        []replay.UI    // checked from ui; two or more check each at once (check.Multi)
	output     cli.Output     // checked from out
	threshold  check.Severity // --fail-on, checked
	check      check.Options  // the analyzer's options, checked
	withSchema bool           // also validate every frame (--schema)
	schemaPath string         // the schema's file or folder; "" is the built-in snapshot
}

func (a *app) checkCmd() *cobra.Command {
	var opts checkOptions
	cmd := &cobra.Command{
		Use:   "check [FILE|-]...",
		Short: "Find protocol problems in a capture (seq gaps, stuck runs, duplicate finals, …)",
		Long: `check reads a capture once and reports findings, like a protocol analyser's
expert info: frame seq gaps, runs that never end or end twice, terminals of an
older run while a newer one is live (and, replaying the capture through the
UI pipeline, the final that costs), a message the gateway queued into a busy
turn, streamed text that is not cumulative, a final that differs from the
streamed text, thinking-tag leaks, approvals that expire unresolved, tool
events delivered twice, unanswered, failed and slow requests, oversized and
invalid frames.

Each finding has a stable rule id, a severity (info, warn, error), the record
index and time, the run it concerns and one sentence of evidence. Every rule
is documented with an example in docs/check-rules.md; --list prints them.

Output (--format): text (the default on a terminal) groups findings by
severity and rule; table is a row per finding; json (the default when piped)
is one finding per line, then a {"summary":…} line. Exit status 1 when a
finding at or above --fail-on (default error) exists, so CI can gate on it.

A finding about what the user saw is true of a UI version: --ui names one
(the newest clawboo by default), and --ui all (or A,B) checks every version
at once, in one read of the capture: each finding that depends on the UI
then says which versions show it and which do not ("uis" and "notUis" in
json), the question a bug report asks — was it fixed in the version I run,
does it hit the other UIs?

Several captures print a section each (a "==> FILE <==" heading, or a
"file" key on every json line) and exit with the worst code; clawtap test
runs a folder of captures against their expectations.`,
		Example: `  clawtap check fixtures/stale-terminal.jsonl.zst
  clawtap check --fail-on warn fixtures/demo.jsonl.zst || echo "problems found"
  clawtap check --rule seq-gap --rule late-event fixtures/seq-gap.jsonl.zst
  clawtap check --skip replace-delta --slow-ms 2000 fixtures/demo.jsonl.zst
  clawtap check --format json fixtures/stale-terminal.jsonl.zst | jq -c 'select(.severity=="error")'
  clawtap check fixtures/demo.jsonl.zst fixtures/stale-terminal.jsonl.zst   # a section per file, the worst exit code
  clawtap check --ui all --format text fixtures/streamed-run.jsonl.zst      # which UI versions lose the reply
  clawtap check --list`,
		Args:              cobra.ArbitraryArgs,
		ValidArgsFunction: captureArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.paths = args
			var err error
			if opts.list {
				if opts.out.format == "" {
					opts.out.format = string(output.Text) // a listing reads as text, piped or not
				}
				if opts.output, err = opts.out.spec(cmd); err != nil {
					return err
				}
				return a.run(cli.DefaultMemory, func() error { return runCheck(a.Env, opts) })
			}
			if opts.threshold, err = check.ParseSeverity(opts.failOn); err != nil {
				return cli.Usage("use --fail-on info|warn|error", "%v", err)
			}
			if opts.slowMs <= 0 || opts.idleMs <= 0 {
				return cli.Usage("give a positive number of milliseconds", "--slow-ms and --idle-ms must be positive")
			}
			if opts.uis, err = cli.ParseUIs([]string{opts.ui}); err != nil {
				return err
			}
			opts.check = check.Options{SlowMs: opts.slowMs, IdleMs: opts.idleMs, Only: opts.rules, Skip: opts.skip, NoReplay: opts.noReplay}
			if _, err := check.New(opts.check); err != nil {
				return cli.Usage("run 'clawtap check --list' for the rule ids", "%v", err)
			}
			memory := cli.DefaultMemory
			if opts.schema != "" {
				opts.withSchema, opts.schemaPath = true, strings.TrimPrefix(opts.schema, "builtin")
				memory = cli.AllocHeavy
			}
			if opts.output, err = opts.out.spec(cmd); err != nil {
				return err
			}
			return a.run(memory, func() error { return runCheck(a.Env, opts) })
		},
	}
	a.printFlags(cmd, &opts.out, output.Text)
	def := models.Default().Version.UI
	cmd.Flags().StringVar(&opts.ui, "ui", def, "the UI to model: NAME (its newest version) or NAME@VERSION, of "+strings.Join(models.Names(), ", ")+
		"; several (A,B) or all to check every version at once, each finding saying which show it ('clawtap uis' lists them)")
	_ = cmd.RegisterFlagCompletionFunc("ui", uiCompletions(true))
	fl := cmd.Flags()
	fl.StringVar(&opts.failOn, "fail-on", "error", "exit 1 when a finding of this severity or above exists: info, warn or error")
	fl.StringArrayVar(&opts.rules, "rule", nil, "run only this rule (repeatable; also selects rules that are off by default)")
	fl.StringArrayVar(&opts.skip, "skip", nil, "do not run this rule (repeatable)")
	fl.Int64Var(&opts.slowMs, "slow-ms", check.DefaultSlowMs, "a response later than this (ms) is slow; an older request with none at the end is unanswered")
	fl.Int64Var(&opts.idleMs, "idle-ms", check.DefaultIdleMs, "a run without terminal silent this long (ms) before the end is unterminated, not in flight")
	fl.BoolVar(&opts.noReplay, "no-replay", false, "do not replay the capture through the UI model (faster; turns off the rules that read the replay: dropped-final, lost-reply, ghost-stream, billing)")
	fl.BoolVar(&opts.list, "list", false, "list the rules with their default severity and exit")
	fl.StringVar(&opts.schema, "schema", "", "also validate every frame against the gateway protocol's JSON Schema: \"builtin\" for the snapshot clawtap ships, or a protocol.schema.json or a folder holding one (see clawtap validate)")
	fl.Lookup("schema").NoOptDefVal = "builtin"
	_ = cmd.MarkFlagFilename("schema")
	_ = cmd.RegisterFlagCompletionFunc("fail-on", cobra.FixedCompletions([]string{"info", "warn", "error"}, cobra.ShellCompDirectiveNoFileComp))
	ruleIDs := func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		var ids []string
		for _, r := range check.Rules() {
			ids = append(ids, r.ID+"\t"+r.Summary)
		}
		return ids, cobra.ShellCompDirectiveNoFileComp
	}
	_ = cmd.RegisterFlagCompletionFunc("rule", ruleIDs)
	_ = cmd.RegisterFlagCompletionFunc("skip", ruleIDs)
	return cmd
}

// runCheck checks every capture, a section each when there are several;
// with --list it lists the rules instead.
func runCheck(env *cli.Env, opts checkOptions) error {
	if opts.list {
		s, err := env.OpenSink(opts.output)
		if err != nil {
			return err
		}
		return s.Close(output.CheckRules(s, s.Format))
	}
	var schema *validate.Schema
	if opts.withSchema {
		var err error
		if schema, err = loadSchema(opts.schemaPath); err != nil {
			return err
		}
	}
	return env.EachCapture(opts.output, opts.paths, func(path string, r *capture.Reader, s cli.Section) error {
		p := &output.Check{W: s.W, Format: s.Format, Style: s.Style}
		var v *validate.Validator
		var extra []pipeline.Observer
		if schema != nil {
			// Schema findings join check's, in the same pass and printer.
			v = validate.New(schema, validate.Options{})
			p.Rules = append(check.Rules(), validate.Rules()...)
			extra = append(extra, v)
		}
		pass, summary, err := checkPass(opts, p, extra)
		if err != nil {
			return err
		}
		err = cli.ReadErr(path, pass.Run(pipeline.Records(r)))
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
		if err == nil && sum.Count(opts.threshold) > 0 {
			err = cli.ErrFinding
		}
		return err
	})
}

// checkPass is the pass that checks one capture under opts.uis: a fresh
// analyzer feeding p, or with several UIs one replay per UI read at once
// (check.Multi), the findings that depend on the UI saying which show them.
func checkPass(opts checkOptions, p *output.Check, extra []pipeline.Observer) (*pipeline.Pass, func() check.Summary, error) {
	if len(opts.uis) > 1 {
		m, err := check.NewMulti(opts.check, opts.uis)
		if err != nil {
			return nil, nil, err
		}
		return m.Pass(pipeline.Options{}, append([]pipeline.Observer{p}, extra...)...), m.Summary, nil
	}
	an, err := check.New(opts.check)
	if err != nil {
		return nil, nil, err
	}
	var ui replay.UI
	if len(opts.uis) == 1 {
		ui = opts.uis[0]
	}
	pass := pipeline.New(pipeline.Options{Replay: replay.Options{UI: ui}}, append([]pipeline.Observer{p, an}, extra...)...)
	return pass, an.Summary, nil
}
