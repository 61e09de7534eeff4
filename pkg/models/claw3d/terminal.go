package claw3d

import "github.com/clawtap/clawtap/pkg/ui"

// Claw3D's terminal and fallback state machine (runtimeTerminalWorkflow,
// §4.4) and its closed-run fence.

// ClosedRun is one entry of the closed-run fence.
type ClosedRun struct {
	RunID     string
	ExpiresAt int64 // closed while now < ExpiresAt
}

// closedRuns is closedRunExpiresByRun: a JavaScript Map, so insertion
// order (re-closing a run updates its expiry in place), no size cap.
type closedRuns struct {
	order []ClosedRun
	index map[string]int
	min   int64 // no entry expires before this
}

func (c *closedRuns) reset() {
	c.order = c.order[:0]
	c.index = map[string]int{}
	c.min = 0
}

func (c *closedRuns) has(run string) bool {
	_, ok := c.index[run]
	return ok
}

func (c *closedRuns) set(run string, exp int64) {
	if i, ok := c.index[run]; ok {
		c.order[i].ExpiresAt = exp
	} else {
		c.index[run] = len(c.order)
		c.order = append(c.order, ClosedRun{RunID: run, ExpiresAt: exp})
	}
	if len(c.order) == 1 || exp < c.min {
		c.min = exp
	}
}

func (c *closedRuns) list() []ClosedRun { return append([]ClosedRun(nil), c.order...) }

// pruneClosed removes the runs whose fence expired (expiresAt <= now),
// with their terminal state, in insertion order. Claw3D prunes only on
// chat and agent frames.
func (h *Handler) pruneClosed(now int64) {
	c := &h.closed
	if len(c.order) == 0 || now < c.min {
		return
	}
	kept := c.order[:0]
	c.min = 0
	for _, e := range c.order {
		if e.ExpiresAt <= now {
			delete(c.index, e.RunID)
			delete(h.terminal, e.RunID)
			h.observe(Decision{Kind: DecisionClosedRunExpired, RunID: e.RunID, ExpiresAt: e.ExpiresAt})
			continue
		}
		if len(kept) == 0 || e.ExpiresAt < c.min {
			c.min = e.ExpiresAt
		}
		c.index[e.RunID] = len(kept)
		kept = append(kept, e)
	}
	clear(c.order[len(kept):])
	c.order = kept
}

// markRunClosed puts the run behind the fence for ClosedRunTTLMs.
func (h *Handler) markRunClosed(runID string, now int64) {
	exp := now + ClosedRunTTLMs
	h.closed.set(runID, exp)
	h.emit(Intent{Kind: IntentMarkRunClosed, RunID: runID, At: exp})
}

// applyTerminalCommit records that the run's terminal was committed, by
// whom, and with which payload seq (a fallback records none).
func (h *Handler) applyTerminalCommit(runID, source string, seq float64, hasSeq bool) {
	st := h.terminalState(runID)
	st.committed, st.source = true, source
	st.lastSeq, st.hasLastSeq = seq, hasSeq
	h.emit(Intent{Kind: IntentApplyTerminalCommit, RunID: runID, Source: source, Seq: seq, HasSeq: hasSeq})
}

func (h *Handler) terminalState(runID string) *runTerminal {
	st := h.terminal[runID]
	if st == nil {
		st = &runTerminal{}
		h.terminal[runID] = st
	}
	return st
}

// cancelFallback cancels the run's pending fallback, if any.
func (h *Handler) cancelFallback(runID string) bool {
	fb := h.fallback[runID]
	if fb == nil {
		return false
	}
	fb.cancel()
	delete(h.fallback, runID)
	h.emit(Intent{Kind: IntentCancelLifecycleFallback, RunID: runID})
	return true
}

// chatTerminalDecision is deriveChatTerminalDecision for a terminal chat
// frame with a runId. The frame is stale when the run's terminal was
// committed by a chat final and either it has no seq or its seq is at
// most the committed one; a commit by a lifecycle fallback is always
// replaceable. The decision marks chatFinalSeen and cancels a pending
// fallback either way.
func (h *Handler) chatTerminalDecision(runID string, seq float64, hasSeq bool) (stale, afterFallback bool) {
	st := h.terminalState(runID)
	if st.committed && st.source == CommitChatFinal {
		stale = !hasSeq || (st.hasLastSeq && seq <= st.lastSeq)
	}
	afterFallback = st.committed && st.source == CommitLifecycleFallback
	st.chatFinalSeen = true
	h.cancelFallback(runID)
	if stale {
		h.observe(Decision{Kind: MetricStaleTerminalChatEventIgnored, RunID: runID, Seq: seq, HasSeq: hasSeq,
			LastTerminalSeq: st.lastSeq, HasLastSeq: st.hasLastSeq, CommitSource: st.source})
	}
	return stale, afterFallback
}

