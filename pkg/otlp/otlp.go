// Package otlp exports a capture as OpenTelemetry traces, in OTLP/JSON:
// an observer of the pass (pkg/pipeline) that turns what the UI saw into
// spans that sit beside the gateway's own (OpenClaw's diagnostics-otel
// plugin) in any OTLP backend.
//
// The span model (docs/otlp.md maps every span and attribute to the
// frames it comes from):
//
//   - the capture is a span (clawtap.capture), the root of the capture's
//     trace, and each connection a child of it (clawtap.connection), with
//     the connection's seq gaps as events;
//   - each request/response pair is a span named by its method (an RPC
//     client span); a request that starts a run is the root of the run's
//     trace, or, when it carried a traceparent the gateway accepted, a
//     child of the caller's span in the caller's trace: the gateway's own
//     spans for that request are in the same trace;
//   - each run is a span (openclaw.run, shaped as the GenAI conventions'
//     invoke_agent span), with its streamed deltas counted in events (one
//     per streamed stretch, never one per token), its lifecycle phases
//     and its findings as events, and a child span per tool call
//     (openclaw.tool.execution, execute_tool) and per approval;
//   - every finding of the pass (check's rules, with the UI versions that
//     show it) is an event on the span it concerns.
//
// Ids come from the capture: a hash of its header and first record and of
// what names the span, so the same capture exports the same bytes, every
// time; a request's traceparent gives its trace id. Spans go out as their
// runs are let go by the pass's run table, in batches under a byte bound
// (one request body each), so memory stays flat however long the capture.
//
// Nothing of a message's, a tool's or a delta's text is exported: names,
// ids, counts, times, states and the gateway's error messages are.
package otlp

import (
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/finding"
	"github.com/clawtap/clawtap/pkg/outcome"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/runs"
)

// Options tune an Exporter.
type Options struct {
	// Sink takes each batch (required).
	Sink Sink
	// Name is the capture's name (the clawtap.capture.name resource
	// attribute).
	Name string
	// Version is clawtap's version: service.version and the scope's.
	Version string
	// ServiceName is service.name; "" is "clawtap".
	ServiceName string
	// Resource holds more resource attributes (OTEL_RESOURCE_ATTRIBUTES):
	// they come after service.name and service.version, which they
	// cannot change (ServiceName does), and before clawtap's own.
	Resource []KeyValue
	// GenAINames names runs and tool calls as the GenAI conventions do
	// (invoke_agent {agent}, execute_tool {tool}) instead of as OpenClaw
	// does (openclaw.run, openclaw.tool.execution): OpenClaw's switch,
	// OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental.
	GenAINames bool
	// NoOutcomes leaves out what the UI was left with (clawtap.ui.*), and
	// with it the replay the exporter would otherwise ask the pass for.
	NoOutcomes bool
	// BatchBytes bounds a batch; 0 is DefaultBatchBytes.
	BatchBytes int
}

// Caps on what the exporter holds while the pass runs: capture text is
// untrusted, so every table is bounded; past a cap the oldest entry is
// written out (or counted and left out).
const (
	maxConns     = 4096 // connections held until the end; more are written once closed
	maxPending   = 4096 // requests waiting for their response
	maxApprovals = 4096 // approvals waiting to be resolved
	maxTools     = 1024 // tool calls of one run waiting for their end
	maxToolIDs   = 4096 // tool calls of one run written (a repeat is not a new span)
)

// Exporter is the pass observer that writes a capture's spans. Build the
// pass with it first and check's Analyzer after it (a Reporter: its
// findings reach the exporter through the pass, each as it is made, and
// the exporter has seen the record a finding is about), run it, then
// Close the exporter: the spans of the runs held to the end, the
// connections and the capture go out then, after the pass's last findings.
type Exporter struct {
	opts  Options
	seed  seeder
	b     *batcher
	sp    span   // the span being built
	enc   []byte // its encoding
	table *runs.Table
	field runs.Field[runState]

	captureTrace TraceID
	captureSpan  SpanID
	gatewayVer   string
	sourceMode   string
	sourceURL    string

	records      int
	firstT       int64
	lastT        int64
	end          *pipeline.End
	ended        bool
	closed       bool
	findings     int
	runsWritten  int
	capEvents    []event
	capDropped   int
	conns        map[int]*conn
	connOrder    []int       // the connections held, in the order first seen (some may be gone)
	gone         map[int]int // connections written to make room → how many times
	reqs         map[reqKey]*request
	reqOrder     []*request // pending, oldest first (entries may be answered)
	byRun        map[string]*request
	approvals    map[string]*approval
	apOrder      []*approval
	done         []*doneRun // runs let go, waiting to be written
	doneByID     map[string]*doneRun
	connsWritten int
	connsSeen    int
}

