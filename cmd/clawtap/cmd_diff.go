package main

import (
	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/diff"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/spf13/cobra"
)

func (a *app) diffCmd() *cobra.Command {
	var out outFlags
	var opts diff.Options
	var ignore []string
	var keepAll bool
	cmd := &cobra.Command{
		Use:   "diff A B",
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
before it and the next steps of both sides, then a summary: steps compared,
changed, only in A, only in B, per kind, and the final state. Both captures
are read in lock-step; after a divergence the comparison re-synchronises
within --window steps, so memory stays bounded.

Exit status 0 when the captures are equivalent, 1 when they differ, 2 on
trouble.`,
		Example: `  clawtap diff fixtures/streamed-run.jsonl.zst fixtures/duplicate-final.jsonl.zst
  clawtap redact --content fixtures/tool-run.jsonl.zst -o share.jsonl.zst && clawtap diff --structure fixtures/tool-run.jsonl.zst share.jsonl.zst
  clawtap diff --merge-deltas fixtures/streamed-run.jsonl.zst fixtures/duplicate-final.jsonl.zst
  clawtap diff --ignore tick --ignore health --ignore presence fixtures/demo.jsonl.zst fixtures/streamed-run.jsonl.zst
  clawtap diff --format json fixtures/streamed-run.jsonl.zst fixtures/duplicate-final.jsonl.zst | jq .summary`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if args[0] == "-" && args[1] == "-" {
				return usageError("give at most one capture as -", "both captures cannot come from stdin")
			}
			for _, p := range args {
				if err := a.checkStdin(cmd, p); err != nil {
					return err
				}
			}
			if cmd.Flags().Changed("ignore") || keepAll {
				opts.Ignore = append([]string{}, ignore...)
			}
			if opts.Context < 0 || opts.Window < 0 {
				return usageError("give a positive number", "--context and --window must not be negative")
			}
			return a.runDiff(cmd, args[0], args[1], &out, opts)
		},
	}
	a.printFlags(cmd, &out, output.Text)
	cmd.Flags().StringArrayVar(&ignore, "ignore", nil, "leave out this event name (repeatable; replaces the default tick, health)")
	cmd.Flags().BoolVar(&keepAll, "all-events", false, "compare every event, tick and health included")
	cmd.Flags().BoolVar(&opts.Structure, "structure", false, "compare without text (for captures redacted with --content)")
	cmd.Flags().BoolVar(&opts.MergeDeltas, "merge-deltas", false, "compare each burst of streamed deltas as one step, the last (for captures paced differently)")
	cmd.Flags().IntVar(&opts.Context, "context", 3, "equal steps shown before the first divergence, and steps of each side after it")
	cmd.Flags().IntVar(&opts.Window, "window", 64, "look-ahead (steps) to re-synchronise after a divergence")
	return cmd
}

func (a *app) runDiff(cmd *cobra.Command, pa, pb string, out *outFlags, opts diff.Options) error {
	ra, err := a.openCapture(pa)
	if err != nil {
		return err
	}
	defer ra.Close()
	rb, err := a.openCapture(pb)
	if err != nil {
		return err
	}
	defer rb.Close()
	res := diff.Compare(pipeline.Records(ra), pipeline.Records(rb), opts)
	a.readSummary(pa, ra.Stats())
	a.readSummary(pb, rb.Stats())
	s, err := a.openSink(cmd, out)
	if err != nil {
		return err
	}
	err = output.Diff(s, s.format, s.style, res, pa, pb)
	if err == nil && !res.Equal {
		err = errFinding
	}
	return s.close(err)
}
