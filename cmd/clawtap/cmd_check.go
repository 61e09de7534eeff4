package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/clawtap/clawtap/pkg/check"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/fatih/color"
	"github.com/spf13/cobra"
)

// checkShowPerRule bounds the findings text output shows for one rule; the
// rest are counted.
const checkShowPerRule = 20

type checkFlags struct {
	output   string
	failOn   string
	rules    []string
	skip     []string
	slowMs   int64
	idleMs   int64
	noReplay bool
	list     bool
}

func (a *app) checkCmd() *cobra.Command {
	var f checkFlags
	cmd := &cobra.Command{
		Use:   "check [FILE|-]",
		Short: "Find protocol problems in a capture (seq gaps, stuck runs, duplicate finals, …)",
		Long: `check reads a capture once and reports findings, like a protocol analyser's
expert info: frame seq gaps, runs that never end or end twice, terminals of an
older run while a newer one is live (and, replaying the capture through the
UI pipeline, the final that costs), streamed text that is not cumulative, a
final that differs from the streamed text, thinking-tag leaks, approvals that
expire unresolved, tool events delivered twice, unanswered, failed and slow
requests, oversized and invalid frames.

Each finding has a stable rule id, a severity (info, warn, error), the record
index and time, the run it concerns and one sentence of evidence. Every rule
is documented with an example in docs/check-rules.md; --list prints them.

Output: findings grouped by severity and rule on a terminal; NDJSON (one
finding per line, then a {"summary":…} line) otherwise. Exit status 1 when a
finding at or above --fail-on (default error) exists, so CI can gate on it.`,
		Example: `  clawtap check fixtures/stale-terminal.jsonl.zst
  clawtap check --fail-on warn cap.jsonl.zst || echo "problems found"
  clawtap check --rule seq-gap --rule late-event cap.jsonl.zst
  clawtap check --skip replace-delta --slow-ms 2000 cap.jsonl.zst
  clawtap check -o json cap.jsonl.zst | jq -c 'select(.severity=="error")'
  cat cap.jsonl | clawtap check -
  clawtap check --list`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.list {
				return a.listRules()
			}
			format, err := a.outputFormat(f.output, []string{"json", "text"}, "text", "json")
			if err != nil {
				return err
			}
			failOn, err := check.ParseSeverity(f.failOn)
			if err != nil {
				return usageError("use --fail-on info|warn|error", "%v", err)
			}
			if f.slowMs <= 0 || f.idleMs <= 0 {
				return usageError("give a positive number of milliseconds", "--slow-ms and --idle-ms must be positive")
			}
			opts := check.Options{SlowMs: f.slowMs, IdleMs: f.idleMs, Only: f.rules, Skip: f.skip, NoReplay: f.noReplay}
			an, err := check.New(opts)
			if err != nil {
				return usageError("run 'clawtap check --list' for the rule ids", "%v", err)
			}
			path := inputArg(args)
			if err := a.checkStdin(cmd, path); err != nil {
				return err
			}
			return a.runCheck(path, format, failOn, an)
		},
	}
	cmd.Flags().StringVarP(&f.output, "output", "o", "", "output format: json or text (default: text on a terminal, json otherwise)")
	cmd.Flags().StringVar(&f.failOn, "fail-on", "error", "exit 1 when a finding of this severity or above exists: info, warn or error")
	cmd.Flags().StringArrayVar(&f.rules, "rule", nil, "run only this rule (repeatable; also selects rules that are off by default)")
	cmd.Flags().StringArrayVar(&f.skip, "skip", nil, "do not run this rule (repeatable)")
	cmd.Flags().Int64Var(&f.slowMs, "slow-ms", check.DefaultSlowMs, "a response later than this (ms) is slow; an older request with none at the end is unanswered")
	cmd.Flags().Int64Var(&f.idleMs, "idle-ms", check.DefaultIdleMs, "a run without terminal silent this long (ms) before the end is unterminated, not in flight")
	cmd.Flags().BoolVar(&f.noReplay, "no-replay", false, "do not replay the capture through the UI pipeline (turns off dropped-final; faster)")
	cmd.Flags().BoolVar(&f.list, "list", false, "list the rules with their default severity and exit")
	return cmd
}

