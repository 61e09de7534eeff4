package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/clawtap/clawtap/pkg/diff"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/fatih/color"
	"github.com/spf13/cobra"
)

func (a *app) diffCmd() *cobra.Command {
	var output string
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
		Example: `  clawtap diff good.jsonl.zst bad.jsonl.zst
  clawtap diff --structure cap.jsonl.zst redacted-content.jsonl.zst
  clawtap diff --merge-deltas before-upgrade.jsonl.zst after-upgrade.jsonl.zst
  clawtap diff --ignore tick --ignore health --ignore presence a.jsonl.zst b.jsonl.zst
  clawtap diff -o json a.jsonl.zst b.jsonl.zst | jq .summary`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := a.outputFormat(output, []string{"json", "text"}, "text", "json")
			if err != nil {
				return err
			}
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
			return a.runDiff(args[0], args[1], format, opts)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "output format: text or json (default: text on a terminal, json otherwise)")
	cmd.Flags().StringArrayVar(&ignore, "ignore", nil, "leave out this event name (repeatable; replaces the default tick, health)")
	cmd.Flags().BoolVar(&keepAll, "all-events", false, "compare every event, tick and health included")
	cmd.Flags().BoolVar(&opts.Structure, "structure", false, "compare without text (for captures redacted with --content)")
	cmd.Flags().BoolVar(&opts.MergeDeltas, "merge-deltas", false, "compare each burst of streamed deltas as one step, the last (for captures paced differently)")
	cmd.Flags().IntVar(&opts.Context, "context", 3, "equal steps shown before the first divergence, and steps of each side after it")
	cmd.Flags().IntVar(&opts.Window, "window", 64, "look-ahead (steps) to re-synchronise after a divergence")
	return cmd
}

func (a *app) runDiff(pa, pb, format string, opts diff.Options) error {
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
	w, flush := a.out()
	if format == "json" {
		writeDiffJSON(w, res)
	} else {
		writeDiffText(w, res, pa, pb)
	}
	if err := flush(); err != nil {
		return err
	}
	if !res.Equal {
		return errFinding
	}
	return nil
}

type stepJSON struct {
	I    int    `json:"i"`
	T    int64  `json:"t"`
	Kind string `json:"kind"`
	Desc string `json:"desc"`
}

func toStepJSON(s *diff.Step) *stepJSON {
	if s == nil {
		return nil
	}
	return &stepJSON{s.I, s.T, s.Kind, s.Desc}
}

func writeDiffJSON(w io.Writer, res *diff.Result) {
	if d := res.First; d != nil {
		type pair struct {
			A *stepJSON `json:"a"`
			B *stepJSON `json:"b"`
		}
		out := struct {
			Step    int         `json:"step"`
			Context []pair      `json:"context"`
			A       []*stepJSON `json:"a"`
			B       []*stepJSON `json:"b"`
		}{Step: d.Step, Context: []pair{}, A: []*stepJSON{}, B: []*stepJSON{}}
		for _, p := range d.Context {
			out.Context = append(out.Context, pair{toStepJSON(p.A), toStepJSON(p.B)})
		}
		for k := range d.A {
			out.A = append(out.A, toStepJSON(&d.A[k]))
		}
		for k := range d.B {
			out.B = append(out.B, toStepJSON(&d.B[k]))
		}
		b, _ := json.Marshal(map[string]any{"divergence": out})
		w.Write(append(b, '\n'))
	}
	if res.FinalState == nil {
		res.FinalState = []string{}
	}
	b, _ := json.Marshal(map[string]any{"summary": res})
	w.Write(append(b, '\n'))
}

func writeDiffText(w io.Writer, res *diff.Result, pa, pb string) {
	bold := color.New(color.Bold)
	fmt.Fprintf(w, "%s %s (%d records%s)\n", bold.Sprint("A"), pa, res.MetaA.Records, versions(res.MetaA.Versions))
	fmt.Fprintf(w, "%s %s (%d records%s)\n", bold.Sprint("B"), pb, res.MetaB.Records, versions(res.MetaB.Versions))
	if d := res.First; d != nil {
		fmt.Fprintf(w, "\n%s\n", bold.Sprintf("first divergence after %d equal step(s):", d.Step))
		dim := color.New(color.Faint)
		for _, p := range d.Context {
			fmt.Fprintf(w, "  %s\n", dim.Sprintf("  A %s", stepLine(p.A)))
			if p.A.I != p.B.I || p.A.T != p.B.T {
				fmt.Fprintf(w, "  %s\n", dim.Sprintf("  B #%d +%s (same)", p.B.I, secsText(p.B.T)))
			}
		}
		red, green := color.New(color.FgRed), color.New(color.FgGreen)
		for k := range d.A {
			fmt.Fprintf(w, "  %s\n", red.Sprintf("- A %s", stepLine(&d.A[k])))
		}
		if len(d.A) == 0 {
			fmt.Fprintf(w, "  %s\n", red.Sprint("- A (ends here)"))
		}
		for k := range d.B {
			fmt.Fprintf(w, "  %s\n", green.Sprintf("+ B %s", stepLine(&d.B[k])))
		}
		if len(d.B) == 0 {
			fmt.Fprintf(w, "  %s\n", green.Sprint("+ B (ends here)"))
		}
		fmt.Fprintln(w)
	}
	verdict := color.New(color.FgGreen).Sprint("equivalent")
	if !res.Equal {
		verdict = color.New(color.FgRed, color.Bold).Sprint("different")
	}
	fmt.Fprintf(w, "%s: %d step(s) aligned (%d equal, %d changed), %d only in A, %d only in B\n", verdict, res.Steps, res.Same, res.Changed, res.OnlyA, res.OnlyB)
	kinds := make([]string, 0, len(res.ByKind))
	for k := range res.ByKind {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	for _, k := range kinds {
		c := res.ByKind[k]
		fmt.Fprintf(w, "  %s: %d changed, %d only in A, %d only in B\n", k, c.Changed, c.OnlyA, c.OnlyB)
	}
	if len(res.FinalState) == 0 {
		fmt.Fprintln(w, "final replayed state: equal")
	} else {
		fmt.Fprintln(w, "final replayed state differs:")
		for _, s := range res.FinalState {
			fmt.Fprintf(w, "  %s\n", s)
		}
	}
}

func versions(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return ", gateway " + strings.Join(v, ", ")
}

func secsText(ms int64) string { return fmt.Sprintf("%d.%03ds", ms/1000, ms%1000) }

func stepLine(s *diff.Step) string {
	return fmt.Sprintf("#%-5d +%-8s %s", s.I, secsText(s.T), oneLine(clip(s.Desc, 220)))
}
