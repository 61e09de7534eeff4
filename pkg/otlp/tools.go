package otlp

import (
	"strings"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
)

// tool is one tool call of a run, as its frames tell it: the agent
// stream's tool events (start, result: for a client with the
// tool-events cap), its item events (start, end: for every client) and
// session.tool events, one call by its toolCallId.
type tool struct {
	id, name string
	i        int
	start    int64
	end      int64
	ended    bool
	isError  bool
	status   string
	dur      int64
	hasDur   bool
	written  bool
}

// toolFrame follows a tool or item event's data.
func (e *Exporter) toolFrame(rs *runState, rec *capture.Record, data []byte) {
	id := strMember(data, "toolCallId")
	if id == "" || rs.toolIDs[id] {
		return
	}
	tl := rs.tools[id]
	if tl == nil {
		if len(rs.tools) >= maxTools {
			rs.toolsLost++
			return
		}
		if rs.tools == nil {
			rs.tools = map[string]*tool{}
		}
		tl = &tool{id: id, i: rec.Index, start: rec.T}
		rs.tools[id] = tl
		if len(rs.toolOrder) > 2*len(rs.tools)+16 {
			live := rs.toolOrder[:0]
			for _, x := range rs.toolOrder {
				if !x.written {
					live = append(live, x)
				}
			}
			clear(rs.toolOrder[len(live):])
			rs.toolOrder = live
		}
		rs.toolOrder = append(rs.toolOrder, tl)
		rs.toolCount++
		rs.closeSeg()
	}
	if tl.name == "" {
		tl.name = strMember(data, "name")
	}
	switch strMember(data, "phase") {
	case "result", "end":
		if v, ok := jsonx.Get(data, "isError"); ok && jsonx.Truthy(v) {
			tl.isError = true
		}
		tl.status = strMember(data, "status")
		if tl.status == "failed" || tl.status == "error" {
			tl.isError = true
		}
		if d, ok := jsonx.GetPath(data, "meta", "durationMs"); ok {
			if f, ok := jsonx.Num(d); ok && f >= 0 && f < 1e15 {
				tl.dur, tl.hasDur = int64(f), true
			}
		}
		tl.end, tl.ended = rec.T, true
		e.writeTool(rs, tl, rec.T)
	}
}

// sessionTool follows a session.tool event: a tool event of a run,
// sent to the session's subscribers.
func (e *Exporter) sessionTool(rec *capture.Record, payload []byte) {
	r := e.lookup(strMember(payload, "runId"))
	if r == nil {
		return
	}
	rs := e.state(r)
	data, _ := jsonx.Get(payload, "data")
	e.toolFrame(rs, rec, data)
}

func (e *Exporter) toolSpan(rs *runState, id string) SpanID {
	return e.seed.span("tool", int64(rs.n), id)
}

// writeTool writes a tool call's span, a child of its run's, ending at
// end (the run's end when no end came).
func (e *Exporter) writeTool(rs *runState, tl *tool, end int64) {
	tl.written = true
	delete(rs.tools, tl.id)
	if rs.toolIDs == nil {
		rs.toolIDs = map[string]bool{}
	}
	if len(rs.toolIDs) < maxToolIDs {
		rs.toolIDs[tl.id] = true
	}
	e.freeze(rs)
	s := &e.sp
	s.reset()
	s.trace, s.id, s.parent, s.flags = rs.trace, e.toolSpan(rs, tl.id), rs.span, rs.flags
	s.name, s.kind, s.start, s.end = "openclaw.tool.execution", kindInternal, tl.start, end
	if e.opts.GenAINames {
		s.name = "execute_tool"
		if tl.name != "" {
			s.name += " " + tl.name
		}
	}
	s.add(str("gen_ai.operation.name", "execute_tool"))
	s.addStr("gen_ai.tool.name", tl.name)
	s.addStr("openclaw.toolName", tl.name)
	s.add(str("gen_ai.tool.call.id", tl.id), str("clawtap.run.id", rs.id), num("clawtap.record", int64(tl.i)))
	s.addStr("clawtap.tool.status", tl.status)
	if tl.hasDur {
		s.add(num("clawtap.tool.duration_ms", tl.dur))
	}
	if !tl.ended {
		s.add(flag("clawtap.tool.incomplete", true))
	}
	if tl.isError {
		s.add(flag("clawtap.tool.is_error", true), str("error.type", "_OTHER"))
		s.status = statusError
	}
	e.emit()
}

// approval is one exec or plugin approval: asked for, then resolved.
type approval struct {
	id, kind   string
	rs         *runState // its run, when known
	toolCallID string
	conn, i    int
	t          int64
	resolved   bool
	decision   string
	written    bool
}

