package replay

import (
	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/claw3d"
	"github.com/clawtap/clawtap/pkg/handler"
	"github.com/clawtap/clawtap/pkg/policy"
)

// claw3dUI is Claw3D Studio as a UI of the engine: its runtime event
// handler (pkg/claw3d) on the engine's clock, and the host that wires it to
// the stores — the agent store its updates and live-patch flushes write,
// the transcript it upserts by entryId, the live patch queue whose clear
// discards, the approvals store, and the requests it makes.
//
// What the host leaves out: history refreshes are counted, not answered
// (the gateway's answer is not in the capture); the connection status is
// "connected" while the followed connection is open.
type claw3dUI struct {
	e *Engine
	h *claw3d.Handler
	q *claw3d.LivePatchQueue

	connected bool
	// tr keeps each agent's transcript as Claw3D's store does (upserts,
	// traces); the state's lines mirror it.
	tr map[string]*claw3d.Transcript

	out       []claw3d.Intent // the record's intents, which the step points at
	timerOut  []claw3d.Intent // a timer's
	decisions []claw3d.Decision
	flushing  bool // a frame flush, as opposed to a discard
}

func newClaw3D(e *Engine) *claw3dUI {
	c := &claw3dUI{e: e, connected: true, tr: map[string]*claw3d.Transcript{}}
	c.newPipeline()
	return c
}

func (c *claw3dUI) newPipeline() {
	e := c.e
	c.q = claw3d.NewLivePatchQueue(e.requestFrame, c.onFlush)
	c.h = claw3d.New(claw3d.Deps{
		Now: e.Now,
		SetTimeout: func(ms int64, fn func()) func() {
			return e.after(ms, "claw3d", fn) // the step names its timer when it runs
		},
		Status:                       c.status,
		Agent:                        c.agent,
		Dispatch:                     c.dispatch,
		QueueLivePatch:               c.queueLivePatch,
		ClearPendingLivePatch:        c.clearPendingLivePatch,
		LoadSummarySnapshot:          func() { e.request(ReqSummaryReload, "", "") },
		RequestHistoryRefresh:        func(r *claw3d.HistoryRefresh) { e.request(ReqHistoryRefresh, r.AgentID, r.Reason) },
		RefreshHeartbeatLatestUpdate: func() { e.request(ReqHeartbeatRefresh, "", "") },
		BumpHeartbeatTick:            func() { e.request(ReqHeartbeatTick, "", "") },
		ShouldSuppressRunAbortedLine: c.suppressAborted,
		UpdateSpecialLatestUpdate: func(agentID string, _ *claw3d.Agent, msg string) {
			e.addEffect(Effect{Type: EffLatest, AgentID: agentID, Text: msg})
		},
		UpsertApproval: c.upsertApproval,
		RemoveApproval: c.removeApproval,
		LogWarn:        func(msg string) { e.addEffect(Effect{Type: EffWarn, Text: msg}) },
		Observer:       c.observe,
		TimerIntents:   c.timerIntents,
	}, claw3d.Options{})
}

func (c *claw3dUI) record(rec *capture.Record, ev *bridge.Event) {
	switch rec.Mark {
	case capture.MarkOpen, capture.MarkHello:
		c.connected = true
	case capture.MarkClose, capture.MarkError:
		c.connected = false
	}
	c.out = c.h.Handle(c.out[:0], ev)
	s := &c.e.step
	for i := range c.out {
		s.Intents = append(s.Intents, &c.out[i])
	}
}

// timerIntents names the timer step and shows what it ran.
func (c *claw3dUI) timerIntents(name string, ins []claw3d.Intent) {
	s := &c.e.step
	s.Timer = name
	lo := len(c.timerOut)
	c.timerOut = append(c.timerOut, ins...)
	for i := lo; i < len(c.timerOut); i++ {
		s.Intents = append(s.Intents, &c.timerOut[i])
	}
}

func (c *claw3dUI) dispose(reason string) {
	e := c.e
	c.h.Dispose() // reported through observe
	e.lastEffect().Reason = reason
	dropped := c.q.Dispose()
	e.addEffect(Effect{Type: EffDispose, Name: "patchQueue", Reason: reason, Count: int64(len(dropped))})
	if len(dropped) > 0 {
		e.addEffect(Effect{Type: EffDrop, Patches: c.patches(dropped)})
	}
	c.newPipeline()
	// After a close the UI is disconnected until the next connection opens;
	// a reconnect's first record is that connection.
	c.connected = reason != "close"
}