func (a *app) listRules() error {
	w, flush := a.out()
	for _, r := range check.Rules() {
		def := ""
		if !r.Default {
			def = " (off unless selected)"
		}
		fmt.Fprintf(w, "%s %s %s%s\n", pad(r.ID, 21), pad(r.Severity.String(), 5), r.Summary, def)
	}
	return flush()
}

// checkKey groups findings for text output: a few rules lower their
// severity where the evidence says so.
type checkKey struct {
	sev  check.Severity
	rule string
}

// checkGroup collects one rule's findings for text output.
type checkGroup struct {
	shown []check.Finding
	n     int
}

func (a *app) runCheck(path, format string, failOn check.Severity, an *check.Analyzer) error {
	r, err := a.openCapture(path)
	if err != nil {
		return err
	}
	defer r.Close()
	w, flush := a.out()
	var buf []byte
	var start int64
	groups := make(map[checkKey]*checkGroup)
	an.OnFinding = func(f *check.Finding) error {
		if format == "json" {
			buf = append(f.AppendJSON(buf[:0]), '\n')
			_, err := w.Write(buf)
			return err
		}
		k := checkKey{f.Severity, f.Rule}
		g := groups[k]
		if g == nil {
			g = &checkGroup{}
			groups[k] = g
		}
		g.n++
		if len(g.shown) < checkShowPerRule {
			g.shown = append(g.shown, *f)
		}
		return nil
	}
	starts := startObserver{start: &start}
	if err := pipeline.New(pipeline.Options{}, starts, an).Run(pipeline.Records(r)); err != nil {
		return passErr(path, flush, err)
	}
	a.readSummary(path, r.Stats())
	sum := an.Summary()
	if format == "json" {
		line, _ := json.Marshal(map[string]check.Summary{"summary": sum})
		w.Write(append(line, '\n'))
	} else {
		writeCheckText(w, groups, start, &sum)
	}
	if err := flush(); err != nil {
		return err
	}
	if sum.Count(failOn) > 0 {
		return errFinding
	}
	return nil
}

// startObserver notes the first record time, the origin of offsets in
// text output.
type startObserver struct{ start *int64 }

func (startObserver) Needs() pipeline.Needs { return 0 }

func (o startObserver) Before(f *pipeline.Frame) error {
	if *o.start == 0 && f.Rec.T > 0 {
		*o.start = f.Rec.T
	}
	return nil
}

func severityColor(s check.Severity) *color.Color {
	switch s {
	case check.Error:
		return color.New(color.FgRed, color.Bold)
	case check.Warn:
		return color.New(color.FgYellow)
	}
	return color.New(color.Faint)
}

func writeCheckText(w io.Writer, groups map[checkKey]*checkGroup, start int64, sum *check.Summary) {
	for _, sev := range []check.Severity{check.Error, check.Warn, check.Info} {
		for _, rule := range check.Rules() {
			g := groups[checkKey{sev, rule.ID}]
			if g == nil {
				continue
			}
			c := severityColor(sev)
			fmt.Fprintf(w, "%s %s (%d)\n", c.Sprint(pad(strings.ToUpper(sev.String()), 5)), color.New(color.Bold).Sprint(rule.ID), g.n)
			for _, f := range g.shown {
				where := "conn " + strconv.Itoa(f.Conn)
				if f.Conn == 0 {
					where = "-"
				}
				fmt.Fprintf(w, "  %s %s %s %s\n", pad("#"+strconv.Itoa(f.I), 7), pad(offset(f.T, start), 9), pad(where, 7), oneLine(f.Message))
			}
			if more := g.n - len(g.shown); more > 0 {
				fmt.Fprintf(w, "  %s\n", color.New(color.Faint).Sprintf("… and %d more (use -o json for all)", more))
			}
		}
	}
	var verdict string
	total := sum.Errors + sum.Warnings + sum.Infos
	switch {
	case total == 0:
		verdict = color.New(color.FgGreen).Sprint("no findings")
	default:
		verdict = fmt.Sprintf("%s, %s, %s",
			severityColor(check.Error).Sprintf("%d error(s)", sum.Errors),
			severityColor(check.Warn).Sprintf("%d warning(s)", sum.Warnings),
			fmt.Sprintf("%d info", sum.Infos))
	}
	fmt.Fprintf(w, "%s in %d records (%d connection(s), %d run(s))\n", verdict, sum.Records, sum.Connections, sum.Runs)
}