// New returns an Exporter writing to opts.Sink.
func New(opts Options) *Exporter {
	if opts.BatchBytes <= 0 {
		opts.BatchBytes = DefaultBatchBytes
	}
	e := &Exporter{
		opts: opts, conns: map[int]*conn{}, gone: map[int]int{}, reqs: map[reqKey]*request{}, byRun: map[string]*request{},
		approvals: map[string]*approval{}, doneByID: map[string]*doneRun{},
	}
	e.b = newBatcher(opts.Sink, opts.BatchBytes, e.resource(), opts.Version)
	return e
}

// resource is the resource's attributes, in their order.
func (e *Exporter) resource() []KeyValue {
	name := e.opts.ServiceName
	if name == "" {
		name = "clawtap"
	}
	res := []KeyValue{{"service.name", name}}
	if e.opts.Version != "" {
		res = append(res, KeyValue{"service.version", e.opts.Version})
	}
	for _, kv := range e.opts.Resource {
		switch kv.Key {
		case "service.name", "service.version", "clawtap.capture.name":
			continue
		}
		res = append(res, kv)
	}
	if e.opts.Name != "" {
		res = append(res, KeyValue{"clawtap.capture.name", e.opts.Name})
	}
	return res
}

// Needs: the run table, the gap tracker, and unless NoOutcomes what each
// run left the user with.
func (e *Exporter) Needs() pipeline.Needs {
	if e.opts.NoOutcomes {
		return pipeline.Gaps | pipeline.Runs
	}
	return pipeline.Gaps | pipeline.Runs | pipeline.Outcomes
}

// Table takes the pass's run table, to keep what the exporter knows of
// each run in a field of it.
func (e *Exporter) Table(t *runs.Table) {
	e.table = t
	e.field = runs.NewField[runState](t)
}

// Header takes the capture's header: part of its identity, and its
// gateway version and URL when the frames never say.
func (e *Exporter) Header(h *capture.Header) {
	e.seed.header(h)
	if h != nil {
		e.gatewayVer, e.sourceMode, e.sourceURL = h.Source.GatewayVersion, h.Source.Mode, h.Source.URL
	}
}

// Before follows one record.
func (e *Exporter) Before(f *pipeline.Frame) error {
	rec := f.Rec
	if !e.seed.set {
		e.seed.record(rec)
		e.ids()
	}
	e.writeDone(e.records)
	e.records++
	if rec.T > 0 {
		if e.firstT == 0 || rec.T < e.firstT {
			e.firstT = rec.T
		}
		e.lastT = max(e.lastT, rec.T)
	}
	c := e.conn(rec.Conn, rec.T)
	for k := range f.Gaps {
		e.gap(c, &f.Gaps[k])
	}
	e.frame(f, c)
	return e.b.err
}

// ids derives the capture's own trace and span, once seeded.
func (e *Exporter) ids() {
	e.captureTrace = e.seed.trace("capture", 0, "")
	e.captureSpan = e.seed.span("capture", 0, "")
}

// Finding puts a finding of the pass on the span it concerns: its run's,
// else its connection's, else the capture's.
func (e *Exporter) Finding(f *finding.Finding) error {
	e.findings++
	ev := findingEvent(f)
	if f.RunID != "" {
		if r := e.lookup(f.RunID); r != nil {
			e.state(r).addEvent(ev)
			return nil
		}
		if d := e.doneByID[f.RunID]; d != nil {
			d.rs.addEvent(ev)
			return nil
		}
		ev.attrs = append(ev.attrs, str("clawtap.run.id", f.RunID))
	}
	if f.Conn != 0 {
		c := e.conns[f.Conn]
		if c == nil && e.seed.set && e.gone[f.Conn] == 0 {
			c = e.conn(f.Conn, 0) // a finding at the connection's first record, made before Before saw it
		}
		if c != nil && !c.written {
			c.addEvent(ev)
			return nil
		}
	}
	e.captureEvent(ev)
	return nil
}

// RunDone takes a run the table lets go: it is written at the next
// record (or at Close), once the findings its letting go makes are in.
func (e *Exporter) RunDone(r *runs.Run, o *outcome.Run) {
	rs := e.state(r)
	if o != nil {
		rs.ui = uiOf(o)
	}
	d := &doneRun{r: r, rs: rs, at: e.records}
	e.done = append(e.done, d)
	e.doneByID[r.ID] = d
}

// End takes what the end of the capture tells; the spans still held go
// out at Close.
func (e *Exporter) End(end *pipeline.End) error {
	e.end, e.ended = end, true
	return e.b.err
}

