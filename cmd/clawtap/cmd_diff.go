package main

import (
	"strings"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/diff"
	"github.com/clawtap/clawtap/pkg/models"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/replay"
	"github.com/spf13/cobra"
)

// diffOptions is a diff as the command line asks for it: two captures,
// or one under two UIs.
type diffOptions struct {
	out     outFlags
	diff    diff.Options // the comparison's flags, checked
	ignore  []string
	keepAll bool
	ui      string // UI, or UI,UI

	paths  []string     // A and B; or the capture, with uis
	uis    [2]replay.UI // diff --ui UI,UI: the two UIs, checked; zero for an A/B diff
	output cli.Output   // checked from out
}

// abFlags are the comparison flags of an A/B diff, which a comparison of
// UIs has no use for.
var abFlags = []string{"structure", "merge-deltas", "ignore", "all-events", "context", "window", "divergences"}

func (a *app) diffCmd() *cobra.Command {
	var opts diffOptions
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
			opts.paths = args
			if ua, ub, two := strings.Cut(opts.ui, ","); two {
				if err := opts.checkUIs([2]string{ua, ub}, cmd.Flags().Changed); err != nil {
					return err
				}
			} else if err := opts.checkAB(cmd.Flags().Changed("ignore")); err != nil {
				return err
			}
			var err error
			if opts.output, err = opts.out.spec(cmd); err != nil {
				return err
			}
			return a.run(cli.DefaultMemory, func() error { return runDiff(a.Env, opts) })
		},
	}
	a.printFlags(cmd, &opts.out, output.Text)
	fl := cmd.Flags()
	fl.StringArrayVar(&opts.ignore, "ignore", nil, "leave out this event name (repeatable; replaces the default tick, health)")
	fl.BoolVar(&opts.keepAll, "all-events", false, "compare every event, tick and health included")
	fl.BoolVar(&opts.diff.Structure, "structure", false, "compare without text (for captures redacted with --content)")
	fl.BoolVar(&opts.diff.MergeDeltas, "merge-deltas", false, "compare each burst of streamed deltas as one step, the last (for captures paced differently)")
	fl.IntVar(&opts.diff.Context, "context", 3, "equal steps shown before a divergence, and steps of each side after it")
	fl.IntVar(&opts.diff.Divergences, "divergences", 1, "how many divergences to show, the first ones, each in its context")
	fl.IntVar(&opts.diff.Window, "window", 64, "look-ahead (steps) to re-synchronise after a divergence")
	fl.StringVar(&opts.ui, "ui", "", "the UI both replays model (NAME or NAME@VERSION); UI,UI compares one capture under two UIs, or two versions of one ("+strings.Join(models.Names(), ", ")+"; 'clawtap uis' lists the versions)")
	_ = cmd.RegisterFlagCompletionFunc("ui", uiCompletions(false))
	return cmd
}

// checkAB checks the command line of an A/B diff: two captures, at most
// one of them stdin, and the comparison's flags (ignored says whether
// --ignore was given).
func (o *diffOptions) checkAB(ignored bool) error {
	if len(o.paths) != 2 {
		return cli.Usage("give two captures, or --ui UI,UI and one", "diff needs two captures to compare")
	}
	if o.ui != "" {
		u, err := parseUI(o.ui)
		if err != nil {
			return err
		}
		o.diff.UI = u
	}
	if o.paths[0] == "-" && o.paths[1] == "-" {
		return cli.Usage("give at most one capture as -", "both captures cannot come from stdin")
	}
	if ignored || o.keepAll {
		o.diff.Ignore = append([]string{}, o.ignore...)
	}
	if o.diff.Context < 0 || o.diff.Window < 0 {
		return cli.Usage("give a positive number", "--context and --window must not be negative")
	}
	if o.diff.Divergences < 1 {
		return cli.Usage("give 1 or more", "--divergences %d shows no divergence", o.diff.Divergences)
	}
	return nil
}

// checkUIs checks the command line of diff --ui UI,UI: one capture (a
// file or "-"), two different UIs, and none of the A/B diff's flags
// (changed says which flags were given).
func (o *diffOptions) checkUIs(names [2]string, changed func(string) bool) error {
	if len(o.paths) != 1 {
		return cli.Usage("give one capture with --ui UI,UI", "--ui %s,%s compares one capture under two UIs, got %d captures", names[0], names[1], len(o.paths))
	}
	var uis [2]replay.UI
	for k, u := range names {
		p, err := parseUI(u)
		if err != nil {
			return err
		}
		uis[k] = p
	}
	if uis[0] == uis[1] {
		return cli.Usage("name two different UIs, e.g. --ui clawboo,claw3d or --ui clawboo@1211c16,clawboo", "--ui %s,%s compares a UI with itself", names[0], names[1])
	}
	for _, f := range abFlags {
		if changed(f) {
			return cli.Usage("drop --"+f+", or diff two captures", "--%s compares two captures step by step; --ui %s,%s compares one capture's outcomes, run by run", f, names[0], names[1])
		}
	}
	o.uis = uis
	return nil
}

// runDiff compares two captures, or with opts.uis one capture under two
// UIs, and prints the result; a difference is a finding.
func runDiff(env *cli.Env, opts diffOptions) error {
	if !opts.uis[0].IsZero() {
		return diffUIs(env, opts.paths[0], opts.uis, opts.output)
	}
	for _, p := range opts.paths {
		if err := env.CheckStdin(opts.output.Cmd, p); err != nil {
			return err
		}
	}
	return diffCaptures(env, opts.paths[0], opts.paths[1], opts.output, opts.diff)
}

// diffCaptures compares the captures at pa and pb and prints the result.
func diffCaptures(env *cli.Env, pa, pb string, out cli.Output, opts diff.Options) error {
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

// diffUIs replays the capture at path ("-": stdin) under two UIs, reading
// it once, and prints where what each left the user with differs, run by
// run.
func diffUIs(env *cli.Env, path string, uis [2]replay.UI, out cli.Output) error {
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
	ra.SetAhead(1) // two replays are much slower than reading (see diffCaptures)
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
