package report

import (
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/gaps"
	"github.com/clawtap/clawtap/pkg/handler"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/policy"
	"github.com/clawtap/clawtap/pkg/replay"
)

// maxLabels bounds the label table: labels come from capture text (event
// names, phases, methods), so a hostile capture could make many.
const maxLabels = 4096

// maxSends bounds the chat.send requests remembered to start their runs.
const maxSends = 4096

// skelPerItem estimates the JSON of one connection, lane, run, approval,
// gap or finding while the pass runs; Finish measures exactly.
const skelPerItem = 256

type laneKey struct{ agent, session string }

type sendKey struct {
	conn int
	id   string
}

type sendInfo struct {
	session string
	i       int
	t       int64
	row     int // index in rows, -1 when the row was elided
}

// runAcc is what the pass tracks for a run beyond Run.
type runAcc struct {
	chatTerm  string
	chatT     int64
	chatI     int
	lifeTerm  string
	lifeT     int64
	lifeI     int
	hasChat   bool
	hasLife   bool
	laneFixed bool // the lane came from a frame with a session key
	// per connection: the same run seen by several clients has its own
	// terminal on each
	conns []connTerm
}

type connTerm struct {
	conn      int
	terminals int
}

func (acc *runAcc) on(conn int) *connTerm {
	for k := range acc.conns {
		if acc.conns[k].conn == conn {
			return &acc.conns[k]
		}
	}
	acc.conns = append(acc.conns, connTerm{conn: conn})
	return &acc.conns[len(acc.conns)-1]
}

// Builder builds a Report from records in one pass.
type Builder struct {
	opts    Options
	rep     Report
	started bool
	done    bool

	sub pipeline.Group // the checker and the stats source, fed by this pass
	t0  int64          // the replay's origin
	st  *replay.State  // the replay's state, from its steps
	f   replay.Formatter

	labels    map[string]int32
	conns     map[int]int
	lanes     map[laneKey]int
	runs      map[string]int
	racc      []runAcc
	approvals map[string]int
	sends     map[sendKey]sendInfo
	sendFIFO  []sendKey
	agentRun  map[string]int // an agent's latest run, for timer-step transcript lines
	filters   map[string]*replay.Filter

	anyClosed bool
	lastBoot  string
	minT      int64
	maxT      int64

	rowBytes  int
	bodyBytes int
	skel      int
	stacks    [3][]slot // live bodies and timer steps by priority, in the order kept
	levels    [3]int    // their bytes

	// the record being processed
	cur struct {
		row      Row
		i        int
		run      int
		replayed bool
		prio     int8
		effects  [][]byte
		diff     [][]byte
	}
	pol      policy.Deriver
	output   []policy.Intent // a chat terminal's intents, for the run's output
	intents  []replay.Intent // the record's intents, from the pass
	findings []Finding
	skipped  int
	skippedC []int
	one      replay.Step
	scratch  []byte
}

