package report

import (
	"strconv"

	"github.com/clawtap/clawtap/pkg/jsonx"
)

// The embedded data is one JSON object. Its keys come in a fixed order and
// big arrays hold one element per line, so a golden file of it reads well
// in a diff. Every time is in ms relative to "t0" (the first record).
// docs/report.md describes the keys.

type jw struct {
	b []byte
	n []int // members written at each open level
	// flush, if set, takes b's bytes at an array element's start (outside
	// any string) once they reach flushAt, so that writing the data needs
	// no more memory than that.
	flush func([]byte)
	// measure: spooled values are counted in skipped, not read, and rows
	// by their length (rowLen), not written.
	measure bool
	skipped int
}

// flushAt is how much a streaming jw holds before it hands it on.
var flushAt = 64 << 10

func (w *jw) sep() {
	if len(w.n) > 0 {
		if w.n[len(w.n)-1] > 0 {
			w.b = append(w.b, ',')
		}
		w.n[len(w.n)-1]++
	}
}

func (w *jw) key(k string) *jw {
	w.sep()
	if len(w.n) == 1 && w.n[0] > 1 {
		w.b = append(w.b, '\n') // top-level members start a line
	}
	w.b = append(w.b, '"')
	w.b = append(w.b, k...)
	w.b = append(w.b, '"', ':')
	w.n = append(w.n, -1) // the key's value takes no separator
	return w
}

func (w *jw) val() {
	// after key(): the value closes the key's level
	if len(w.n) > 0 && w.n[len(w.n)-1] == -1 {
		w.n = w.n[:len(w.n)-1]
		return
	}
	w.sep()
}

func (w *jw) obj() {
	w.val()
	w.b = append(w.b, '{')
	w.n = append(w.n, 0)
}

func (w *jw) arr() {
	w.val()
	w.b = append(w.b, '[')
	w.n = append(w.n, 0)
}

func (w *jw) end(c byte) {
	w.n = w.n[:len(w.n)-1]
	w.b = append(w.b, c)
}

func (w *jw) str(s string) {
	w.val()
	w.b = jsonx.AppendString(w.b, s)
}

func (w *jw) int(n int64) {
	w.val()
	w.b = strconv.AppendInt(w.b, n, 10)
}

func (w *jw) bool(v bool) {
	w.val()
	w.b = strconv.AppendBool(w.b, v)
}

func (w *jw) raw(v []byte) {
	w.val()
	w.b = append(w.b, v...)
}

// spooled writes a value that waits in the spool.
func (w *jw) spooled(s *spool, at span) {
	w.val()
	if w.measure {
		w.skipped += int(at.n)
		return
	}
	w.b = s.appendTo(w.b, at)
}

// flushFull hands b on once it holds flushAt bytes, when streaming; the
// caller is outside any string.
func (w *jw) flushFull() {
	if w.flush != nil && len(w.b) >= flushAt {
		w.flush(w.b)
		w.b = w.b[:0]
	}
}

// item starts an array element on a line of its own.
func (w *jw) item() {
	w.flushFull()
	w.sep()
	w.b = append(w.b, '\n')
	w.n = append(w.n, -1)
}

func (w *jw) kstr(k, v string) { w.key(k).str(v) }
func (w *jw) kint(k string, v int64) {
	w.key(k).int(v)
}
func (w *jw) kbool(k string, v bool) { w.key(k).bool(v) }

// kstrs writes an array of strings, [] when there are none.
func (w *jw) kstrs(k string, v []string) {
	w.key(k).arr()
	for _, s := range v {
		w.str(s)
	}
	w.end(']')
}
func (w *jw) kostr(k, v string) {
	if v != "" {
		w.kstr(k, v)
	}
}

// AppendData appends the report's data as one JSON object (Report.Err says
// whether its details could be read back).
func AppendData(dst []byte, r *Report) []byte {
	w := &jw{b: dst}
	w.data(r)
	return w.b
}

// streamData writes the report's data to fn in pieces of about flushAt
// bytes, each ending outside any string, through buf (reused).
func streamData(buf []byte, r *Report, fn func([]byte)) {
	w := &jw{b: buf[:0], flush: fn}
	w.data(r)
	if len(w.b) > 0 {
		fn(w.b)
	}
}

