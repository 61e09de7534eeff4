package claw3d

import (
	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/jsstr"
	"github.com/clawtap/clawtap/pkg/message"
	"github.com/clawtap/clawtap/pkg/ui"
)

// The agent workflow (§4.3).

func (h *Handler) agentEvent(ev *bridge.Event) {
	var p agentFrame
	readAgent(ev, &p)
	if p.runID == "" {
		h.ignore(ReasonNoRunID, "", "", p.stream)
		return
	}
	now := h.now()
	h.pruneClosed(now)
	// Resolve the agent: by session key, else by the agent running the
	// run. payload.agentId is never read.
	agentID, ok := "", false
	if p.sessionKey != "" {
		h.learn(p.sessionKey)
		agentID, ok = h.roster.BySessionKey(p.sessionKey)
	}
	if !ok {
		agentID, ok = h.agentByRun(p.runID)
	}
	if !ok {
		h.ignore(ReasonAgentNotHydrated, "", p.runID, p.stream)
		return
	}
	agent := h.agent(agentID)
	// Preflight, for everything but lifecycle start.
	if !(p.stream == "lifecycle" && p.phase == "start") {
		active := agent.activeRunID()
		switch {
		case h.closed.has(p.runID):
			h.observe(Decision{Kind: MetricLateEventIgnoredClosedRun, Stream: p.stream, RunID: p.runID})
			h.ignore(ReasonClosedRunEvent, agentID, p.runID, p.stream)
			return
		case active != "" && active != p.runID:
			h.clearRunTracking(p.runID)
			h.ignore(ReasonOtherRun, agentID, p.runID, p.stream)
			return
		case active == "" && agent.status() != StatusRunning:
			h.clearRunTracking(p.runID)
			h.ignore(ReasonInactiveAgent, agentID, p.runID, p.stream)
			return
		}
	}
	h.markActivity(agentID, now)
	switch {
	case p.stream == "lifecycle":
		h.lifecycle(&agent, &p, now)
	case IsReasoningRuntimeAgentStream(p.stream):
		h.reasoningStream(&agent, &p, now)
	case p.stream == "assistant":
		h.assistantStream(&agent, &p, now)
	case p.stream == "tool":
		h.toolStream(&agent, &p, now)
	default:
		h.ignore(ReasonUnknownStream, agentID, p.runID, p.stream)
	}
}

// agentByRun is findAgentByRunId: the first hydrated agent whose runId is
// the run.
func (h *Handler) agentByRun(runID string) (string, bool) {
	for _, ra := range h.roster.Agents() {
		a := h.agent(ra.AgentID)
		if v, _ := a.RunID.Value(); v == runID {
			return ra.AgentID, true
		}
	}
	return "", false
}

// lifecycle is resolveLifecyclePatch and the terminal decision.
func (h *Handler) lifecycle(agent *Agent, p *agentFrame, now int64) {
	switch p.phase {
	case "start":
		h.updateAgent(agent.AgentID, &Patch{
			Status: ui.SetStr(StatusRunning), RunID: ui.SetStr(p.runID), RunStartedAt: ui.SetInt(now),
			SessionCreated: SetBool(true), LastActivityAt: ui.SetInt(now),
		})
		if t := h.runs[p.runID]; t == nil || !t.chatSeen {
			h.requestHistoryRefresh(agent.AgentID, p.runID, p.sessionKey, RefreshRunStartNoChat, RunStartHistoryRefreshDelayMs)
		}
	case "end", "error":
		if active := agent.activeRunID(); active != "" && active != p.runID {
			h.ignore(ReasonLifecycleOtherRun, agent.AgentID, p.runID, p.stream)
			return
		}
		h.clearPendingLivePatch(agent.AgentID)
		h.lifecycleTerminal(agent, p.runID, p.sessionKey, p.phase, now)
	default:
		h.ignore(ReasonLifecyclePhase, agent.AgentID, p.runID, p.stream)
	}
}