// NewBuilder returns a Builder. With no Options.Checker it runs pkg/check
// with its default rules.
func NewBuilder(opts Options) *Builder {
	if opts.Checker == nil {
		opts.Checker = NewCheck(nil)
	}
	if opts.Stats == nil {
		opts.Stats = NewStats()
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.MaxBytes < MinMaxBytes {
		opts.MaxBytes = MinMaxBytes
	}
	b := &Builder{
		opts:      opts,
		labels:    map[string]int32{},
		conns:     map[int]int{},
		lanes:     map[laneKey]int{},
		runs:      map[string]int{},
		approvals: map[string]int{},
		sends:     map[sendKey]sendInfo{},
		agentRun:  map[string]int{},
		filters:   map[string]*replay.Filter{},
	}
	b.sub = pipeline.Group{opts.Checker, opts.Stats}
	b.f.Width = 120 // as clawtap replay prints them; the frame has the whole text
	b.rep.Meta.Name = opts.Name
	b.rep.Summary.MaxBytes = opts.MaxBytes
	return b
}

// Needs is what the report reads from the pass, its checker's and stats'
// needs included.
func (b *Builder) Needs() pipeline.Needs {
	return pipeline.Gaps | pipeline.Intents | pipeline.Replay | b.sub.Needs()
}

// Header takes the capture's header (nil for a file of bare frames).
func (b *Builder) Header(h *capture.Header) {
	b.sub.Header(h)
	if h == nil {
		return
	}
	m := &b.rep.Meta
	m.CreatedAt = h.CreatedAt
	m.Tool, m.Mode, m.URL = h.Source.Tool, h.Source.Mode, h.Source.URL
	m.GatewayVersion, m.Protocol = h.Source.GatewayVersion, h.Source.Protocol
	if h.Redaction != nil {
		m.HasRedaction = true
		m.Credentials, m.Content, m.Marker = h.Redaction.Credentials, h.Redaction.Content, h.Redaction.Marker
		m.NoRedact = !h.Redaction.Credentials
	}
	if len(h.Notes) > 0 {
		if s, ok := jsonx.Str(h.Notes); ok {
			m.Notes = s
		} else {
			m.Notes = string(jsonx.TrimSpace(h.Notes))
		}
		m.Notes = cut(m.Notes, 4096)
	}
}

func (b *Builder) rel(t int64) int64 { return t - b.rep.T0 }

func (b *Builder) label(s string) int32 {
	if id, ok := b.labels[s]; ok {
		return id
	}
	if len(b.rep.Labels) >= maxLabels {
		s = "(other)"
		if id, ok := b.labels[s]; ok {
			return id
		}
	}
	id := int32(len(b.rep.Labels))
	b.labels[s] = id
	b.rep.Labels = append(b.rep.Labels, s)
	b.rowBytes += len(s) + 3
	return id
}

func (b *Builder) lane(agent, session string, t int64) int {
	k := laneKey{agent, session}
	if id, ok := b.lanes[k]; ok {
		return id
	}
	id := len(b.rep.Lanes)
	b.lanes[k] = id
	b.rep.Lanes = append(b.rep.Lanes, Lane{AgentID: agent, SessionKey: session, First: t})
	b.skel += skelPerItem
	return id
}

func agentOf(ev *bridge.Event) string {
	if ev.AgentID != "" {
		return ev.AgentID
	}
	return bridge.SessionAgentID(ev.Session())
}

// run returns the run's index, creating it at this record.
func (b *Builder) run(id, agent, session string, t int64, i, conn int) int {
	if r, ok := b.runs[id]; ok {
		acc := &b.racc[r]
		if !acc.laneFixed && session != "" {
			b.rep.Runs[r].Lane = b.lane(agent, session, t)
			acc.laneFixed = true
		}
		return r
	}
	r := len(b.rep.Runs)
	b.runs[id] = r
	b.rep.Runs = append(b.rep.Runs, Run{ID: id, Lane: b.lane(agent, session, t), Start: t, End: t, Last: t, FirstI: i, LastI: i, TermI: -1})
	b.racc = append(b.racc, runAcc{laneFixed: session != ""})
	b.skel += skelPerItem + len(id)
	return r
}

func (b *Builder) conn(rec *capture.Record, rel int64) *Conn {
	ci, ok := b.conns[rec.Conn]
	if !ok {
		ci = len(b.rep.Conns)
		b.conns[rec.Conn] = ci
		b.rep.Conns = append(b.rep.Conns, Conn{ID: rec.Conn, Open: rel, Close: rel, Last: rel, FirstSeq: -1, Reconnect: b.anyClosed, firstI: rec.Index, hello: -1})
		b.skel += skelPerItem
	}
	return &b.rep.Conns[ci]
}

// Record adds one record. Records must come in capture order; the record
// is not retained.
// Before lays the record out on the timeline: its connection, run, lane
// and approval, before the replay takes it.
func (b *Builder) Before(f *pipeline.Frame) error {
	if b.done {
		return nil
	}
	if err := b.sub.Before(f); err != nil {
		return err
	}
	rec := f.Rec
	if !b.started {
		b.started = true
		b.rep.T0 = rec.T
		b.rep.Follow = rec.Conn
	}
	rel := b.rel(rec.T)
	if rel < b.minT || b.rep.Summary.Records == 0 {
		b.minT = min(rel, b.minT)
	}
	b.maxT = max(b.maxT, rel)
	sum := &b.rep.Summary
	sum.Records++

	ev := f.Event
	row := Row{I: rec.Index, T: rel, Conn: int32(rec.Conn), Dir: -1, Lane: -1, Run: -1, Seq: -1}
	switch rec.Dir {
	case capture.DirIn:
		row.Dir = 0
	case capture.DirOut:
		row.Dir = 1
	}
	if ev.HasSeq {
		row.Seq = ev.Seq
	}

	// Connection life.
	c := b.conn(rec, rel)
	c.Last, c.lastI = rel, rec.Index
	switch {
	case rec.Mark != "":
		sum.Markers++
		switch rec.Mark {
		case capture.MarkOpen:
			if !c.HasOpen {
				c.HasOpen, c.Open = true, rel
			}
			c.URL, c.Peer = cut(rec.URL, 512), cut(rec.Peer, 256)
		case capture.MarkHello:
			c.Server, c.Protocol, c.ConnID, c.BootID = cut(rec.Server, 128), rec.Protocol, cut(rec.ConnID, 128), cut(rec.BootID, 128)
			c.hello = rec.Index
			if b.lastBoot != "" && rec.BootID != "" && rec.BootID != b.lastBoot {
				c.NewBoot = true
			}
			if rec.BootID != "" {
				b.lastBoot = rec.BootID
			}
			if b.rep.Meta.GatewayVersion == "" {
				b.rep.Meta.GatewayVersion = c.Server
			}
			if b.rep.Meta.Protocol == 0 {
				b.rep.Meta.Protocol = rec.Protocol
			}
		case capture.MarkClose:
			c.HasClose, c.Close, c.Code, c.Reason = true, rel, rec.Code, cut(rec.Reason, 512)
			b.anyClosed = true
			sum.Closes++
		case capture.MarkError:
			c.Err = cut(rec.Err, 512)
			if !c.HasClose {
				c.HasClose, c.Close = true, rel
			}
			b.anyClosed = true
		}
	case rec.Malformed || rec.IsRaw || rec.Frame == nil:
		sum.Invalid++
	default:
		sum.Frames++
		if rec.Dir == capture.DirOut {
			sum.FramesOut++
			c.Out++
		} else {
			sum.FramesIn++
			c.In++
		}
		if ev.HasSeq && ev.Type == "event" && rec.Dir != capture.DirOut && c.FirstSeq < 0 {
			c.FirstSeq = ev.Seq
		}
	}

	// What it is, and whose.
	row.Type = int8(typeOf(ev))
	prio := prioPlain
	switch row.Type {
	case TypeMarker, TypeInvalid:
		prio = prioCritical
	case TypeAgentDelta, TypeChatDelta, TypeTraffic, TypeOther:
	default:
		prio = prioKey
	}
	row.Label = b.label(labelOf(rec, ev))
	run, lane := -1, -1
	switch ev.Kind {
	case bridge.RuntimeChat, bridge.RuntimeAgent, bridge.Approval:
		agent := agentOf(ev)
		if ev.RunID != "" {
			run = b.run(ev.RunID, agent, ev.Session(), rel, rec.Index, rec.Conn)
		} else if agent != "" || ev.Session() != "" {
			lane = b.lane(agent, ev.Session(), rel)
		}
	case bridge.Request:
		if ev.Method == "chat.send" && ev.ID != "" {
			sk, _ := jsonx.GetStr(mustPath(rec.Frame, "params"), "sessionKey")
			if sk != "" {
				lane = b.lane(bridge.SessionAgentID(sk), sk, rel)
			}
			b.rememberSend(sendKey{rec.Conn, ev.ID}, sendInfo{session: sk, i: rec.Index, t: rel, row: -1})
		}
	case bridge.Response:
		if ev.Method == "chat.send" {
			if id, ok := jsonx.GetStr(ev.Payload, "runId"); ok && id != "" {
				si, known := b.sends[sendKey{rec.Conn, ev.ID}]
				start, first := rel, rec.Index
				if known {
					start, first = si.t, si.i
				}
				_, existed := b.runs[id]
				run = b.run(id, bridge.SessionAgentID(si.session), si.session, start, first, rec.Conn)
				if known && !existed && si.row >= 0 && si.row < len(b.rep.Rows) && b.rep.Rows[si.row].I == si.i {
					b.rep.Rows[si.row].Run = int32(run)
					b.runFrame(run, si.t, si.i, rec.Conn, TypeSend, ev)
				}
			}
		}
	}
	if run >= 0 {
		r := &b.rep.Runs[run]
		lane = r.Lane
		b.runFrame(run, rel, rec.Index, rec.Conn, int(row.Type), ev)
		if a := agentOf(ev); a != "" {
			b.agentRun[a] = run
		}
	}
	row.Lane, row.Run = int32(lane), int32(run)

	// Approvals.
	switch row.Type {
	case TypeApprovalReq:
		sum.ApprovalsRequested++
		ap := Approval{ID: cut(ev.ID, 256), Lane: lane, Run: run, Req: rel, ReqI: rec.Index, Res: -1, ResI: -1}
		if cmd, ok := jsonx.GetStr(mustPath(ev.Payload, "request"), "command"); ok {
			ap.Command = cut(cmd, 200)
		}
		if ai, ok := b.approvals[ev.ID]; ok && ev.ID != "" {
			b.rep.Approvals[ai].Req, b.rep.Approvals[ai].ReqI = rel, rec.Index
		} else {
			b.approvals[ev.ID] = len(b.rep.Approvals)
			b.rep.Approvals = append(b.rep.Approvals, ap)
			b.skel += skelPerItem
		}
	case TypeApprovalRes:
		sum.ApprovalsResolved++
		dec, _ := jsonx.GetStr(ev.Payload, "decision")
		if ai, ok := b.approvals[ev.ID]; ok {
			a := &b.rep.Approvals[ai]
			if a.ResI < 0 {
				a.Res, a.ResI, a.Decision = rel, rec.Index, cut(dec, 64)
			}
		} else {
			b.approvals[ev.ID] = len(b.rep.Approvals)
			b.rep.Approvals = append(b.rep.Approvals, Approval{ID: cut(ev.ID, 256), Lane: lane, Run: run, Req: rel, ReqI: -1, Res: rel, ResI: rec.Index, Decision: cut(dec, 64)})
			b.skel += skelPerItem
		}
	}

	// The text a chat terminal carries for its run: what the gateway
	// said, whatever the UI does with it.
	if run >= 0 && !b.opts.NoBodies && b.rep.Runs[run].Output == nil && isChatTerminal(ev) {
		b.output = b.pol.Append(b.output[:0], ev)
		b.runOutput(run)
	}

	// The replay follows: timer steps due before this record, then the
	// record's step (Step), then After.
	b.cur.i, b.cur.run, b.cur.replayed, b.cur.prio = rec.Index, run, false, prio
	b.cur.effects, b.cur.diff = b.cur.effects[:0], b.cur.diff[:0]
	b.cur.row = row
	return nil
}

// isChatTerminal reports whether ev is a chat final, aborted or error.
func isChatTerminal(ev *bridge.Event) bool {
	if ev.Kind != bridge.RuntimeChat {
		return false
	}
	switch ev.State {
	case "final", "aborted", "error":
		return true
	}
	return false
}

// Step takes a replay step: a timer step is kept on its own, the record's
// step gives the record's body its effects and state diff.
func (b *Builder) Step(s *replay.Step) error {
	if b.done {
		return nil
	}
	if err := b.sub.Step(s); err != nil {
		return err
	}
	b.t0, b.st = s.T0, s.State
	return b.emit(s)
}

// After pins the record's gaps and findings and keeps its row and body.
func (b *Builder) After(f *pipeline.Frame) error {
	if b.done {
		return nil
	}
	if err := b.sub.After(f); err != nil {
		return err
	}
	rec, ev, row := f.Rec, f.Event, b.cur.row
	sum := &b.rep.Summary
	b.intents = f.Intents
	prio := b.cur.prio

	// Frame seq gaps.
	for _, g := range f.Gaps {
		if g.Kind == gaps.RunSeqJump {
			continue
		}
		prio = prioCritical
		gr, gl := -1, -1
		if g.RunID != "" {
			if r, ok := b.runs[g.RunID]; ok {
				gr, gl = r, b.rep.Runs[r].Lane
			}
		}
		b.rep.Gaps = append(b.rep.Gaps, Gap{Kind: g.Kind, I: g.I, T: b.rel(g.T), Conn: g.Conn, Expected: g.Expected, Received: g.Received, RunID: cut(g.RunID, 256), Lane: gl, Run: gr})
		b.skel += skelPerItem
	}

	// Findings.
	for _, fd := range b.opts.Checker.Findings() {
		b.addFinding(fd)
		prio = prioCritical
	}

	// The row, then the body.
	b.scratch = appendRow(b.scratch[:0], &row)
	// Plain rows stop at their share; key rows at 60% of the limit and
	// critical ones at all of it, so even a capture of nothing but junk
	// keeps memory bounded.
	rowLimit := b.rowShare()
	switch prio {
	case prioKey:
		rowLimit = b.opts.MaxBytes * 6 / 10
	case prioCritical:
		rowLimit = b.opts.MaxBytes
	}
	if b.rowBytes+len(b.scratch)+2 <= rowLimit {
		b.rowBytes += len(b.scratch) + 2
		if row.Type == TypeSend && ev.Kind == bridge.Request {
			if k := (sendKey{rec.Conn, ev.ID}); b.sends[k].i == rec.Index {
				si := b.sends[k]
				si.row = len(b.rep.Rows)
				b.sends[k] = si
			}
		}
		b.rep.Rows = append(b.rep.Rows, row)
	} else {
		sum.RowsElided++
	}
	if !b.opts.NoBodies {
		b.body(rec, ev, prio)
	}
	return nil
}

// runFrame counts a frame of a run.
func (b *Builder) runFrame(run int, rel int64, i, conn, typ int, ev *bridge.Event) {
	r, acc := &b.rep.Runs[run], &b.racc[run]
	r.Frames++
	if rel < r.Start {
		r.Start = rel
	}
	if rel >= r.Last {
		r.Last, r.LastI = rel, i
	}
	if i < r.FirstI {
		r.FirstI = i
	}
	if !slices.Contains(r.Conns, conn) {
		r.Conns = append(r.Conns, conn)
	}
	ct := acc.on(conn)
	if ct.terminals > 0 && typ != TypeSend {
		r.Late++ // after the terminal on its own connection
	}
	switch typ {
	case TypeAgentDelta:
		r.AgentDeltas++
	case TypeChatDelta:
		r.ChatDeltas++
	case TypeTool:
		r.Tools++
	case TypeApprovalReq:
		r.Approvals++
	case TypeFinal, TypeAborted, TypeError:
		if ct.terminals > 0 {
			r.Late-- // a second terminal is counted as such, not as late
		}
		ct.terminals++
		r.Terminals = max(r.Terminals, ct.terminals)
		if !acc.hasChat {
			acc.hasChat, acc.chatT, acc.chatI, acc.chatTerm = true, rel, i, TypeNames[typ]
		}
	case TypeLifecycle:
		if !acc.hasLife && (ev.Phase == "end" || ev.Phase == "error") {
			acc.hasLife, acc.lifeT, acc.lifeI = true, rel, i
			acc.lifeTerm = TermLifecycleEnd
			if ev.Phase == "error" {
				acc.lifeTerm = TermLifecycleError
			}
		}
	}
}

func (b *Builder) rememberSend(k sendKey, si sendInfo) {
	if _, ok := b.sends[k]; !ok {
		if len(b.sendFIFO) >= maxSends {
			delete(b.sends, b.sendFIFO[0])
			b.sendFIFO = b.sendFIFO[1:]
		}
		b.sendFIFO = append(b.sendFIFO, k)
	}
	b.sends[k] = si
}

func mustPath(obj []byte, keys ...string) []byte {
	v, _ := jsonx.GetPath(obj, keys...)
	return v
}

// typeOf places a classified record on the timeline.
func typeOf(ev *bridge.Event) int {
	switch ev.Kind {
	case bridge.Marker:
		return TypeMarker
	case bridge.Invalid:
		return TypeInvalid
	case bridge.RuntimeChat:
		switch ev.State {
		case "delta":
			return TypeChatDelta
		case "final":
			return TypeFinal
		case "aborted":
			return TypeAborted
		case "error":
			return TypeError
		}
		return TypeOther
	case bridge.RuntimeAgent:
		switch {
		case ev.Stream == "lifecycle":
			return TypeLifecycle
		case ev.Stream == "assistant" || bridge.IsReasoningStream(ev.Stream):
			return TypeAgentDelta
		case ev.Stream == "tool" && ev.Phase == "start":
			return TypeTool
		case ev.Stream == "tool" && (ev.Phase == "result" || ev.Phase == "end"):
			return TypeToolResult
		}
		return TypeOther
	case bridge.Approval:
		if ev.Event == "exec.approval.resolved" {
			return TypeApprovalRes
		}
		return TypeApprovalReq
	case bridge.Request, bridge.Response:
		if ev.Method == "chat.send" {
			return TypeSend
		}
	}
	return TypeTraffic
}

// labelOf names a record in a few words: "chat delta", "agent lifecycle
// end", "res chat.send", "mark close 1012".
func labelOf(rec *capture.Record, ev *bridge.Event) string {
	switch ev.Kind {
	case bridge.Marker:
		s := "mark " + rec.Mark
		if rec.Code != 0 {
			s += " " + strconv.Itoa(rec.Code)
		}
		return s
	case bridge.Invalid:
		switch {
		case rec.Malformed:
			return "malformed line"
		case rec.IsRaw || rec.Frame == nil:
			return "raw message"
		}
		return "invalid frame"
	case bridge.RuntimeChat:
		s := "chat " + cut(ev.State, 40)
		if ev.State == "status" && ev.Phase != "" {
			s += " " + cut(ev.Phase, 40)
		}
		return s
	case bridge.RuntimeAgent:
		s := "agent " + cut(ev.Stream, 40)
		if ev.Phase != "" {
			s += " " + cut(ev.Phase, 40)
		}
		return s
	case bridge.Request:
		return "req " + cut(ev.Method, 60)
	case bridge.Response:
		m := ev.Method
		if m == "" {
			m = "(unmatched)"
		}
		s := "res " + cut(m, 60)
		if ev.OK != nil && !*ev.OK {
			s += " failed"
			if ev.Code != "" {
				s += " " + cut(ev.Code, 40)
			}
		}
		return s
	}
	if ev.Event == "" {
		return "event"
	}
	return cut(ev.Event, 80)
}

// cut shortens s to at most n bytes on a UTF-8 boundary, marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// ---- replay steps ----

// itemText renders one intent, effect or diff entry the way `clawtap
// replay` prints it, without the line's marker.
func (b *Builder) itemText(dst []byte) []byte {
	b.one.Timer, b.one.I, b.one.T = "x", 0, b.rep.T0
	b.f.T0 = b.t0
	b.scratch = b.f.AppendStepText(b.scratch[:0], &b.one)
	s := b.scratch
	for i, c := range s {
		if c == '\n' {
			s = s[i+1:]
			break
		}
	}
	if len(s) > 2 && s[0] == ' ' && s[1] == ' ' {
		s = s[2:]
		_, size := utf8.DecodeRune(s)
		s = s[size:]
		if len(s) > 0 && s[0] == ' ' {
			s = s[1:]
		}
	}
	for len(s) > 0 && s[len(s)-1] == '\n' {
		s = s[:len(s)-1]
	}
	return jsonx.AppendString(dst, string(s))
}

func (b *Builder) intentText(dst []byte, in replay.Intent) []byte {
	b.one.Intents, b.one.Effects, b.one.Diff = append(b.one.Intents[:0], in), b.one.Effects[:0], b.one.Diff[:0]
	return b.itemText(dst)
}

func (b *Builder) effectText(dst []byte, e *replay.Effect) []byte {
	b.one.Intents, b.one.Effects, b.one.Diff = b.one.Intents[:0], append(b.one.Effects[:0], *e), b.one.Diff[:0]
	return b.itemText(dst)
}

func (b *Builder) diffText(dst []byte, c *replay.Change) []byte {
	b.one.Intents, b.one.Effects, b.one.Diff = b.one.Intents[:0], b.one.Effects[:0], append(b.one.Diff[:0], *c)
	return b.itemText(dst)
}

// emit receives the replay engine's steps.
func (b *Builder) emit(s *replay.Step) error {
	if s.Timer != "" {
		b.timerStep(s)
		return nil
	}
	b.cur.replayed = true
	for k := range s.Effects {
		e := &s.Effects[k]
		if e.Type == replay.EffGuard {
			p := prioKey
			if e.Action == handler.Hazard {
				p = prioCritical
			}
			b.cur.prio = max(b.cur.prio, p)
		}
		if b.wantBody() {
			b.cur.effects = append(b.cur.effects, b.effectText(nil, e))
		}
	}
	if !b.opts.NoBodies {
		b.transcripts(s.Effects, b.cur.run)
	}
	if b.wantBody() {
		for k := range s.Diff {
			b.cur.diff = append(b.cur.diff, b.diffText(nil, &s.Diff[k]))
		}
	}
	return nil
}

// timerStep keeps a timer step that changed something, once per agent it
// touched, narrowed to that agent.
func (b *Builder) timerStep(s *replay.Step) {
	if !s.Changed() {
		return
	}
	if b.opts.NoBodies {
		return
	}
	b.transcripts(s.Effects, -1)
	if !b.canFit(256, prioPlain) {
		b.rep.Summary.TimersElided++
		return
	}
	st := b.st
	b.f.T0 = b.t0
	for _, id := range st.AgentIDs() {
		flt := b.filters[id]
		if flt == nil {
			flt = &replay.Filter{Agent: id}
			if len(b.filters) < 4096 {
				b.filters[id] = flt
			}
		}
		fs := flt.Apply(s, st)
		if fs == nil || !fs.Changed() {
			continue
		}
		var j []byte
		j = append(j, `{"after":`...)
		j = strconv.AppendInt(j, int64(s.I), 10)
		j = append(j, `,"t":`...)
		j = strconv.AppendInt(j, b.rel(s.T), 10)
		j = append(j, `,"timer":`...)
		j = jsonx.AppendString(j, s.Timer)
		j = append(j, `,"agent":`...)
		j = jsonx.AppendString(j, id)
		j = append(j, `,"effects":[`...)
		for k := range fs.Effects {
			if k > 0 {
				j = append(j, ',')
			}
			j = b.effectText(j, &fs.Effects[k])
		}
		j = append(j, `],"diff":[`...)
		for k := range fs.Diff {
			if k > 0 {
				j = append(j, ',')
			}
			j = b.diffText(j, &fs.Diff[k])
		}
		j = append(j, "]}"...)
		if !b.room(len(j)+2, prioPlain) {
			b.rep.Summary.TimersElided++
			continue
		}
		b.keep(slot{timer: true, k: len(b.rep.Timers)}, prioPlain, len(j)+2)
		b.rep.Timers = append(b.rep.Timers, Timer{After: s.I, Agent: id, JSON: j})
	}
}

// transcripts copies the lines a step's append and history effects added
// to transcripts into their runs: an append goes to the record's run (run
// -1: the agent's latest), a history merge to the run it names. The lines
// of one step are the newest ones of each agent's transcript, in effect
// order.
func (b *Builder) transcripts(effects []replay.Effect, run int) {
	var total map[string]int
	for k := range effects {
		if e := &effects[k]; (e.Type == replay.EffAppend || e.Type == replay.EffHistory) && e.Count > 0 {
			if total == nil {
				total = map[string]int{}
			}
			total[e.AgentID] += int(e.Count)
		}
	}
	if total == nil {
		return
	}
	seen := map[string]int{}
	for k := range effects {
		e := &effects[k]
		if (e.Type != replay.EffAppend && e.Type != replay.EffHistory) || e.Count <= 0 {
			continue
		}
		a := b.st.Agent(e.AgentID)
		if a == nil {
			continue
		}
		lines := a.Lines()
		from := len(lines) - total[e.AgentID] + seen[e.AgentID]
		seen[e.AgentID] += int(e.Count)
		to := min(from+int(e.Count), len(lines))
		from = max(from, 0)
		r, ok := run, run >= 0
		if e.Type == replay.EffHistory {
			r, ok = b.runs[e.RunID]
		}
		if !ok {
			r, ok = b.agentRun[e.AgentID]
		}
		if !ok || from >= to {
			continue
		}
		via := ""
		if e.Type == replay.EffHistory {
			via = "history"
		}
		b.addLines(r, lines[from:to], via)
	}
}

func (b *Builder) addLines(run int, lines []replay.Line, via string) {
	r := &b.rep.Runs[run]
	for _, l := range lines {
		text := cut(l.Text, MaxLineText)
		size := len(text) + 48
		if !b.room(size, prioKey) {
			r.TranscriptElided++
			continue
		}
		b.bodyBytes += size
		r.Transcript = append(r.Transcript, Line{Kind: l.Kind, T: b.rel(l.TS), Text: text, Via: via})
	}
}

// runOutput keeps the output lines of the run's first commitChat: what the
// gateway's terminal said, whether or not the UI committed it.
func (b *Builder) runOutput(run int) {
	r := &b.rep.Runs[run]
	if r.Output != nil {
		return
	}
	for k := range b.output {
		in := &b.output[k]
		if in.Kind != policy.CommitChat {
			continue
		}
		r.Output = []string{}
		for _, l := range in.Lines {
			l = cut(l, MaxLineText)
			if !b.room(len(l)+8, prioKey) {
				r.TranscriptElided++
				continue
			}
			b.bodyBytes += len(l) + 8
			r.Output = append(r.Output, l)
		}
		return
	}
}

// Body priorities: when the budget runs short, plain bodies (deltas,
// traffic) go first, then key ones (run starts and terminals, lifecycle,
// tool calls, approvals, chat.send, replay guard decisions), and critical ones (markers, invalid
// records, gaps, records with findings, replay hazards) last.
const (
	prioPlain int8 = iota
	prioKey
	prioCritical
)

// rowShare is the part of MaxBytes the timeline's plain rows may take.
func (b *Builder) rowShare() int { return b.opts.MaxBytes * 3 / 10 }

// slot names a kept body (or timer step) for eviction.
type slot struct {
	timer bool
	k     int
}

func (b *Builder) keep(s slot, prio int8, size int) {
	b.stacks[prio] = append(b.stacks[prio], s)
	b.levels[prio] += size
	b.bodyBytes += size
}

// over is how many bytes past MaxBytes the data would be with size more.
func (b *Builder) over(size int) int {
	return b.skel + b.rowBytes + b.bodyBytes + size - b.opts.MaxBytes
}

// canFit reports whether a body of size bytes and priority prio can be
// kept, evicting bodies of lower priority if need be.
func (b *Builder) canFit(size int, prio int8) bool {
	over := b.over(size)
	for l := prioPlain; l < prio && over > 0; l++ {
		over -= b.levels[l]
	}
	return over <= 0
}

// room makes room for size bytes of priority prio: when the budget is
// spent, the most recently kept bodies of lower priority are elided, plain
// ones first. It reports whether the body may be kept.
func (b *Builder) room(size int, prio int8) bool {
	if !b.canFit(size, prio) {
		return false
	}
	for l := prioPlain; l < prio && b.over(size) > 0; l++ {
		b.evict(l, b.over(size))
	}
	return true
}

// evict drops the latest kept bodies of one priority until need bytes are
// free or none is left.
func (b *Builder) evict(prio int8, need int) {
	st := b.stacks[prio]
	for len(st) > 0 && need > 0 {
		s := st[len(st)-1]
		st = st[:len(st)-1]
		var n int
		if s.timer {
			n = len(b.rep.Timers[s.k].JSON) + 2
			b.rep.Timers[s.k].JSON = nil
			b.rep.Summary.TimersElided++
		} else {
			n = len(b.rep.Bodies[s.k].JSON) + 2
			b.rep.Bodies[s.k].JSON = nil
			b.rep.Summary.BodiesElided++
		}
		b.levels[prio] -= n
		b.bodyBytes -= n
		need -= n
	}
	b.stacks[prio] = st
}

// wantBody reports whether the current record's body could still be kept;
// it saves formatting work once the budget is spent.
func (b *Builder) wantBody() bool { return !b.opts.NoBodies && b.canFit(256, b.cur.prio) }

// body serialises the record's details and keeps them if they fit.
func (b *Builder) body(rec *capture.Record, ev *bridge.Event, prio int8) {
	if !b.canFit(128, prio) {
		b.rep.Summary.BodiesElided++
		return
	}
	var text string
	switch {
	case rec.Mark != "":
		l := rec.AppendJSON(nil)
		text = string(l[:len(l)-1])
	case rec.Frame != nil:
		text = string(rec.Frame)
	default:
		text = string(rec.Raw)
	}
	cutBytes := 0
	if len(text) > MaxFrameText {
		c := cut(text, MaxFrameText)
		cutBytes = len(text) - (len(c) - len("…"))
		text = c
		b.rep.Summary.FramesCut++
	}
	var j []byte
	j = append(j, `{"i":`...)
	j = strconv.AppendInt(j, int64(rec.Index), 10)
	j = append(j, `,"line":`...)
	j = strconv.AppendInt(j, int64(rec.Line), 10)
	j = append(j, `,"frame":`...)
	j = jsonx.AppendString(j, text)
	if cutBytes > 0 {
		j = append(j, `,"cut":`...)
		j = strconv.AppendInt(j, int64(cutBytes), 10)
	}
	if ev.Kind == bridge.Invalid && ev.Reason != "" {
		j = append(j, `,"reason":`...)
		j = jsonx.AppendString(j, ev.Reason)
	}
	j = append(j, `,"intents":[`...)
	for k := range b.intents {
		if k > 0 {
			j = append(j, ',')
		}
		j = b.intentText(j, b.intents[k])
	}
	j = append(j, ']')
	if !b.cur.replayed {
		j = append(j, `,"replayed":false`...)
	}
	if len(b.cur.effects) > 0 {
		j = append(j, `,"effects":[`...)
		for k, e := range b.cur.effects {
			if k > 0 {
				j = append(j, ',')
			}
			j = append(j, e...)
		}
		j = append(j, ']')
	}
	if len(b.cur.diff) > 0 {
		j = append(j, `,"diff":[`...)
		for k, d := range b.cur.diff {
			if k > 0 {
				j = append(j, ',')
			}
			j = append(j, d...)
		}
		j = append(j, ']')
	}
	j = append(j, '}')
	if !b.room(len(j)+2, prio) {
		b.rep.Summary.BodiesElided++
		return
	}
	b.keep(slot{k: len(b.rep.Bodies)}, prio, len(j)+2)
	b.rep.Bodies = append(b.rep.Bodies, Body{I: rec.Index, Prio: prio, JSON: j})
}

// ---- findings ----

func (b *Builder) addFinding(f Finding) {
	f.Message = cut(f.Message, 2048)
	lane, run := -1, -1
	if f.RunID != "" {
		if r, ok := b.runs[f.RunID]; ok {
			run = r
		}
	}
	if run < 0 && (f.AgentID != "" || f.SessionKey != "") {
		agent := f.AgentID
		if agent == "" {
			agent = bridge.SessionAgentID(f.SessionKey)
		}
		if l, ok := b.lanes[laneKey{agent, f.SessionKey}]; ok {
			lane = l
		}
	}
	b.rep.Findings = append(b.rep.Findings, PinnedFinding{Finding: f, Lane: lane, Run: run})
	b.skel += skelPerItem + len(f.Message)
}

// ---- the end ----

// End closes the runs and completes the report (see Report); the replay
// has drained its timers by now. The Builder takes no more records.
func (b *Builder) End(e *pipeline.End) error {
	if b.done {
		return nil
	}
	if err := b.sub.End(e); err != nil {
		return err
	}
	b.done = true
	b.cur.run = -1
	rep := &b.rep
	rep.Meta.Truncated = e.Stats.Truncated
	if e.Engine != nil {
		b.skipped, b.skippedC = e.Engine.Skipped()
		rep.Meta.UI = e.Engine.State().UI()
	}
	sum := &rep.Summary
	sum.Start, sum.End = b.minT, b.maxT
	for _, f := range b.opts.Checker.Findings() {
		b.addFinding(f)
	}

	// Runs: terminals, ends, counts.
	for k := range rep.Runs {
		r, acc := &rep.Runs[k], &b.racc[k]
		switch {
		case acc.hasChat:
			r.Terminal, r.End, r.TermI = acc.chatTerm, acc.chatT, acc.chatI
		case acc.hasLife:
			r.Terminal, r.End, r.TermI = acc.lifeTerm, acc.lifeT, acc.lifeI
		default:
			r.Terminal, r.End = TermNone, b.maxT
		}
		r.End = max(r.End, r.Start)
		slices.Sort(r.Conns)
		switch r.Terminal {
		case TermFinal:
			sum.RunsFinal++
		case TermAborted:
			sum.RunsAborted++
		case TermError:
			sum.RunsError++
		case TermLifecycleEnd, TermLifecycleError:
			sum.RunsLifecycleOnly++
		default:
			sum.RunsUnfinished++
		}
		sum.AgentDeltas += r.AgentDeltas
		sum.ChatDeltas += r.ChatDeltas
		sum.ToolCalls += r.Tools
	}
	sum.Runs = len(rep.Runs)

	// Rows follow their run's final lane.
	for k := range rep.Rows {
		if r := rep.Rows[k].Run; r >= 0 {
			rep.Rows[k].Lane = int32(rep.Runs[r].Lane)
		}
	}
	for k := range rep.Approvals {
		if r := rep.Approvals[k].Run; r >= 0 {
			rep.Approvals[k].Lane = rep.Runs[r].Lane
		}
	}
	for k := range rep.Gaps {
		if r := rep.Gaps[k].Run; r >= 0 {
			rep.Gaps[k].Lane = rep.Runs[r].Lane
		}
	}
	for k := range rep.Findings {
		f := &rep.Findings[k]
		if f.Run < 0 && f.RunID != "" {
			if r, ok := b.runs[f.RunID]; ok {
				f.Run = r
			}
		}
		if f.Run >= 0 {
			f.Lane = rep.Runs[f.Run].Lane
		}
	}

	b.compactLanes()
	rep.View = viewRange(rep.Rows, b.minT, b.maxT)

	// Lanes: runs stack in tracks when they overlap.
	byLane := make([][]int, len(rep.Lanes))
	for k := range rep.Runs {
		l := rep.Runs[k].Lane
		byLane[l] = append(byLane[l], k)
	}
	agents := map[string]bool{}
	for l := range rep.Lanes {
		ln := &rep.Lanes[l]
		ln.Runs = len(byLane[l])
		if ln.AgentID != "" {
			agents[ln.AgentID] = true
		}
		ids := byLane[l]
		slices.SortStableFunc(ids, func(x, y int) int {
			return cmpInt64(rep.Runs[x].Start, rep.Runs[y].Start)
		})
		var ends []int64
		for _, id := range ids {
			r := &rep.Runs[id]
			until := max(r.End, r.Last)
			t := 0
			for t < len(ends) && ends[t] >= r.Start {
				t++
			}
			if t == len(ends) {
				ends = append(ends, until)
			} else {
				ends[t] = until
			}
			r.Track = t
		}
		ln.Tracks = max(len(ends), 1)
	}
	sum.Lanes, sum.Agents = len(rep.Lanes), len(agents)

	// Connections.
	sum.Connections = len(rep.Conns)
	for k := range rep.Conns {
		c := &rep.Conns[k]
		if !c.HasClose {
			c.Close = c.Last
		}
		if c.Reconnect {
			sum.Reconnects++
		}
	}
	for _, g := range rep.Gaps {
		switch g.Kind {
		case gaps.Gap:
			sum.Gaps++
			sum.Missing += max(g.Received-g.Expected, 0)
		case gaps.Duplicate:
			sum.Duplicates++
		case gaps.Backwards:
			sum.Backwards++
		case gaps.GatewayGap:
			sum.GatewayGaps++
		}
	}

	// Findings: in capture order, then by rule, for a stable list.
	slices.SortStableFunc(rep.Findings, func(x, y PinnedFinding) int {
		xi, yi := x.I, y.I
		if xi < 0 {
			xi = int(^uint(0) >> 1)
		}
		if yi < 0 {
			yi = int(^uint(0) >> 1)
		}
		if xi != yi {
			return xi - yi
		}
		if x.Rule != y.Rule {
			if x.Rule < y.Rule {
				return -1
			}
			return 1
		}
		return 0
	})
	for _, f := range rep.Findings {
		switch f.Severity {
		case "error":
			sum.FindingsError++
		case "warn":
			sum.FindingsWarn++
		default:
			sum.FindingsInfo++
		}
	}
	if js, err := b.opts.Stats.JSON(); err == nil && len(js) > 0 {
		rep.Stats = js
	}

	// Notes.
	if n, conns := b.skipped, b.skippedC; n > 0 {
		rep.Notes = append(rep.Notes, "replay followed the UI's connection; "+strconv.Itoa(n)+" record(s) of concurrent connection(s) "+joinInts(conns)+" (other clients) have intents but no replayed effects or state diff")
	}
	b.trim()
	return nil
}

// Report is the report, complete once the pass has ended.
func (b *Builder) Report() *Report { return &b.rep }

// compactLanes drops lanes that ended up with nothing on them (a run's
// first frame can open a lane before a later frame names its session).
func (b *Builder) compactLanes() {
	rep := &b.rep
	used := make([]bool, len(rep.Lanes))
	for _, r := range rep.Runs {
		used[r.Lane] = true
	}
	for _, row := range rep.Rows {
		if row.Lane >= 0 && row.Run < 0 {
			used[row.Lane] = true
		}
	}
	for _, f := range rep.Findings {
		if f.Lane >= 0 && f.Run < 0 {
			used[f.Lane] = true
		}
	}
	for _, a := range rep.Approvals {
		if a.Lane >= 0 && a.Run < 0 {
			used[a.Lane] = true
		}
	}
	for _, g := range rep.Gaps {
		if g.Lane >= 0 && g.Run < 0 {
			used[g.Lane] = true
		}
	}
	remap := make([]int, len(rep.Lanes))
	var lanes []Lane
	for k, l := range rep.Lanes {
		remap[k] = -1
		if used[k] {
			remap[k] = len(lanes)
			lanes = append(lanes, l)
		}
	}
	if len(lanes) == len(rep.Lanes) {
		return
	}
	rep.Lanes = lanes
	for k := range rep.Runs {
		rep.Runs[k].Lane = remap[rep.Runs[k].Lane]
	}
	for k := range rep.Rows {
		if l := rep.Rows[k].Lane; l >= 0 {
			rep.Rows[k].Lane = int32(remap[l])
		}
	}
	for k := range rep.Findings {
		if l := rep.Findings[k].Lane; l >= 0 {
			rep.Findings[k].Lane = remap[l]
		}
	}
	for k := range rep.Approvals {
		if l := rep.Approvals[k].Lane; l >= 0 {
			rep.Approvals[k].Lane = remap[l]
		}
	}
	for k := range rep.Gaps {
		if l := rep.Gaps[k].Lane; l >= 0 {
			rep.Gaps[k].Lane = remap[l]
		}
	}
}

// viewRange is the time range the page opens on: all records, unless some
// have absurd times (a bare frame without a timestamp, a corrupt line, a
// clock jump): a record further from the median than a day and a hundred
// times the interquartile range is left out of the initial view (it stays
// on the timeline).
func viewRange(rows []Row, lo, hi int64) [2]int64 {
	if len(rows) < 4 {
		return [2]int64{lo, hi}
	}
	ts := make([]int64, len(rows))
	for k, r := range rows {
		ts[k] = r.T
	}
	slices.Sort(ts)
	n := len(ts)
	med, iqr := ts[n/2], ts[3*n/4]-ts[n/4]
	far := max(100*iqr, 24*3600*1000)
	a, z := hi, lo
	for _, t := range ts {
		if t >= med-far && t <= med+far {
			a, z = min(a, t), max(z, t)
		}
	}
	if a > z {
		return [2]int64{lo, hi}
	}
	return [2]int64{a, z}
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func joinInts(xs []int) string {
	var s []byte
	for k, x := range xs {
		if k > 0 {
			s = append(s, ", "...)
		}
		s = strconv.AppendInt(s, int64(x), 10)
	}
	return string(s)
}

// trim makes the whole embedded data fit in MaxBytes, measured exactly:
// it elides the latest plain bodies first, then key ones, then critical
// ones, then transcripts; then it writes the elision notes.
func (b *Builder) trim() {
	rep := &b.rep
	sum := &rep.Summary
	bodies, timers := rep.Bodies, rep.Timers
	rep.Bodies, rep.Timers = nil, nil
	skel := len(AppendData(nil, rep)) + 1024 // room for the counts and notes written below
	rep.Bodies, rep.Timers = bodies, timers
	b.skel, b.rowBytes = skel, 0
	b.bodyBytes = b.levels[prioPlain] + b.levels[prioKey] + b.levels[prioCritical]
	for _, l := range []int8{prioPlain, prioKey, prioCritical} {
		if o := b.over(0); o > 0 {
			b.evict(l, o)
		}
	}
	for k := len(rep.Runs) - 1; k >= 0 && b.over(0) > 0; k-- {
		r := &rep.Runs[k]
		n := 0
		for _, l := range r.Transcript {
			n += len(l.Text) + 48
		}
		for _, l := range r.Output {
			n += len(l) + 8
		}
		if n == 0 {
			continue
		}
		r.TranscriptElided += len(r.Transcript) + len(r.Output)
		r.Transcript, r.Output = nil, []string{}
		b.skel -= n
	}
	rep.Bodies, rep.Timers = nil, nil
	for _, x := range bodies {
		if x.JSON != nil {
			rep.Bodies = append(rep.Bodies, x)
		}
	}
	for _, x := range timers {
		if x.JSON != nil {
			rep.Timers = append(rep.Timers, x)
		}
	}
	sum.Bodies = len(rep.Bodies)
	mb := strconv.FormatFloat(float64(b.opts.MaxBytes)/1e6, 'f', -1, 64) + " MB"
	if sum.BodiesElided > 0 || sum.TimersElided > 0 {
		rep.Notes = append(rep.Notes, "the details (frame text, intents, effects, state diff) of "+strconv.Itoa(sum.BodiesElided)+" of "+strconv.Itoa(sum.Records)+" record(s), and "+strconv.Itoa(sum.TimersElided)+" replay timer step(s), were elided to keep the report's data under "+mb+" (--max-bytes); markers, findings, run starts and terminals, approvals, tool calls and gaps were kept first. clawtap replay and classify show everything")
	}
	if sum.RowsElided > 0 {
		rep.Notes = append(rep.Notes, strconv.Itoa(sum.RowsElided)+" tick(s) were left off the timeline (deltas and traffic first): the timeline's rows would take more than 30% of "+mb+" (--max-bytes)")
	}
	if sum.FramesCut > 0 {
		rep.Notes = append(rep.Notes, strconv.Itoa(sum.FramesCut)+" frame(s) longer than "+strconv.Itoa(MaxFrameText>>10)+" KiB are shown cut")
	}
	elided := 0
	for _, r := range rep.Runs {
		elided += r.TranscriptElided
	}
	if elided > 0 {
		rep.Notes = append(rep.Notes, strconv.Itoa(elided)+" transcript line(s) were elided by the size limit")
	}
}
