// Package replay runs a capture through clawtap's whole pipeline — Bridge
// → Policy → Handler — the way a chat UI would, on a fake clock, and keeps
// a model of the UI's stores so every step can say what the UI did and
// what its state became.
//
// The engine is deterministic by construction: no wall clock, no
// goroutines, maps iterated in sorted order. Time is the capture's: before
// each record the clock advances to the record's t, firing every timer due
// up to then (the summary-refresh debounce, animation frames, the approval
// expiry sweep) in order of due time, then creation order. Memory is
// bounded by live state: transcripts are capped per agent, nothing is kept
// per record. See docs/replay.md.
package replay

import (
	"fmt"
	"slices"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/handler"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/policy"
)

// ApprovalSweepMs is the host's approval expiry sweep interval.
const ApprovalSweepMs = 5000

// Timer names, as timer steps report them.
const (
	TimerFrame          = "frame"
	TimerSummaryRefresh = "summaryRefresh"
	TimerApprovalSweep  = "approvalSweep"
)

// Options tune an Engine.
type Options struct {
	// FrameNum/FrameDen give the animation-frame period in ms as a
	// fraction; zero means 1000/60 (60 Hz).
	FrameNum, FrameDen uint64
	// Conn is the connection the UI starts on; 0 means the first record's.
	Conn int
	// NoHistorySync leaves history refresh requests unanswered, showing the
	// pipeline's own transcript only (see historySync).
	NoHistorySync bool
}

// Step is what one record, or one timer firing between records, did.
// A Step and everything it points to are valid only during the emit call.
type Step struct {
	// I is the record's index; for a timer step, the index of the last
	// record before the timer fired.
	I int
	// T is the clock, unix ms (render it with the engine's T0).
	T int64
	// Timer names the timer for a timer step; "" for a record step.
	Timer string
	// Rec and Event describe the record (record steps only).
	Rec     *capture.Record
	Event   *bridge.Event
	Intents []policy.Intent
	Effects []Effect
	Diff    []Change
}

// Changed reports whether the step did anything.
func (s *Step) Changed() bool { return len(s.Effects) > 0 || len(s.Diff) > 0 }

// Engine replays records.
type Engine struct {
	opts    Options
	started bool
	t0      int64
	lastI   int
	conn    int          // the followed connection
	ended   bool         // the followed connection closed or failed
	fresh   bool         // the pipeline has not seen a record since it was built
	seen    map[int]bool // connections seen while following another
	skipped int

	sched  scheduler
	frames frameClock
	cls    *bridge.Classifier
	pol    policy.Deriver
	h      *handler.Handler
	q      *handler.PatchQueue

	st       State
	tr       tracker
	anchors  map[string]int64 // stream-start anchor per chat session
	sweep    *timer
	frameDue int64

	frameTimer  *timer
	frameGen    uint64
	cancelFrame func() // cancelFrameTimer, bound once

	hist histSync

	step        Step
	ev          bridge.Event
	flushReason string
	flushAgent  string
	patchArena  []handler.AgentPatch
	sortBuf     []string
}

// New returns an engine with empty state.
func New(opts Options) *Engine {
	e := &Engine{
		opts:    opts,
		lastI:   -1,
		cls:     bridge.NewClassifier(),
		st:      newState(),
		anchors: make(map[string]int64),
		seen:    make(map[int]bool),
		conn:    opts.Conn,
	}
	e.frames = newFrameClock(0, opts.FrameNum, opts.FrameDen)
	e.newPipeline()
	e.fresh = true
	return e
}

// Conn is the connection the UI follows now.
func (e *Engine) Conn() int { return e.conn }

// Skipped is the number of records of other, concurrent connections that
// were not replayed, and their connection numbers, sorted.
func (e *Engine) Skipped() (int, []int) {
	var conns []int
	for c, skipped := range e.seen {
		if skipped {
			conns = append(conns, c)
		}
	}
	slices.Sort(conns)
	return e.skipped, conns
}

// Started reports whether a record has been replayed.
func (e *Engine) Started() bool { return e.started }

// T0 is the first record's time, the origin of every offset in output.
func (e *Engine) T0() int64 { return e.t0 }