func (c *claw3dUI) closedRuns() []handler.ClosedRun {
	list := c.h.ClosedRuns()
	out := make([]handler.ClosedRun, len(list))
	for i, r := range list {
		out[i] = handler.ClosedRun{RunID: r.RunID, Expiry: r.ExpiresAt}
	}
	return out
}

func (c *claw3dUI) status() string {
	if c.connected {
		return claw3d.StatusConnected
	}
	return "disconnected"
}

// agent is getAgents for one agent: the store's fields now (live patches
// still queued not included) and whether its transcript holds a trace.
func (c *claw3dUI) agent(id string) claw3d.Agent {
	out := claw3d.Agent{AgentID: id}
	if a := c.e.st.agents[id]; a != nil {
		p := &out.Patch
		p.Status, p.RunID, p.StreamText, p.ThinkingTrace = strOf(a.Status), strOf(a.RunID), strOf(a.StreamText), strOf(a.ThinkingTrace)
		p.RunStartedAt, p.LastActivityAt = intOf(a.RunStartedAt), intOf(a.LastActivityAt)
		p.LatestPreview, p.LastUserMessage, p.LastResult = strOf(a.LatestPreview), strOf(a.LastUserMessage), strOf(a.LastResult)
		p.LastAssistantMessageAt = intOf(a.LastAssistantMessageAt)
		if a.SessionCreated.Valid {
			p.SessionCreated = policy.SetBool(a.SessionCreated.V)
		}
	}
	if t := c.tr[id]; t != nil {
		out.HasTraceLine = t.HasTrace()
	}
	return out
}

func strOf(s NStr) policy.Str {
	if !s.Valid {
		return policy.Str{}
	}
	return policy.SetStr(s.V)
}

func intOf(n NInt) policy.Int {
	if !n.Valid {
		return policy.Int{}
	}
	return policy.SetInt(n.V)
}

// dispatch applies Claw3D's store actions.
func (c *claw3dUI) dispatch(act *claw3d.Action) {
	e := c.e
	switch act.Type {
	case claw3d.ActionUpdateAgent:
		e.addEffect(Effect{Type: EffWrite, AgentID: act.AgentID, Intent: claw3d.IntentUpdateAgent, Patch: act.Patch})
		e.applyPatch(e.agent(act.AgentID), &act.Patch)
	case claw3d.ActionAppendOutput:
		c.appendOutput(act.AgentID, act.Line, &act.Transcript)
	case claw3d.ActionMarkActivity:
		e.addEffect(Effect{Type: EffActivity, AgentID: act.AgentID, At: NInt{Valid: true, V: act.At}})
	}
}

// appendOutput upserts the line into the agent's transcript and mirrors
// the result into the state's lines: in place for a known entryId, at the
// end otherwise (the cap drops the oldest in both at once).
func (c *claw3dUI) appendOutput(agentID, line string, meta *claw3d.EntryMeta) {
	e := c.e
	t := c.tr[agentID]
	if t == nil {
		t = &claw3d.Transcript{}
		c.tr[agentID] = t
	}
	a := e.agent(agentID)
	before := t.Dropped()
	i, replaced := t.Append(line, meta)
	en := t.Entries()[i]
	l := Line{Text: en.Text, Kind: en.Kind, EntryID: en.EntryID, Role: en.Role, RunID: en.RunID, Confirmed: en.Confirmed}
	if ts := en.TimestampMs; ts.Set && !ts.Null {
		l.TS = ts.V
	} else {
		l.TS = e.sched.now
	}
	ef := Effect{Type: EffAppend, AgentID: agentID, SessionKey: meta.SessionKey, Count: 1, At: NInt{Valid: true, V: l.TS}, ID: en.EntryID, Replaced: replaced}
	if replaced {
		e.replaceLine(a, int64(before+i), l)
	} else if e.pushLine(a, l) {
		e.addEffect(Effect{Type: EffTrim, AgentID: agentID, Count: 1})
	}
	e.addEffect(ef)
}

func (c *claw3dUI) queueLivePatch(agentID string, p *claw3d.Patch) {
	mode, merged := c.q.Enqueue(agentID, p)
	c.e.addEffect(Effect{Type: EffQueue, AgentID: agentID, Patch: *p, Action: mode,
		Count: int64(merged.Patches), At: NInt{Valid: c.q.FramePending(), V: c.e.frameDue}})
}

// clearPendingLivePatch is Claw3D's: it discards the agent's pending patch.
func (c *claw3dUI) clearPendingLivePatch(agentID string) {
	if dropped, ok := c.q.Clear(agentID); ok {
		c.e.addEffect(Effect{Type: EffDiscard, AgentID: agentID, Patches: c.patches([]claw3d.PendingPatch{dropped})})
	}
}

