// Package stats summarises a capture in one streaming pass: gateway version
// and protocol, connections and their lifetimes, frames by event, stream and
// state, runs (outcomes, duration and time-to-first-delta percentiles,
// tokens), delta rates of the agent stream against the paced chat stream,
// approvals, seq gaps and errors.
//
// Memory is bounded by live state: a table per connection, what it knows
// of each run the pass's run table holds (a field of the run), and one
// number per finished run for the percentiles (runs are few next to
// frames); nothing is kept per frame.
package stats

import (
	"strings"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/finding"
	"github.com/clawtap/clawtap/pkg/gaps"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/outcome"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/runs"
)

// Caps on the live tables.
const (
	maxSends = 4096
	maxConns = 4096 // connections listed one by one; more are only counted
	maxNames = 512  // distinct event names, methods, codes counted by name
)

// run is what the summary knows of a run, in a field of the pass's run
// table: from its first chat or agent event until it ends (done), when it
// is folded into the aggregates.
type run struct {
	started, done bool
	home          int
	agent         string
	first, sendT  int64
	lifeStart     int64
	firstDelta    int64
	lifeEnd       int64
	lifeOutcome   string
	usageIn       int64
	usageOut      int64
	usageTotal    int64
	hasUsage      bool
	agentN, chatN int
	agentFirst    int64
	agentLast     int64
	chatFirst     int64
	chatLast      int64
}

type connInfo struct {
	c      Connection
	opened bool
	closed bool
	first  int64
	last   int64
}

type pend struct {
	method string
	t      int64
}

// Collector builds Stats record by record.
type Collector struct {
	conns map[int]*connInfo
	extra int // connections past maxConns

	runs     runs.Field[run]
	sends    map[string]int64 // chat.send idempotencyKey → request time
	sendFIFO []string
	reqs     map[[2]string]pend
	reqFIFO  [][2]string
	pendAp   map[string]bool

	versions  map[string]bool
	protocols map[int]bool
	boots     map[string]bool

	durations  sample
	firstDelta sample
	gaps       gaps.Summary
	st         Stats
	lastConn   *connInfo // the connection looked up last
	// the frames' event names, chat states and agent streams, counted in
	// front of their maps (see tally)
	events, chatStates, agentStreams tally
}

// New returns an empty Collector. It is an observer of a pass: the pass
// gives it its field of the run table (Table).
func New() *Collector {
	c := &Collector{
		conns: make(map[int]*connInfo),
		sends: make(map[string]int64), reqs: make(map[[2]string]pend), pendAp: make(map[string]bool),
		versions: make(map[string]bool), protocols: make(map[int]bool), boots: make(map[string]bool),
	}
	s := &c.st
	s.Frames.Events = map[string]int{}
	s.Frames.AgentStreams = map[string]int{}
	s.Frames.ChatStates = map[string]int{}
	c.events.m, c.chatStates.m, c.agentStreams.m = s.Frames.Events, s.Frames.ChatStates, s.Frames.AgentStreams
	s.Frames.Lifecycle = map[string]int{}
	s.Methods = map[string]*Calls{}
	s.Runs.ByAgent = map[string]int{}
	s.Approvals.ByDecision = map[string]int{}
	s.Errors.Responses = map[string]int{}
	s.Errors.ChatErrors = map[string]int{}
	return c
}

// Header takes the capture's header, if it has one.
func (c *Collector) Header(h *capture.Header) {
	if h == nil {
		return
	}
	c.st.Capture.Source = h.Source.Mode
	c.st.Capture.Tool = h.Source.Tool
	c.st.Capture.CreatedAt = h.CreatedAt
}

func (c *Collector) conn(n int, t int64) *connInfo {
	ci := c.lastConn // most records come on the connection of the one before
	if ci == nil || ci.c.Conn != n {
		ci = c.conns[n]
	}
	if ci == nil {
		if len(c.conns) >= maxConns {
			c.extra++
			return nil
		}
		ci = &connInfo{c: Connection{Conn: n}, first: t}
		c.conns[n] = ci
	}
	c.lastConn = ci
	if t > 0 {
		if ci.first == 0 {
			ci.first = t
		}
		ci.last = t
	}
	return ci
}

// Needs is what the summary reads from the pass: the gap tracker's sums
// and the run table.
func (c *Collector) Needs() pipeline.Needs { return pipeline.Gaps | pipeline.Runs }

// Table takes the pass's run table, before the pass starts.
func (c *Collector) Table(t *runs.Table) { c.runs = runs.NewField[run](t) }

// After adds one record.
func (c *Collector) After(f *pipeline.Frame) error {
	c.record(f.Rec, f.Event, f.Run)
	return nil
}

