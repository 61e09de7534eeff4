package replay

import (
	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/handler"
	"github.com/clawtap/clawtap/pkg/policy"
)

// clawboo is clawboo's web app as a UI of the engine: the @clawboo/events
// pipeline (Policy → Handler, with the animation-frame patch queue) and the
// host that wires it to the stores (useGatewayEvents): its dispatcher with
// the pending-approval rules, billing, the chat store's transcript and
// dedupe, the approvals store and its expiry sweep.
type clawboo struct {
	e       *Engine
	pol     policy.Deriver
	intents []policy.Intent // the record's, which the step points at
	h       *handler.Handler
	q       *handler.PatchQueue

	anchors map[string]int64 // stream-start anchor per chat session
	sweep   *timer
	hist    histSync

	flushReason string
	flushAgent  string
}

func newClawboo(e *Engine) *clawboo {
	c := &clawboo{e: e, anchors: make(map[string]int64)}
	c.newPipeline()
	return c
}

// handlerTimers adapts the engine's clock to handler.Timers.
type handlerTimers struct{ e *Engine }

func (ht handlerTimers) AfterFunc(ms int64, fn func()) func() {
	return ht.e.after(ms, TimerSummaryRefresh, fn)
}

func (c *clawboo) newPipeline() {
	c.q = handler.NewPatchQueue(c.e.requestFrame, c.onFlush)
	c.h = handler.New(handler.Deps{
		GetAgentRunID:          c.getAgentRunID,
		DispatchIntent:         c.dispatchIntent,
		QueueLivePatch:         c.queueLivePatch,
		ClearPendingLivePatch:  c.clearPendingLivePatch,
		AppendOutputLines:      c.appendOutputLines,
		RequestHistoryRefresh:  c.requestHistoryRefresh,
		LoadSummarySnapshot:    c.loadSummarySnapshot,
		RefreshHeartbeatLatest: c.refreshHeartbeatLatest,
		Clock:                  c.e,
		Timers:                 handlerTimers{c.e},
		Observer:               c.observe,
	})
}

// record derives the record's intents and applies them.
func (c *clawboo) record(_ *capture.Record, ev *bridge.Event) {
	s := &c.e.step
	c.intents = c.pol.Append(c.intents[:0], ev)
	for i := range c.intents {
		s.Intents = append(s.Intents, &c.intents[i])
	}
	c.hist.beginStep()
	c.h.ApplyIntents(c.intents)
	if c.e.opts.HistorySync {
		c.syncHistory()
	}
}

// dispose tears the pipeline down as the host's cleanup does, and builds
// a fresh one for the next connection. The stores survive.
func (c *clawboo) dispose(reason string) {
	c.h.Dispose() // reported through observe
	c.e.lastEffect().Reason = reason
	dropped := c.q.Dispose()
	c.e.addEffect(Effect{Type: EffDispose, Name: "patchQueue", Reason: reason, Count: int64(len(dropped))})
	if len(dropped) > 0 {
		c.e.addEffect(Effect{Type: EffDrop, Patches: c.e.copyPatches(dropped)})
	}
	c.newPipeline()
}

func (c *clawboo) closedRuns() []handler.ClosedRun { return c.h.ClosedRuns() }

func (c *clawboo) beginStep() {}