// onFlush writes a frame's batch into the agent store.
func (c *claw3dUI) onFlush(batch []claw3d.PendingPatch) {
	e := c.e
	e.addEffect(Effect{Type: EffFlush, Action: "frame", Patches: c.patches(batch)})
	for i := range batch {
		e.applyPatch(e.agent(batch[i].AgentID), &batch[i].Patch)
	}
}

func (c *claw3dUI) patches(ps []claw3d.PendingPatch) []handler.AgentPatch {
	e := c.e
	lo := len(e.patchArena)
	for _, p := range ps {
		e.patchArena = append(e.patchArena, handler.AgentPatch{AgentID: p.AgentID, Patch: p.Patch, Patches: p.Patches})
	}
	return e.patchArena[lo:len(e.patchArena):len(e.patchArena)]
}

// suppressAborted hides "Run aborted." when a run is aborted to wait for
// an approval (stopReason "rpc" while the agent has one pending).
func (c *claw3dUI) suppressAborted(q *claw3d.AbortedLine) bool {
	a := c.e.st.agents[q.AgentID]
	return q.StopReason == "rpc" && a != nil && a.approvals > 0
}

func (c *claw3dUI) upsertApproval(ap *claw3d.Approval) {
	e := c.e
	st := &e.st
	x := Approval{ID: ap.ID, AgentID: ap.AgentID}
	if ap.Command != "" {
		x.Command = NStr{Valid: true, V: ap.Command}
	}
	if ap.CreatedAtMs > 0 {
		x.CreatedAt = NInt{Valid: true, V: ap.CreatedAtMs}
	}
	if ap.ExpiresAtMs > 0 {
		x.ExpiresAt = NInt{Valid: true, V: ap.ExpiresAtMs}
	}
	e.tr.touch(st, Path{sec: secApprovals, key: ap.ID})
	action := "added"
	if old := st.approvals[ap.ID]; old != nil {
		action = "updated"
		if a := st.agents[old.AgentID]; a != nil {
			a.approvals--
		}
	}
	st.approvals[ap.ID] = &x
	if ap.AgentID != "" {
		e.agent(ap.AgentID).approvals++
	}
	e.addEffect(Effect{Type: EffApproval, Action: action, ID: ap.ID, AgentID: ap.AgentID, Command: x.Command, At: x.ExpiresAt})
}

func (c *claw3dUI) removeApproval(id, reason string) {
	e := c.e
	st := &e.st
	ap := st.approvals[id]
	if ap == nil {
		e.addEffect(Effect{Type: EffApproval, Action: "unknown", ID: id})
		return
	}
	e.tr.touch(st, Path{sec: secApprovals, key: id})
	delete(st.approvals, id)
	if a := st.agents[ap.AgentID]; a != nil {
		a.approvals--
	}
	action := "removed"
	if reason == "expired" {
		action = "expired"
	}
	e.addEffect(Effect{Type: EffApproval, Action: action, ID: id, AgentID: ap.AgentID, Command: ap.Command, Reason: reason})
}

// observe turns Claw3D's metrics and decisions into effects; a metric is
// also counted in the state.
func (c *claw3dUI) observe(d *claw3d.Decision) {
	e := c.e
	c.decisions = append(c.decisions, *d)
	kept := &c.decisions[len(c.decisions)-1]
	switch {
	case d.IsMetric():
		e.metric(d.Kind)
		e.addEffect(Effect{Type: EffMetric, Action: d.Kind, AgentID: d.AgentID, RunID: d.RunID, Claw3D: kept})
		return
	case d.Kind == claw3d.DecisionSummaryRefreshFired:
		e.step.Timer = TimerSummaryRefresh
	case d.Kind == claw3d.DecisionFallbackFired, d.Kind == claw3d.DecisionFallbackSkipped:
		e.step.Timer = claw3d.TimerLifecycleFallback
	case d.Kind == claw3d.DecisionHistoryRefreshFired:
		e.step.Timer = claw3d.TimerHistoryRefresh
	case d.Kind == claw3d.DecisionApprovalExpired:
		e.step.Timer = claw3d.TimerApprovalExpiry
	}
	e.addEffect(Effect{Type: EffDecision, Action: d.Kind, AgentID: d.AgentID, RunID: d.RunID, Claw3D: kept})
}

// beginStep forgets the last step's intents and decisions.
func (c *claw3dUI) beginStep() {
	clear(c.timerOut)
	c.timerOut = c.timerOut[:0]
	c.decisions = c.decisions[:0]
}
