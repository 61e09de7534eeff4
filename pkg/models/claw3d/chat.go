package claw3d

import (
	"time"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/jsstr"
	"github.com/clawtap/clawtap/pkg/message"
	"github.com/clawtap/clawtap/pkg/ui"
)

// The chat workflow (§4.2), in Claw3D's order.

// chatExtract is step 11's extraction of one chat frame.
type chatExtract struct {
	role                string
	text                string // extractText(message), before stripUiMetadata
	hasText             bool
	thinking            string // extractThinking(message ?? payload)
	hasThinking         bool
	tools               []string // extractToolLines(message ?? payload)
	isTool, isAssistant bool
	userOrSystem        bool
	uiMetadata          bool // the text starts with UI metadata
}

func (h *Handler) chat(ev *bridge.Event) {
	var p chatFrame
	readChat(ev, &p)
	// 1. No sessionKey: nothing.
	if p.sessionKey == "" {
		h.ignore(ReasonNoSessionKey, "", p.runID, "")
		return
	}
	// 2. Prune the closed-run fence.
	now := h.now()
	h.pruneClosed(now)
	// 3. A delta of a closed run is late.
	if p.runID != "" && p.state == "delta" && h.closed.has(p.runID) {
		h.observe(Decision{Kind: MetricLateEventIgnoredClosedRun, Stream: "chat", RunID: p.runID})
		h.ignore(ReasonClosedRunDelta, "", p.runID, "")
		return
	}
	// 4. The chat stream now owns the run's text, whatever comes next.
	if p.runID != "" {
		h.track(p.runID).chatSeen = true
	}
	// 5. Resolve the agent.
	h.learn(p.sessionKey)
	agentID, ok := h.roster.BySessionKey(p.sessionKey)
	if !ok {
		h.ignore(ReasonAgentNotHydrated, "", p.runID, "")
		return
	}
	agent := h.agent(agentID)
	active := agent.activeRunID()
	var x chatExtract
	h.extractChat(&p, ev.Payload, &x)
	// 6. A frame of another run than the agent's: forget that run.
	if p.runID != "" && active != "" && active != p.runID {
		h.clearRunTracking(p.runID)
		h.ignore(ReasonOtherRun, agentID, p.runID, "")
		return
	}
	// 7. A delta for an agent that runs nothing.
	if active == "" && agent.status() != StatusRunning && p.state == "delta" && !x.userOrSystem {
		if p.runID != "" {
			h.clearRunTracking(p.runID)
		}
		h.ignore(ReasonInactiveAgentDelta, agentID, p.runID, "")
		return
	}
	// 8. The summary patch, before the stale check.
	sp := summaryPatch(&p, &x, now, h.stripUI)
	h.updateAgent(agentID, &sp)
	// 9. User and system turns end here.
	if x.userOrSystem {
		return
	}
	// 10.
	h.markActivity(agentID, now)
	// 12.
	switch p.state {
	case "delta":
		h.chatDelta(&agent, &p, &x, now)
	case "final", "aborted", "error":
		h.chatTerminal(&agent, &p, &x, now)
	default:
		h.ignore(ReasonChatState, agentID, p.runID, "")
	}
}

// extractChat is step 11 (and the role of step 6–9).
func (h *Handler) extractChat(p *chatFrame, payload []byte, x *chatExtract) {
	var m msgScan
	scanMessage(p.message, &h.texts, &m)
	x.role = m.role()
	x.text, x.hasText = m.text()
	x.isAssistant = x.role == "assistant"
	x.isTool = x.role == "tool" || x.role == "toolResult"
	x.userOrSystem = x.role == "user" || x.role == "system"
	x.uiMetadata = x.hasText && IsUIMetadataPrefix(jsstr.Trim(x.text))
	src := p.message
	if src == nil { // message ?? payload
		src = payload
		scanMessage(src, nil, &m)
	}
	x.thinking, x.hasThinking = m.thinking()
	x.tools = m.toolLines(src)
}

// summaryPatch is getChatSummaryPatch: lastActivityAt and sessionCreated,
// with the assistant's text as latestPreview, the user's as
// lastUserMessage, or an error frame's errorMessage as latestPreview. Text
// that starts with UI metadata gives lastActivityAt alone.
func summaryPatch(p *chatFrame, x *chatExtract, now int64, strip func(string) string) Patch {
	sp := Patch{LastActivityAt: ui.SetInt(now)}
	if x.uiMetadata {
		return sp
	}
	sp.SessionCreated = SetBool(true)
	cleaned := ""
	if x.hasText {
		cleaned = strip(x.text)
	}
	switch {
	case x.role == "user":
		if cleaned != "" {
			sp.LastUserMessage = ui.SetStr(cleaned)
		}
	case x.isAssistant:
		if cleaned != "" {
			sp.LatestPreview = ui.SetStr(cleaned)
		}
	case p.state == "error" && p.errorMessage != "":
		sp.LatestPreview = ui.SetStr(p.errorMessage)
	}
	return sp
}