// Close writes everything still held — the runs let go at the end, the
// requests never answered, the connections and the capture — and hands
// the last batch to the sink. Call it once the pass has ended, so that
// the findings made at its end are in.
func (e *Exporter) Close() error {
	if e.closed {
		return e.b.err
	}
	e.closed = true
	e.seed.finish()
	if e.captureTrace.IsZero() {
		e.ids()
	}
	e.writeDone(-1)
	for _, q := range e.reqOrder {
		if !q.written {
			e.writeRequest(q, e.endOf(q.key.conn), true)
		}
	}
	for _, a := range e.apOrder {
		if !a.written {
			e.writeApproval(a, e.endOf(a.conn))
		}
	}
	for _, n := range e.connOrder {
		if c := e.conns[n]; c != nil && !c.written {
			e.writeConn(c)
		}
	}
	e.writeCapture()
	e.b.flush()
	return e.b.err
}

// Stats is what the export wrote.
type Stats struct {
	Spans, Batches, Runs, Connections, Findings int
}

// Stats says what was written so far (all of it, after Close).
func (e *Exporter) Stats() Stats {
	return Stats{Spans: e.b.spans, Batches: e.b.count, Runs: e.runsWritten, Connections: e.connsWritten, Findings: e.findings}
}

// emit encodes the span built in e.sp and adds it to the batch.
func (e *Exporter) emit() {
	s := &e.sp
	if len(s.events) > maxEvents {
		s.dropped += len(s.events) - maxEvents
		s.events = s.events[:maxEvents]
	}
	for k := range s.events {
		if s.events[k].t < 0 { // at the span's end
			s.events[k].t = max(s.end, s.start)
		}
	}
	if len(s.links) > maxLinks {
		s.links = s.links[:maxLinks]
	}
	e.enc = appendSpan(e.enc[:0], s)
	e.b.add(e.enc)
}

// endOf is when what waits on connection n ends at the end of the
// capture: the connection's close, else the capture's last record.
func (e *Exporter) endOf(n int) int64 {
	if c := e.conns[n]; c != nil && c.closed {
		return c.closeT
	}
	return e.lastT
}

// findingEvent is a finding as a span event.
func findingEvent(f *finding.Finding) event {
	ev := event{t: f.T, name: "clawtap.finding", attrs: []attr{
		str("clawtap.finding.rule", f.Rule),
		str("clawtap.finding.severity", f.Severity.String()),
		str("clawtap.finding.message", f.Message),
	}}
	if f.T <= 0 {
		ev.t = -1
	}
	if f.UIs != nil {
		ev.attrs = append(ev.attrs, strs("clawtap.finding.uis", f.UIs))
		if len(f.NotUIs) > 0 {
			ev.attrs = append(ev.attrs, strs("clawtap.finding.not_uis", f.NotUIs))
		}
	}
	if f.I >= 0 {
		ev.attrs = append(ev.attrs, num("clawtap.record", int64(f.I)))
	}
	if f.Conn != 0 {
		ev.attrs = append(ev.attrs, num("clawtap.connection.number", int64(f.Conn)))
	}
	if f.Pointer != "" {
		ev.attrs = append(ev.attrs, str("clawtap.finding.pointer", f.Pointer))
	}
	return ev
}

// captureEvent puts an event on the capture's span.
func (e *Exporter) captureEvent(ev event) {
	if len(e.capEvents) >= maxEvents {
		e.capDropped++
		return
	}
	e.capEvents = append(e.capEvents, ev)
}

// writeCapture writes the capture's span, the root of its trace.
func (e *Exporter) writeCapture() {
	s := &e.sp
	s.reset()
	s.trace, s.id, s.flags = e.captureTrace, e.captureSpan, flagHasIsRemote|flagSampled
	s.name, s.kind = "clawtap.capture", kindInternal
	s.start, s.end = e.firstT, e.lastT
	s.addStr("clawtap.capture.name", e.opts.Name)
	s.addStr("clawtap.capture.source", e.sourceMode)
	s.addStr("clawtap.gateway.version", e.gatewayVer)
	s.add(num("clawtap.capture.records", int64(e.records)),
		num("clawtap.capture.connections", int64(e.connsSeen)),
		num("clawtap.capture.runs", int64(e.runsWritten)),
		num("clawtap.capture.findings", int64(e.findings)))
	if e.end != nil && e.end.Stats.Truncated {
		s.add(flag("clawtap.capture.truncated", true))
	}
	if e.end != nil && !e.end.Complete {
		s.add(flag("clawtap.capture.partial", true))
	}
	s.events = append(s.events, e.capEvents...)
	s.dropped = e.capDropped
	e.emit()
}
