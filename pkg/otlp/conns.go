package otlp

import (
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/gaps"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/pipeline"
)

// conn is what the export knows of one connection.
type conn struct {
	n                int
	span             SpanID
	first, last      int64
	url, host        string
	port             int64
	client, mode     string
	clientVer        string
	version          string
	protocol         int64
	closed           bool
	closeT           int64
	code             int
	reason           string
	in, out, invalid int
	events           []event
	dropped          int
	written          bool
}

func (c *conn) addEvent(ev event) {
	if len(c.events) >= maxEvents {
		c.dropped++
		return
	}
	c.events = append(c.events, ev)
}

// conn returns connection n's state, made at its first record.
func (e *Exporter) conn(n int, t int64) *conn {
	c := e.conns[n]
	if c == nil {
		if len(e.conns) >= maxConns {
			e.evictConn()
		}
		c = &conn{n: n, first: t, span: e.connID(n, e.gone[n])}
		if e.sourceURL != "" {
			c.setURL(e.sourceURL)
		}
		e.conns[n] = c
		e.connOrder = append(e.connOrder, n)
		e.connsSeen++
	}
	if t > 0 {
		if c.first <= 0 {
			c.first = t
		}
		c.last = max(c.last, t)
	}
	return c
}

// connID is the span id of connection n, the gen-th time it is held (a
// connection written to make room and seen again is a span of its own).
func (e *Exporter) connID(n, gen int) SpanID {
	if gen == 0 {
		return e.seed.span("conn", int64(n), "")
	}
	return e.seed.span("conn", int64(n), strconv.Itoa(gen))
}

// evictConn writes the connection held longest (the first seen of
// those held) to make room: what comes later about it goes on the
// capture's span. A queue, so that a capture of a million connections
// costs a million steps.
func (e *Exporter) evictConn() {
	for len(e.connOrder) > 0 {
		n := e.connOrder[0]
		e.connOrder = e.connOrder[1:]
		c := e.conns[n]
		if c == nil || c.written {
			continue
		}
		e.writeConn(c)
		delete(e.conns, n)
		if len(e.gone) < 1<<16 || e.gone[n] > 0 {
			e.gone[n]++
		}
		return
	}
}

// setURL takes the gateway's URL, without credentials, query or fragment.
func (c *conn) setURL(raw string) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return
	}
	u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
	c.url, c.host = u.String(), u.Hostname()
	c.port = 0
	if p := u.Port(); p != "" {
		c.port, _ = strconv.ParseInt(p, 10, 64)
	} else {
		switch u.Scheme {
		case "ws", "http":
			c.port = 80
		case "wss", "https":
			c.port = 443
		}
	}
	if ip := net.ParseIP(c.host); ip == nil && strings.ContainsAny(c.host, " /") {
		c.host = ""
	}
}

// gap is a frame-seq finding of the record: an event on its connection
// (a gap the gateway reported in a run's stream: on the run).
func (e *Exporter) gap(c *conn, g *gaps.Finding) {
	if g.Kind == gaps.RunSeqJump {
		return // the gateway's pacing skips payload seqs as a rule: counted by check (run-seq-jump), not here
	}
	ev := event{t: g.T, name: "clawtap.seq_gap", attrs: []attr{
		str("clawtap.seq.kind", g.Kind),
		num("clawtap.seq.expected", g.Expected),
		num("clawtap.seq.received", g.Received),
		num("clawtap.record", int64(g.I)),
	}}
	if m := g.Missing(); m > 0 {
		ev.attrs = append(ev.attrs, num("clawtap.seq.missing", m))
	}
	if g.RunID != "" {
		if r := e.lookup(g.RunID); r != nil {
			e.state(r).addEvent(ev)
			return
		}
	}
	c.addEvent(ev)
}