// Now is the fake clock.
func (e *Engine) Now() int64 { return e.sched.now }

// State returns the UI state model.
func (e *Engine) State() *State { return &e.st }

// Handler returns the live handler (replaced on every reconnect).
func (e *Engine) Handler() *handler.Handler { return e.h }

// PatchQueue returns the live patch queue (replaced on every reconnect).
func (e *Engine) PatchQueue() *handler.PatchQueue { return e.q }

// PendingTimers is the number of scheduled timers.
func (e *Engine) PendingTimers() int { return e.sched.pending() }

// handlerTimers adapts the scheduler to handler.Timers.
type handlerTimers struct{ e *Engine }

func (ht handlerTimers) AfterFunc(ms int64, fn func()) func() {
	e := ht.e
	t := e.sched.at(e.sched.now+ms, TimerSummaryRefresh, fn)
	gen := t.gen
	return func() { e.sched.cancelGen(t, gen) }
}

func (e *Engine) newPipeline() {
	e.cancelFrame = e.cancelFrameTimer
	e.q = handler.NewPatchQueue(e.requestFrame, e.onFlush)
	e.h = handler.New(handler.Deps{
		GetAgentRunID:          e.getAgentRunID,
		DispatchIntent:         e.dispatchIntent,
		QueueLivePatch:         e.queueLivePatch,
		ClearPendingLivePatch:  e.clearPendingLivePatch,
		AppendOutputLines:      e.appendOutputLines,
		RequestHistoryRefresh:  e.requestHistoryRefresh,
		LoadSummarySnapshot:    e.loadSummarySnapshot,
		RefreshHeartbeatLatest: e.refreshHeartbeatLatest,
		Clock:                  e,
		Timers:                 handlerTimers{e},
		Observer:               e.observe,
	})
}

// dispose tears the pipeline down as the host's cleanup does, and builds
// a fresh one for the next connection. The stores survive.
func (e *Engine) dispose(reason string) {
	e.h.Dispose() // reported through observe
	e.effects()[len(e.step.Effects)-1].Reason = reason
	dropped := e.q.Dispose()
	e.addEffect(Effect{Type: EffDispose, Name: "patchQueue", Reason: reason, Count: int64(len(dropped))})
	if len(dropped) > 0 {
		e.addEffect(Effect{Type: EffDrop, Patches: e.copyPatches(dropped)})
	}
	e.newPipeline()
	e.fresh = true
}

func (e *Engine) effects() []Effect { return e.step.Effects }

func (e *Engine) addEffect(ef Effect) { e.step.Effects = append(e.step.Effects, ef) }

func (e *Engine) copyPatches(src []handler.AgentPatch) []handler.AgentPatch {
	lo := len(e.patchArena)
	e.patchArena = append(e.patchArena, src...)
	return e.patchArena[lo:len(e.patchArena):len(e.patchArena)]
}

func (e *Engine) beginStep(i int, timerName string) {
	s := &e.step
	s.I, s.T, s.Timer = i, e.sched.now, timerName
	s.Rec, s.Event = nil, nil
	s.Intents = s.Intents[:0]
	clear(s.Effects)
	s.Effects = s.Effects[:0]
	s.Diff = s.Diff[:0]
	clear(e.patchArena)
	e.patchArena = e.patchArena[:0]
}

func (e *Engine) endStep(emit func(*Step) error) error {
	e.step.Diff = e.tr.diff(&e.st, e.step.Diff)
	if emit == nil {
		return nil
	}
	return emit(&e.step)
}

// advance fires every timer due at or before t, each as its own step, and
// leaves the clock at t (the clock never goes backwards).
func (e *Engine) advance(t int64, emit func(*Step) error) error {
	for {
		tm := e.sched.next(t)
		if tm == nil {
			break
		}
		if tm.due > e.sched.now {
			e.sched.now = tm.due
		}
		e.beginStep(e.lastI, tm.name)
		fn := tm.fn
		e.sched.release(tm)
		fn()
		if err := e.endStep(emit); err != nil {
			return err
		}
	}
	if t > e.sched.now {
		e.sched.now = t
	}
	return nil
}

