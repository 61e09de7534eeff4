package main

import (
	"strings"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/diffcli"
	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/diff"
	"github.com/clawtap/clawtap/pkg/ui/models"
	"github.com/spf13/cobra"
)

func (a *app) diffCmd() *cobra.Command {
	var out outFlags
	var opts diff.Options
	var ignore []string
	var keepAll bool
	var ui string
	cmd := &cobra.Command{
		Use:   "diff A B | diff --ui UI,UI CAPTURE",
		Short: "Compare two captures by intents and replayed state, not bytes",
		Long: `diff compares two captures semantically: record by record, by what each
frame is (kind, event, state, stream, phase, method, outcome, text) and what
the UI pipeline does with it (the intents, the handler's guard decisions,
the agent status and run it leaves, approvals, billing), then the replayed
UI state at the end. Volatile values are normalised: times become offsets
from each capture's start, and run ids, connection numbers and ids, nonces,
idempotency keys, boot ids, request, approval and tool call ids are named by
first appearance (run#1, conn#1, …). tick and health events are left out by
default (their place among the runs is timing); --ignore replaces that list.
--merge-deltas compares streamed text by where it got rather than how it was
cut: each burst of deltas of a run on a stream becomes one step, the last, so
gateways that pace or throttle deltas differently compare equal.

Use it for the same scenario before and after a gateway upgrade, or a good
against a bad run. The output is the first divergence with the equal steps
before it and the next steps of both sides (--divergences N shows the first
N, and says how many there are), then a summary: steps compared, changed,
only in A, only in B, per kind, and the final state. Both captures are read
in lock-step; after a divergence the comparison re-synchronises within
--window steps, so memory stays bounded.

--ui UI,UI compares one capture under two UI models instead: it is read
once (a file or -), both replay it, and diff says, run by run, where what
the user ends up with differs — the reply committed or dropped (and why),
the agent's status after the run, a ghost run or a streaming bubble left
behind, the turns billed. A single --ui replays both captures of an A/B
diff under that UI.

Exit status 0 when the captures (or the UIs) are equivalent, 1 when they
differ, 2 on trouble.`,
		Example: `  clawtap diff fixtures/streamed-run.jsonl.zst fixtures/duplicate-final.jsonl.zst
  clawtap redact --content fixtures/tool-run.jsonl.zst -o share.jsonl.zst && clawtap diff --structure fixtures/tool-run.jsonl.zst share.jsonl.zst
  clawtap diff --merge-deltas fixtures/streamed-run.jsonl.zst fixtures/duplicate-final.jsonl.zst
  clawtap diff --divergences 5 fixtures/streamed-run.jsonl.zst fixtures/duplicate-final.jsonl.zst
  clawtap diff --ignore tick --ignore health --ignore presence fixtures/demo.jsonl.zst fixtures/streamed-run.jsonl.zst
  clawtap diff --format json fixtures/streamed-run.jsonl.zst fixtures/duplicate-final.jsonl.zst | jq .summary
  clawtap diff --ui clawboo,claw3d fixtures/demo.jsonl.zst
  clawtap diff --ui clawboo,claw3d --format json fixtures/demo.jsonl.zst | jq -c 'select(.run.differs)'`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if ua, ub, two := strings.Cut(ui, ","); two {
				return a.runDiffUIs(cmd, args, [2]string{ua, ub}, &out)
			}
			if len(args) != 2 {
				return cli.Usage("give two captures, or --ui UI,UI and one", "diff needs two captures to compare")
			}
			if ui != "" {
				u, err := parseUI(ui)
				if err != nil {
					return err
				}
				opts.UI = u
			}
			if args[0] == "-" && args[1] == "-" {
				return cli.Usage("give at most one capture as -", "both captures cannot come from stdin")
			}
			for _, p := range args {
				if err := a.CheckStdin(cmd.CommandPath(), p); err != nil {
					return err
				}
			}
			if cmd.Flags().Changed("ignore") || keepAll {
				opts.Ignore = append([]string{}, ignore...)
			}
			if opts.Context < 0 || opts.Window < 0 {
				return cli.Usage("give a positive number", "--context and --window must not be negative")
			}
			if opts.Divergences < 1 {
				return cli.Usage("give 1 or more", "--divergences %d shows no divergence", opts.Divergences)
			}
			return a.runDiff(cmd, args[0], args[1], &out, opts)
		},
	}
	a.printFlags(cmd, &out, output.Text)
	cmd.Flags().StringArrayVar(&ignore, "ignore", nil, "leave out this event name (repeatable; replaces the default tick, health)")
	cmd.Flags().BoolVar(&keepAll, "all-events", false, "compare every event, tick and health included")
	cmd.Flags().BoolVar(&opts.Structure, "structure", false, "compare without text (for captures redacted with --content)")
	cmd.Flags().BoolVar(&opts.MergeDeltas, "merge-deltas", false, "compare each burst of streamed deltas as one step, the last (for captures paced differently)")
	cmd.Flags().IntVar(&opts.Context, "context", 3, "equal steps shown before a divergence, and steps of each side after it")
	cmd.Flags().IntVar(&opts.Divergences, "divergences", 1, "how many divergences to show, the first ones, each in its context")
	cmd.Flags().IntVar(&opts.Window, "window", 64, "look-ahead (steps) to re-synchronise after a divergence")
	cmd.Flags().StringVar(&ui, "ui", "", "the UI both replays model (NAME or NAME@VERSION); UI,UI compares one capture under two UIs, or two versions of one ("+strings.Join(models.Names(), ", ")+"; 'clawtap uis' lists the versions)")
	_ = cmd.RegisterFlagCompletionFunc("ui", uiCompletions(false))
	return cmd
}

func (a *app) runDiff(cmd *cobra.Command, pa, pb string, out *outFlags, opts diff.Options) error {
	o, err := out.spec(cmd)
	if err != nil {
		return err
	}
	return diffcli.Captures(a.Env, pa, pb, o, opts)
}

// runDiffUIs replays one capture under two UIs (reading it once) and
// compares what each left the user with, run by run.
func (a *app) runDiffUIs(cmd *cobra.Command, args []string, names [2]string, out *outFlags) error {
	path, uis, err := diffcli.CheckUIs(args, names, cmd.Flags().Changed)
	if err != nil {
		return err
	}
	o, err := out.spec(cmd)
	if err != nil {
		return err
	}
	return diffcli.UIs(a.Env, path, uis, o)
}