// Finding counts a finding made in the same pass: stats is a peer of
// check's printer and the report, not a part of check.
func (c *Collector) Finding(f *finding.Finding) error {
	if c.st.Findings == nil {
		c.st.Findings = &Findings{Rules: map[string]int{}}
	}
	c.st.Findings.add(f)
	return nil
}

// RunDone folds a run the table lets go into the aggregates, if it was
// still live: as an agent-only run when its lifecycle ended, else as
// unterminated.
func (c *Collector) RunDone(tr *runs.Run, _ *outcome.Run) {
	if r := c.runs.Peek(tr); r != nil && r.started && !r.done {
		outcome := r.lifeOutcome
		if outcome == "" {
			outcome = "unterminated"
		}
		c.finish(r, outcome)
	}
}

// End takes what only the end of the capture tells; Result follows.
func (c *Collector) End(e *pipeline.End) error {
	c.st.Capture.Truncated = e.Stats.Truncated
	c.gaps = e.Gaps
	return nil
}

func (c *Collector) record(rec *capture.Record, ev *bridge.Event, tr *runs.Run) {
	s := &c.st
	s.Capture.Records++
	if rec.T > 0 {
		if s.Capture.Start == 0 || rec.T < s.Capture.Start {
			s.Capture.Start = rec.T
		}
		if rec.T > s.Capture.End {
			s.Capture.End = rec.T
		}
	}
	ci := c.conn(rec.Conn, rec.T)
	switch ev.Kind {
	case bridge.Marker:
		s.Capture.Markers++
		c.marker(ci, rec)
		return
	case bridge.Invalid:
		s.Capture.Invalid++
		s.Errors.Invalid++
		return
	}
	s.Capture.Frames++
	s.Capture.Bytes += int64(len(rec.Frame))
	if rec.Dir == capture.DirOut {
		s.Frames.Out++
		if ci != nil {
			ci.c.FramesOut++
		}
	} else {
		s.Frames.In++
		if ci != nil {
			ci.c.FramesIn++
		}
	}
	switch ev.Kind {
	case bridge.Request:
		s.Frames.Requests++
		c.request(ci, rec, ev)
	case bridge.Response:
		s.Frames.Responses++
		c.response(ci, rec, ev)
	default:
		c.events.add(ev.Event)
	}
	switch ev.Kind {
	case bridge.RuntimeChat:
		if ev.State != "" {
			c.chatStates.add(ev.State)
		}
		c.chat(rec, ev, tr)
	case bridge.RuntimeAgent:
		if ev.Stream != "" {
			c.agentStreams.add(ev.Stream)
		}
		c.agent(rec, ev, tr)
	case bridge.Approval, bridge.Unknown:
		if strings.HasSuffix(ev.Event, ".approval.requested") || strings.HasSuffix(ev.Event, ".approval.resolved") {
			c.approval(ev)
		}
	}
}

func (c *Collector) marker(ci *connInfo, rec *capture.Record) {
	if ci == nil {
		return
	}
	switch rec.Mark {
	case capture.MarkOpen:
		ci.opened = true
		ci.first = rec.T
		o := rec.T
		ci.c.OpenedMs = &o
	case capture.MarkHello:
		c.hello(ci, rec.Protocol, rec.Server, rec.BootID)
	case capture.MarkClose:
		ci.closed = true
		cl := rec.T
		ci.c.ClosedMs = &cl
		ci.c.CloseCode, ci.c.CloseReason = rec.Code, rec.Reason
	}
}

func (c *Collector) hello(ci *connInfo, protocol int, version, boot string) {
	if protocol > 0 {
		c.protocols[protocol] = true
		if ci != nil {
			ci.c.Protocol = protocol
		}
	}
	if version != "" {
		if len(c.versions) < maxNames {
			c.versions[version] = true
		}
		if ci != nil {
			ci.c.Version = version
		}
	}
	if boot != "" && len(c.boots) < maxNames {
		c.boots[boot] = true
	}
}

func (c *Collector) request(ci *connInfo, rec *capture.Record, ev *bridge.Event) {
	m := ev.Method
	if m == "" {
		m = "(none)"
	}
	calls := c.calls(m)
	calls.Requests++
	params, _ := jsonx.Get(rec.Frame, "params")
	switch ev.Method {
	case "chat.send":
		if k, ok := jsonx.GetStr(params, "idempotencyKey"); ok && k != "" {
			if len(c.sendFIFO) >= maxSends {
				delete(c.sends, c.sendFIFO[0])
				c.sendFIFO = c.sendFIFO[1:]
			}
			c.sends[k] = rec.T
			c.sendFIFO = append(c.sendFIFO, k)
		}
	case "connect":
		if ci != nil {
			id, _ := jsonx.GetPath(params, "client", "id")
			mode, _ := jsonx.GetPath(params, "client", "mode")
			ids, _ := jsonx.Str(id)
			modes, _ := jsonx.Str(mode)
			if ids != "" || modes != "" {
				ci.c.Client = ids + "/" + modes
			}
		}
	}
	if ev.ID != "" {
		k := [2]string{itoa(rec.Conn), ev.ID}
		if _, ok := c.reqs[k]; !ok {
			if len(c.reqFIFO) >= maxSends {
				delete(c.reqs, c.reqFIFO[0])
				c.reqFIFO = c.reqFIFO[1:]
			}
			c.reqFIFO = append(c.reqFIFO, k)
		}
		c.reqs[k] = pend{method: m, t: rec.T}
	}
}