// mergeRaw is a stream's raw text after this frame: data.text (a
// non-empty string) replaces it, else data.delta is merged into it. An
// empty data.text is falsy to Claw3D: the text stays, so the retraction
// event of 2026.9.5+ ({text:"", delta:"", replace:true}) leaves the
// withdrawn text in the run's stream.
func mergeRaw(prev string, p *agentFrame, texts *jsonx.StrMemo) (raw, text string) {
	text, _ = strMemo(texts, p.dataText)
	if text != "" {
		return text, text
	}
	return MergeRuntimeStream(prev, dataDelta(p)), text
}

// dataDelta is data.delta when it is a string.
func dataDelta(p *agentFrame) string {
	if jsonx.KindOf(p.data) != jsonx.Object {
		return ""
	}
	v, _ := jsonx.Get(p.data, "delta")
	s, _ := str(v)
	return s
}

// reasoningStream: the trace is extractThinking(data), else the body of a
// "reasoning:" prefix of the merged text, else this frame's own delta or
// text (trimmed; the quirk: a stream of deltas shows its latest chunk
// only), else the tagged-stream form of the merged text.
func (h *Handler) reasoningStream(agent *Agent, p *agentFrame, now int64) {
	t := h.track(p.runID)
	raw, text := mergeRaw(t.thinking, p, &h.thinkTexts)
	t.thinking = raw
	var m msgScan
	scanMessage(p.data, &h.thinkTexts, &m)
	thinking, ok := m.thinking()
	if !ok {
		thinking, ok = reasoningPrefixBody(raw)
	}
	if thinking == "" {
		if thinking = jsstr.Trim(dataDelta(p)); thinking == "" {
			thinking = jsstr.Trim(text)
		}
	}
	if thinking == "" {
		thinking = message.TaggedStream(raw)
	}
	if thinking == "" {
		h.ignore(ReasonNoThinking, agent.AgentID, p.runID, p.stream)
		return
	}
	h.markThinkingStarted(p.runID, now)
	patch := Patch{
		Status: ui.SetStr(StatusRunning), RunID: ui.SetStr(p.runID), SessionCreated: SetBool(true),
		LastActivityAt: ui.SetInt(now), ThinkingTrace: ui.SetStr(thinking),
	}
	if !agent.hasRunStartedAt() {
		patch.RunStartedAt = ui.SetInt(now)
	}
	h.queueLivePatch(agent.AgentID, p.sessionKey, &patch)
}

// assistantStream: the patch always goes to the queue; streamText only
// when the visible text is non-empty, is not the live thinking of an
// open thinking block (or "reasoning:" text), and the chat stream does
// not own the run's text (ShouldPublishAssistantStream).
func (h *Handler) assistantStream(agent *Agent, p *agentFrame, now int64) {
	t := h.track(p.runID)
	raw, text := mergeRaw(t.assistant, p, &h.texts)
	t.assistant = raw
	var m msgScan
	scanMessage(p.data, &h.texts, &m)
	thinking, ok := m.thinking()
	if !ok {
		thinking, _ = thinkingFromTags(raw)
	}
	visible := h.stripUI(AssistantText(raw))
	patch := Patch{
		Status: ui.SetStr(StatusRunning), RunID: ui.SetStr(p.runID),
		LastActivityAt: ui.SetInt(now), SessionCreated: SetBool(true),
	}
	if thinking != "" {
		patch.ThinkingTrace = ui.SetStr(thinking)
		h.markThinkingStarted(p.runID, now)
	}
	if !agent.hasRunStartedAt() {
		patch.RunStartedAt = ui.SetInt(now)
	}
	_, prefixed := reasoningPrefixBody(raw)
	reasoningOnly := thinking != "" && (hasOpenThinkingTag(raw) || prefixed) && jsstr.Trim(visible) == jsstr.Trim(thinking)
	if !reasoningOnly && ShouldPublishAssistantStream(visible, text, t.chatSeen, agent.streamText()) {
		patch.StreamText = ui.SetStr(visible)
	}
	h.queueLivePatch(agent.AgentID, p.sessionKey, &patch)
}

