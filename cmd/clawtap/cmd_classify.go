package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/fatih/color"
	"github.com/spf13/cobra"
)

// filter selects classified events by the flags every pipeline command shares.
type filter struct {
	kinds, events, agents, sessions, runs []string
}

func (f *filter) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringSliceVar(&f.kinds, "kind", nil, "only these kinds (summary-refresh, runtime-chat, runtime-agent, approval, unknown, request, response, invalid, marker)")
	fl.StringSliceVar(&f.events, "event", nil, "only these event names (or methods of requests and responses)")
	fl.StringSliceVar(&f.agents, "agent", nil, "only events of these agent ids")
	fl.StringSliceVar(&f.sessions, "session", nil, "only events of these session keys")
	fl.StringSliceVar(&f.runs, "run", nil, "only events of these run ids")
}

func (f *filter) validate() error {
	for _, k := range f.kinds {
		switch bridge.Kind(k) {
		case bridge.SummaryRefresh, bridge.RuntimeChat, bridge.RuntimeAgent, bridge.Approval, bridge.Unknown,
			bridge.Request, bridge.Response, bridge.Invalid, bridge.Marker:
		default:
			return usageError("kinds are summary-refresh, runtime-chat, runtime-agent, approval, unknown, request, response, invalid, marker", "unknown --kind %q", k)
		}
	}
	return nil
}

func (f *filter) match(ev *bridge.Event) bool {
	name := ev.Event
	if name == "" {
		name = ev.Method
	}
	return in(f.kinds, string(ev.Kind)) && in(f.events, name) && in(f.agents, ev.AgentID) &&
		in(f.sessions, ev.Session()) && in(f.runs, ev.RunID)
}

func in(set []string, v string) bool {
	if len(set) == 0 {
		return true
	}
	for _, s := range set {
		if s == v {
			return true
		}
	}
	return false
}

func (a *app) classifyCmd() *cobra.Command {
	var output string
	var f filter
	cmd := &cobra.Command{
		Use:   "classify [FILE|-]",
		Short: "Classify every record of a capture (the Bridge stage)",
		Long: `classify runs each record of a capture through the Bridge: what is this frame?
It prints one classified event per record: NDJSON when stdout is not a
terminal, an aligned coloured table when it is.

Each JSON line has the record's i (index), t, conn, dir and frame seq, and the
classified fields in the reference pipeline's names: kind, event, agentId,
sessionKey, timestamp, payload, plus runId, state, stream, phase, method, id,
ok and code where they apply. Invalid records carry reason and raw.`,
		Example: `  clawtap classify fixtures/demo.jsonl.zst
  clawtap classify --kind runtime-chat --output json cap.jsonl.zst | jq -r .state
  clawtap classify cap.jsonl.zst | jq -c 'select(.agentId=="main")' | clawtap intents -`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := a.outputFormat(output, []string{"json", "table", "text"}, "table", "json")
			if err != nil {
				return err
			}
			if err := f.validate(); err != nil {
				return err
			}
			path := inputArg(args)
			if err := a.checkStdin(path); err != nil {
				return err
			}
			return a.runClassify(path, format, &f)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "output format: json, table or text (default: table on a terminal, json otherwise)")
	f.register(cmd)
	return cmd
}

func (a *app) runClassify(path, format string, f *filter) error {
	r, err := a.openCapture(path)
	if err != nil {
		return err
	}
	defer r.Close()
	w, flush := a.out()
	cl := bridge.NewClassifier()
	var buf []byte
	var start int64
	if format == "table" {
		fmt.Fprintln(w, color.New(color.Bold).Sprint(tableHeader()))
	}
	for {
		rec, err := r.Next()
		if err != nil {
			break
		}
		ev := cl.Record(rec)
		if start == 0 && rec.T > 0 {
			start = rec.T
		}
		if !f.match(&ev) {
			continue
		}
		switch format {
		case "json":
			m := bridge.Meta{I: rec.Index, T: rec.T, Conn: rec.Conn, Dir: rec.Dir}
			if ev.Kind == bridge.Invalid {
				m.Raw = rec.Raw
				if m.Raw == nil {
					m.Raw = rec.Frame
				}
			}
			buf = ev.AppendJSON(buf[:0], m)
			buf = append(buf, '\n')
			if _, err := w.Write(buf); err != nil {
				return flushErr(flush, err)
			}
		case "table":
			fmt.Fprintln(w, tableRow(rec.Index, offset(rec.T, start), rec.Conn, rec.Dir, &ev))
		default:
			fmt.Fprintln(w, textLine(rec.Index, offset(rec.T, start), rec.Conn, rec.Dir, &ev))
		}
	}
	a.readSummary(path, r.Stats())
	return flush()
}

// flushErr reports a write failure unless it is a closed pipe.
func flushErr(flush func() error, err error) error {
	if isBrokenPipe(err) {
		return nil
	}
	if ferr := flush(); ferr != nil {
		return ferr
	}
	return fmt.Errorf("write output: %w", err)
}

func tableHeader() string {
	return strings.Join([]string{pad("#", 6), pad("TIME", 10), pad("CONN", 4), pad("DIR", 3), pad("SEQ", 6), pad("KIND", 15), pad("EVENT", 24), pad("AGENT", 10), pad("RUN", 14), "DETAIL"}, " ")
}

func tableRow(i int, at string, conn int, dir string, ev *bridge.Event) string {
	seq := ""
	if ev.HasSeq {
		seq = strconv.FormatInt(ev.Seq, 10)
	}
	name := ev.Event
	if name == "" {
		name = ev.Method
	}
	return strings.Join([]string{
		pad(strconv.Itoa(i), 6), pad(at, 10), pad(strconv.Itoa(conn), 4), pad(dir, 3), pad(seq, 6),
		kindColor(ev.Kind).Sprint(pad(string(ev.Kind), 15)),
		pad(clip(oneLine(name), 24), 24), pad(clip(oneLine(ev.AgentID), 10), 10), pad(clip(oneLine(ev.RunID), 14), 14),
		oneLine(detail(ev)),
	}, " ")
}

func textLine(i int, at string, conn int, dir string, ev *bridge.Event) string {
	var b strings.Builder
	fmt.Fprintf(&b, "#%d %s conn%d", i, at, conn)
	if dir != "" {
		b.WriteString(" " + dir)
	}
	if ev.HasSeq {
		fmt.Fprintf(&b, " seq=%d", ev.Seq)
	}
	b.WriteString(" " + kindColor(ev.Kind).Sprint(string(ev.Kind)))
	if name := ev.Event; name != "" {
		b.WriteString(" " + oneLine(name))
	}
	if ev.AgentID != "" {
		b.WriteString(" agent=" + oneLine(ev.AgentID))
	}
	if ev.RunID != "" {
		b.WriteString(" run=" + oneLine(ev.RunID))
	}
	if d := detail(ev); d != "" {
		b.WriteString(" " + oneLine(d))
	}
	return b.String()
}