func (c *Collector) calls(m string) *Calls {
	calls := c.st.Methods[m]
	if calls == nil {
		if len(c.st.Methods) >= maxNames {
			m = "(other)"
			if calls = c.st.Methods[m]; calls != nil {
				return calls
			}
		}
		calls = &Calls{}
		c.st.Methods[m] = calls
	}
	return calls
}

func (c *Collector) response(ci *connInfo, rec *capture.Record, ev *bridge.Event) {
	if typ, _ := jsonx.GetStr(ev.Payload, "type"); typ == "hello-ok" {
		p := ev.Payload
		proto, _ := jsonx.GetInt(p, "protocol")
		var ver, boot string
		if v, ok := jsonx.GetPath(p, "server", "version"); ok {
			ver, _ = jsonx.Str(v)
		}
		if v, ok := jsonx.GetPath(p, "server", "bootId"); ok {
			boot, _ = jsonx.Str(v)
		}
		c.hello(ci, int(proto), ver, boot)
	}
	k := [2]string{itoa(rec.Conn), ev.ID}
	p, pending := c.reqs[k]
	if !pending {
		return // a second response for one id (accepted, then the result)
	}
	delete(c.reqs, k)
	calls := c.calls(p.method)
	if ev.OK != nil && !*ev.OK {
		calls.Failed++
		code := ev.Code
		if code == "" {
			code = "(none)"
		}
		countName(c.st.Errors.Responses, code)
	} else {
		calls.OK++
	}
	if p.t > 0 && rec.T >= p.t && calls.lat.len() < 1<<16 {
		calls.lat.add(rec.T - p.t)
	}
	if p.method == "chat.send" {
		if id, ok := jsonx.GetStr(ev.Payload, "runId"); ok {
			if t, ok := c.sends[id]; !ok || t == 0 {
				c.sends[id] = p.t
			}
		}
	}
}

func itoa(n int) string { return string(jsonx.AppendInt(nil, int64(n))) }

// run returns what the summary knows of the event's run, started at its
// first chat or agent event; nil when the run is over, or a run of its id
// was let go before (its later frames are that run's), or the event came
// to another connection than the run's first.
func (c *Collector) run(rec *capture.Record, ev *bridge.Event, tr *runs.Run) *run {
	if tr == nil {
		return nil
	}
	r := c.runs.Of(tr)
	if !r.started {
		r.started, r.home, r.first = true, rec.Conn, rec.T
		if tr.Reopened {
			r.done = true // counted when it was first seen
			return nil
		}
		if t, ok := c.sends[tr.ID]; ok {
			r.sendT = t
		}
		c.st.Runs.Count++
		agent := ev.AgentID
		if agent == "" {
			agent = "(none)"
		}
		countName(c.st.Runs.ByAgent, agent)
	}
	if r.done || r.home != rec.Conn {
		return nil
	}
	return r
}

func (c *Collector) chat(rec *capture.Record, ev *bridge.Event, tr *runs.Run) {
	r := c.run(rec, ev, tr)
	if r == nil {
		return
	}
	switch ev.State {
	case "delta":
		r.chatN++
		if r.chatFirst == 0 {
			r.chatFirst = rec.T
		}
		r.chatLast = rec.T
		if r.firstDelta == 0 {
			r.firstDelta = rec.T
		}
	case "final", "aborted", "error":
		if ev.State == "error" {
			kind, _ := jsonx.GetStr(ev.Payload, "errorKind")
			if kind == "" {
				kind = "unknown"
			}
			countName(c.st.Errors.ChatErrors, kind)
		}
		if msg, ok := ev.Member("message"); ok { // captured while classifying: no walk of the payload
			if u, ok := jsonx.Get(msg, "usage"); ok {
				r.usage(u)
			}
		}
		if u, ok := ev.Member("usage"); ok {
			r.usage(u)
		}
		r.lifeEnd = rec.T
		c.finish(r, chatOutcome(ev.State))
	}
}

// chatOutcome names how a chat terminal ended its run.
func chatOutcome(state string) string {
	switch state {
	case "final":
		return "completed"
	case "aborted":
		return "aborted"
	}
	return "failed"
}