// chatDelta is the delta plan: a live patch with the text, thinking and
// run, and the tool lines.
func (h *Handler) chatDelta(agent *Agent, p *chatFrame, x *chatExtract, now int64) {
	if x.uiMetadata {
		h.ignore(ReasonUIMetadataDelta, agent.AgentID, p.runID, "")
		return
	}
	var patch Patch
	if x.hasThinking {
		patch.ThinkingTrace = ui.SetStr(x.thinking)
		patch.Status = ui.SetStr(StatusRunning)
		h.markThinkingStarted(p.runID, now)
	}
	if x.hasText {
		patch.StreamText = ui.SetStr(h.stripUI(x.text))
		patch.Status = ui.SetStr(StatusRunning)
	}
	if p.runID != "" {
		patch.RunID = ui.SetStr(p.runID)
	}
	if !agent.hasRunStartedAt() {
		patch.RunStartedAt = ui.SetInt(now)
	}
	h.queueLivePatch(agent.AgentID, p.sessionKey, &patch)
	h.appendToolLines(agent.AgentID, p.runID, p.sessionKey, SourceRuntimeChat, x.tools, now)
}

// appendToolLines appends tool lines, each at most once per run (exact
// string); lines of a frame without a runId are not deduplicated.
func (h *Handler) appendToolLines(agentID, runID, sessionKey, source string, lines []string, now int64) {
	for _, line := range lines {
		if runID != "" {
			t := h.track(runID)
			if contains(t.toolLines, line) {
				continue
			}
			t.toolLines = append(t.toolLines, line)
		}
		meta := EntryMeta{Source: source, Kind: KindTool, RunID: runID, SessionKey: sessionKey, TimestampMs: ui.SetInt(now)}
		h.appendOutput(agentID, line, &meta)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// Messages Claw3D writes.
const (
	RunAbortedLine         = "Run aborted."
	RunErrorLine           = "Run error."
	NoThinkingTraceWarning = "No thinking trace extracted from chat event."
)

// chatTerminal is the final/aborted/error plan.
func (h *Handler) chatTerminal(agent *Agent, p *chatFrame, x *chatExtract, now int64) {
	id, run := agent.AgentID, p.runID
	if run != "" {
		stale, afterFallback := h.chatTerminalDecision(run, p.seq, p.hasSeq)
		if stale {
			h.ignore(ReasonStaleTerminal, id, run, "")
			return
		}
		if afterFallback {
			h.observe(Decision{Kind: MetricLifecycleFallbackReplacedByChatFinal, RunID: run})
		}
	}
	finalText, completionAt := "", now
	switch p.state {
	case "final":
		if x.isAssistant && !x.hasThinking && !h.thinkingWarned[p.sessionKey] {
			h.thinkingWarned[p.sessionKey] = true
			h.logWarn(NoThinkingTraceWarning)
		}
		if x.isAssistant {
			completionAt = messageTime(p.message, now)
		}
		if x.isTool {
			h.appendToolLines(id, run, p.sessionKey, SourceRuntimeChat, x.tools, now)
			break
		}
		if x.hasText {
			finalText = NormalizeAssistantDisplayText(h.stripUI(x.text))
		}
		traceText := x.thinking
		if !x.hasThinking {
			traceText = agent.thinkingTrace()
		}
		trace := FormatThinking(traceText)
		if finalText != "" || trace != "" {
			meta := h.runEntry(run, "meta", p.sessionKey, KindMeta, completionAt)
			h.appendOutput(id, h.metaLine(run, completionAt), &meta)
		}
		if trace != "" {
			meta := EntryMeta{Source: SourceRuntimeChat, Kind: KindThinking, Role: "assistant", RunID: run,
				SessionKey: p.sessionKey, TimestampMs: ui.SetInt(completionAt)}
			h.appendOutput(id, trace, &meta)
		}
		h.appendToolLines(id, run, p.sessionKey, SourceRuntimeChat, x.tools, now)
		if finalText != "" {
			meta := h.runEntry(run, "final", p.sessionKey, KindAssistant, completionAt)
			h.appendOutput(id, finalText, &meta)
		}
	case "aborted":
		q := AbortedLine{AgentID: id, RunID: run, SessionKey: p.sessionKey, StopReason: p.stopReason}
		if h.deps.ShouldSuppressRunAbortedLine == nil || !h.deps.ShouldSuppressRunAbortedLine(&q) {
			h.appendTerminalLine(id, run, p.sessionKey, RunAbortedLine, now)
		}
	case "error":
		line := RunErrorLine
		if p.errorMessage != "" {
			line = "Error: " + p.errorMessage
		}
		h.appendTerminalLine(id, run, p.sessionKey, line, now)
	}
	if run != "" {
		h.applyTerminalCommit(run, CommitChatFinal, p.seq, p.hasSeq)
	}
	h.clearPendingLivePatch(id)
	if run != "" {
		h.clearRunTracking(run)
		h.markRunClosed(run, now)
	}
	if p.state == "final" {
		if !x.isTool && !x.hasThinking && !agent.HasTraceLine {
			h.requestHistoryRefresh(id, run, p.sessionKey, RefreshChatFinalNoTrace, ChatFinalHistoryRefreshDelayMs)
		}
		if finalText != "" {
			h.updateAgent(id, &Patch{LastResult: ui.SetStr(finalText)})
		}
		if last, _ := agent.LastUserMessage.Value(); last != "" && agent.LatestOverride == "" {
			h.emit(Intent{Kind: IntentQueueLatestUpdate, AgentID: id, Text: last})
			if h.deps.UpdateSpecialLatestUpdate != nil {
				h.snapshot = *agent
				h.deps.UpdateSpecialLatestUpdate(id, &h.snapshot, last)
			}
		}
	}
	tp := Patch{StreamText: ui.NullStr(), ThinkingTrace: ui.NullStr(), RunStartedAt: ui.NullInt()}
	if p.state == "final" && x.isAssistant && finalText != "" {
		tp.LastAssistantMessageAt = ui.SetInt(completionAt)
	}
	if run != "" && agent.activeRunID() == run {
		status := StatusIdle
		if p.state == "error" {
			status = StatusError
		}
		tp.Status, tp.RunID = ui.SetStr(status), ui.NullStr()
	}
	h.updateAgent(id, &tp)
}

// runEntry is the transcript meta of a run's stable assistant entry
// (run:<runId>:assistant:meta|final), confirmed: a chat final's.
func (h *Handler) runEntry(run, which, sessionKey, kind string, at int64) EntryMeta {
	m := EntryMeta{Source: SourceRuntimeChat, Kind: kind, Role: "assistant", Confirmed: SetBool(true),
		RunID: run, SessionKey: sessionKey, TimestampMs: ui.SetInt(at)}
	if run != "" {
		m.EntryID = "run:" + run + ":assistant:" + which
	}
	return m
}

func (h *Handler) appendTerminalLine(agentID, runID, sessionKey, line string, now int64) {
	meta := EntryMeta{Source: SourceRuntimeChat, Kind: KindAssistant, Role: "assistant", RunID: runID,
		SessionKey: sessionKey, TimestampMs: ui.SetInt(now)}
	h.appendOutput(agentID, line, &meta)
}

// metaLine is the assistant's "[[meta]]" line: role, timestamp and, when
// the run's thinking started was recorded, thinkingDurationMs = at −
// that start.
func (h *Handler) metaLine(runID string, at int64) string {
	if t := h.runs[runID]; t != nil && t.thinkingStarted {
		d := at - t.thinkingStartedAt
		return message.FormatMeta("assistant", at, &d)
	}
	return message.FormatMeta("assistant", at, nil)
}

var timeFields = []string{"timestamp", "createdAt", "at"}

// messageTime is a final's completion time: the message's timestamp,
// createdAt or at (the first that is a number > 0 or a parseable date),
// else now.
func messageTime(msg []byte, now int64) int64 {
	var f [3][]byte
	if !jsonx.Members(msg, timeFields, f[:]) {
		return now
	}
	for _, v := range f {
		if n, ok := num(v); ok {
			if n > 0 {
				return clampMs(n)
			}
			continue
		}
		if s, ok := str(v); ok {
			if t, ok := parseDate(s); ok {
				return t
			}
		}
	}
	return now
}

// clampMs turns a positive JS number into whole ms, clamped to the range
// a JavaScript Date holds (±8.64e15).
func clampMs(f float64) int64 {
	const maxDate = 8.64e15
	if f > maxDate {
		return int64(maxDate)
	}
	return int64(f)
}

// dateLayouts are the Date.parse forms read: ISO 8601 (a date-time without
// an offset is read as UTC, not the browser's zone, so replays are the
// same everywhere) and the RFC 1123 forms.
var dateLayouts = []string{
	time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04", "2006-01-02",
	time.RFC1123, time.RFC1123Z, "Mon, 2 Jan 2006 15:04:05 MST",
}

func parseDate(s string) (int64, bool) {
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UnixMilli(), true
		}
	}
	return 0, false
}

// learn adds the agent of a session key to a learning roster.
func (h *Handler) learn(sessionKey string) {
	if a, ok := h.roster.Learn(sessionKey); ok {
		h.emit(Intent{Kind: IntentHydrateAgent, AgentID: a.AgentID, SessionKey: a.SessionKey, Source: a.Source})
	}
}
