package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/stats"
	"github.com/fatih/color"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
	"github.com/spf13/cobra"
)

func (a *app) statsCmd() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "stats [FILE|-]",
		Short: "Summarise a capture: gateway, connections, frames, runs, delta rates, approvals, gaps, errors",
		Long: `stats reads a capture once and prints the summary a maintainer reads first:
the gateway version and protocol (from the hello markers and hello-ok), the
connections and their lifetimes, frames by event, agent stream, chat state
and lifecycle phase, runs (count, outcome, duration and time-to-first-delta
percentiles, tokens when the gateway reports usage), the delta rate of the
agent assistant stream against the paced chat stream, requests by method
with latency, approvals, frame seq gaps and errors.

Output: tables on a terminal; one JSON object (documented in docs/stats.md,
keys sorted, stable) with --output json or when stdout is not a terminal.
Memory stays flat however long the capture.`,
		Example: `  clawtap stats fixtures/demo.jsonl.zst
  clawtap stats -o json cap.jsonl.zst | jq '.runs.durationMs'
  clawtap stats -o json cap.jsonl.zst | jq '.deltas'
  zstdcat cap.jsonl.zst | clawtap stats -`,
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
			return a.runStats(path, format)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "output format: json or table (default: table on a terminal, json otherwise)")
	return cmd
}

func (a *app) runStats(path, format string) error {
	r, err := a.openCapture(path)
	if err != nil {
		return err
	}
	defer r.Close()
	c := stats.New()
	w, flush := a.out()
	if err := pipeline.New(pipeline.Options{}, c).Run(pipeline.Records(r)); err != nil {
		return passErr(path, flush, err)
	}
	a.readSummary(path, r.Stats())
	s := c.Result()
	if format == "json" {
		b, err := json.Marshal(s)
		if err != nil {
			return err
		}
		w.Write(append(b, '\n'))
		return flush()
	}
	writeStatsTables(w, s, c.ExtraConnections())
	return flush()
}

func heading(w io.Writer, s string) {
	fmt.Fprintln(w, color.New(color.Bold).Sprint(s))
}

func renderTable(w io.Writer, header []string, rows [][]string) {
	t := tablewriter.NewTable(w, tablewriter.WithConfig(tablewriter.NewConfigBuilder().WithHeaderAutoFormat(tw.Off).Build()))
	t.Header(header)
	for _, r := range rows {
		t.Append(r)
	}
	t.Render()
}

func msText(v int64) string {
	if v < 1000 {
		return strconv.FormatInt(v, 10) + " ms"
	}
	return strconv.FormatFloat(float64(v)/1000, 'f', 3, 64) + " s"
}

func optMs(p *int64) string {
	if p == nil {
		return "-"
	}
	return "+" + msText(*p)
}

func bytesText(n int64) string {
	switch {
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	case n >= 1<<10:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " B"
}

// byCount sorts a count map: most first, then by name.
func byCount(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y string) int {
		if m[x] != m[y] {
			return m[y] - m[x]
		}
		return strings.Compare(x, y)
	})
	return keys
}

func joinCounts(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	var parts []string
	for _, k := range byCount(m) {
		parts = append(parts, k+" "+strconv.Itoa(m[k]))
	}
	return strings.Join(parts, ", ")
}