// Advance runs the clock to t (unix ms) without a record, firing due
// timers as steps; use it to end a replay window at a time.
func (e *Engine) Advance(t int64, emit func(*Step) error) error {
	if !e.started {
		return nil
	}
	return e.advance(t, emit)
}

// Record replays one record: timers due up to its t fire first, each as
// its own step, then the record is classified, its intents derived and
// applied, and its step emitted. emit may be nil.
func (e *Engine) Record(rec *capture.Record, emit func(*Step) error) error {
	return e.record(rec, nil, emit)
}

// RecordEvent is Record for a record the caller has classified already,
// with a bridge.Classifier of its own that has seen every record before
// this one, so that a caller that needs the events too classifies once.
// ev must be the record's event, used before the caller classifies again.
func (e *Engine) RecordEvent(rec *capture.Record, ev *bridge.Event, emit func(*Step) error) error {
	return e.record(rec, ev, emit)
}

func (e *Engine) record(rec *capture.Record, ev *bridge.Event, emit func(*Step) error) error {
	if rec.T > maxTime || rec.T < -maxTime {
		// An absurd time (a hostile or corrupt capture) is clamped so that
		// clock arithmetic cannot overflow.
		c := *rec
		c.T = min(max(rec.T, -maxTime), maxTime)
		rec = &c
	}
	if !e.started {
		e.started = true
		e.t0 = rec.T
		e.sched.now = rec.T
		e.frames = newFrameClock(rec.T, e.frames.num, e.frames.den)
		if e.conn == 0 {
			e.conn = rec.Conn
		}
	}
	reconnect := false
	if rec.Conn != e.conn {
		// A connection that starts after the followed one ended is the
		// UI reconnecting; one that was already seen, or that shows up
		// while the followed one is open, is another client.
		if !e.ended || e.seen[rec.Conn] {
			e.seen[rec.Conn] = true
			e.skipped++
			return nil
		}
		reconnect = true
	}
	if err := e.advance(rec.T, emit); err != nil {
		return err
	}
	e.beginStep(rec.Index, "")
	e.lastI = rec.Index
	if reconnect {
		if !e.fresh {
			e.dispose("reconnect")
		}
		e.conn, e.ended = rec.Conn, false
	}
	e.fresh = false
	if ev != nil {
		e.ev = *ev
	} else {
		e.ev = e.cls.Record(rec)
	}
	e.step.Rec, e.step.Event = rec, &e.ev
	e.step.Intents = e.pol.Append(e.step.Intents, &e.ev)
	e.hist.beginStep()
	e.h.ApplyIntents(e.step.Intents, &e.ev)
	if !e.opts.NoHistorySync {
		e.syncHistory()
	}
	switch rec.Mark {
	case capture.MarkClose:
		e.ended = true
		e.dispose("close")
	case capture.MarkError:
		e.ended = true
	}
	return e.endStep(emit)
}

// maxTime bounds the clock: ±2^50 ms is ±35 000 years around 1970.
const maxTime = 1 << 50

// maxDrain bounds the timer steps Finish runs.
const maxDrain = 1 << 20

// Finish lets the clock run on after the last record until no timer is
// pending — the debounce fires, the last frame flushes, approvals with an
// expiry time expire — as the UI would if it stayed open.
func (e *Engine) Finish(emit func(*Step) error) error {
	for n := 0; e.sched.pending() > 0 && n < maxDrain; n++ {
		due := e.sched.heap[0].due
		if err := e.advance(due, emit); err != nil {
			return err
		}
	}
	return nil
}

// ---- the host: the dependencies the handler writes through ----

func (e *Engine) agent(id string) *Agent {
	a := e.st.agents[id]
	if a == nil {
		a = &Agent{ID: id}
		e.st.agents[id] = a
	}
	return a
}

func (e *Engine) getAgentRunID(id string) string {
	if a := e.st.agents[id]; a != nil && a.RunID.Valid {
		return a.RunID.V
	}
	return ""
}

func (e *Engine) touch(a *Agent, field uint8) {
	e.tr.touchAgent(a, Path{sec: secAgents, key: a.ID, field: field})
}

