package clawboo

import (
	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/replay"
	"github.com/clawtap/clawtap/pkg/ui"
)

// Timer names of clawboo's timer steps.
const (
	TimerSummaryRefresh = "summaryRefresh"
	TimerApprovalSweep  = "approvalSweep"
)

// ApprovalSweepMs is the host's approval expiry sweep interval.
const ApprovalSweepMs = 5000

// TranscriptCap is the number of committed transcript lines kept per
// agent: clawboo's chat store keeps the newest 500 entries.
const TranscriptCap = 500

// dedupeWindow is how many of the newest transcript entries the chat
// store's exact-signature dedupe (layer 2) compares an incoming line with.
const dedupeWindow = 50

// requestKinds are clawboo's requests, in output order.
var requestKinds = []string{replay.ReqHeartbeatRefresh, replay.ReqHistoryRefresh, replay.ReqSummaryReload}

// host is clawboo's web app as a runtime of the engine: the
// @clawboo/events pipeline (Policy → Handler, with the animation-frame
// patch queue) and the host that wires it to the stores
// (useGatewayEvents): its dispatcher with the pending-approval rules,
// billing, the chat store's transcript and dedupe, the approvals store and
// its expiry sweep.
type host struct {
	h       *replay.Host
	st      *replay.State
	v       behaviour
	pol     Deriver
	intents []Intent // the record's, which the step points at
	hd      *Handler
	q       *PatchQueue

	anchors map[string]int64 // stream-start anchor per chat session
	sweep   func()           // cancels the armed approval sweep
	hist    histSync

	flushReason string
	flushAgent  string
}

func newHost(h *replay.Host, v behaviour) *host {
	c := &host{h: h, st: h.State(), v: v, anchors: make(map[string]int64)}
	c.newPipeline()
	return c
}

// handlerTimers adapts the engine's clock to Timers.
type handlerTimers struct{ h *replay.Host }

func (ht handlerTimers) AfterFunc(ms int64, fn func()) func() {
	return ht.h.After(ms, TimerSummaryRefresh, fn)
}

func (c *host) newPipeline() {
	c.q = NewPatchQueue(c.h.RequestFrame, c.onFlush)
	c.hd = NewHandler(Deps{
		GetAgentRunID:          c.getAgentRunID,
		DispatchIntent:         c.dispatchIntent,
		QueueLivePatch:         c.queueLivePatch,
		ClearPendingLivePatch:  c.clearPendingLivePatch,
		AppendOutputLines:      c.appendOutputLines,
		RequestHistoryRefresh:  c.requestHistoryRefresh,
		LoadSummarySnapshot:    c.loadSummarySnapshot,
		RefreshHeartbeatLatest: c.refreshHeartbeatLatest,
		Clock:                  c.h,
		Timers:                 handlerTimers{c.h},
		Observer:               c.observe,
		ByCommitGuard:          c.v.byCommitGuard,
	})
}

// Record derives the record's intents and applies them.
func (c *host) Record(_ *capture.Record, ev *bridge.Event) {
	c.intents = c.pol.Append(c.intents[:0], ev)
	for i := range c.intents {
		c.h.Intent(&c.intents[i])
	}
	c.hist.beginStep()
	c.hd.ApplyIntents(c.intents)
	if c.h.Options().HistorySync {
		c.syncHistory()
	}
}

// Dispose tears the pipeline down as the host's cleanup does, and builds
// a fresh one for the next connection. The stores survive.
func (c *host) Dispose(reason string) {
	c.hd.Dispose() // reported through observe
	c.h.LastEffect().Reason = reason
	dropped := c.q.Dispose()
	c.h.Effect(replay.Effect{Type: replay.EffDispose, Name: "patchQueue", Reason: reason, Count: int64(len(dropped))})
	if len(dropped) > 0 {
		c.h.Effect(replay.Effect{Type: replay.EffDrop, Patches: c.h.CopyPatches(dropped)})
	}
	c.newPipeline()
}

func (c *host) ClosedRuns() []ui.ClosedRun { return c.hd.ClosedRuns() }

func (c *host) BeginStep() {}

