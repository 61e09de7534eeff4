package otlp

import (
	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/outcome"
	"github.com/clawtap/clawtap/pkg/runs"
)

// runState is what the export keeps of a run while the table holds it
// (a field of the run), and until its span is written.
type runState struct {
	init   bool
	n      int
	id     string
	agent  string
	conv   string // session key
	conn   int    // the connection it was born on
	home   int    // the connection its stream is read on (runFrame)
	firstI int
	start  int64 // its first chat or agent event (its first frame until one comes)
	hasEv  bool
	lastT  int64
	frames int

	chatTerm  string // the first chat terminal: final, aborted or error
	chatTermT int64
	lifeTerm  string // the last lifecycle terminal: end or error
	lifeT     int64
	aborted   bool
	errKind   string
	errMsg    string
	stop      string
	provider  string
	model     string
	respModel string
	usage     usage

	chatDeltas, agentDeltas, afterTerm int
	firstDelta                         int64
	seg                                segment

	events  []event
	dropped int

	tools     map[string]*tool
	toolOrder []*tool
	toolIDs   map[string]bool // tool calls written
	toolCount int
	toolsLost int         // tool calls past maxTools, left out
	approvals []*approval // its approvals (up to maxTools), written at its end if still open
	apCount   int

	// The run's place in the traces, fixed at its first span written.
	frozen bool
	trace  TraceID
	span   SpanID
	parent SpanID
	flags  uint32
	req    *request // the request that started it
	reqT   int64

	ui      *uiOutcome
	written bool
}

// segment is a stretch of streamed deltas, between two other things
// the run did (a tool call, a lifecycle phase, its terminal).
type segment struct {
	start, last int64
	chat, agent int
}

type usage struct {
	in, out, cacheRead, cacheWrite   int64
	hasIn, hasOut, hasRead, hasWrite bool
	final                            bool // from the chat final, which has the last word
}

type uiOutcome struct {
	ui        string
	hasReply  bool
	committed bool
	dropped   string
	ghost     bool
}

// doneRun is a run the table let go, waiting to be written.
type doneRun struct {
	r  *runs.Run
	rs *runState
	at int // the record count when it was let go
}

func (rs *runState) addEvent(ev event) {
	if len(rs.events) >= maxEvents {
		rs.dropped++
		return
	}
	rs.events = append(rs.events, ev)
}

func (e *Exporter) lookup(id string) *runs.Run {
	if e.table == nil || id == "" {
		return nil
	}
	return e.table.Lookup(id)
}

// state is what the export keeps of r, made at its first use.
func (e *Exporter) state(r *runs.Run) *runState {
	rs := e.field.Of(r)
	if !rs.init {
		*rs = runState{init: true, n: r.N, id: r.ID, conn: r.Conn, firstI: r.FirstI, start: r.FirstT, lastT: r.FirstT}
		e.born(r, rs)
	}
	return rs
}

// freeze fixes the run's place in the traces: under the request that
// started it (in its caller's trace when the request carried one the
// gateway took, else at the root of the run's own trace), or at the root
// of its own trace.
func (e *Exporter) freeze(rs *runState) {
	if rs.frozen {
		return
	}
	rs.frozen = true
	rs.span = e.seed.span("run", int64(rs.n), rs.id)
	rs.trace, rs.flags = e.seed.trace("run", int64(rs.n), rs.id), flagHasIsRemote|flagSampled
	if q := rs.req; q != nil {
		rs.parent = q.span
		if q.joined {
			rs.trace, rs.flags = q.tp.Trace, flagHasIsRemote|uint32(q.tp.Flags)
		}
	}
}

// runFrame follows a chat or agent event of run r. Its stream — deltas,
// lifecycle, terminal, usage — is read on one connection, the run's home:
// the first that saw an event of it, until that connection closes and
// another goes on (a client that reconnected); other clients' copies of
// it (observers of the session) are counted as frames. Tool calls and
// approvals are read on every connection, one each by its id.
func (e *Exporter) runFrame(r *runs.Run, rec *capture.Record, ev *bridge.Event) {
	rs := e.state(r)
	t := rec.T
	rs.frames++
	rs.lastT = max(rs.lastT, t)
	if rs.agent == "" {
		rs.agent = r.Agent
	}
	if rs.conv == "" {
		rs.conv = r.Session
	}
	data, _ := ev.Member("data")
	if !e.home(rs, rec) {
		if ev.Kind == bridge.RuntimeAgent {
			switch ev.Stream {
			case "tool", "item":
				e.toolFrame(rs, rec, data)
			case "lifecycle":
				e.approvalPhase(rs, rec, ev.Phase, data)
			}
		}
		return
	}
	if !rs.hasEv {
		rs.hasEv, rs.start = true, t
	}
	if rs.chatTerm != "" {
		rs.afterTerm++
	}
	if ev.Kind == bridge.RuntimeChat {
		e.chat(rs, t, ev)
		return
	}
	switch ev.Stream {
	case "assistant":
		rs.agentDeltas++
		rs.delta(t, false)
	case "lifecycle":
		e.lifecycle(rs, rec, ev.Phase, data)
	case "tool", "item":
		e.toolFrame(rs, rec, data)
	case "usage":
		if !rs.usage.final {
			rs.usage.read(data, false)
		}
	}
}