// approvalFor returns the approval named id, made at its first record.
func (e *Exporter) approvalFor(id string, rec *capture.Record) *approval {
	if id == "" {
		return nil
	}
	if a := e.approvals[id]; a != nil {
		return a
	}
	for len(e.approvals) >= maxApprovals && len(e.apOrder) > 0 {
		old := e.apOrder[0]
		e.apOrder[0] = nil
		e.apOrder = e.apOrder[1:]
		delete(e.approvals, old.id)
		if !old.written {
			e.writeApproval(old, rec.T)
		}
	}
	a := &approval{id: id, conn: rec.Conn, i: rec.Index, t: rec.T}
	e.approvals[id] = a
	e.apOrder = append(e.apOrder, a)
	return a
}

// attachApproval gives an approval its run: its span goes under the run's
// (or its tool call's), and the run's span gets an event at the request.
func (e *Exporter) attachApproval(a *approval, rs *runState) {
	if a.rs == nil && !a.written && !rs.written {
		a.rs = rs
		rs.apCount++
		if len(rs.approvals) < maxTools { // past it, one still waiting is written when the table of approvals is full, or at the end
			rs.approvals = append(rs.approvals, a)
		}
		rs.addEvent(a.event("clawtap.approval.requested", a.t))
	}
}

// event is an approval's request or resolution as an event of its run's
// span (or of its connection's, when it has no run).
func (a *approval) event(name string, t int64) event {
	ev := event{t: t, name: name, attrs: []attr{str("clawtap.approval.id", a.id)}}
	if a.decision != "" {
		ev.attrs = append(ev.attrs, str("clawtap.approval.decision", a.decision))
	}
	return ev
}

// approvalEvent follows an approval event (exec.approval.* or another
// feature's *.approval.*).
func (e *Exporter) approvalEvent(rec *capture.Record, name string, payload []byte, runID string) {
	a := e.approvalFor(strMember(payload, "id"), rec)
	if a == nil {
		return
	}
	if a.kind == "" {
		a.kind = strMember(payload, "approvalKind")
		if a.kind == "" {
			a.kind, _, _ = strings.Cut(name, ".approval.")
		}
	}
	if a.toolCallID == "" {
		a.toolCallID = strMember(payload, "request", "toolCallId")
	}
	if r := e.lookup(runID); r != nil {
		e.attachApproval(a, e.state(r))
	}
	if strings.HasSuffix(name, ".resolved") {
		e.resolve(a, rec.T, strMember(payload, "decision"))
	}
}

// resolve ends an approval at its first resolution.
func (e *Exporter) resolve(a *approval, t int64, decision string) {
	if a.written {
		return
	}
	a.resolved, a.decision = true, decision
	if a.rs != nil && !a.rs.written {
		a.rs.addEvent(a.event("clawtap.approval.resolved", t))
	}
	e.writeApproval(a, t)
}

// writeApproval writes an approval's span: a child of the tool call it
// holds up, else of its run, else (no run known) of its connection.
func (e *Exporter) writeApproval(a *approval, end int64) {
	a.written = true
	s := &e.sp
	var trace TraceID
	var parent SpanID
	flags := uint32(flagHasIsRemote | flagSampled)
	n := 0
	if rs := a.rs; rs != nil {
		e.freeze(rs)
		trace, parent, flags, n = rs.trace, rs.span, rs.flags, rs.n
		if a.toolCallID != "" && (rs.tools[a.toolCallID] != nil || rs.toolIDs[a.toolCallID]) {
			parent = e.toolSpan(rs, a.toolCallID)
		}
	} else {
		trace, parent = e.captureTrace, e.connSpan(a.conn)
		if c := e.conns[a.conn]; c != nil && !c.written {
			c.addEvent(a.event("clawtap.approval.requested", a.t))
			if a.resolved {
				c.addEvent(a.event("clawtap.approval.resolved", end))
			}
		}
	}
	s.reset()
	s.trace, s.id, s.parent, s.flags = trace, e.seed.span("approval", int64(n), a.id), parent, flags
	s.name, s.kind, s.start, s.end = "clawtap.approval", kindInternal, a.t, end
	s.add(str("clawtap.approval.id", a.id))
	s.addStr("clawtap.approval.kind", a.kind)
	s.add(flag("clawtap.approval.resolved", a.resolved))
	s.addStr("clawtap.approval.decision", a.decision)
	s.addStr("gen_ai.tool.call.id", a.toolCallID)
	if a.rs != nil {
		s.add(str("clawtap.run.id", a.rs.id))
	}
	s.add(num("clawtap.record", int64(a.i)), num("clawtap.connection.number", int64(a.conn)))
	e.emit()
}
