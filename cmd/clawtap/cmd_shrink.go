package main

import (
	"strings"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/shrinkcli"
	"github.com/clawtap/clawtap/pkg/check"
	"github.com/clawtap/clawtap/pkg/shrink"
	"github.com/clawtap/clawtap/pkg/ui/models"
	"github.com/spf13/cobra"
)

type shrinkFlags struct {
	out      outFlags
	rule     string
	run      string
	ui       string
	maxTests int
	slowMs   int64
	idleMs   int64
}

func (a *app) shrinkCmd() *cobra.Command {
	var f shrinkFlags
	cmd := &cobra.Command{
		Use:   "shrink CAPTURE --rule RULE -o SMALL",
		Short: "Cut a capture down to the few records that still show one check finding",
		Long: `shrink turns a long capture into the handful of records a bug report needs:
it removes records for as long as check still reports the same finding —
the first finding of --rule (for --run, when given), at the same record,
with the same severity — and writes what is left. The search is delta
debugging (ddmin): whole connections first, then whole runs, then single
records, until removing any one of them loses the finding.

The result is a valid capture that replays: a kept frame keeps its
connection's handshake (open and hello markers, challenge, connect request
and response), a dropped connection takes its markers with it, and markers
are never kept alone. It keeps the input's header (redacted as the input
was) with a note saying what it was shrunk for, and its records exactly as
they were read. The same input gives the same output on every run.

--ui picks the UI the replay models, for rules that replay (dropped-final);
--slow-ms and --idle-ms are check's, for the rules they tune.
A capture of more than 8 MiB of frames is read as a stream to find the
finding, then searched in a window of the records up to it, not held whole.
--max-tests bounds the check passes; when it is reached, the smallest
capture found so far is written, with a warning. Exit status 2 when the
input does not show the finding at all. Progress goes to stderr (-q
silences it). SMALL ending in .zst is zstd-compressed; - writes JSON Lines
to stdout. See docs/shrink.md.`,
		Example: `  clawtap shrink fixtures/duplicate-final.jsonl.zst --rule duplicate-terminal -o small.jsonl.zst
  clawtap shrink fixtures/stale-terminal.jsonl.zst --rule dropped-final --ui clawboo@1211c16 -o small.jsonl
  clawtap shrink fixtures/exec-approval.jsonl.zst --rule run-seq-jump --run 990e77be-a691-4d68-a4b9-379b3c203882 --max-tests 50 -o - | clawtap check --rule run-seq-jump --format json`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: captureArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runShrink(cmd, args[0], &f)
		},
	}
	a.fileFlags(cmd, &f.out, "", "the small capture to write (required): FILE, FILE.zst (compressed), or - for stdout")
	fl := cmd.Flags()
	fl.StringVar(&f.rule, "rule", "", "the check rule whose finding to keep (required; clawtap check --list names them)")
	fl.StringVar(&f.run, "run", "", "keep the rule's finding for this run id")
	fl.StringVar(&f.ui, "ui", "", "the UI the replay models: NAME or NAME@VERSION, of "+strings.Join(models.Names(), ", ")+" (default "+models.Default().String()+")")
	fl.IntVar(&f.maxTests, "max-tests", 0, "stop after this many check passes and write the smallest capture found so far (0: no bound)")
	fl.Int64Var(&f.slowMs, "slow-ms", check.DefaultSlowMs, "as check's --slow-ms: a response later than this (ms) is slow; an older request with none at the end is unanswered")
	fl.Int64Var(&f.idleMs, "idle-ms", check.DefaultIdleMs, "as check's --idle-ms: a run without terminal silent this long (ms) before the end is unterminated, not in flight")
	_ = cmd.RegisterFlagCompletionFunc("rule", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		var ids []string
		for _, r := range check.Rules() {
			ids = append(ids, r.ID+"\t"+r.Summary)
		}
		return ids, cobra.ShellCompDirectiveNoFileComp
	})
	_ = cmd.RegisterFlagCompletionFunc("ui", uiCompletions(false))
	return cmd
}

func (a *app) runShrink(cmd *cobra.Command, in string, f *shrinkFlags) error {
	target := shrink.Target{Rule: f.rule, Run: f.run, SlowMs: f.slowMs, IdleMs: f.idleMs}
	if f.ui != "" { // named: the note and messages say which
		ui, err := parseUI(f.ui)
		if err != nil {
			return err
		}
		target.UI = ui
	}
	switch {
	case f.rule == "":
		return cli.Usage("add --rule RULE; 'clawtap check "+cli.DisplayName(in)+"' shows the rules it reports", "no --rule given")
	case f.out.path == "":
		return cli.Usage("add -o SMALL.jsonl.zst, or -o - for stdout", "no output given")
	case f.maxTests < 0:
		return cli.Usage("give a positive number, or 0 for no bound", "--max-tests must not be negative")
	case f.slowMs <= 0 || f.idleMs <= 0:
		return cli.Usage("give a positive number of milliseconds", "--slow-ms and --idle-ms must be positive")
	}
	if err := target.Validate(); err != nil {
		hint := "shrink for another rule: 'clawtap check " + cli.DisplayName(in) + "' lists what the capture shows"
		if _, known := check.LookupRule(f.rule); !known {
			hint = "run 'clawtap check --list' for the rule ids"
		}
		return cli.Usage(hint, "%v", err)
	}
	if err := a.CheckStdin(cmd.CommandPath(), in); err != nil {
		return err
	}
	if cli.SameFile(in, f.out.path) {
		return cli.Usage("write to a new file", "output %s is the input", f.out.path)
	}
	return shrinkcli.Run(a.Env, shrinkcli.Config{In: in, Out: f.out.file(cmd), Target: target, MaxTests: f.maxTests})
}