// home reports whether rec comes on the run's home connection, moving
// the home to rec's connection when the old one has closed.
func (e *Exporter) home(rs *runState, rec *capture.Record) bool {
	switch {
	case rs.home == 0 || rs.home == rec.Conn:
		rs.home = rec.Conn
		return true
	}
	if c := e.conns[rs.home]; c == nil || c.closed && c.closeT <= rec.T {
		rs.home = rec.Conn
		return true
	}
	return false
}

func (e *Exporter) chat(rs *runState, t int64, ev *bridge.Event) {
	switch ev.State {
	case "delta":
		rs.chatDeltas++
		rs.delta(t, true)
	case "final", "aborted", "error":
		if rs.chatTerm != "" {
			return
		}
		rs.closeSeg()
		rs.chatTerm, rs.chatTermT = ev.State, t
		if v, ok := ev.Member("stopReason"); ok {
			if s, _ := jsonx.Str(v); s != "" {
				rs.stop = s
			}
		}
		if ev.State == "error" && rs.errMsg == "" {
			rs.errKind = strMember(ev.Payload, "errorKind")
			if v, ok := ev.Member("errorMessage"); ok {
				rs.errMsg, _ = jsonx.Str(v)
			}
		}
		if msg, ok := ev.Member("message"); ok && jsonx.KindOf(msg) == jsonx.Object {
			if m := strMember(msg, "model"); m != "" {
				rs.respModel = m
			}
			if p := strMember(msg, "provider"); p != "" && rs.provider == "" {
				rs.provider = p
			}
			if s := strMember(msg, "stopReason"); s != "" && rs.stop == "" {
				rs.stop = s
			}
			if u, ok := jsonx.Get(msg, "usage"); ok {
				rs.usage.read(u, true)
			}
		}
		if u, ok := ev.Member("usage"); ok {
			rs.usage.read(u, true)
		}
	}
}

func (e *Exporter) lifecycle(rs *runState, rec *capture.Record, phase string, data []byte) {
	rs.closeSeg()
	if phase != "" {
		rs.addEvent(event{t: rec.T, name: "clawtap.lifecycle", attrs: []attr{str("clawtap.lifecycle.phase", phase), num("clawtap.record", int64(rec.Index))}})
	}
	switch phase {
	case "model":
		if p := strMember(data, "provider"); p != "" && rs.provider == "" {
			rs.provider = p
		}
		if m := strMember(data, "model"); m != "" && rs.model == "" {
			rs.model = m
		}
	case "end", "error":
		rs.lifeTerm, rs.lifeT = phase, rec.T
		if v, ok := jsonx.Get(data, "aborted"); ok && jsonx.Truthy(v) {
			rs.aborted = true
		}
		if s := strMember(data, "stopReason"); s != "" && rs.stop == "" {
			rs.stop = s
		}
		if phase == "error" && rs.errMsg == "" {
			rs.errMsg, rs.errKind = strMember(data, "error"), strMember(data, "errorKind")
		}
	default:
		e.approvalPhase(rs, rec, phase, data)
	}
}

// approvalPhase follows the lifecycle phases that tell a client without
// the approvals cap of an approval: waiting-approval, approval-resolved.
func (e *Exporter) approvalPhase(rs *runState, rec *capture.Record, phase string, data []byte) {
	switch phase {
	case "waiting-approval":
		if a := e.approvalFor(strMember(data, "approvalId"), rec); a != nil {
			e.attachApproval(a, rs)
			if a.toolCallID == "" {
				a.toolCallID = strMember(data, "toolCallId")
			}
		}
	case "approval-resolved":
		if a := e.approvalFor(strMember(data, "approvalId"), rec); a != nil {
			e.attachApproval(a, rs)
			e.resolve(a, rec.T, strMember(data, "decision"))
		}
	}
}