// applyPatch writes a patch into the fleet store: every key the patch
// carries is assigned (null clears), the others are left alone.
func (e *Engine) applyPatch(a *Agent, p *policy.Patch) {
	if p.Status.Set {
		e.setStr(a, fStatus, &a.Status, p.Status)
	}
	if p.RunID.Set {
		e.setStr(a, fRunID, &a.RunID, p.RunID)
	}
	if p.RunStartedAt.Set {
		e.setInt(a, fRunStartedAt, &a.RunStartedAt, p.RunStartedAt)
	}
	if p.StreamText.Set {
		e.setStr(a, fStreamText, &a.StreamText, p.StreamText)
	}
	if p.ThinkingTrace.Set {
		e.setStr(a, fThinkingTrace, &a.ThinkingTrace, p.ThinkingTrace)
	}
	if p.LastActivityAt.Set {
		e.setInt(a, fLastActivityAt, &a.LastActivityAt, p.LastActivityAt)
	}
}

// setStr assigns one of a's fields; writing the value it already holds
// changes nothing, so it is not tracked (every delta rewrites the runId).
func (e *Engine) setStr(a *Agent, field uint8, dst *NStr, s policy.Str) {
	if v := nstrOf(s); v != *dst {
		e.touch(a, field)
		*dst = v
	}
}

func (e *Engine) setInt(a *Agent, field uint8, dst *NInt, n policy.Int) {
	if v := nintOf(n); v != *dst {
		e.touch(a, field)
		*dst = v
	}
}

func anchorKey(agentID, sessionKey string) string {
	if sessionKey != "" {
		return sessionKey
	}
	return "agent:" + agentID + ":"
}

// queueLivePatch enqueues the patch; the host also mirrors streamText into
// the chat store, where the first non-null chunk anchors the stream-start
// timestamp that committed lines will carry.
func (e *Engine) queueLivePatch(agentID string, p policy.Patch, sessionKey string) {
	mode, merged := e.q.Enqueue(agentID, p)
	e.addEffect(Effect{Type: EffQueue, AgentID: agentID, SessionKey: sessionKey, Patch: p, Action: mode,
		Count: int64(merged.Patches), At: NInt{Valid: e.q.FramePending(), V: e.frameDue}})
	if p.StreamText.Set && !p.StreamText.Null {
		k := anchorKey(agentID, sessionKey)
		if _, ok := e.anchors[k]; !ok {
			e.anchors[k] = e.sched.now
		}
	}
}

// requestFrame is the queue's requestAnimationFrame. The queue has at most
// one frame scheduled, so one cancel function, bound once, serves them all.
func (e *Engine) requestFrame(fn func()) func() {
	due := e.frames.next(e.sched.now)
	e.frameDue = due
	e.frameTimer = e.sched.at(due, TimerFrame, fn)
	e.frameGen = e.frameTimer.gen
	return e.cancelFrame
}

func (e *Engine) cancelFrameTimer() { e.sched.cancelGen(e.frameTimer, e.frameGen) }

// onFlush writes a batch into the fleet store, one write per agent.
func (e *Engine) onFlush(batch []handler.AgentPatch) {
	ef := Effect{Type: EffFlush, Action: "frame", Patches: e.copyPatches(batch)}
	if e.flushReason != "" {
		ef.Action, ef.AgentID = e.flushReason, e.flushAgent
	}
	e.addEffect(ef)
	for i := range batch {
		e.applyPatch(e.agent(batch[i].AgentID), &batch[i].Patch)
	}
}

// clearPendingLivePatch is clawboo's host: it flushes everything pending,
// for every agent, rather than discarding the agent's patch.
func (e *Engine) clearPendingLivePatch(agentID string) {
	e.flushReason, e.flushAgent = "clear", agentID
	e.q.Flush()
	e.flushReason, e.flushAgent = "", ""
}

func (e *Engine) hasPendingApproval(agentID string) bool {
	a := e.st.agents[agentID]
	return a != nil && a.approvals > 0
}