// dataLen is len(AppendData(nil, r)), counted without holding the data
// or reading what waits in the spools.
func dataLen(r *Report) int {
	n := 0
	w := &jw{b: make([]byte, 0, flushAt+4096), flush: func(p []byte) { n += len(p) }, measure: true}
	w.data(r)
	return n + len(w.b) + w.skipped
}

// data writes the report's data.
func (w *jw) data(r *Report) {
	w.obj()
	w.kint("report", FormatVersion)

	m := &r.Meta
	w.key("meta").obj()
	w.kstr("name", m.Name)
	w.kostr("createdAt", m.CreatedAt)
	w.kostr("tool", m.Tool)
	w.kostr("mode", m.Mode)
	w.kostr("url", m.URL)
	w.kostr("gatewayVersion", m.GatewayVersion)
	if m.Protocol != 0 {
		w.kint("protocol", int64(m.Protocol))
	}
	w.kostr("notes", m.Notes)
	if m.HasRedaction {
		w.key("redaction").obj()
		w.kbool("credentials", m.Credentials)
		w.kbool("content", m.Content)
		w.kostr("marker", m.Marker)
		w.end('}')
	}
	w.kbool("noRedact", m.NoRedact)
	if m.RedactedOnRead {
		w.kbool("redactedOnRead", true)
	}
	w.kbool("truncated", m.Truncated)
	w.kostr("ui", m.UI)
	if len(m.UIs) > 1 {
		w.kstrs("uis", m.UIs)
	}
	w.end('}')

	s := &r.Summary
	w.key("summary").obj()
	for _, kv := range []struct {
		k string
		v int64
	}{
		{"records", int64(s.Records)}, {"frames", int64(s.Frames)}, {"framesIn", int64(s.FramesIn)}, {"framesOut", int64(s.FramesOut)},
		{"markers", int64(s.Markers)}, {"invalid", int64(s.Invalid)}, {"start", s.Start}, {"end", s.End},
		{"connections", int64(s.Connections)}, {"reconnects", int64(s.Reconnects)}, {"closes", int64(s.Closes)},
		{"lanes", int64(s.Lanes)}, {"agents", int64(s.Agents)},
		{"runs", int64(s.Runs)}, {"runsFinal", int64(s.RunsFinal)}, {"runsAborted", int64(s.RunsAborted)}, {"runsError", int64(s.RunsError)},
		{"runsLifecycleOnly", int64(s.RunsLifecycleOnly)}, {"runsUnfinished", int64(s.RunsUnfinished)},
		{"agentDeltas", int64(s.AgentDeltas)}, {"chatDeltas", int64(s.ChatDeltas)}, {"toolCalls", int64(s.ToolCalls)},
		{"approvalsRequested", int64(s.ApprovalsRequested)}, {"approvalsResolved", int64(s.ApprovalsResolved)},
		{"gaps", int64(s.Gaps)}, {"missing", s.Missing}, {"duplicates", int64(s.Duplicates)}, {"backwards", int64(s.Backwards)}, {"gatewayGaps", int64(s.GatewayGaps)},
		{"findingsError", int64(s.FindingsError)}, {"findingsWarn", int64(s.FindingsWarn)}, {"findingsInfo", int64(s.FindingsInfo)},
		{"bodies", int64(s.Bodies)}, {"bodiesElided", int64(s.BodiesElided)}, {"framesCut", int64(s.FramesCut)}, {"rowsElided", int64(s.RowsElided)}, {"timersElided", int64(s.TimersElided)},
		{"maxBytes", int64(s.MaxBytes)},
	} {
		w.kint(kv.k, kv.v)
	}
	w.end('}')

	if r.Stats != nil {
		w.key("stats").raw(r.Stats)
	} else {
		w.key("stats").raw([]byte("null"))
	}
	w.kint("t0", r.T0)
	w.key("view").arr()
	w.int(r.View[0])
	w.int(r.View[1])
	w.end(']')
	w.kint("follow", int64(r.Follow))
	w.key("types").arr()
	for _, t := range TypeNames {
		w.str(t)
	}
	w.end(']')
	w.key("labels").arr()
	for _, l := range r.Labels {
		w.str(l)
	}
	w.end(']')

	w.key("conns").arr()
	for k := range r.Conns {
		c := &r.Conns[k]
		w.item()
		w.obj()
		w.kint("id", int64(c.ID))
		w.kint("open", c.Open)
		w.kint("close", c.Close)
		w.kint("last", c.Last)
		w.kbool("hasOpen", c.HasOpen)
		w.kbool("hasClose", c.HasClose)
		if c.Code != 0 {
			w.kint("code", int64(c.Code))
		}
		w.kostr("reason", c.Reason)
		w.kostr("error", c.Err)
		w.kostr("url", c.URL)
		w.kostr("peer", c.Peer)
		w.kostr("server", c.Server)
		if c.Protocol != 0 {
			w.kint("protocol", int64(c.Protocol))
		}
		w.kostr("connId", c.ConnID)
		w.kostr("bootId", c.BootID)
		w.kbool("reconnect", c.Reconnect)
		w.kbool("newBoot", c.NewBoot)
		w.kint("firstSeq", c.FirstSeq)
		w.kint("in", int64(c.In))
		w.kint("out", int64(c.Out))
		w.kint("firstI", int64(c.firstI))
		w.kint("lastI", int64(c.lastI))
		w.kint("helloI", int64(c.hello))
		w.end('}')
	}
	w.end(']')

	w.key("lanes").arr()
	for k := range r.Lanes {
		l := &r.Lanes[k]
		w.item()
		w.obj()
		w.kstr("agentId", l.AgentID)
		w.kstr("sessionKey", l.SessionKey)
		w.kint("runs", int64(l.Runs))
		w.kint("tracks", int64(l.Tracks))
		w.end('}')
	}
	w.end(']')

	w.key("runs").arr()
	r.runs.each(func(x *Run) bool {
		w.item()
		w.obj()
		w.kstr("runId", x.ID)
		w.kint("lane", int64(x.Lane))
		w.kint("track", int64(x.Track))
		w.key("conns").arr()
		for _, c := range x.Conns {
			w.int(int64(c))
		}
		w.end(']')
		w.kint("start", x.Start)
		w.kint("end", x.End)
		w.kint("last", x.Last)
		w.kint("firstI", int64(x.FirstI))
		w.kint("lastI", int64(x.LastI))
		w.kint("termI", int64(x.TermI))
		w.kstr("terminal", x.Terminal)
		w.kint("terminals", int64(x.Terminals))
		w.kint("frames", int64(x.Frames))
		w.kint("agentDeltas", int64(x.AgentDeltas))
		w.kint("chatDeltas", int64(x.ChatDeltas))
		w.kint("tools", int64(x.Tools))
		w.kint("approvals", int64(x.Approvals))
		w.kint("late", int64(x.Late))
		if x.Reopened {
			w.kbool("reopened", true)
		}
		w.key("transcript").arr()
		for _, l := range x.transcript {
			w.obj()
			w.kstr("kind", l.Kind)
			w.kint("t", l.T)
			w.key("text").spooled(r.text, l.text.at)
			w.kostr("via", l.Via)
			w.end('}')
		}
		w.end(']')
		if x.hasOutput {
			w.key("output").arr()
			for _, l := range x.output {
				w.spooled(r.text, l.at)
			}
			w.end(']')
		}
		if x.TranscriptElided > 0 {
			w.kint("transcriptElided", int64(x.TranscriptElided))
		}
		w.end('}')
		return true
	})
	w.end(']')

	w.key("approvals").arr()
	for k := range r.Approvals {
		a := &r.Approvals[k]
		w.item()
		w.obj()
		w.kstr("id", a.ID)
		w.kint("lane", int64(a.Lane))
		w.kint("run", int64(a.Run))
		w.kint("req", a.Req)
		w.kint("reqI", int64(a.ReqI))
		w.kint("res", a.Res)
		w.kint("resI", int64(a.ResI))
		w.kostr("command", a.Command)
		w.kostr("decision", a.Decision)
		w.end('}')
	}
	w.end(']')

	w.key("gaps").arr()
	for k := range r.Gaps {
		g := &r.Gaps[k]
		w.item()
		w.obj()
		w.kstr("kind", g.Kind)
		w.kint("i", int64(g.I))
		w.kint("t", g.T)
		w.kint("conn", int64(g.Conn))
		w.kint("expected", g.Expected)
		w.kint("received", g.Received)
		w.kostr("runId", g.RunID)
		w.kint("lane", int64(g.Lane))
		w.kint("run", int64(g.Run))
		w.end('}')
	}
	w.end(']')

	w.key("findings").arr()
	r.finds.each(func(p *pinned) bool { // a failure is the spool's error, which the writer returns
		f := r.pin(p)
		w.item()
		w.obj()
		w.kstr("rule", f.Rule)
		w.kstr("severity", f.Severity.String())
		w.kint("i", int64(f.I))
		if f.T != 0 {
			w.kint("t", f.T-r.T0)
		}
		if f.Conn != 0 {
			w.kint("conn", int64(f.Conn))
		}
		w.kostr("runId", f.RunID)
		w.kostr("agentId", f.AgentID)
		w.kostr("sessionKey", f.SessionKey)
		w.key("message").raw(p.msg)
		w.kint("lane", int64(f.Lane))
		w.kint("run", int64(f.Run-1))
		if f.UIs != nil { // several UIs checked: a single UI's page has neither
			w.kstrs("uis", f.UIs)
			w.kstrs("notUis", f.NotUIs)
		}
		w.end('}')
		return true
	})
	w.end(']')

	// rows: [i, t, conn, dir, type, label, lane, run, seq]
	w.key("rows").arr()
	n := r.Rows.Len()
	if w.measure { // counted, not read: their text may still be in the making
		if n > 0 { // each on a line of its own, after a comma but the first
			w.skipped += r.Rows.textLen() + 2*n - 1
			w.n[len(w.n)-1] += n
		}
	} else if spans, ok := r.Rows.rendered(); ok {
		for _, sp := range spans {
			w.b = r.Rows.sp.appendTo(w.b, sp)
			w.flushFull()
		}
		w.n[len(w.n)-1] += n
	} else {
		for row := range r.Rows.All() {
			w.item()
			w.val()
			w.b = appendRow(w.b, &row)
		}
	}
	w.end(']')

	w.key("bodies").arr()
	for _, x := range r.Bodies {
		w.item()
		w.spooled(r.spool, x.at)
	}
	w.end(']')

	w.key("timers").arr()
	for _, x := range r.Timers {
		w.item()
		w.spooled(r.spool, x.at)
	}
	w.end(']')

	w.key("notes").arr()
	for _, n := range r.Notes {
		w.item()
		w.str(n)
	}
	w.end(']')
	w.b = append(w.b, '\n')
	w.end('}')
	w.b = append(w.b, '\n')
}

// appendRow appends [i,t,conn,dir,type,label,lane,run,seq].
func appendRow(dst []byte, x *Row) []byte {
	dst = append(dst, '[')
	dst = strconv.AppendInt(dst, int64(x.I), 10)
	dst = append(dst, ',')
	dst = strconv.AppendInt(dst, x.T, 10)
	dst = append(dst, ',')
	dst = strconv.AppendInt(dst, int64(x.Conn), 10)
	dst = append(dst, ',')
	dst = strconv.AppendInt(dst, int64(x.Dir), 10)
	dst = append(dst, ',')
	dst = strconv.AppendInt(dst, int64(x.Type), 10)
	dst = append(dst, ',')
	dst = strconv.AppendInt(dst, int64(x.Label), 10)
	dst = append(dst, ',')
	dst = strconv.AppendInt(dst, int64(x.Lane), 10)
	dst = append(dst, ',')
	dst = strconv.AppendInt(dst, int64(x.Run), 10)
	dst = append(dst, ',')
	dst = strconv.AppendInt(dst, x.Seq, 10)
	return append(dst, ']')
}
