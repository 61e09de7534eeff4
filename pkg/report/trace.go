package report

import (
	"io"
	"strconv"

	"github.com/clawtap/clawtap/pkg/jsonx"
)

// The trace is the Chrome Trace Event format (the JSON object form), which
// Perfetto (ui.perfetto.dev) and chrome://tracing open:
//
//   - process 1, "connections": one thread per connection, with the
//     connection's life as a complete ("X") slice and its markers, frames
//     and seq gaps as instant ("i") events;
//   - process 2, "sessions": one thread per agent/session lane (a second
//     thread per extra track when runs of one session overlap), with every
//     run as an "X" slice from its first frame to its terminal and its
//     deltas, tool calls, approvals and terminals as instant events;
//   - findings are instant events named "finding: <rule>" on the run's or
//     connection's thread (global when they concern the whole capture), with
//     the rule, severity and message in args.
//
// Timestamps are microseconds from the capture's earliest record. The
// output is deterministic: events come in a fixed order, one per line.

const (
	pidConns    = 1
	pidSessions = 2
)

type traceW struct {
	b     []byte
	n     int
	base  int64 // relative ms that maps to ts 0
	w     io.Writer
	err   error
	limit int
}

func (t *traceW) ev() {
	if t.n > 0 {
		t.b = append(t.b, ",\n"...)
	} else {
		t.b = append(t.b, '\n')
	}
	t.n++
	if len(t.b) > t.limit && t.w != nil && t.err == nil {
		_, t.err = t.w.Write(t.b)
		t.b = t.b[:0]
	}
}

func (t *traceW) ts(rel int64) int64 { return (rel - t.base) * 1000 }

func (t *traceW) str(k, v string) {
	t.b = append(t.b, ',', '"')
	t.b = append(t.b, k...)
	t.b = append(t.b, '"', ':')
	t.b = jsonx.AppendString(t.b, v)
}

func (t *traceW) strs(k string, v []string) {
	t.b = append(t.b, ',', '"')
	t.b = append(t.b, k...)
	t.b = append(t.b, '"', ':', '[')
	for i, s := range v {
		if i > 0 {
			t.b = append(t.b, ',')
		}
		t.b = jsonx.AppendString(t.b, s)
	}
	t.b = append(t.b, ']')
}

func (t *traceW) int(k string, v int64) {
	t.b = append(t.b, ',', '"')
	t.b = append(t.b, k...)
	t.b = append(t.b, '"', ':')
	t.b = strconv.AppendInt(t.b, v, 10)
}

func (t *traceW) head(name, cat, ph string, pid, tid int) {
	t.ev()
	t.b = append(t.b, `{"name":`...)
	t.b = jsonx.AppendString(t.b, name)
	if cat != "" {
		t.str("cat", cat)
	}
	t.str("ph", ph)
	t.int("pid", int64(pid))
	t.int("tid", int64(tid))
}

func (t *traceW) meta(name string, pid, tid int, key, val string, sort int) {
	t.head(name, "", "M", pid, tid)
	t.b = append(t.b, `,"args":{`...)
	t.b = append(t.b, '"')
	t.b = append(t.b, key...)
	t.b = append(t.b, '"', ':')
	if key == "sort_index" {
		t.b = strconv.AppendInt(t.b, int64(sort), 10)
	} else {
		t.b = jsonx.AppendString(t.b, val)
	}
	t.b = append(t.b, "}}"...)
}

// laneTid numbers the session threads: one per lane track, from 1.
func laneTids(r *Report) [][]int {
	tids := make([][]int, len(r.Lanes))
	n := 1
	for l := range r.Lanes {
		for k := 0; k < max(r.Lanes[l].Tracks, 1); k++ {
			tids[l] = append(tids[l], n)
			n++
		}
	}
	return tids
}

