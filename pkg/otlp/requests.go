package otlp

import (
	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/runs"
)

type reqKey struct {
	conn int
	id   string
}

// request is a req frame waiting for its res.
type request struct {
	key      reqKey
	method   string
	i        int
	t        int64
	in       bool // sent by the gateway (a server request), not the client
	tpRaw    string
	tp       TraceParent
	joined   bool   // tp is valid and the gateway took it: the span joins its trace
	idem     string // params.idempotencyKey: the run a chat.send starts is named by it
	session  string
	accepted int64 // an "accepted" response came, then the result is awaited
	runID    string
	run      *runState // the run it started, once known
	span     SpanID
	written  bool
}

// request follows a req frame.
func (e *Exporter) request(c *conn, rec *capture.Record, ev *bridge.Event) {
	q := &request{key: reqKey{rec.Conn, ev.ID}, method: ev.Method, i: rec.Index, t: rec.T, in: rec.Dir == capture.DirIn,
		span: e.seed.span("req", int64(rec.Index), ev.Method+"\x00"+ev.ID)}
	if raw, ok := jsonx.Get(rec.Frame, "traceparent"); ok {
		q.tpRaw, _ = jsonx.Str(raw)
		// A gateway ignores the trace context of connect, the request that
		// authenticates the connection.
		q.tp, q.joined = ParseTraceParent(q.tpRaw)
		q.joined = q.joined && ev.Method != "connect"
	}
	params, _ := jsonx.Get(rec.Frame, "params")
	q.session = strMember(params, "sessionKey")
	q.idem = strMember(params, "idempotencyKey")
	if ev.Method == "connect" {
		c.client, c.mode, c.clientVer = strMember(params, "client", "id"), strMember(params, "client", "mode"), strMember(params, "client", "version")
	}
	if ev.ID == "" {
		e.writeRequest(q, rec.T, false) // nothing can answer it
		return
	}
	if old := e.reqs[q.key]; old != nil {
		e.writeRequest(old, rec.T, true) // the id came again before its response
	}
	if len(e.reqs) >= maxPending {
		e.evictRequest(rec.T)
	}
	e.reqs[q.key] = q
	if len(e.reqOrder) > 2*len(e.reqs)+64 { // most were answered: keep those waiting
		live := e.reqOrder[:0]
		for _, w := range e.reqOrder {
			if !w.written {
				live = append(live, w)
			}
		}
		clear(e.reqOrder[len(live):])
		e.reqOrder = live
	}
	e.reqOrder = append(e.reqOrder, q)
	if q.idem != "" {
		e.claim(q, q.idem)
	}
}

// evictRequest writes the oldest request still waiting, as unanswered.
func (e *Exporter) evictRequest(t int64) {
	for len(e.reqOrder) > 0 {
		q := e.reqOrder[0]
		e.reqOrder[0] = nil
		e.reqOrder = e.reqOrder[1:]
		if !q.written {
			e.writeRequest(q, t, true)
			return
		}
	}
}

// claim ties a request to the run named id: the run it starts. A run
// already held takes the request as its parent now (unless its trace is
// already fixed); otherwise the run takes it when it is born.
func (e *Exporter) claim(q *request, id string) {
	if q.run != nil || id == "" {
		return
	}
	if q.runID != "" && e.byRun[q.runID] == q {
		delete(e.byRun, q.runID)
	}
	q.runID = id
	if r := e.lookup(id); r != nil {
		rs := e.state(r)
		if !rs.frozen && rs.req == nil {
			rs.req, rs.reqT, q.run = q, q.t, rs
		}
		return
	}
	if len(e.byRun) < maxPending {
		e.byRun[id] = q
	}
}

// born is a run's first frame as the exporter sees it: a request waiting
// for its response may have started it.
func (e *Exporter) born(r *runs.Run, rs *runState) {
	q := e.byRun[r.ID]
	if q == nil {
		return
	}
	delete(e.byRun, r.ID)
	if !q.written && q.run == nil {
		rs.req, rs.reqT, q.run = q, q.t, rs
	}
}

