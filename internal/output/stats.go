package output

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/clawtap/clawtap/pkg/human"
	"github.com/clawtap/clawtap/pkg/stats"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/pkg/twwidth"
	"github.com/olekukonko/tablewriter/tw"
)

// tablewriter sizes a cache for 8,192 cell widths (1.6 MB of every
// command's heap) as soon as it is linked in; clawtap's tables have a few
// dozen cells.
func init() { twwidth.SetCacheCapacity(256) }

// Stats prints a capture's summary: json is one object (docs/stats.md);
// table is sections of tables; text the same sections as lines, for a
// narrow terminal or a bug report. extra is the number of connections
// counted but not listed.
func Stats(w io.Writer, format Format, style Style, s *stats.Stats, extra int) error {
	if format == JSON {
		b, err := json.Marshal(s)
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	}
	sp := &statsPrinter{w: w, style: style, table: format == Table}
	sp.write(s, extra)
	return sp.err
}

type statsPrinter struct {
	w     io.Writer
	style Style
	table bool
	err   error
}

func (p *statsPrinter) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

func (p *statsPrinter) heading(s string) { p.printf("%s\n", p.style.Paint(s, Bold...)) }

// rows prints a table, or in text one line per row: "  first: header value, …".
// Its cells are values, made printable (human.Printable) here.
func (p *statsPrinter) rows(header []string, rows [][]string) {
	if p.err != nil {
		return
	}
	for _, r := range rows {
		for k := range r {
			r[k] = human.Printable(r[k])
		}
	}
	if p.table {
		t := tablewriter.NewTable(p.w, tablewriter.WithConfig(tablewriter.NewConfigBuilder().WithHeaderAutoFormat(tw.Off).Build()))
		t.Header(header)
		for _, r := range rows {
			t.Append(r)
		}
		p.err = t.Render()
		return
	}
	for _, r := range rows {
		var parts []string
		for k := 1; k < len(r) && k < len(header); k++ {
			parts = append(parts, header[k]+" "+r[k])
		}
		p.printf("  %s %s: %s\n", header[0], r[0], strings.Join(parts, ", "))
	}
}

// durMs is a stats duration: ms, or seconds to the ms.
func durMs(v int64) string { return human.Duration(v, 3) }

func optMs(p *int64) string {
	if p == nil {
		return "-"
	}
	return "+" + durMs(*p)
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
		parts = append(parts, human.Printable(k)+" "+strconv.Itoa(m[k]))
	}
	return strings.Join(parts, ", ")
}

