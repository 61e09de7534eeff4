package report

import (
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/finding"
	"github.com/clawtap/clawtap/pkg/gaps"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/outcome"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/replay"
	"github.com/clawtap/clawtap/pkg/runs"
	"github.com/clawtap/clawtap/pkg/ui"
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
	row     int // where its row's owner is (Rows.add), -1 when the row was elided
}

// connTerm counts a run's chat terminals on one connection: the same run
// seen by several clients has its own terminal on each.
type connTerm struct {
	conn      int32
	terminals int32
	// A run's tool calls as this connection saw them: agent tool stream
	// starts (only the connection that sent the message gets those) and
	// agent item starts of kind tool (every connection gets those). A
	// run's count is the most any connection saw of either, so the
	// sender's two views of one call count once.
	tools, toolItems int32
}

func (r *Run) on(conn int) *connTerm {
	for k := range r.conns {
		if r.conns[k].conn == int32(conn) {
			return &r.conns[k]
		}
	}
	r.conns = append(r.conns, connTerm{conn: int32(conn)})
	return &r.conns[len(r.conns)-1]
}

// Builder builds a Report from records in one pass: an observer of the
// pass (pipeline.Observer), of its run table (pipeline.TableObserver,
// pipeline.RunObserver) and of its findings (pipeline.FindingObserver).
type Builder struct {
	opts    Options
	rep     Report
	started bool
	done    bool
	err     error // a run let go out of order (RunDone), returned by End

	table *runs.Table
	field runs.Field[Run] // what the report knows of each run the table holds
	gone  goneRuns
	t0    int64         // the replay's origin
	st    *replay.State // the replay's state, from its steps
	f     replay.Formatter

	labels    map[string]int32
	labelKeys map[labelKey]int32
	lastLabel [TypeInvalid + 1]lastLabel
	conns     map[int]int
	lanes     map[laneKey]int
	approvals map[string]int
	sends     map[sendKey]sendInfo
	sendFIFO  []sendKey
	agentRun  map[string]*runs.Run // an agent's latest run, for timer-step transcript lines
	// the last agent and run written to agentRun
	lastAgent    string
	lastAgentRun *runs.Run
	filters      map[string]*replay.Filter

	anyClosed bool
	lastBoot  string
	minT      int64
	maxT      int64

	rowBytes   int
	bodyBytes  int
	skel       int
	stacks     [3][]slot // live bodies and timer steps by priority, in the order kept
	timerSteps int       // the timer steps that changed something, so far: each Timer's step
	levels     [3]int    // their bytes
	linesCut   int       // transcript lines elided, all runs' TranscriptElided summed

	// the record being processed
	cur struct {
		row      Row
		run      *Run // its run's state, nil for none
		replayed bool
		prio     int8
		// its replay step, valid until After: its effects and state diff
		// are written once the body's priority is known and only if the
		// body may fit
		step *replay.Step
	}
	intents   []ui.Intent   // the record's intents, from the pass
	held      []heldFinding // findings not pinned yet
	findLanes []bool        // the lanes a finding without a run is on
	skipped   int
	skippedC  []int
	scratch   []byte
	textBuf   []byte // a text on its way to the spool
	buf       []byte // a body or timer step being written
	mark      []byte // a marker's line
}