// fallback is a scheduled lifecycle-end fallback commit.
type fallback struct {
	cancel     func()
	agentID    string
	runID      string
	sessionKey string
	finalText  string
	transition Patch // the deferred lifecycle patch
}

// terminalPatch is the lifecycle end/error transition patch.
func terminalPatch(status string, now int64) Patch {
	return Patch{
		Status: ui.SetStr(status), RunID: ui.NullStr(), RunStartedAt: ui.NullInt(),
		StreamText: ui.NullStr(), ThinkingTrace: ui.NullStr(), LastActivityAt: ui.SetInt(now),
	}
}

// lifecycleTerminal is deriveLifecycleTerminalDecision plus its effects
// for a lifecycle end or error of the agent's run:
//
//   - end, no chat final seen, and the agent has streamText (non-empty
//     once normalized): any pending fallback is replaced by one in
//     LifecycleFallbackDelayMs that commits that text; the transition
//     patch waits for it;
//   - end, no chat final seen, no streamText: the run's terminal state is
//     cleared; the transition applies now;
//   - otherwise (end after a chat final, or error) a pending fallback is
//     cancelled and, unless the run is committed or its chat final was
//     seen, its terminal state cleared;
//   - a transition applied now closes the run (markRunClosed,
//     clearRunTracking) before its patch is dispatched.
func (h *Handler) lifecycleTerminal(agent *Agent, runID, sessionKey, phase string, now int64) {
	status := StatusIdle
	if phase == "error" {
		status = StatusError
	}
	transition := terminalPatch(status, now)
	st := h.terminal[runID]
	chatFinalSeen := st != nil && st.chatFinalSeen
	if phase == "end" && !chatFinalSeen {
		if text := NormalizeAssistantDisplayText(agent.streamText()); text != "" {
			h.cancelFallback(runID)
			h.scheduleFallback(&fallback{agentID: agent.AgentID, runID: runID, sessionKey: sessionKey, finalText: text, transition: transition})
			return
		}
		delete(h.terminal, runID)
	} else if h.cancelFallback(runID) && st != nil && !st.committed && !st.chatFinalSeen {
		delete(h.terminal, runID)
	}
	h.markRunClosed(runID, now)
	h.clearRunTracking(runID)
	h.updateAgent(agent.AgentID, &transition)
}

func (h *Handler) scheduleFallback(fb *fallback) {
	h.emit(Intent{Kind: IntentScheduleLifecycleFallback, AgentID: fb.agentID, RunID: fb.runID,
		DelayMs: LifecycleFallbackDelayMs, Text: fb.finalText})
	h.fallback[fb.runID] = fb
	fb.cancel = h.deps.SetTimeout(LifecycleFallbackDelayMs, func() {
		h.timer(TimerLifecycleFallback, func() { h.fallbackFired(fb) })
	})
}

// fallbackFired is reduceLifecycleFallbackFired: unless a chat final was
// seen meanwhile, the agent's streamText is committed as the run's final
// (unconfirmed, on the same entryIds a chat final uses, so a later chat
// final replaces it), the run is closed and the deferred transition
// applies.
func (h *Handler) fallbackFired(fb *fallback) {
	if h.fallback[fb.runID] != fb {
		return // cancelled, or replaced by a newer fallback
	}
	delete(h.fallback, fb.runID)
	if st := h.terminal[fb.runID]; st != nil && st.chatFinalSeen {
		h.observe(Decision{Kind: DecisionFallbackSkipped, AgentID: fb.agentID, RunID: fb.runID})
		return
	}
	now := h.now()
	h.observe(Decision{Kind: DecisionFallbackFired, AgentID: fb.agentID, RunID: fb.runID})
	meta := EntryMeta{
		EntryID: "run:" + fb.runID + ":assistant:meta", Source: SourceRuntimeAgent, Kind: KindMeta, Role: "assistant",
		Confirmed: SetBool(false), RunID: fb.runID, SessionKey: fb.sessionKey, TimestampMs: ui.SetInt(now),
	}
	h.appendOutput(fb.agentID, h.metaLine(fb.runID, now), &meta)
	final := EntryMeta{
		EntryID: "run:" + fb.runID + ":assistant:final", Source: SourceRuntimeAgent, Kind: KindAssistant, Role: "assistant",
		Confirmed: SetBool(false), RunID: fb.runID, SessionKey: fb.sessionKey, TimestampMs: ui.SetInt(now),
	}
	h.appendOutput(fb.agentID, fb.finalText, &final)
	h.updateAgent(fb.agentID, &Patch{LastResult: ui.SetStr(fb.finalText), LastAssistantMessageAt: ui.SetInt(now)})
	h.applyTerminalCommit(fb.runID, CommitLifecycleFallback, 0, false)
	h.markRunClosed(fb.runID, now)
	h.clearRunTracking(fb.runID)
	h.updateAgent(fb.agentID, &fb.transition)
}