func (p *statsPrinter) write(s *stats.Stats, extra int) {
	cp := s.Capture
	src := ""
	switch {
	case cp.Tool != "" && cp.Source != "":
		src = fmt.Sprintf(", from %s (%s)", human.Printable(cp.Tool), human.Printable(cp.Source))
	case cp.Tool != "":
		src = ", from " + human.Printable(cp.Tool)
	case cp.Source != "":
		src = ", source " + human.Printable(cp.Source) // the header names no tool: say no more than it does
	}
	trunc := ""
	if cp.Truncated {
		trunc = p.style.Paint(", truncated", Warning...)
	}
	p.heading("Capture")
	p.printf("  %d records: %d frames (%s), %d markers, %d invalid; %s long%s%s\n",
		cp.Records, cp.Frames, human.Bytes(cp.Bytes), cp.Markers, cp.Invalid, durMs(cp.DurationMs), src, trunc)
	var vers, protos []string
	vers = append(vers, s.Gateway.Versions...)
	for _, p := range s.Gateway.Protocols {
		protos = append(protos, strconv.Itoa(p))
	}
	p.printf("  gateway %s, protocol %s, %d boot(s)\n\n", orDash(strings.Join(vers, ", ")), orDash(strings.Join(protos, ", ")), s.Gateway.BootIDs)

	p.heading("Connections")
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
		rows = append(rows, []string{strconv.Itoa(c.Conn), orDash(c.Client), orDash(c.Version), proto, optMs(c.OpenedMs), optMs(c.ClosedMs), durMs(c.LifetimeMs), closeText, strconv.Itoa(c.FramesIn), strconv.Itoa(c.FramesOut)})
	}
	p.rows([]string{"conn", "client", "gateway", "proto", "opened", "closed", "lifetime", "close", "in", "out"}, rows)
	if extra > 0 {
		p.printf("  … and %d more connection(s), counted but not listed\n", extra)
	}
	p.printf("\n")

	p.heading("Frames")
	p.printf("  %d in, %d out; %d requests, %d responses\n", s.Frames.In, s.Frames.Out, s.Frames.Requests, s.Frames.Responses)
	rows = rows[:0]
	add := func(kind string, m map[string]int) {
		for _, k := range byCount(m) {
			rows = append(rows, []string{kind, k, strconv.Itoa(m[k])})
		}
	}
	if p.table {
		add("event", s.Frames.Events)
		add("agent stream", s.Frames.AgentStreams)
		add("chat state", s.Frames.ChatStates)
		add("lifecycle phase", s.Frames.Lifecycle)
		p.rows([]string{"kind", "name", "count"}, rows)
	} else {
		p.printf("  events: %s\n  agent streams: %s\n  chat states: %s\n  lifecycle phases: %s\n",
			joinCounts(s.Frames.Events), joinCounts(s.Frames.AgentStreams), joinCounts(s.Frames.ChatStates), joinCounts(s.Frames.Lifecycle))
	}
	p.printf("\n")

	rn := s.Runs
	p.heading("Runs")
	p.printf("  %d run(s): %d completed, %d aborted, %d failed, %d unterminated; by agent: %s\n", rn.Count, rn.Completed, rn.Aborted, rn.Failed, rn.Unterminated, joinCounts(rn.ByAgent))
	if rn.Tokens.RunsWithUsage > 0 {
		p.printf("  tokens: %d in, %d out, %d total (%d run(s) reported usage)\n", rn.Tokens.Input, rn.Tokens.Output, rn.Tokens.Total, rn.Tokens.RunsWithUsage)
	} else {
		p.printf("  tokens: no usage reported\n")
	}
	dist := func(name string, d stats.Distribution) []string {
		if d.Count == 0 {
			return []string{name, "0", "-", "-", "-", "-", "-"}
		}
		return []string{name, strconv.Itoa(d.Count), durMs(d.P50), durMs(d.P90), durMs(d.P99), durMs(d.Max), durMs(d.Mean)}
	}
	p.rows([]string{"measure", "runs", "p50", "p90", "p99", "max", "mean"}, [][]string{
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
	p.rows([]string{"delta stream", "events", "runs", "mean interval", "per second"}, [][]string{
		rate("agent assistant", s.Deltas.Agent),
		rate("chat delta", s.Deltas.Chat),
	})
	p.printf("\n")

	p.heading("Requests")
	rows = rows[:0]
	methods := make([]string, 0, len(s.Methods))
	for m := range s.Methods {
		methods = append(methods, m)
	}
	slices.Sort(methods)
	for _, m := range methods {
		c := s.Methods[m]
		rows = append(rows, []string{m, strconv.Itoa(c.Requests), strconv.Itoa(c.OK), strconv.Itoa(c.Failed), durMs(c.P50Ms), durMs(c.MaxMs)})
	}
	p.rows([]string{"method", "requests", "ok", "failed", "p50", "max"}, rows)
	p.printf("\n")

	p.heading("Approvals, gaps, errors")
	ap := s.Approvals
	p.printf("  approvals: %d requested, %d resolved (%s), %d unresolved\n", ap.Requested, ap.Resolved, joinCounts(ap.ByDecision), ap.Unresolved)
	g := s.Gaps
	gapText := fmt.Sprintf("%d gap(s), %d frame(s) missing", g.Gaps, g.Missing)
	if g.Gaps > 0 {
		gapText = p.style.Paint(gapText, Bad...)
	}
	p.printf("  frame seq: %s, %d duplicate(s), %d backwards over %d seq frames; %d gateway-reported gap(s); %d per-run seq jump(s) (normal)\n",
		gapText, g.Duplicates, g.Backwards, g.SeqFrames, g.GatewayGaps, g.RunSeqJumps)
	e := s.Errors
	p.printf("  errors: responses %s; chat errors %s; %d lifecycle error(s); %d invalid record(s)\n",
		joinCounts(e.Responses), joinCounts(e.ChatErrors), e.LifecycleError, e.Invalid)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return human.Printable(s)
}