// NewBuilder returns a Builder. It shows the findings of the Reporters in
// its pass (pkg/check's, typically), and the header's numbers of
// Options.Stats: none of its own.
func NewBuilder(opts Options) *Builder {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.MaxBytes < MinMaxBytes {
		opts.MaxBytes = MinMaxBytes
	}
	b := &Builder{
		opts:      opts,
		labels:    map[string]int32{},
		labelKeys: map[labelKey]int32{},
		conns:     map[int]int{},
		lanes:     map[laneKey]int{},
		approvals: map[string]int{},
		sends:     map[sendKey]sendInfo{},
		agentRun:  map[string]*runs.Run{},
		filters:   map[string]*replay.Filter{},
	}
	b.f.Width = 120 // as clawtap replay prints them; the frame has the whole text
	b.rep.Meta.Name = opts.Name
	b.rep.Meta.NoRedact, b.rep.Meta.RedactedOnRead = opts.ShowsCredentials, opts.RedactedOnRead
	if len(opts.UIs) > 1 {
		b.rep.Meta.UIs = slices.Clone(opts.UIs)
	}
	b.rep.Summary.MaxBytes = opts.MaxBytes
	b.rep.spool = &spool{dir: opts.TempDir, slack: int64(opts.MaxBytes)}
	b.rep.text = &spool{dir: opts.TempDir} // only appended to: never compacted
	// The runs, the findings and the rows have spools of their own: each
	// is read in order at the end (the rows' on a goroutine of its own,
	// see rowtext.go), rather than spread among the runs' texts.
	b.rep.runs = newRunList(&spool{dir: opts.TempDir})
	b.rep.finds = &findingStore{sp: &spool{dir: opts.TempDir}}
	b.rep.Rows.sp = &spool{dir: opts.TempDir}
	return b
}

// Needs is what the report reads from the pass.
func (b *Builder) Needs() pipeline.Needs {
	return pipeline.Gaps | pipeline.Intents | pipeline.Replay | pipeline.Runs
}

// Table takes the pass's run table, in whose runs the report keeps what it
// knows of each until the pass lets it go.
func (b *Builder) Table(t *runs.Table) {
	b.table, b.field = t, runs.NewField[Run](t)
}

