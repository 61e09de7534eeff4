package claw3d

import (
	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/replay"
	"github.com/clawtap/clawtap/pkg/ui"
)

// host is Claw3D Studio as a runtime of the engine: its runtime event
// handler (Handler) on the engine's clock, and the host that wires it to
// the stores — the agent store its updates and live-patch flushes write,
// the transcript it upserts by entryId, the live patch queue whose clear
// discards, the approvals store, and the requests it makes.
//
// What the host leaves out: history refreshes are counted, not answered
// (the gateway's answer is not in the capture); the connection status is
// "connected" while the followed connection is open.
type host struct {
	e  *replay.Host
	st *replay.State
	h  *Handler
	q  *LivePatchQueue

	connected bool
	// tr keeps each agent's transcript as Claw3D's store does (upserts,
	// traces); the state's lines mirror it.
	tr map[string]*Transcript

	out       []Intent // the record's intents, which the step points at
	timerOut  []Intent // a timer's
	decisions []Decision
	patchBuf  []ui.AgentPatch
}

func newHost(e *replay.Host) *host {
	c := &host{e: e, st: e.State(), connected: true, tr: map[string]*Transcript{}}
	c.newPipeline()
	return c
}

func (c *host) newPipeline() {
	e := c.e
	c.q = NewLivePatchQueue(e.RequestFrame, c.onFlush)
	c.h = New(Deps{
		Now: e.Now,
		SetTimeout: func(ms int64, fn func()) func() {
			return e.After(ms, "claw3d", fn) // the step names its timer when it runs
		},
		Status:                       c.status,
		Agent:                        c.agent,
		Dispatch:                     c.dispatch,
		QueueLivePatch:               c.queueLivePatch,
		ClearPendingLivePatch:        c.clearPendingLivePatch,
		LoadSummarySnapshot:          func() { e.Request(replay.ReqSummaryReload, "", "") },
		RequestHistoryRefresh:        func(r *HistoryRefresh) { e.Request(replay.ReqHistoryRefresh, r.AgentID, r.Reason) },
		RefreshHeartbeatLatestUpdate: func() { e.Request(replay.ReqHeartbeatRefresh, "", "") },
		BumpHeartbeatTick:            func() { e.Request(replay.ReqHeartbeatTick, "", "") },
		ShouldSuppressRunAbortedLine: c.suppressAborted,
		UpdateSpecialLatestUpdate: func(agentID string, _ *Agent, msg string) {
			e.Effect(replay.Effect{Type: replay.EffLatest, AgentID: agentID, Text: msg})
		},
		UpsertApproval: c.upsertApproval,
		RemoveApproval: c.removeApproval,
		LogWarn:        func(msg string) { e.Effect(replay.Effect{Type: replay.EffWarn, Text: msg}) },
		Observer:       c.observe,
		TimerIntents:   c.timerIntents,
	}, Options{})
}

func (c *host) Record(rec *capture.Record, ev *bridge.Event) {
	switch rec.Mark {
	case capture.MarkOpen, capture.MarkHello:
		c.connected = true
	case capture.MarkClose, capture.MarkError:
		c.connected = false
	}
	c.out = c.h.Handle(c.out[:0], ev)
	for i := range c.out {
		c.e.Intent(&c.out[i])
	}
}

// timerIntents names the timer step and shows what it ran.
func (c *host) timerIntents(name string, ins []Intent) {
	c.e.NameTimer(name)
	lo := len(c.timerOut)
	c.timerOut = append(c.timerOut, ins...)
	for i := lo; i < len(c.timerOut); i++ {
		c.e.Intent(&c.timerOut[i])
	}
}

func (c *host) Dispose(reason string) {
	e := c.e
	c.h.Dispose() // reported through observe
	e.LastEffect().Reason = reason
	dropped := c.q.Dispose()
	e.Effect(replay.Effect{Type: replay.EffDispose, Name: "patchQueue", Reason: reason, Count: int64(len(dropped))})
	if len(dropped) > 0 {
		e.Effect(replay.Effect{Type: replay.EffDrop, Patches: c.patches(dropped)})
	}
	c.newPipeline()
	// After a close the UI is disconnected until the next connection opens;
	// a reconnect's first record is that connection.
	c.connected = reason != "close"
}