func writeStatsTables(w io.Writer, s *stats.Stats, extra int) {
	cp := s.Capture
	src := ""
	if cp.Tool != "" || cp.Source != "" {
		src = fmt.Sprintf(", from %s (%s)", orDash(cp.Tool), orDash(cp.Source))
	}
	trunc := ""
	if cp.Truncated {
		trunc = color.New(color.FgYellow).Sprint(", truncated")
	}
	heading(w, "Capture")
	fmt.Fprintf(w, "  %d records: %d frames (%s), %d markers, %d invalid; %s long%s%s\n",
		cp.Records, cp.Frames, bytesText(cp.Bytes), cp.Markers, cp.Invalid, msText(cp.DurationMs), src, trunc)
	var vers, protos []string
	vers = append(vers, s.Gateway.Versions...)
	for _, p := range s.Gateway.Protocols {
		protos = append(protos, strconv.Itoa(p))
	}
	fmt.Fprintf(w, "  gateway %s, protocol %s, %d boot(s)\n\n", orDash(strings.Join(vers, ", ")), orDash(strings.Join(protos, ", ")), s.Gateway.BootIDs)

	heading(w, "Connections")
	var rows [][]string
	for _, c := range s.Connections {
		closeText := "-"
		if c.CloseCode != 0 || c.CloseReason != "" {
			closeText = strings.TrimSpace(strconv.Itoa(c.CloseCode) + " " + c.CloseReason)
		}
		proto := "-"
		if c.Protocol != 0 {
			proto = strconv.Itoa(c.Protocol)
		}
		rows = append(rows, []string{strconv.Itoa(c.Conn), orDash(c.Client), orDash(c.Version), proto, optMs(c.OpenedMs), optMs(c.ClosedMs), msText(c.LifetimeMs), closeText, strconv.Itoa(c.FramesIn), strconv.Itoa(c.FramesOut)})
	}
	renderTable(w, []string{"conn", "client", "gateway", "proto", "opened", "closed", "lifetime", "close", "in", "out"}, rows)
	if extra > 0 {
		fmt.Fprintf(w, "  … and %d more connection(s), counted but not listed\n", extra)
	}
	fmt.Fprintln(w)

	heading(w, "Frames")
	fmt.Fprintf(w, "  %d in, %d out; %d requests, %d responses\n", s.Frames.In, s.Frames.Out, s.Frames.Requests, s.Frames.Responses)
	rows = rows[:0]
	add := func(kind string, m map[string]int) {
		for _, k := range byCount(m) {
			rows = append(rows, []string{kind, k, strconv.Itoa(m[k])})
		}
	}
	add("event", s.Frames.Events)
	add("agent stream", s.Frames.AgentStreams)
	add("chat state", s.Frames.ChatStates)
	add("lifecycle phase", s.Frames.Lifecycle)
	renderTable(w, []string{"kind", "name", "count"}, rows)
	fmt.Fprintln(w)

	rn := s.Runs
	heading(w, "Runs")
	fmt.Fprintf(w, "  %d run(s): %d completed, %d aborted, %d failed, %d unterminated; by agent: %s\n", rn.Count, rn.Completed, rn.Aborted, rn.Failed, rn.Unterminated, joinCounts(rn.ByAgent))
	if rn.Tokens.RunsWithUsage > 0 {
		fmt.Fprintf(w, "  tokens: %d in, %d out, %d total (%d run(s) reported usage)\n", rn.Tokens.Input, rn.Tokens.Output, rn.Tokens.Total, rn.Tokens.RunsWithUsage)
	} else {
		fmt.Fprintf(w, "  tokens: no usage reported\n")
	}
	dist := func(name string, d stats.Distribution) []string {
		if d.Count == 0 {
			return []string{name, "0", "-", "-", "-", "-", "-"}
		}
		return []string{name, strconv.Itoa(d.Count), msText(d.P50), msText(d.P90), msText(d.P99), msText(d.Max), msText(d.Mean)}
	}
	renderTable(w, []string{"measure", "runs", "p50", "p90", "p99", "max", "mean"}, [][]string{
		dist("duration", rn.DurationMs),
		dist("to first delta", rn.FirstDeltaMs),
	})
	rate := func(name string, r stats.Rate) []string {
		iv, ps := "-", "-"
		if r.MeanIntervalMs > 0 {
			iv = strconv.FormatFloat(r.MeanIntervalMs, 'f', 1, 64) + " ms"
			ps = strconv.FormatFloat(r.PerSecond, 'f', 1, 64)
		}
		return []string{name, strconv.Itoa(r.Events), strconv.Itoa(r.Runs), iv, ps}
	}
	renderTable(w, []string{"delta stream", "events", "runs", "mean interval", "per second"}, [][]string{
		rate("agent assistant", s.Deltas.Agent),
		rate("chat delta", s.Deltas.Chat),
	})
	fmt.Fprintln(w)

	heading(w, "Requests")
	rows = rows[:0]
	methods := make([]string, 0, len(s.Methods))
	for m := range s.Methods {
		methods = append(methods, m)
	}
	slices.Sort(methods)
	for _, m := range methods {
		c := s.Methods[m]
		rows = append(rows, []string{m, strconv.Itoa(c.Requests), strconv.Itoa(c.OK), strconv.Itoa(c.Failed), msText(c.P50Ms), msText(c.MaxMs)})
	}
	renderTable(w, []string{"method", "requests", "ok", "failed", "p50", "max"}, rows)
	fmt.Fprintln(w)

	heading(w, "Approvals, gaps, errors")
	ap := s.Approvals
	fmt.Fprintf(w, "  approvals: %d requested, %d resolved (%s), %d unresolved\n", ap.Requested, ap.Resolved, joinCounts(ap.ByDecision), ap.Unresolved)
	g := s.Gaps
	gapText := fmt.Sprintf("%d gap(s), %d frame(s) missing", g.Gaps, g.Missing)
	if g.Gaps > 0 {
		gapText = color.New(color.FgRed, color.Bold).Sprint(gapText)
	}
	fmt.Fprintf(w, "  frame seq: %s, %d duplicate(s), %d backwards over %d seq frames; %d gateway-reported gap(s); %d per-run seq jump(s) (normal)\n",
		gapText, g.Duplicates, g.Backwards, g.SeqFrames, g.GatewayGaps, g.RunSeqJumps)
	e := s.Errors
	fmt.Fprintf(w, "  errors: responses %s; chat errors %s; %d lifecycle error(s); %d invalid record(s)\n",
		joinCounts(e.Responses), joinCounts(e.ChatErrors), e.LifecycleError, e.Invalid)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
