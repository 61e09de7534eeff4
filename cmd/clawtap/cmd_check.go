package main

import (
	"strings"

	"github.com/clawtap/clawtap/internal/checkcli"
	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/check"
	"github.com/clawtap/clawtap/pkg/ui/models"
	"github.com/spf13/cobra"
)

// checkShowPerRule bounds the findings text output shows for one rule; the
// rest are counted.
const checkShowPerRule = 20

type checkFlags struct {
	out      outFlags
	failOn   string
	rules    []string
	skip     []string
	slowMs   int64
	idleMs   int64
	noReplay bool
	list     bool
	schema   string
	ui       string
}

func (a *app) checkCmd() *cobra.Command {
	var f checkFlags
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
			if f.list {
				if f.out.format == "" {
					f.out.format = string(output.Text) // a listing reads as text, piped or not
				}
				s, err := a.openSink(cmd, &f.out)
				if err != nil {
					return err
				}
				return s.Close(output.CheckRules(s, s.Format))
			}
			failOn, err := check.ParseSeverity(f.failOn)
			if err != nil {
				return cli.Usage("use --fail-on info|warn|error", "%v", err)
			}
			if f.slowMs <= 0 || f.idleMs <= 0 {
				return cli.Usage("give a positive number of milliseconds", "--slow-ms and --idle-ms must be positive")
			}
			uis, err := cli.ParseUIs([]string{f.ui})
			if err != nil {
				return err
			}
			opts := check.Options{SlowMs: f.slowMs, IdleMs: f.idleMs, Only: f.rules, Skip: f.skip, NoReplay: f.noReplay}
			if _, err := check.New(opts); err != nil {
				return cli.Usage("run 'clawtap check --list' for the rule ids", "%v", err)
			}
			c := checkcli.Check{Paths: args, Options: opts, FailOn: failOn, UI: uis[0], UIs: uis}
			if f.schema != "" {
				cli.AllocHeavy()
				if c.Schema, err = checkcli.LoadSchema(strings.TrimPrefix(f.schema, "builtin")); err != nil {
					return err
				}
			}
			if c.Out, err = f.out.spec(cmd); err != nil {
				return err
			}
			return c.Run(a.Env)
		},
	}
	a.printFlags(cmd, &f.out, output.Text)
	def := models.Default().Version.UI
	cmd.Flags().StringVar(&f.ui, "ui", def, "the UI to model: NAME (its newest version) or NAME@VERSION, of "+strings.Join(models.Names(), ", ")+
		"; several (A,B) or all to check every version at once, each finding saying which show it ('clawtap uis' lists them)")
	_ = cmd.RegisterFlagCompletionFunc("ui", uiCompletions(true))
	fl := cmd.Flags()
	fl.StringVar(&f.failOn, "fail-on", "error", "exit 1 when a finding of this severity or above exists: info, warn or error")
	fl.StringArrayVar(&f.rules, "rule", nil, "run only this rule (repeatable; also selects rules that are off by default)")
	fl.StringArrayVar(&f.skip, "skip", nil, "do not run this rule (repeatable)")
	fl.Int64Var(&f.slowMs, "slow-ms", check.DefaultSlowMs, "a response later than this (ms) is slow; an older request with none at the end is unanswered")
	fl.Int64Var(&f.idleMs, "idle-ms", check.DefaultIdleMs, "a run without terminal silent this long (ms) before the end is unterminated, not in flight")
	fl.BoolVar(&f.noReplay, "no-replay", false, "do not replay the capture through the UI model (faster; turns off the rules that read the replay: dropped-final, lost-reply, ghost-stream, billing)")
	fl.BoolVar(&f.list, "list", false, "list the rules with their default severity and exit")
	fl.StringVar(&f.schema, "schema", "", "also validate every frame against the gateway protocol's JSON Schema: \"builtin\" for the snapshot clawtap ships, or a protocol.schema.json or a folder holding one (see clawtap validate)")
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