func (c *host) ClosedRuns() []ui.ClosedRun {
	list := c.h.ClosedRuns()
	out := make([]ui.ClosedRun, len(list))
	for i, r := range list {
		out[i] = ui.ClosedRun{RunID: r.RunID, Expiry: r.ExpiresAt}
	}
	return out
}

func (c *host) status() string {
	if c.connected {
		return StatusConnected
	}
	return "disconnected"
}

// agent is getAgents for one agent: the store's fields now (live patches
// still queued not included) and whether its transcript holds a trace.
func (c *host) agent(id string) Agent {
	out := Agent{AgentID: id}
	if a := c.st.Agent(id); a != nil {
		p := &out.Patch
		p.Status, p.RunID, p.StreamText, p.ThinkingTrace = strOf(a.Status), strOf(a.RunID), strOf(a.StreamText), strOf(a.ThinkingTrace)
		p.RunStartedAt, p.LastActivityAt = intOf(a.RunStartedAt), intOf(a.LastActivityAt)
		p.LatestPreview, p.LastUserMessage, p.LastResult = strOf(a.LatestPreview), strOf(a.LastUserMessage), strOf(a.LastResult)
		p.LastAssistantMessageAt = intOf(a.LastAssistantMessageAt)
		if a.SessionCreated.Valid {
			p.SessionCreated = ui.SetBool(a.SessionCreated.V)
		}
	}
	if t := c.tr[id]; t != nil {
		out.HasTraceLine = t.HasTrace()
	}
	return out
}

func strOf(s replay.NStr) ui.Str {
	if !s.Valid {
		return ui.Str{}
	}
	return ui.SetStr(s.V)
}

func intOf(n replay.NInt) ui.Int {
	if !n.Valid {
		return ui.Int{}
	}
	return ui.SetInt(n.V)
}

// dispatch applies Claw3D's store actions.
func (c *host) dispatch(act *Action) {
	switch act.Type {
	case ActionUpdateAgent:
		c.e.Effect(replay.Effect{Type: replay.EffWrite, AgentID: act.AgentID, Intent: IntentUpdateAgent, Patch: act.Patch})
		c.st.ApplyPatch(c.st.EnsureAgent(act.AgentID), &act.Patch)
	case ActionAppendOutput:
		c.appendOutput(act.AgentID, act.Line, &act.Transcript)
	case ActionMarkActivity:
		c.e.Effect(replay.Effect{Type: replay.EffActivity, AgentID: act.AgentID, At: replay.NInt{Valid: true, V: act.At}})
	}
}

// appendOutput upserts the line into the agent's transcript and mirrors
// the result into the state's lines: in place for a known entryId, at the
// end otherwise (the cap drops the oldest in both at once).
func (c *host) appendOutput(agentID, line string, meta *EntryMeta) {
	t := c.tr[agentID]
	if t == nil {
		t = &Transcript{}
		c.tr[agentID] = t
	}
	a := c.st.EnsureAgent(agentID)
	before := t.Dropped()
	i, replaced := t.Append(line, meta)
	en := t.Entries()[i]
	l := replay.Line{Text: en.Text, Kind: en.Kind, EntryID: en.EntryID, Role: en.Role, RunID: en.RunID, Confirmed: en.Confirmed}
	if ts := en.TimestampMs; ts.Set && !ts.Null {
		l.TS = ts.V
	} else {
		l.TS = c.e.Now()
	}
	ef := replay.Effect{Type: replay.EffAppend, AgentID: agentID, SessionKey: meta.SessionKey, Count: 1, At: replay.NInt{Valid: true, V: l.TS}, ID: en.EntryID, Replaced: replaced}
	if replaced {
		c.st.ReplaceLine(a, int64(before+i), l)
	} else if c.st.PushLine(a, l) {
		c.e.Effect(replay.Effect{Type: replay.EffTrim, AgentID: agentID, Count: 1})
	}
	c.e.Effect(ef)
}

func (c *host) queueLivePatch(agentID string, p *Patch) {
	mode, merged := c.q.Enqueue(agentID, p)
	c.e.Effect(replay.Effect{Type: replay.EffQueue, AgentID: agentID, Patch: *p, Action: mode,
		Count: int64(merged.Patches), At: replay.NInt{Valid: c.q.FramePending(), V: c.e.FrameDue()}})
}