// dispatchIntent is the host's dispatcher, with its pending-approval rules.
func (e *Engine) dispatchIntent(in *policy.Intent) {
	switch in.Kind {
	case policy.UpdateAgentStatus:
		status, _ := in.Patch.Status.Value()
		if status != policy.StatusRunning && e.hasPendingApproval(in.AgentID) {
			e.addEffect(Effect{Type: EffSkip, AgentID: in.AgentID, Intent: in.Kind, Reason: "approval pending"})
			return
		}
		e.addEffect(Effect{Type: EffWrite, AgentID: in.AgentID, Intent: in.Kind, Patch: in.Patch})
		e.applyPatch(e.agent(in.AgentID), &in.Patch)
	case policy.CommitChat:
		if in.Cost != nil {
			e.bill(in.AgentID, in.Cost)
		}
		if e.hasPendingApproval(in.AgentID) {
			e.addEffect(Effect{Type: EffSkip, AgentID: in.AgentID, Intent: in.Kind, Reason: "approval pending"})
			return
		}
		e.addEffect(Effect{Type: EffWrite, AgentID: in.AgentID, Intent: in.Kind, Patch: in.Patch})
		e.applyPatch(e.agent(in.AgentID), &in.Patch)
		delete(e.anchors, anchorKey(in.AgentID, in.SessionKey))
	case policy.ApprovalPending:
		e.addApproval(in)
	case policy.ApprovalResolved:
		e.resolveApproval(in)
	}
}

func (e *Engine) bill(agentID string, c *policy.ChatCost) {
	tp := func(f uint8) { e.tr.touch(&e.st, Path{sec: secCost, key: agentID, key2: c.Model, field: f}) }
	tp(fTurns)
	tp(fOutputTokens)
	if c.InputTokens != nil {
		tp(fInputTokens)
	} else {
		tp(fInputUnknown)
	}
	byModel := e.st.cost[agentID]
	if byModel == nil {
		byModel = make(map[string]*Cost)
		e.st.cost[agentID] = byModel
	}
	cost := byModel[c.Model]
	if cost == nil {
		cost = &Cost{}
		byModel[c.Model] = cost
	}
	cost.Turns++
	ef := Effect{Type: EffBill, AgentID: agentID, Model: c.Model, Output: c.OutputTokens}
	if c.InputTokens != nil {
		cost.InputTokens += *c.InputTokens
		ef.Input = NNum{Valid: true, V: *c.InputTokens}
	} else {
		cost.InputUnknown++
	}
	cost.OutputTokens += c.OutputTokens
	e.addEffect(ef)
}

func lineKind(l string) string {
	if hasPrefix(l, "[[tool]]") || hasPrefix(l, "[[tool-result]]") {
		return LineTool
	}
	return LineAssistant
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }

// appendOutputLines is the host's: each line becomes a transcript entry
// stamped with the stream-start anchor (or now), deduplicated by exact
// signature against the newest 50 entries and the batch itself.
func (e *Engine) appendOutputLines(agentID string, lines []string, sessionKey string) {
	ts, ok := e.anchors[anchorKey(agentID, sessionKey)]
	if !ok {
		ts = e.sched.now
	}
	a := e.agent(agentID)
	n := e.appendLines(a, lines, LineAssistant, ts)
	e.addEffect(Effect{Type: EffAppend, AgentID: agentID, SessionKey: sessionKey, Count: int64(n), At: NInt{Valid: true, V: ts}})
}

// appendLines appends lines (kind "" = inferred per line) and returns how
// many were kept.
func (e *Engine) appendLines(a *Agent, lines []string, kind string, ts int64) int {
	kept, trimmed := 0, 0
	for bi, l := range lines {
		k := kind
		if k == LineAssistant {
			k = lineKind(l)
		}
		if e.isDuplicate(a, lines[:bi], l, k, ts, kind) {
			e.addEffect(Effect{Type: EffDuplicate, AgentID: a.ID, Text: l})
			continue
		}
		num := a.dropped + int64(a.n)
		e.tr.touchAgent(a, Path{sec: secAgents, key: a.ID, field: fLine, n: num})
		if a.push(Line{Text: l, Kind: k, TS: ts}) {
			trimmed++
		}
		kept++
	}
	if trimmed > 0 {
		e.addEffect(Effect{Type: EffTrim, AgentID: a.ID, Count: int64(trimmed)})
	}
	return kept
}