var toolDataFields = []string{"phase", "name", "toolCallId", "arguments", "args", "input", "parameters", "result", "isError"}

// toolStream turns a tool frame into a "[[tool]]" call line (any phase
// but result) or a "[[tool-result]]" line, deduplicated per run. The
// first result of a run asks for a history refresh in 750 ms when
// thinking traces are shown.
func (h *Handler) toolStream(agent *Agent, p *agentFrame, now int64) {
	var f [9][]byte
	jsonx.Members(p.data, toolDataFields, f[:])
	phase, _ := str(f[0])
	var lines []string
	switch {
	case phase == "":
		h.ignore(ReasonToolNoPhase, agent.AgentID, p.runID, p.stream)
		return
	case phase != "result":
		lines = ToolLines(toolCallMessage(f[1], f[2], firstNonNullish(f[3], f[4], f[5], f[6])))
	default:
		lines = ToolLines(toolResultMessage(f[1], f[2], f[7], f[8]))
		if !h.opts.HideThinkingTraces {
			h.requestHistoryRefresh(agent.AgentID, p.runID, p.sessionKey, RefreshChatFinalNoTrace, ToolResultHistoryRefreshDelayMs)
		}
	}
	h.appendToolLines(agent.AgentID, p.runID, p.sessionKey, SourceRuntimeAgent, lines, now)
}

// firstNonNullish is a ?? b ?? c ?? d over raw members (nil: undefined).
func firstNonNullish(vs ...[]byte) []byte {
	for i, v := range vs {
		if v != nil && (jsonx.KindOf(v) != jsonx.Null || i == len(vs)-1) {
			return v
		}
	}
	return nil
}

// toolCallMessage is an assistant message with one toolCall block, for
// ToolLines: name (a string, else "tool"), id, arguments.
func toolCallMessage(name, id, args []byte) []byte {
	b := append([]byte(nil), `{"role":"assistant","content":[{"type":"toolCall","name":`...)
	b = appendStrOr(b, name, "tool")
	if jsonx.KindOf(id) == jsonx.String {
		b = append(b, `,"id":`...)
		b = append(b, id...)
	}
	if args != nil {
		b = append(b, `,"arguments":`...)
		b = append(b, args...)
	}
	return append(b, "}]}"...)
}

// toolResultMessage is a tool message for ToolLines' result line: the
// tool's name and call id, isError, the result's details, and as content
// the result's content array, else its text, else the result itself when
// it is a string.
func toolResultMessage(name, id, result, isError []byte) []byte {
	b := append([]byte(nil), `{"role":"tool","toolName":`...)
	b = appendStrOr(b, name, "tool")
	if jsonx.KindOf(id) == jsonx.String {
		b = append(b, `,"toolCallId":`...)
		b = append(b, id...)
	}
	if jsonx.KindOf(isError) == jsonx.Bool {
		b = append(b, `,"isError":`...)
		b = append(b, isError...)
	}
	switch jsonx.KindOf(result) {
	case jsonx.Object:
		var r [3][]byte
		jsonx.Members(result, []string{"details", "content", "text"}, r[:])
		if r[0] != nil {
			b = append(b, `,"details":`...)
			b = append(b, r[0]...)
		}
		if jsonx.KindOf(r[1]) == jsonx.Array {
			b = append(b, `,"content":`...)
			b = append(b, r[1]...)
		} else if jsonx.KindOf(r[2]) == jsonx.String {
			b = append(b, `,"content":`...)
			b = append(b, r[2]...)
		}
	case jsonx.String:
		b = append(b, `,"content":`...)
		b = append(b, result...)
	}
	return append(b, '}')
}

func appendStrOr(b, v []byte, def string) []byte {
	if jsonx.KindOf(v) == jsonx.String {
		return append(b, v...)
	}
	return jsonx.AppendString(b, def)
}