// clearPendingLivePatch is Claw3D's: it discards the agent's pending patch.
func (c *host) clearPendingLivePatch(agentID string) {
	if dropped, ok := c.q.Clear(agentID); ok {
		c.e.Effect(replay.Effect{Type: replay.EffDiscard, AgentID: agentID, Patches: c.patches([]PendingPatch{dropped})})
	}
}

// onFlush writes a frame's batch into the agent store.
func (c *host) onFlush(batch []PendingPatch) {
	c.e.Effect(replay.Effect{Type: replay.EffFlush, Action: "frame", Patches: c.patches(batch)})
	for i := range batch {
		c.st.ApplyPatch(c.st.EnsureAgent(batch[i].AgentID), &batch[i].Patch)
	}
}

// patches copies pending patches into the step's storage, for an effect.
func (c *host) patches(ps []PendingPatch) []ui.AgentPatch {
	c.patchBuf = c.patchBuf[:0]
	for _, p := range ps {
		c.patchBuf = append(c.patchBuf, ui.AgentPatch{AgentID: p.AgentID, Patch: p.Patch, Patches: p.Patches})
	}
	return c.e.CopyPatches(c.patchBuf)
}

// suppressAborted hides "Run aborted." when a run is aborted to wait for
// an approval (stopReason "rpc" while the agent has one pending).
func (c *host) suppressAborted(q *AbortedLine) bool {
	a := c.st.Agent(q.AgentID)
	return q.StopReason == "rpc" && a != nil && a.PendingApprovals() > 0
}

func (c *host) upsertApproval(ap *Approval) {
	x := replay.Approval{ID: ap.ID, AgentID: ap.AgentID}
	if ap.Command != "" {
		x.Command = replay.NStr{Valid: true, V: ap.Command}
	}
	if ap.CreatedAtMs > 0 {
		x.CreatedAt = replay.NInt{Valid: true, V: ap.CreatedAtMs}
	}
	if ap.ExpiresAtMs > 0 {
		x.ExpiresAt = replay.NInt{Valid: true, V: ap.ExpiresAtMs}
	}
	action := "added"
	if c.st.PutApproval(x) {
		action = "updated"
	}
	c.e.Effect(replay.Effect{Type: replay.EffApproval, Action: action, ID: ap.ID, AgentID: ap.AgentID, Command: x.Command, At: x.ExpiresAt})
}

func (c *host) removeApproval(id, reason string) {
	ap := c.st.DeleteApproval(id)
	if ap == nil {
		c.e.Effect(replay.Effect{Type: replay.EffApproval, Action: "unknown", ID: id})
		return
	}
	action := "removed"
	if reason == "expired" {
		action = "expired"
	}
	c.e.Effect(replay.Effect{Type: replay.EffApproval, Action: action, ID: id, AgentID: ap.AgentID, Command: ap.Command, Reason: reason})
}

// observe turns Claw3D's metrics and decisions into effects; a metric is
// also counted in the state.
func (c *host) observe(d *Decision) {
	e := c.e
	c.decisions = append(c.decisions, *d)
	kept := &c.decisions[len(c.decisions)-1]
	switch {
	case d.IsMetric():
		c.st.CountMetric(d.Kind)
		e.Effect(replay.Effect{Type: replay.EffMetric, Action: d.Kind, AgentID: d.AgentID, RunID: d.RunID, Detail: kept})
		return
	case d.Kind == DecisionSummaryRefreshFired:
		e.NameTimer(TimerSummaryRefresh)
	case d.Kind == DecisionFallbackFired, d.Kind == DecisionFallbackSkipped:
		e.NameTimer(TimerLifecycleFallback)
	case d.Kind == DecisionHistoryRefreshFired:
		e.NameTimer(TimerHistoryRefresh)
	case d.Kind == DecisionApprovalExpired:
		e.NameTimer(TimerApprovalExpiry)
	}
	e.Effect(replay.Effect{Type: replay.EffDecision, Action: d.Kind, AgentID: d.AgentID, RunID: d.RunID, Detail: kept})
}

// BeginStep forgets the last step's intents and decisions.
func (c *host) BeginStep() {
	clear(c.timerOut)
	c.timerOut = c.timerOut[:0]
	c.decisions = c.decisions[:0]
}