func (rs *runState) delta(t int64, chat bool) {
	if rs.firstDelta == 0 {
		rs.firstDelta = max(t, 1)
	}
	if rs.seg.chat+rs.seg.agent == 0 {
		rs.seg.start = t
	}
	rs.seg.last = t
	if chat {
		rs.seg.chat++
	} else {
		rs.seg.agent++
	}
}

// closeSeg ends a stretch of deltas: one event, with their counts.
func (rs *runState) closeSeg() {
	g := rs.seg
	if g.chat+g.agent == 0 {
		return
	}
	rs.addEvent(event{t: g.start, name: "clawtap.deltas", attrs: []attr{
		num("clawtap.deltas.chat", int64(g.chat)), num("clawtap.deltas.agent", int64(g.agent)),
		num("clawtap.deltas.duration_ms", max(g.last-g.start, 0)),
	}})
	rs.seg = segment{}
}

// usageKeys are the names a usage object's counts go by, in the order
// tried: input's, output's, cache reads', cache writes'.
var usageKeys = []string{
	"input", "inputTokens", "input_tokens", "promptTokens",
	"output", "outputTokens", "output_tokens", "completionTokens",
	"cacheRead", "cacheReadTokens", "cache_read_input_tokens", "cacheReadInputTokens",
	"cacheWrite", "cacheWriteTokens", "cache_creation_input_tokens", "cacheCreationInputTokens",
}

func firstCount(vals [][]byte) (int64, bool) {
	for _, v := range vals {
		if f, ok := jsonx.Num(v); ok && f >= 0 && f < 1e15 {
			return int64(f), true
		}
	}
	return 0, false
}

// read takes a usage object; a chat final's (final) replaces what a
// usage stream said.
func (u *usage) read(obj []byte, final bool) {
	if jsonx.KindOf(obj) != jsonx.Object {
		return
	}
	var v [16][]byte
	jsonx.Members(obj, usageKeys, v[:])
	var n usage
	n.in, n.hasIn = firstCount(v[0:4])
	n.out, n.hasOut = firstCount(v[4:8])
	n.cacheRead, n.hasRead = firstCount(v[8:12])
	n.cacheWrite, n.hasWrite = firstCount(v[12:16])
	if !n.hasIn && !n.hasOut && !n.hasRead && !n.hasWrite {
		return
	}
	n.final = final
	*u = n
}

func uiOf(o *outcome.Run) *uiOutcome {
	return &uiOutcome{ui: o.UI.String(), hasReply: o.HasReply, committed: o.Committed, dropped: o.Dropped, ghost: o.Ghost}
}

// writeDone writes the runs let go before the record count at (all of
// them when at is negative).
func (e *Exporter) writeDone(at int) {
	k := 0
	for ; k < len(e.done); k++ {
		d := e.done[k]
		if at >= 0 && d.at >= at {
			break
		}
		e.writeRun(d)
	}
	if k > 0 {
		n := copy(e.done, e.done[k:])
		clear(e.done[n:])
		e.done = e.done[:n]
	}
}

// outcome is how the run ended, in OpenClaw's words (openclaw.outcome),
// and what ended it.
func (rs *runState) outcome() (outcome, terminal string) {
	switch rs.chatTerm {
	case "final":
		return "completed", "final"
	case "aborted":
		return "aborted", "aborted"
	case "error":
		return "error", "error"
	}
	switch {
	case rs.lifeTerm != "" && rs.aborted:
		return "aborted", "lifecycle." + rs.lifeTerm
	case rs.lifeTerm == "end":
		return "completed", "lifecycle.end"
	case rs.lifeTerm == "error":
		return "error", "lifecycle.error"
	}
	return "", "none"
}

// end is when the run ended: its first chat terminal, else its last
// lifecycle end or error, else its last frame.
func (rs *runState) end() int64 {
	switch {
	case rs.chatTerm != "":
		return rs.chatTermT
	case rs.lifeTerm != "":
		return rs.lifeT
	}
	return rs.lastT
}