// isDuplicate is the chat store's layer-2 dedupe: same kind, timestamp and
// text as one of the newest dedupeWindow entries or an earlier line of the
// same batch.
func (e *Engine) isDuplicate(a *Agent, batch []string, l, k string, ts int64, kind string) bool {
	for _, b := range batch {
		bk := kind
		if bk == LineAssistant {
			bk = lineKind(b)
		}
		if b == l && bk == k {
			return true
		}
	}
	from := max(a.n-dedupeWindow, 0)
	for i := a.n - 1; i >= from; i-- {
		x := a.line(i)
		if x.TS == ts && x.Kind == k && x.Text == l {
			return true
		}
	}
	return false
}

func (e *Engine) request(kind, agentID, reason string) {
	r := e.st.requests[kind]
	if r == nil {
		r = &Requests{}
		e.st.requests[kind] = r
	}
	e.tr.touch(&e.st, Path{sec: secRequests, key: kind, field: fCount})
	e.tr.touch(&e.st, Path{sec: secRequests, key: kind, field: fLastAt})
	r.Count++
	r.LastAt = NInt{Valid: true, V: e.sched.now}
	e.addEffect(Effect{Type: EffRequest, Action: kind, AgentID: agentID, Reason: reason})
}

func (e *Engine) requestHistoryRefresh(agentID, reason string) {
	e.request(ReqHistoryRefresh, agentID, reason)
	e.hist.requested = append(e.hist.requested, agentID)
}
func (e *Engine) loadSummarySnapshot()    { e.request(ReqSummaryReload, "", "") }
func (e *Engine) refreshHeartbeatLatest() { e.request(ReqHeartbeatRefresh, "", "") }

// observe turns the handler's guard decisions into effects.
func (e *Engine) observe(d *handler.Decision) {
	switch d.Kind {
	case handler.SummaryArmed:
		action := "armed"
		if d.Replaced {
			action = "re-armed"
		}
		e.addEffect(Effect{Type: EffTimer, Name: TimerSummaryRefresh, Action: action, At: NInt{Valid: true, V: d.Due}, Heartbeat: d.Heartbeat})
	case handler.SummaryFired:
		e.addEffect(Effect{Type: EffTimer, Name: TimerSummaryRefresh, Action: "fired", Heartbeat: d.Heartbeat})
	case handler.Disposed:
		e.addEffect(Effect{Type: EffDispose, Name: "handler", Count: int64(d.Count), Replaced: d.Replaced})
	default:
		if d.Kind == handler.DroppedClosed && d.Intent == policy.CommitChat {
			e.hist.dropped = append(e.hist.dropped, d.RunID)
		}
		ef := Effect{Type: EffGuard, Action: d.Kind, AgentID: d.AgentID, Intent: d.Intent, RunID: d.RunID, Incoming: d.Incoming}
		switch d.Kind {
		case handler.DroppedClosed, handler.ClosedRecorded, handler.Hazard, handler.Expired, handler.Evicted:
			ef.At = NInt{Valid: true, V: d.Expiry}
		}
		e.addEffect(ef)
	}
}

// ---- approvals ----

func (e *Engine) addApproval(in *policy.Intent) {
	p := in.Payload
	id, _ := jsonx.GetStr(p, "id")
	ap := Approval{ID: id, AgentID: in.AgentID}
	if req, ok := jsonx.Get(p, "request"); ok && jsonx.KindOf(req) == jsonx.Object {
		if c, ok := jsonx.GetStr(req, "command"); ok {
			ap.Command = NStr{Valid: true, V: c}
		}
	}
	if n, ok := numField(p, "createdAtMs"); ok {
		ap.CreatedAt = NInt{Valid: true, V: n}
	}
	if n, ok := numField(p, "expiresAtMs"); ok {
		ap.ExpiresAt = NInt{Valid: true, V: n}
	}
	e.tr.touch(&e.st, Path{sec: secApprovals, key: id})
	action := "added"
	if old := e.st.approvals[id]; old != nil {
		action = "updated"
		e.agent(old.AgentID).approvals--
	}
	e.st.approvals[id] = &ap
	e.agent(in.AgentID).approvals++
	e.addEffect(Effect{Type: EffApproval, Action: action, ID: id, AgentID: in.AgentID, Command: ap.Command, At: ap.ExpiresAt})
	e.rescheduleSweep()
}