// Header takes the capture's header (nil for a file of bare frames).
func (b *Builder) Header(h *capture.Header) {
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
		m.NoRedact = m.NoRedact || !h.Redaction.Credentials && !b.opts.RedactedOnRead
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

// run is what the report knows of run r, made at its first frame, which
// is at time t, record i, and names agent and session.
func (b *Builder) run(r *runs.Run, agent, session string, t int64, i int) *Run {
	x := b.field.Peek(r)
	if x == nil {
		x = b.field.Of(r)
		*x = Run{N: r.N, ID: r.ID, Lane: b.lane(agent, session, t), Start: t, End: t, Last: t, FirstI: i, LastI: i, TermI: -1, laneFixed: session != "", Reopened: r.Reopened}
		b.skel += skelPerItem + len(r.ID)
	} else if !x.laneFixed && session != "" {
		x.Lane = b.lane(agent, session, t)
		x.laneFixed = true
	}
	return x
}

// state is what the report knows of run r while the table holds it; nil
// for none.
func (b *Builder) state(r *runs.Run) *Run {
	if r == nil {
		return nil
	}
	return b.field.Peek(r)
}

// runNamed is what the report knows of the run the table holds under id
// (the record's own, mostly); nil for none.
func (b *Builder) runNamed(id string) *Run {
	if x := b.cur.run; x != nil && x.ID == id {
		return x
	}
	return b.state(b.table.Lookup(id))
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

// Before lays the record out on the timeline: its connection, run, lane
// and approval, before the replay takes it.
func (b *Builder) Before(f *pipeline.Frame) error {
	if b.done {
		return nil
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
	row.Label = b.labelID(rec, ev, row.Type)
	// The record's run is the table's (Frame.Run): born at the first frame
	// that names it, a chat.send response's included.
	var x *Run
	lane := -1
	switch ev.Kind {
	case bridge.RuntimeChat, bridge.RuntimeAgent, bridge.Approval:
		agent := agentOf(ev)
		if f.Run != nil {
			x = b.run(f.Run, agent, ev.Session(), rel, rec.Index)
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
		if ev.Method == "chat.send" && f.Run != nil {
			// The run starts at its request, when the capture has it.
			si, known := b.sends[sendKey{rec.Conn, ev.ID}]
			start, first := rel, rec.Index
			if known {
				start, first = si.t, si.i
			}
			born := b.field.Peek(f.Run) == nil
			x = b.run(f.Run, bridge.SessionAgentID(si.session), si.session, start, first)
			if known && born && si.row >= 0 {
				b.rep.Rows.setRun(si.row, int32(x.N-1))
				b.runFrame(x, si.t, si.i, rec.Conn, TypeSend, ev)
			}
		}
	}
	run := -1
	if x != nil {
		run, lane = x.N-1, x.Lane
		b.runFrame(x, rel, rec.Index, rec.Conn, int(row.Type), ev)
		if a := agentOf(ev); a != "" && (a != b.lastAgent || f.Run != b.lastAgentRun) {
			b.agentRun[a] = f.Run // unchanged since the last frame, mostly
			b.lastAgent, b.lastAgentRun = a, f.Run
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
	if x != nil && !b.opts.NoBodies && isChatTerminal(ev) && !x.hasOutput {
		if lines, ok := ev.TerminalLines(); ok {
			b.runOutput(x, lines)
		}
	}

	// The replay follows: timer steps due before this record, then the
	// record's step (Step), then After.
	b.cur.run, b.cur.replayed, b.cur.prio, b.cur.step = x, false, prio, nil
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
	b.t0, b.st = s.T0, s.State
	return b.emit(s)
}

// RunDone writes the bar of a run the pass let go: nothing the pass reads
// later changes it. Runs come in the order of their numbers, once each,
// and the page lists them so.
func (b *Builder) RunDone(r *runs.Run, _ *outcome.Run) {
	if b.done || b.err != nil {
		return
	}
	b.pinHeld(r.Kept) // the findings of the observers told before the report: of this run, or others let go
	if want := b.rep.runs.n + 1; r.N != want {
		b.err = fmt.Errorf("report: the pass let run %d (%s) go where run %d was due", r.N, r.ID, want)
		return
	}
	x := b.field.Peek(r)
	if x == nil { // a run whose frames the report never saw (a pass it joined late)
		x = &Run{N: r.N, ID: r.ID, Lane: b.lane(r.Agent, r.Session, b.rel(r.FirstT)), Start: b.rel(r.FirstT), End: b.rel(r.FirstT), Last: b.rel(r.LastT),
			FirstI: r.FirstI, LastI: r.LastI, TermI: -1, Reopened: r.Reopened}
	}
	sum := &b.rep.Summary
	switch {
	case !x.hasChat && !x.hasLife:
		sum.RunsUnfinished++
	case x.Terminal == TermFinal:
		sum.RunsFinal++
	case x.Terminal == TermAborted:
		sum.RunsAborted++
	case x.Terminal == TermError:
		sum.RunsError++
	default:
		sum.RunsLifecycleOnly++
	}
	sum.AgentDeltas += int(x.AgentDeltas)
	sum.ChatDeltas += int(x.ChatDeltas)
	sum.ToolCalls += int(x.Tools)
	b.rep.runs.add(x)
	b.gone.add(r.ID, r.N, b.table.Max())
}

// Finding takes a finding of the pass as it is made. One made at a record
// is pinned at the record's After, which makes the record's details
// critical; one made as a run is let go, when the report lets it go too
// (RunDone), and one made at the end of the capture, at End.
func (b *Builder) Finding(f *finding.Finding) error {
	if b.done {
		return nil
	}
	run := f.Run - 1
	if run < 0 && f.RunID != "" {
		// Stopgap until every Reporter sets Finding.Run: the run the
		// table holds under the id now, or let go last.
		if r := b.table.Lookup(f.RunID); r != nil {
			run = r.N - 1
		} else if n, ok := b.gone.n[f.RunID]; ok {
			run = n - 1
		}
	}
	b.held = append(b.held, heldFinding{pinned{i: f.I, rule: f.Rule, sev: f.Severity, t: f.T, conn: f.Conn, run: run, lane: -1,
		runID: f.RunID, agentID: f.AgentID, session: f.SessionKey, uis: slices.Clone(f.UIs), notUIs: slices.Clone(f.NotUIs)}, f.Message})
	return nil
}

// After pins the record's gaps and findings and keeps its row and body.
func (b *Builder) After(f *pipeline.Frame) error {
	if b.done {
		return nil
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
		if x := b.runNamed(g.RunID); x != nil {
			gr, gl = x.N-1, x.Lane
		}
		b.rep.Gaps = append(b.rep.Gaps, Gap{Kind: g.Kind, I: g.I, T: b.rel(g.T), Conn: g.Conn, Expected: g.Expected, Received: g.Received, RunID: cut(g.RunID, 256), Lane: gl, Run: gr})
		b.skel += skelPerItem
	}

	// Findings.
	for k := range b.held {
		if b.held[k].i == rec.Index {
			prio = prioCritical
		}
	}
	b.pinHeld(false)

	// The row, then the body.
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
	size := -1 // unmeasured: it could not fit even at its shortest
	if b.rowBytes+minRowLen+2 <= rowLimit {
		size = rowLen(&row)
	}
	if size >= 0 && b.rowBytes+size+2 <= rowLimit {
		b.rowBytes += size + 2
		pos := b.rep.Rows.add(&row)
		if row.Type == TypeSend && ev.Kind == bridge.Request {
			if k := (sendKey{rec.Conn, ev.ID}); b.sends[k].i == rec.Index {
				si := b.sends[k]
				si.row = pos
				b.sends[k] = si
			}
		}
	} else {
		sum.RowsElided++
	}
	if !b.opts.NoBodies {
		b.body(rec, ev, prio)
	}
	return nil
}

// runFrame counts a frame of a run. Its terminal is its first chat
// terminal, or without one its first lifecycle end or error.
func (b *Builder) runFrame(r *Run, rel int64, i, conn, typ int, ev *bridge.Event) {
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
	ct := r.on(conn)
	if ct.terminals > 0 && typ != TypeSend {
		r.Late++ // after the terminal on its own connection
	}
	switch typ {
	case TypeAgentDelta:
		r.AgentDeltas++
	case TypeChatDelta:
		r.ChatDeltas++
	case TypeTool:
		ct.tools++
		r.Tools = max(r.Tools, ct.tools)
	case TypeOther:
		if isToolItem(ev) {
			ct.toolItems++
			r.Tools = max(r.Tools, ct.toolItems)
		}
	case TypeApprovalReq:
		r.Approvals++
	case TypeFinal, TypeAborted, TypeError:
		if ct.terminals > 0 {
			r.Late-- // a second terminal is counted as such, not as late
		}
		ct.terminals++
		r.Terminals = max(r.Terminals, ct.terminals)
		if !r.hasChat {
			r.hasChat, r.Terminal, r.End, r.TermI = true, TypeNames[typ], rel, i
		}
	case TypeLifecycle:
		if !r.hasLife && (ev.Phase == "end" || ev.Phase == "error") {
			r.hasLife = true
			if !r.hasChat {
				r.Terminal, r.End, r.TermI = TermLifecycleEnd, rel, i
				if ev.Phase == "error" {
					r.Terminal = TermLifecycleError
				}
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
// isToolItem reports an agent item event that starts a tool call: what a
// connection that did not send the message (a passive recorder) sees of
// it, with or without sessions.subscribe.
func isToolItem(ev *bridge.Event) bool {
	if ev == nil || ev.Kind != bridge.RuntimeAgent || ev.Stream != "item" || ev.Phase != "start" {
		return false
	}
	kind, ok := jsonx.GetPath(ev.Payload, "data", "kind")
	return ok && jsonx.StrIs(kind, "tool")
}

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

// goneRuns remembers the numbers of the runs let go last, by id, as many
// as the table holds. A stopgap until every Reporter sets Finding.Run: a
// finding made after its run was let go (check's of the runs still live
// at the end of the capture) finds it here.
type goneRuns struct {
	n    map[string]int
	ring []string
	next int
}

func (g *goneRuns) add(id string, n, max int) {
	if g.n == nil {
		g.n, g.ring = map[string]int{}, make([]string, max)
	}
	if old := g.ring[g.next]; old != "" && g.n[old] <= n-max {
		delete(g.n, old)
	}
	g.ring[g.next] = id
	g.n[id] = n
	g.next = (g.next + 1) % len(g.ring)
}