// writeRun writes a run's span, and before it what of it is still open:
// tool calls never ended, approvals never resolved (ended with the run).
func (e *Exporter) writeRun(d *doneRun) {
	rs := d.rs
	if e.doneByID[rs.id] == d {
		delete(e.doneByID, rs.id)
	}
	if rs.written {
		return
	}
	rs.closeSeg()
	e.freeze(rs)
	end := max(rs.end(), rs.start)
	for _, tl := range rs.toolOrder {
		if !tl.written {
			e.writeTool(rs, tl, end)
		}
	}
	for _, a := range rs.approvals {
		if !a.written {
			e.writeApproval(a, end)
		}
	}
	rs.written = true
	e.runsWritten++
	s := &e.sp
	s.reset()
	s.trace, s.id, s.parent, s.flags = rs.trace, rs.span, rs.parent, rs.flags
	s.kind, s.start, s.end = kindClient, rs.start, end
	agent := d.r.Agent
	if rs.agent != "" {
		agent = rs.agent
	}
	s.name = "openclaw.run"
	if e.opts.GenAINames {
		s.name = "invoke_agent"
		if agent != "" {
			s.name += " " + agent
		}
	}
	s.add(str("gen_ai.operation.name", "invoke_agent"))
	s.addStr("gen_ai.provider.name", rs.provider)
	s.addStr("openclaw.provider", rs.provider)
	s.addStr("gen_ai.request.model", rs.model)
	s.addStr("openclaw.model", rs.model)
	s.addStr("gen_ai.response.model", rs.respModel)
	s.addStr("gen_ai.agent.id", agent)
	s.addStr("gen_ai.agent.name", agent)
	conv := d.r.Session
	if conv == "" {
		conv = rs.conv
	}
	s.addStr("gen_ai.conversation.id", conv)
	if rs.stop != "" {
		s.add(strs("gen_ai.response.finish_reasons", []string{rs.stop}))
	}
	if u := rs.usage; u.hasIn || u.hasRead || u.hasWrite {
		// The conventions count cached input in the input; OpenClaw's
		// usage.input leaves it out.
		s.add(num("gen_ai.usage.input_tokens", u.in+u.cacheRead+u.cacheWrite))
	}
	if rs.usage.hasOut {
		s.add(num("gen_ai.usage.output_tokens", rs.usage.out))
	}
	if rs.usage.hasRead {
		s.add(num("gen_ai.usage.cache_read.input_tokens", rs.usage.cacheRead))
	}
	if rs.usage.hasWrite {
		s.add(num("gen_ai.usage.cache_creation.input_tokens", rs.usage.cacheWrite))
	}
	e.serverAttrs(rs.connection())
	oc, term := rs.outcome()
	s.addStr("openclaw.outcome", oc)
	if oc == "error" {
		kind := rs.errKind
		s.addStr("openclaw.errorCategory", kind)
		if kind == "" {
			kind = "_OTHER"
		}
		s.add(str("error.type", kind))
		s.status, s.message = statusError, rs.errMsg
	}
	s.add(str("clawtap.run.id", rs.id), num("clawtap.run.number", int64(rs.n)), str("clawtap.run.terminal", term),
		num("clawtap.record", int64(rs.firstI)), num("clawtap.run.frames", int64(rs.frames)),
		num("clawtap.run.deltas.chat", int64(rs.chatDeltas)), num("clawtap.run.deltas.agent", int64(rs.agentDeltas)),
		num("clawtap.run.tool_calls", int64(rs.toolCount)), num("clawtap.run.approvals", int64(rs.apCount)))
	if rs.toolsLost > 0 {
		s.add(num("clawtap.run.tool_calls_left_out", int64(rs.toolsLost)))
	}
	if rs.afterTerm > 0 {
		s.add(num("clawtap.run.frames_after_terminal", int64(rs.afterTerm)))
	}
	if rs.firstDelta > 0 {
		from := rs.start
		if rs.reqT > 0 {
			from = rs.reqT
		}
		s.add(num("clawtap.run.time_to_first_delta_ms", max(rs.firstDelta-from, 0)))
	}
	if d.r.Reopened {
		s.add(flag("clawtap.run.reopened", true))
	}
	if u := rs.ui; u != nil {
		s.add(str("clawtap.ui", u.ui))
		if u.hasReply {
			s.add(flag("clawtap.ui.reply_committed", u.committed))
		}
		s.addStr("clawtap.ui.dropped", u.dropped)
		if u.ghost {
			s.add(flag("clawtap.ui.ghost", true))
		}
	}
	if rs.req == nil {
		s.links = append(s.links, e.connLink(rs.connection()))
	}
	s.events = append(s.events, rs.events...)
	s.dropped = rs.dropped
	e.emit()
	rs.events, rs.tools, rs.toolOrder, rs.toolIDs, rs.approvals = nil, nil, nil, nil, nil
}

// connection is the run's connection: its home, else the one it was
// born on.
func (rs *runState) connection() int {
	if rs.home != 0 {
		return rs.home
	}
	return rs.conn
}