// usageKeys are the names a usage object's counts go by, input's first,
// then output's, then the total's, each kind in the order they are tried.
var usageKeys = []string{
	"input", "inputTokens", "input_tokens", "promptTokens",
	"output", "outputTokens", "output_tokens", "completionTokens",
	"totalTokens", "total", "total_tokens",
}

// firstInt is the first of vals (raw members, nil when absent) that is a
// count.
func firstInt(vals [][]byte) (int64, bool) {
	for _, v := range vals {
		if f, ok := jsonx.Num(v); ok && f >= 0 && f < 1e15 {
			return int64(f), true
		}
	}
	return 0, false
}

func (r *run) usage(u []byte) {
	if jsonx.KindOf(u) != jsonx.Object {
		return
	}
	var v [11][]byte // usageKeys' members, read in one walk
	jsonx.Members(u, usageKeys, v[:])
	in, okIn := firstInt(v[0:4])
	out, okOut := firstInt(v[4:8])
	total, okTotal := firstInt(v[8:11])
	if !okIn && !okOut && !okTotal {
		return
	}
	if !okTotal {
		total = in + out
	}
	r.usageIn, r.usageOut, r.usageTotal, r.hasUsage = in, out, total, true
}

func (c *Collector) agent(rec *capture.Record, ev *bridge.Event, tr *runs.Run) {
	if ev.Stream == "lifecycle" {
		countName(c.st.Frames.Lifecycle, orNone(ev.Phase))
		if ev.Phase == "error" {
			c.st.Errors.LifecycleError++
		}
	}
	r := c.run(rec, ev, tr)
	if r == nil {
		return
	}
	switch ev.Stream {
	case "lifecycle":
		switch ev.Phase {
		case "start":
			if r.lifeStart == 0 {
				r.lifeStart = rec.T
			}
		case "end", "error":
			r.lifeEnd = rec.T
			data, _ := ev.Member("data")
			switch {
			case jsonx.Truthy(mustGet(data, "aborted")):
				r.lifeOutcome = "aborted"
			case ev.Phase == "error" && r.lifeOutcome != "aborted":
				r.lifeOutcome = "failed"
			case r.lifeOutcome == "":
				r.lifeOutcome = "completed"
			}
		}
	case "assistant":
		r.agentN++
		if r.agentFirst == 0 {
			r.agentFirst = rec.T
		}
		r.agentLast = rec.T
		if r.firstDelta == 0 {
			r.firstDelta = rec.T
		}
	case "usage":
		data, _ := ev.Member("data")
		if !r.hasUsage {
			r.usage(data)
		}
	}
}

func mustGet(obj []byte, k string) []byte {
	v, _ := jsonx.Get(obj, k)
	return v
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// finish folds a run into the aggregates; its later frames are ignored.
func (c *Collector) finish(r *run, outcome string) {
	if r == nil {
		return
	}
	r.done = true
	s := &c.st.Runs
	switch outcome {
	case "completed":
		s.Completed++
	case "aborted":
		s.Aborted++
	case "failed":
		s.Failed++
	default:
		s.Unterminated++
	}
	start := r.lifeStart
	if start == 0 || (r.first > 0 && r.first < start) {
		start = r.first
	}
	if outcome != "unterminated" && r.lifeEnd >= start && start > 0 {
		c.durations.add(r.lifeEnd - start)
	}
	from := r.sendT
	if from == 0 {
		from = start
	}
	if r.firstDelta > 0 && from > 0 && r.firstDelta >= from {
		c.firstDelta.add(r.firstDelta - from)
	}
	if r.hasUsage {
		s.Tokens.RunsWithUsage++
		s.Tokens.Input += r.usageIn
		s.Tokens.Output += r.usageOut
		s.Tokens.Total += r.usageTotal
	}
	addRate(&c.st.Deltas.Agent, r.agentN, r.agentFirst, r.agentLast)
	addRate(&c.st.Deltas.Chat, r.chatN, r.chatFirst, r.chatLast)
}

func addRate(rt *Rate, n int, first, last int64) {
	if n == 0 {
		return
	}
	rt.Events += n
	rt.Runs++
	if n > 1 && last > first {
		rt.spanMs += last - first
		rt.intervals += n - 1
	}
}

func (c *Collector) approval(ev *bridge.Event) {
	a := &c.st.Approvals
	id, _ := jsonx.GetStr(ev.Payload, "id")
	if strings.HasSuffix(ev.Event, ".requested") {
		if !c.pendAp[id] {
			a.Requested++
			if len(c.pendAp) < maxSends {
				c.pendAp[id] = true
			}
		}
		return
	}
	if c.pendAp[id] {
		delete(c.pendAp, id)
		a.Resolved++
		dec, _ := jsonx.GetStr(ev.Payload, "decision")
		countName(a.ByDecision, orNone(dec))
	}
}