// response follows a res frame: it ends its request's span.
func (e *Exporter) response(c *conn, rec *capture.Record, ev *bridge.Event) {
	if typ, _ := jsonx.GetStr(ev.Payload, "type"); typ == "hello-ok" {
		if v := strMember(ev.Payload, "server", "version"); v != "" {
			c.version = v
		}
		if p, ok := jsonx.GetInt(ev.Payload, "protocol"); ok && p > 0 {
			c.protocol = p
		}
	}
	q := e.reqs[reqKey{rec.Conn, ev.ID}]
	if q == nil {
		return
	}
	if id, ok := jsonx.GetStr(ev.Payload, "runId"); ok && id != "" {
		e.claim(q, id)
	}
	ok := ev.OK == nil || *ev.OK
	if status, _ := jsonx.GetStr(ev.Payload, "status"); ok && status == "accepted" && q.accepted == 0 {
		q.accepted = max(rec.T, 1) // the result follows in a second response
		return
	}
	delete(e.reqs, q.key)
	e.answer(q, rec, ev, ok)
}

// answer writes a request's span, ended by its response.
func (e *Exporter) answer(q *request, rec *capture.Record, ev *bridge.Event, ok bool) {
	e.reqSpan(q, rec.T)
	s := &e.sp
	if ok {
		s.add(str("openclaw.gateway.rpc.outcome", "ok"))
	} else {
		code := ev.Code
		msg := strMember(rec.Frame, "error", "message")
		s.add(str("openclaw.gateway.rpc.outcome", "error"))
		if code != "" {
			s.add(str("error.type", code), str("rpc.response.status_code", code))
		} else {
			s.add(str("error.type", "_OTHER"))
		}
		s.status, s.message = statusError, msg
	}
	e.finishRequest(q)
}

// writeRequest writes the span of a request no response ended (by end).
func (e *Exporter) writeRequest(q *request, end int64, unanswered bool) {
	delete(e.reqs, q.key)
	e.reqSpan(q, end)
	if unanswered {
		e.sp.add(flag("clawtap.rpc.unanswered", true))
	}
	e.finishRequest(q)
}

func (e *Exporter) finishRequest(q *request) {
	q.written = true
	if q.runID != "" && e.byRun[q.runID] == q {
		delete(e.byRun, q.runID)
	}
	e.emit()
}

// reqSpan fills e.sp with a request's span, ending at end: an RPC client
// span, in the trace its traceparent names when the gateway took it, else
// in its run's trace when it started one (as the root), else in the
// capture's under its connection.
func (e *Exporter) reqSpan(q *request, end int64) {
	var (
		trace  TraceID
		parent SpanID
		flags  uint32 = flagHasIsRemote | flagSampled
		link   bool
	)
	rs := q.run
	if rs != nil && rs.req == q {
		e.freeze(rs)
	}
	switch {
	case q.joined:
		trace, parent, flags, link = q.tp.Trace, q.tp.Span, flagHasIsRemote|flagParentRemote|uint32(q.tp.Flags), true
	case rs != nil && rs.req == q:
		trace, link = rs.trace, true
	default:
		trace, parent = e.captureTrace, e.connSpan(q.key.conn)
	}
	s := &e.sp
	s.reset()
	s.trace, s.id, s.parent, s.flags = trace, q.span, parent, flags
	s.name, s.kind = q.method, kindClient
	if q.in {
		s.kind = kindServer
	}
	if s.name == "" {
		s.name = "openclaw" // rpc.system.name, as the RPC conventions name a span without a method
	}
	s.start, s.end = q.t, end
	s.add(str("rpc.system.name", "openclaw"))
	s.addStr("rpc.method", q.method)
	s.addStr("openclaw.gateway.rpc.method", q.method)
	s.addStr("clawtap.rpc.id", q.key.id)
	e.serverAttrs(q.key.conn)
	s.add(num("clawtap.record", int64(q.i)))
	s.addStr("gen_ai.conversation.id", q.session)
	s.addStr("clawtap.run.id", q.runID)
	if q.tpRaw != "" {
		s.add(str("clawtap.rpc.traceparent", clip(q.tpRaw, MaxTraceParent)), flag("clawtap.rpc.trace_joined", q.joined))
	}
	if q.accepted > 0 {
		s.events = append(s.events, event{t: q.accepted, name: "clawtap.rpc.accepted"})
	}
	if link {
		s.links = append(s.links, e.connLink(q.key.conn))
	}
}