// WriteTrace writes the report as a Chrome Trace Event JSON object.
func WriteTrace(w io.Writer, r *Report) error {
	t := &traceW{w: w, limit: 1 << 20, base: r.Summary.Start}
	t.b = append(t.b, `{"displayTimeUnit":"ms","otherData":{"tool":"clawtap report"`...)
	t.str("capture", r.Meta.Name)
	if r.Meta.GatewayVersion != "" {
		t.str("gatewayVersion", r.Meta.GatewayVersion)
	}
	if r.Meta.Protocol != 0 {
		t.int("protocol", int64(r.Meta.Protocol))
	}
	t.int("t0", r.T0+r.Summary.Start)
	if len(r.Meta.UIs) > 1 {
		t.strs("uis", r.Meta.UIs) // the findings' UIs; the replay is the first's
	}
	if r.Meta.NoRedact {
		t.str("warning", "recorded with --no-redact: credentials may be present")
	}
	t.b = append(t.b, `},"traceEvents":[`...)

	tids := laneTids(r)
	connTid := func(id int) int { return id }

	// Metadata: names and order of the tracks.
	t.meta("process_name", pidConns, 0, "name", "connections", 0)
	t.meta("process_sort_index", pidConns, 0, "sort_index", "", 1)
	t.meta("process_name", pidSessions, 0, "name", "sessions", 0)
	t.meta("process_sort_index", pidSessions, 0, "sort_index", "", 2)
	for k, c := range r.Conns {
		name := "conn " + strconv.Itoa(c.ID)
		if c.Reconnect {
			name += " (reconnect)"
		}
		if c.Server != "" {
			name += " " + c.Server
		}
		t.meta("thread_name", pidConns, connTid(c.ID), "name", name, 0)
		t.meta("thread_sort_index", pidConns, connTid(c.ID), "sort_index", "", k)
	}
	for l, ln := range r.Lanes {
		name := ln.AgentID
		if name == "" {
			name = "(no agent)"
		}
		if ln.SessionKey != "" {
			name += " · " + ln.SessionKey
		}
		for k, tid := range tids[l] {
			n := name
			if k > 0 {
				n += " (overlapping runs " + strconv.Itoa(k+1) + ")"
			}
			t.meta("thread_name", pidSessions, tid, "name", n, 0)
			t.meta("thread_sort_index", pidSessions, tid, "sort_index", "", tid)
		}
	}

	// Connections as slices.
	for _, c := range r.Conns {
		t.head("connection "+strconv.Itoa(c.ID), "connection", "X", pidConns, connTid(c.ID))
		t.int("ts", t.ts(c.Open))
		t.int("dur", max(c.Close-c.Open, 0)*1000)
		t.b = append(t.b, `,"args":{"open":`...)
		t.b = strconv.AppendBool(t.b, c.HasOpen)
		t.str("closed", closedText(&c))
		if c.URL != "" {
			t.str("url", c.URL)
		}
		if c.Server != "" {
			t.str("server", c.Server)
		}
		if c.BootID != "" {
			t.str("bootId", c.BootID)
		}
		t.int("firstSeq", c.FirstSeq)
		t.int("framesIn", int64(c.In))
		t.int("framesOut", int64(c.Out))
		t.b = append(t.b, "}}"...)
	}

	// Runs as slices.
	r.runs.each(func(x *Run) bool {
		term := x.Terminal
		if term == "" {
			term = "never finished"
		}
		t.head("run "+short(x.ID)+" "+term, "run", "X", pidSessions, tids[x.Lane][x.Track])
		t.int("ts", t.ts(x.Start))
		t.int("dur", max(x.End-x.Start, 0)*1000)
		t.b = append(t.b, `,"args":{"runId":`...)
		t.b = jsonx.AppendString(t.b, x.ID)
		t.str("terminal", term)
		t.int("frames", int64(x.Frames))
		t.int("agentDeltas", int64(x.AgentDeltas))
		t.int("chatDeltas", int64(x.ChatDeltas))
		t.int("toolCalls", int64(x.Tools))
		t.int("approvals", int64(x.Approvals))
		if x.Late > 0 {
			t.int("framesAfterTerminal", int64(x.Late))
		}
		t.int("firstRecord", int64(x.FirstI))
		t.int("lastRecord", int64(x.LastI))
		if x.Reopened {
			t.b = append(t.b, `,"reopened":true`...)
		}
		t.b = append(t.b, "}}"...)
		return t.err == nil
	})
	if t.err != nil {
		return t.err
	}

	// Records as instant events.
	for row := range r.Rows.All() {
		pid, tid := pidConns, connTid(int(row.Conn))
		if row.Run >= 0 {
			lane, track := r.runs.place(int(row.Run))
			pid, tid = pidSessions, tids[lane][track]
		} else if row.Lane >= 0 {
			pid, tid = pidSessions, tids[row.Lane][0]
		}
		t.head(r.Labels[row.Label], TypeNames[row.Type], "i", pid, tid)
		t.b = append(t.b, `,"s":"t"`...)
		t.int("ts", t.ts(row.T))
		t.b = append(t.b, `,"args":{"record":`...)
		t.b = strconv.AppendInt(t.b, int64(row.I), 10)
		t.int("conn", int64(row.Conn))
		if row.Seq >= 0 {
			t.int("seq", row.Seq)
		}
		t.b = append(t.b, "}}"...)
		if t.err != nil {
			return t.err
		}
	}

	// Gaps.
	for _, g := range r.Gaps {
		pid, tid := pidConns, connTid(g.Conn)
		if g.Run >= 0 {
			lane, track := r.runs.place(g.Run)
			pid, tid = pidSessions, tids[lane][track]
		}
		t.head("seq "+g.Kind, "gap", "i", pid, tid)
		t.b = append(t.b, `,"s":"t"`...)
		t.int("ts", t.ts(g.T))
		t.b = append(t.b, `,"args":{"record":`...)
		t.b = strconv.AppendInt(t.b, int64(g.I), 10)
		t.int("expected", g.Expected)
		t.int("received", g.Received)
		if g.RunID != "" {
			t.str("runId", g.RunID)
		}
		t.b = append(t.b, "}}"...)
	}

	// Findings.
	r.finds.each(func(p *pinned) bool { // a failure is the spool's error, which the writer returns
		f := r.pin(p)
		pid, tid, scope := pidConns, 0, "g"
		switch {
		case f.Run > 0:
			lane, track := r.runs.place(f.Run - 1)
			pid, tid, scope = pidSessions, tids[lane][track], "t"
		case f.Lane >= 0:
			pid, tid, scope = pidSessions, tids[f.Lane][0], "t"
		case f.Conn != 0:
			tid, scope = connTid(f.Conn), "t"
		}
		ts := r.Summary.End
		if f.T != 0 {
			ts = f.T - r.T0
		}
		t.head("finding: "+f.Rule, "finding,"+f.Severity.String(), "i", pid, tid)
		t.str("s", scope)
		t.int("ts", t.ts(ts))
		t.b = append(t.b, `,"args":{"rule":`...)
		t.b = jsonx.AppendString(t.b, f.Rule)
		t.str("severity", f.Severity.String())
		t.b = append(t.b, `,"message":`...)
		t.b = append(t.b, p.msg...)
		t.int("record", int64(f.I))
		if f.RunID != "" {
			t.str("runId", f.RunID)
		}
		if f.UIs != nil {
			t.strs("uis", f.UIs)
			t.strs("notUis", f.NotUIs)
		}
		t.b = append(t.b, "}}"...)
		return true
	})
	t.b = append(t.b, "\n]}\n"...)
	if t.err != nil {
		return t.err
	}
	if _, err := w.Write(t.b); err != nil {
		return err
	}
	return r.Err() // a message that could not be read back
}

func closedText(c *Conn) string {
	switch {
	case !c.HasClose:
		return "open at the capture's end"
	case c.Err != "":
		return "error: " + c.Err
	case c.Code != 0:
		s := "code " + strconv.Itoa(c.Code)
		if c.Reason != "" {
			s += " " + c.Reason
		}
		return s
	}
	return "closed"
}

func short(id string) string {
	if len(id) > 12 {
		return cut(id, 8)
	}
	return id
}