// frame follows one record by what it is.
func (e *Exporter) frame(f *pipeline.Frame, c *conn) {
	rec, ev := f.Rec, f.Event
	switch ev.Kind {
	case bridge.Marker:
		e.marker(c, rec)
		return
	case bridge.Invalid:
		c.invalid++
		return
	}
	if rec.Dir == capture.DirOut {
		c.out++
	} else {
		c.in++
	}
	switch ev.Kind {
	case bridge.Request:
		e.request(c, rec, ev)
	case bridge.Response:
		e.response(c, rec, ev)
	case bridge.RuntimeChat, bridge.RuntimeAgent:
		if f.Run != nil {
			e.runFrame(f.Run, rec, ev)
		}
	case bridge.Approval:
		e.approvalEvent(rec, ev.Event, ev.Payload, ev.RunID)
	case bridge.Unknown:
		switch {
		case ev.Event == "session.tool":
			e.sessionTool(rec, ev.Payload)
		case strings.HasSuffix(ev.Event, ".approval.requested") || strings.HasSuffix(ev.Event, ".approval.resolved"):
			runID, _ := jsonx.GetPath(ev.Payload, "request", "runId")
			id, _ := jsonx.Str(runID)
			e.approvalEvent(rec, ev.Event, ev.Payload, id)
		}
	}
	if f.Run != nil && ev.Kind != bridge.RuntimeChat && ev.Kind != bridge.RuntimeAgent {
		rs := e.state(f.Run)
		rs.frames++
		rs.lastT = max(rs.lastT, rec.T)
	}
}

func (e *Exporter) marker(c *conn, rec *capture.Record) {
	switch rec.Mark {
	case capture.MarkOpen:
		if rec.URL != "" {
			c.setURL(rec.URL)
		}
		if rec.T > 0 {
			c.first = rec.T
		}
	case capture.MarkHello:
		if rec.Server != "" {
			c.version = rec.Server
		}
		if rec.Protocol > 0 {
			c.protocol = int64(rec.Protocol)
		}
	case capture.MarkClose:
		if !c.closed {
			c.closed, c.closeT, c.code, c.reason = true, rec.T, rec.Code, rec.Reason
		}
	}
}

// writeConn writes a connection's span: a child of the capture's.
func (e *Exporter) writeConn(c *conn) {
	c.written = true
	e.connsWritten++
	s := &e.sp
	s.reset()
	s.trace, s.id, s.parent, s.flags = e.captureTrace, c.span, e.captureSpan, flagHasIsRemote|flagSampled
	s.name, s.kind = "clawtap.connection", kindInternal
	s.start, s.end = c.first, c.last
	if c.closed && c.closeT > 0 {
		s.end = c.closeT
	}
	s.add(num("clawtap.connection.number", int64(c.n)))
	s.addStr("url.full", c.url)
	s.addStr("server.address", c.host)
	if c.port > 0 {
		s.add(num("server.port", c.port))
	}
	s.addStr("clawtap.client.id", c.client)
	s.addStr("clawtap.client.mode", c.mode)
	s.addStr("clawtap.client.version", c.clientVer)
	s.addStr("clawtap.gateway.version", c.version)
	if c.protocol > 0 {
		s.add(num("clawtap.gateway.protocol", c.protocol))
	}
	if c.closed {
		s.add(num("clawtap.connection.close_code", int64(c.code)))
		s.addStr("clawtap.connection.close_reason", c.reason)
	}
	s.add(num("clawtap.connection.frames_in", int64(c.in)), num("clawtap.connection.frames_out", int64(c.out)))
	if c.invalid > 0 {
		s.add(num("clawtap.connection.invalid", int64(c.invalid)))
	}
	s.events = append(s.events, c.events...)
	s.dropped = c.dropped
	c.events = nil
	e.emit()
}

// serverAttrs adds the gateway's address, as the connection knows it.
func (e *Exporter) serverAttrs(n int) {
	if c := e.conns[n]; c != nil {
		e.sp.addStr("server.address", c.host)
		if c.port > 0 {
			e.sp.add(num("server.port", c.port))
		}
	}
	e.sp.add(num("clawtap.connection.number", int64(n)))
}

// connSpan is connection n's span id (whether or not it is held).
func (e *Exporter) connSpan(n int) SpanID {
	if c := e.conns[n]; c != nil {
		return c.span
	}
	return e.connID(n, max(e.gone[n]-1, 0))
}

// connLink links a span of another trace to connection n's span.
func (e *Exporter) connLink(n int) link {
	return link{trace: e.captureTrace, span: e.connSpan(n), flags: flagHasIsRemote | flagSampled,
		attrs: []attr{str("clawtap.link", "connection")}}
}

// strMember is a string member of obj ("" when absent or not a string).
func strMember(obj []byte, path ...string) string {
	v, ok := jsonx.GetPath(obj, path...)
	if !ok {
		return ""
	}
	s, _ := jsonx.Str(v)
	return s
}
