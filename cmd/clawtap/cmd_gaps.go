package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/gaps"
	"github.com/fatih/color"
	"github.com/spf13/cobra"
)

func (a *app) gapsCmd() *cobra.Command {
	var output string
	var frameOnly bool
	cmd := &cobra.Command{
		Use:   "gaps [FILE|-]",
		Short: "Report frame-level seq gaps per connection",
		Long: `gaps checks the gateway's frame-level seq on every connection of a capture.
seq restarts with every connection; connect.challenge, responses and targeted
frames may carry none. A forward jump is a gap (frames were lost); a repeated
or lower seq is reported as duplicate or backwards, not as a gap.

It also reports the gateway's own agent stream:"error" "seq gap" events
(gateway-gap) and, as information only, jumps in the per-run payload seq
(run-seq-jump), which are normal: throttled and merged deltas and tool events
sent to other connections all skip numbers. A connection whose first seq is
not 1 is reported as first-seq (information: gateways before 2026.4.22 share
one counter across connections).

Output: NDJSON findings and a last {"summary":...} line when stdout is not a
terminal; a table and a summary line when it is. Exit status 1 when a
frame-level gap was found, so CI can gate on it.`,
		Example: `  clawtap gaps fixtures/seq-gap.jsonl.zst
  clawtap gaps --frame-only cap.jsonl.zst || echo "frames were lost"
  clawtap gaps -o json cap.jsonl.zst | jq -c 'select(.kind=="gap")'`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := a.outputFormat(output, []string{"json", "table"}, "table", "json")
			if err != nil {
				return err
			}
			path := inputArg(args)
			if err := a.checkStdin(cmd, path); err != nil {
				return err
			}
			return a.runGaps(path, format, frameOnly)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "output format: json or table (default: table on a terminal, json otherwise)")
	cmd.Flags().BoolVar(&frameOnly, "frame-only", false, "only frame-level findings (no gateway-gap or run-seq-jump)")
	return cmd
}

func (a *app) runGaps(path, format string, frameOnly bool) error {
	r, err := a.openCapture(path)
	if err != nil {
		return err
	}
	defer r.Close()
	w, flush := a.out()
	cl := bridge.NewClassifier()
	tr := gaps.NewTracker()
	var found []gaps.Finding
	var buf []byte
	var start int64
	if format == "table" {
		fmt.Fprintln(w, color.New(color.Bold).Sprint(strings.Join([]string{pad("KIND", 13), pad("#", 7), pad("TIME", 10), pad("CONN", 4), pad("EXPECTED", 9), pad("RECEIVED", 9), pad("MISSING", 7), "RUN"}, " ")))
	}
	for {
		rec, err := r.Next()
		if err != nil {
			break
		}
		if start == 0 && rec.T > 0 {
			start = rec.T
		}
		ev := cl.Record(rec)
		found = tr.Observe(found[:0], rec.Index, rec.T, rec.Conn, rec.Dir, &ev)
		for _, f := range found {
			if frameOnly && (f.Kind == gaps.GatewayGap || f.Kind == gaps.RunSeqJump) {
				continue
			}
			if format == "json" {
				buf = append(f.AppendJSON(buf[:0]), '\n')
				if _, err := w.Write(buf); err != nil {
					return flushErr(flush, err)
				}
				continue
			}
			c := color.New(color.FgRed, color.Bold)
			if f.Info() {
				c = color.New(color.Faint)
			} else if f.Kind != gaps.Gap {
				c = color.New(color.FgYellow)
			}
			fmt.Fprintln(w, strings.Join([]string{c.Sprint(pad(f.Kind, 13)), pad(strconv.Itoa(f.I), 7), pad(offset(f.T, start), 10), pad(strconv.Itoa(f.Conn), 4),
				pad(strconv.FormatInt(f.Expected, 10), 9), pad(strconv.FormatInt(f.Received, 10), 9), pad(strconv.FormatInt(f.Missing(), 10), 7), oneLine(f.RunID)}, " "))
		}
	}
	a.readSummary(path, r.Stats())
	s := tr.Summary()
	if format == "json" {
		line, _ := json.Marshal(map[string]gaps.Summary{"summary": s})
		w.Write(append(line, '\n'))
	} else {
		verdict := color.New(color.FgGreen).Sprint("no frame-level gaps")
		if s.Gaps > 0 {
			verdict = color.New(color.FgRed, color.Bold).Sprintf("%d gap(s), %d frame(s) missing", s.Gaps, s.Missing)
		}
		fmt.Fprintf(w, "%s: %d connection(s), %d seq frames, %d duplicate(s), %d backwards, %d gateway-reported gap(s), %d run seq jump(s) (info)\n",
			verdict, s.Connections, s.SeqFrames, s.Duplicates, s.Backwards, s.GatewayGaps, s.RunSeqJumps)
	}
	if err := flush(); err != nil {
		return err
	}
	if s.Gaps > 0 {
		return errFinding
	}
	return nil
}