func numField(obj []byte, key string) (int64, bool) {
	v, ok := jsonx.Get(obj, key)
	if !ok {
		return 0, false
	}
	f, ok := jsonx.Num(v)
	if !ok || f != f || f > maxTime || f < -maxTime {
		return 0, false
	}
	return int64(f), true
}

func (e *Engine) removeApproval(ap *Approval) {
	e.tr.touch(&e.st, Path{sec: secApprovals, key: ap.ID})
	delete(e.st.approvals, ap.ID)
	if a := e.st.agents[ap.AgentID]; a != nil {
		a.approvals--
	}
}

func (e *Engine) resolveApproval(in *policy.Intent) {
	id, _ := jsonx.GetStr(in.Payload, "id")
	ap := e.st.approvals[id]
	if ap == nil {
		e.addEffect(Effect{Type: EffApproval, Action: "unknown", ID: id, AgentID: in.AgentID})
		return
	}
	e.removeApproval(ap)
	e.addEffect(Effect{Type: EffApproval, Action: "removed", ID: id, AgentID: ap.AgentID, Command: ap.Command})
	e.rescheduleSweep()
}

// rescheduleSweep keeps the 5 s sweep armed for the first tick that will
// find something expired. The host's interval ticks at t0 + 5000·k; ticks
// that find nothing do nothing, so only the first useful one is scheduled.
func (e *Engine) rescheduleSweep() {
	e.sched.cancel(e.sweep)
	e.sweep = nil
	var minExp int64
	found := false
	for _, ap := range e.st.approvals {
		if ap.ExpiresAt.Valid && (!found || ap.ExpiresAt.V < minExp) {
			minExp, found = ap.ExpiresAt.V, true
		}
	}
	if !found {
		return
	}
	// First tick strictly after now...
	k := (e.sched.now-e.t0)/ApprovalSweepMs + 1
	// ...and at or after the earliest expiry.
	if need := ceilDiv(minExp-e.t0, ApprovalSweepMs); need > k {
		k = need
	}
	due := e.t0 + k*ApprovalSweepMs
	if due <= e.sched.now { // cannot happen with clamped times; never loop
		due = e.sched.now + ApprovalSweepMs
	}
	e.sweep = e.sched.at(due, TimerApprovalSweep, e.sweepApprovals)
}

func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a > 0) == (b > 0) {
		q++
	}
	return q
}

// sweepApprovals removes every approval with expiresAtMs <= now (the
// gateway sends no resolved event on timeout) and injects a meta line into
// the agent's transcript.
func (e *Engine) sweepApprovals() {
	e.sweep = nil
	now := e.sched.now
	e.sortBuf = e.sortBuf[:0]
	for id, ap := range e.st.approvals {
		if ap.ExpiresAt.Valid && ap.ExpiresAt.V <= now {
			e.sortBuf = append(e.sortBuf, id)
		}
	}
	sortStrings(e.sortBuf)
	for _, id := range e.sortBuf {
		ap := e.st.approvals[id]
		e.removeApproval(ap)
		e.addEffect(Effect{Type: EffApproval, Action: "expired", ID: id, AgentID: ap.AgentID, Command: ap.Command})
		cmd := "command"
		if ap.Command.Valid {
			cmd = ap.Command.V
		}
		line := fmt.Sprintf("Exec approval for `%s` timed out.", cmd)
		a := e.agent(ap.AgentID)
		n := e.appendLines(a, []string{line}, LineMeta, now)
		e.addEffect(Effect{Type: EffAppend, AgentID: ap.AgentID, Count: int64(n), At: NInt{Valid: true, V: now}})
	}
	e.rescheduleSweep()
}