func (c *clawboo) getAgentRunID(id string) string {
	if a := c.e.st.agents[id]; a != nil && a.RunID.Valid {
		return a.RunID.V
	}
	return ""
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
func (c *clawboo) queueLivePatch(agentID string, p policy.Patch, sessionKey string) {
	mode, merged := c.q.Enqueue(agentID, p)
	c.e.addEffect(Effect{Type: EffQueue, AgentID: agentID, SessionKey: sessionKey, Patch: p, Action: mode,
		Count: int64(merged.Patches), At: NInt{Valid: c.q.FramePending(), V: c.e.frameDue}})
	if p.StreamText.Set {
		k := anchorKey(agentID, sessionKey)
		c.e.setChatStream(k, nstrOf(p.StreamText))
		if _, ok := c.anchors[k]; !ok && !p.StreamText.Null {
			c.anchors[k] = c.e.sched.now
		}
	}
}

// onFlush writes a batch into the fleet store, one write per agent.
func (c *clawboo) onFlush(batch []handler.AgentPatch) {
	ef := Effect{Type: EffFlush, Action: "frame", Patches: c.e.copyPatches(batch)}
	if c.flushReason != "" {
		ef.Action, ef.AgentID = c.flushReason, c.flushAgent
	}
	c.e.addEffect(ef)
	for i := range batch {
		c.e.applyPatch(c.e.agent(batch[i].AgentID), &batch[i].Patch)
	}
}

// clearPendingLivePatch is clawboo's host: it flushes everything pending,
// for every agent, rather than discarding the agent's patch.
func (c *clawboo) clearPendingLivePatch(agentID string) {
	c.flushReason, c.flushAgent = "clear", agentID
	c.q.Flush()
	c.flushReason, c.flushAgent = "", ""
}

func (c *clawboo) hasPendingApproval(agentID string) bool {
	a := c.e.st.agents[agentID]
	return a != nil && a.approvals > 0
}

// dispatchIntent is the host's dispatcher, with its pending-approval rules.
func (c *clawboo) dispatchIntent(in *policy.Intent) {
	e := c.e
	switch in.Kind {
	case policy.UpdateAgentStatus:
		status, _ := in.Patch.Status.Value()
		if status != policy.StatusRunning && c.hasPendingApproval(in.AgentID) {
			e.addEffect(Effect{Type: EffSkip, AgentID: in.AgentID, Intent: in.Kind, Reason: "approval pending"})
			return
		}
		e.addEffect(Effect{Type: EffWrite, AgentID: in.AgentID, Intent: in.Kind, Patch: in.Patch})
		e.applyPatch(e.agent(in.AgentID), &in.Patch)
	case policy.CommitChat:
		if in.Cost != nil {
			c.bill(in.AgentID, in.Cost)
		}
		if c.hasPendingApproval(in.AgentID) {
			e.addEffect(Effect{Type: EffSkip, AgentID: in.AgentID, Intent: in.Kind, Reason: "approval pending"})
			return
		}
		e.addEffect(Effect{Type: EffWrite, AgentID: in.AgentID, Intent: in.Kind, Patch: in.Patch})
		e.applyPatch(e.agent(in.AgentID), &in.Patch)
		// Only an applied commit clears the session's streaming bubble.
		k := anchorKey(in.AgentID, in.SessionKey)
		e.setChatStream(k, NStr{})
		delete(c.anchors, k)
	case policy.ApprovalPending:
		c.addApproval(in)
	case policy.ApprovalResolved:
		c.resolveApproval(in)
	}
}

// bill is the host's recordChatCost: the cost a commitChat carries.
func (c *clawboo) bill(agentID string, cc *policy.ChatCost) {
	e := c.e
	tp := func(f uint8) { e.tr.touch(&e.st, Path{sec: secCost, key: agentID, key2: cc.Model, field: f}) }
	tp(fTurns)
	tp(fOutputTokens)
	if cc.InputTokens != nil {
		tp(fInputTokens)
	} else {
		tp(fInputUnknown)
	}
	byModel := e.st.cost[agentID]
	if byModel == nil {
		byModel = make(map[string]*Cost)
		e.st.cost[agentID] = byModel
	}
	cost := byModel[cc.Model]
	if cost == nil {
		cost = &Cost{}
		byModel[cc.Model] = cost
	}
	cost.Turns++
	ef := Effect{Type: EffBill, AgentID: agentID, Model: cc.Model, Output: cc.OutputTokens}
	if cc.InputTokens != nil {
		cost.InputTokens += *cc.InputTokens
		ef.Input = NNum{Valid: true, V: *cc.InputTokens}
	} else {
		cost.InputUnknown++
	}
	cost.OutputTokens += cc.OutputTokens
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
func (c *clawboo) appendOutputLines(agentID string, lines []string, sessionKey string) {
	ts, ok := c.anchors[anchorKey(agentID, sessionKey)]
	if !ok {
		ts = c.e.sched.now
	}
	a := c.e.agent(agentID)
	n := c.appendLines(a, lines, LineAssistant, ts)
	c.e.addEffect(Effect{Type: EffAppend, AgentID: agentID, SessionKey: sessionKey, Count: int64(n), At: NInt{Valid: true, V: ts}})
}

// appendLines appends lines (kind "" = inferred per line) and returns how
// many were kept.
func (c *clawboo) appendLines(a *Agent, lines []string, kind string, ts int64) int {
	kept, trimmed := 0, 0
	for bi, l := range lines {
		k := kind
		if k == LineAssistant {
			k = lineKind(l)
		}
		if isDuplicate(a, lines[:bi], l, k, ts, kind) {
			c.e.addEffect(Effect{Type: EffDuplicate, AgentID: a.ID, Text: l})
			continue
		}
		if c.e.pushLine(a, Line{Text: l, Kind: k, TS: ts}) {
			trimmed++
		}
		kept++
	}
	if trimmed > 0 {
		c.e.addEffect(Effect{Type: EffTrim, AgentID: a.ID, Count: int64(trimmed)})
	}
	return kept
}

// isDuplicate is the chat store's layer-2 dedupe: same kind, timestamp and
// text as one of the newest dedupeWindow entries or an earlier line of the
// same batch.
func isDuplicate(a *Agent, batch []string, l, k string, ts int64, kind string) bool {
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

func (c *clawboo) requestHistoryRefresh(agentID, reason string) {
	c.e.request(ReqHistoryRefresh, agentID, reason)
	c.hist.requested = append(c.hist.requested, agentID)
}
func (c *clawboo) loadSummarySnapshot()    { c.e.request(ReqSummaryReload, "", "") }
func (c *clawboo) refreshHeartbeatLatest() { c.e.request(ReqHeartbeatRefresh, "", "") }

// observe turns the handler's guard decisions into effects.
func (c *clawboo) observe(d *handler.Decision) {
	e := c.e
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
			c.hist.dropped = append(c.hist.dropped, d.RunID)
		}
		ef := Effect{Type: EffGuard, Action: d.Kind, AgentID: d.AgentID, Intent: d.Intent, RunID: d.RunID, Incoming: d.Incoming}
		switch d.Kind {
		case handler.DroppedClosed, handler.ClosedRecorded, handler.Hazard, handler.Expired, handler.Evicted:
			ef.At = NInt{Valid: true, V: d.Expiry}
		}
		e.addEffect(ef)
	}
}