func (c *host) getAgentRunID(id string) string {
	if a := c.st.Agent(id); a != nil && a.RunID.Valid {
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
func (c *host) queueLivePatch(agentID string, p ui.Patch, sessionKey string) {
	mode, merged := c.q.Enqueue(agentID, p)
	c.h.Effect(replay.Effect{Type: replay.EffQueue, AgentID: agentID, SessionKey: sessionKey, Patch: p, Action: mode,
		Count: int64(merged.Patches), At: replay.NInt{Valid: c.q.FramePending(), V: c.h.FrameDue()}})
	if p.StreamText.Set {
		k := anchorKey(agentID, sessionKey)
		c.st.SetChatStream(k, replay.NStrOf(p.StreamText))
		if _, ok := c.anchors[k]; !ok && !p.StreamText.Null {
			c.anchors[k] = c.h.Now()
		}
	}
}

// onFlush writes a batch into the fleet store, one write per agent.
func (c *host) onFlush(batch []ui.AgentPatch) {
	ef := replay.Effect{Type: replay.EffFlush, Action: "frame", Patches: c.h.CopyPatches(batch)}
	if c.flushReason != "" {
		ef.Action, ef.AgentID = c.flushReason, c.flushAgent
	}
	c.h.Effect(ef)
	for i := range batch {
		c.st.ApplyPatch(c.st.EnsureAgent(batch[i].AgentID), &batch[i].Patch)
	}
}

// clearPendingLivePatch is clawboo's host: it flushes everything pending,
// for every agent, rather than discarding the agent's patch.
func (c *host) clearPendingLivePatch(agentID string) {
	c.flushReason, c.flushAgent = "clear", agentID
	c.q.Flush()
	c.flushReason, c.flushAgent = "", ""
}

func (c *host) hasPendingApproval(agentID string) bool {
	a := c.st.Agent(agentID)
	return a != nil && a.PendingApprovals() > 0
}

// dispatchIntent is the host's dispatcher, with its pending-approval rules.
func (c *host) dispatchIntent(in *Intent) {
	switch in.Kind {
	case UpdateAgentStatus:
		status, _ := in.Patch.Status.Value()
		if status != StatusRunning && c.hasPendingApproval(in.AgentID) {
			c.h.Effect(replay.Effect{Type: replay.EffSkip, AgentID: in.AgentID, Intent: in.Kind, Reason: "approval pending"})
			return
		}
		c.h.Effect(replay.Effect{Type: replay.EffWrite, AgentID: in.AgentID, Intent: in.Kind, Patch: in.Patch})
		c.st.ApplyPatch(c.st.EnsureAgent(in.AgentID), &in.Patch)
	case CommitChat:
		if in.Cost != nil {
			c.bill(in.AgentID, in.Cost)
		}
		if c.hasPendingApproval(in.AgentID) {
			c.h.Effect(replay.Effect{Type: replay.EffSkip, AgentID: in.AgentID, Intent: in.Kind, Reason: "approval pending"})
			return
		}
		if c.v.recovery && in.SessionKey != "" {
			c.recover(in)
		}
		c.h.Effect(replay.Effect{Type: replay.EffWrite, AgentID: in.AgentID, Intent: in.Kind, Patch: in.Patch})
		c.st.ApplyPatch(c.st.EnsureAgent(in.AgentID), &in.Patch)
		// Only an applied commit clears the session's streaming bubble.
		k := anchorKey(in.AgentID, in.SessionKey)
		c.st.SetChatStream(k, replay.NStr{})
		if !c.v.anchorOnAppend {
			delete(c.anchors, k)
		}
	case ApprovalPending:
		c.addApproval(in)
	case ApprovalResolved:
		c.resolveApproval(in)
	}
}

// noTokens says why a turn of no tokens is not billed: recordChatCost
// skips it, and clawboo reads a final's usage as input_tokens and
// output_tokens, which the gateway does not send (its usage says input
// and output), so every final it reads costs nothing.
const noTokens = "recordChatCost skips a turn of no tokens, and clawboo reads usage.input_tokens and usage.output_tokens, 0 of each in this final"

// bill is the host's recordChatCost: the cost a commitChat carries.
func (c *host) bill(agentID string, cc *ChatCost) {
	ef := replay.Effect{Type: replay.EffBill, AgentID: agentID, Model: cc.Model, Output: cc.OutputTokens}
	if cc.InputTokens != nil {
		ef.Input = replay.NNum{Valid: true, V: *cc.InputTokens}
	}
	if c.v.skipZeroBill && cc.InputTokens != nil && *cc.InputTokens == 0 && cc.OutputTokens == 0 {
		ef.Action, ef.Reason = replay.BillNotRecorded, noTokens
		c.h.Effect(ef)
		return
	}
	c.st.Bill(agentID, cc.Model, ef.Input, cc.OutputTokens)
	c.h.Effect(ef)
}

func lineKind(l string) string {
	if hasPrefix(l, "[[tool]]") || hasPrefix(l, "[[tool-result]]") {
		return replay.LineTool
	}
	return replay.LineAssistant
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }

// appendOutputLines is the host's: each line becomes a transcript entry
// stamped with the stream-start anchor (or now), deduplicated by exact
// signature against the newest 50 entries and the batch itself.
func (c *host) appendOutputLines(agentID string, lines []string, sessionKey string) {
	c.appendEntries(agentID, lines, sessionKey, entry{kind: replay.LineAssistant})
}

// entry is how the host stamps the lines it appends: their kind (assistant
// is inferred per line: tool lines by their prefix) and role, and the run
// they carry after 1211c16 ("" is the agent's run at the time), and the
// reason shown on the append effect.
type entry struct {
	kind, role string
	runID      string
	reason     string
}

// appendEntries is the host's appendOutputLines: the lines are stamped
// with the session's stream-start anchor (or now), which after 1211c16
// they use up, and with the run.
func (c *host) appendEntries(agentID string, lines []string, sessionKey string, en entry) {
	k := anchorKey(agentID, sessionKey)
	ts, ok := c.anchors[k]
	if !ok {
		ts = c.h.Now()
	} else if c.v.anchorOnAppend {
		delete(c.anchors, k)
	}
	a := c.st.EnsureAgent(agentID)
	stamp := replay.Line{Kind: en.kind, Role: en.role, TS: ts}
	if c.v.stampLines {
		stamp.SessionKey, stamp.RunID = sessionKey, en.runID
		if stamp.RunID == "" {
			stamp.RunID = c.getAgentRunID(agentID)
		}
	}
	n := c.appendLines(a, lines, stamp)
	c.h.Effect(replay.Effect{Type: replay.EffAppend, AgentID: agentID, SessionKey: sessionKey, Count: int64(n), At: replay.NInt{Valid: true, V: ts}, Reason: en.reason})
}

// appendLines appends lines stamped like stamp (its kind assistant: the
// kind is inferred per line) and returns how many were kept.
func (c *host) appendLines(a *replay.Agent, lines []string, stamp replay.Line) int {
	kind, ts := stamp.Kind, stamp.TS
	kept, trimmed := 0, 0
	for bi, l := range lines {
		k := kind
		if k == replay.LineAssistant {
			k = lineKind(l)
		}
		if isDuplicate(a, lines[:bi], l, k, stamp.Role, ts, kind) {
			c.h.Effect(replay.Effect{Type: replay.EffDuplicate, AgentID: a.ID, Text: l})
			continue
		}
		line := stamp
		line.Text, line.Kind = l, k
		if c.st.PushLine(a, line) {
			trimmed++
		}
		kept++
	}
	if trimmed > 0 {
		c.h.Effect(replay.Effect{Type: replay.EffTrim, AgentID: a.ID, Count: int64(trimmed)})
	}
	return kept
}

// isDuplicate is the chat store's layer-2 dedupe: same kind, role,
// timestamp and text as one of the newest dedupeWindow entries or an
// earlier line of the same batch.
func isDuplicate(a *replay.Agent, batch []string, l, k, role string, ts int64, kind string) bool {
	for _, b := range batch {
		bk := kind
		if bk == replay.LineAssistant {
			bk = lineKind(b)
		}
		if b == l && bk == k {
			return true
		}
	}
	n := a.NumLines()
	from := max(n-dedupeWindow, 0)
	for i := n - 1; i >= from; i-- {
		x := a.Line(i)
		if x.TS == ts && x.Kind == k && x.Role == role && x.Text == l {
			return true
		}
	}
	return false
}

func (c *host) requestHistoryRefresh(agentID, reason string) {
	c.h.Request(replay.ReqHistoryRefresh, agentID, reason)
	c.hist.requested = append(c.hist.requested, agentID)
}
func (c *host) loadSummarySnapshot()    { c.h.Request(replay.ReqSummaryReload, "", "") }
func (c *host) refreshHeartbeatLatest() { c.h.Request(replay.ReqHeartbeatRefresh, "", "") }

// observe turns the handler's guard decisions into effects.
func (c *host) observe(d *Decision) {
	switch d.Kind {
	case SummaryArmed:
		action := "armed"
		if d.Replaced {
			action = "re-armed"
		}
		c.h.Effect(replay.Effect{Type: replay.EffTimer, Name: TimerSummaryRefresh, Action: action, At: replay.NInt{Valid: true, V: d.Due}, Heartbeat: d.Heartbeat})
	case SummaryFired:
		c.h.Effect(replay.Effect{Type: replay.EffTimer, Name: TimerSummaryRefresh, Action: "fired", Heartbeat: d.Heartbeat})
	case Disposed:
		c.h.Effect(replay.Effect{Type: replay.EffDispose, Name: "handler", Count: int64(d.Count), Replaced: d.Replaced})
	default:
		if d.Kind == DroppedClosed && d.Intent == CommitChat {
			c.hist.dropped = append(c.hist.dropped, d.RunID)
		}
		ef := replay.Effect{Type: replay.EffGuard, Action: d.Kind, AgentID: d.AgentID, Intent: d.Intent, RunID: d.RunID, Incoming: d.Incoming, ClosedBy: d.ClosedBy}
		if d.Kind == DroppedClosed {
			ef.Live = d.Live
		}
		switch d.Kind {
		case DroppedClosed, ClosedRecorded, Hazard, Expired, Evicted, Passed:
			ef.At = replay.NInt{Valid: true, V: d.Expiry}
		}
		c.h.Effect(ef)
	}
}
