// Package policy answers "what should happen?" for a classified frame: it
// derives the reference pipeline's typed intents. It is pure: it reads only
// its input (the capture record's time, never the wall clock) and returns
// descriptions, never mutations, so the same event always derives the same
// intents. Nothing here panics or drops an event silently; what the UI
// would not act on becomes an ignore intent with a reason.
//
// The rules follow the reference (clawboo's @clawboo/events) field for
// field. Where the gateway sends what the reference predates (protocol v4),
// the decision is documented in docs/pipeline.md and marked "v4" here.
package policy

import (
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/message"
)

// Derive returns the intents for one classified event.
func Derive(ev *bridge.Event) []Intent { return Append(nil, ev) }

// Append appends the intents for ev to dst, so a hot loop can reuse one slice.
func Append(dst []Intent, ev *bridge.Event) []Intent { return appendIntents(dst, ev, nil) }

// A Deriver derives the intents of a stream of events, one after another.
// Its intents are exactly Append's: it only remembers the last long text
// it decoded, because the gateway streams each cumulative reply twice (on
// the agent stream, then on the chat stream) and decoding it once is most
// of what a delta costs. The zero value is ready to use; it is not safe
// for concurrent use.
type Deriver struct {
	texts jsonx.StrMemo
}

// Append appends the intents for ev to dst.
func (d *Deriver) Append(dst []Intent, ev *bridge.Event) []Intent {
	return appendIntents(dst, ev, &d.texts)
}

// appendIntents is Append; texts (may be nil) decodes streamed text.
func appendIntents(dst []Intent, ev *bridge.Event, texts *jsonx.StrMemo) []Intent {
	switch ev.Kind {
	case bridge.SummaryRefresh:
		return append(dst, Intent{
			Kind: ScheduleSummaryRefresh, Plane: PlaneAgent,
			DelayMs: SummaryRefreshDelayMs, Heartbeat: ev.Event == "heartbeat",
		})
	case bridge.RuntimeChat:
		state := ev.State
		if state == "" { // a hand-written classified line may not carry it
			state, _ = jsonx.GetStr(ev.Payload, "state")
		}
		if state == "status" {
			// v4 transient startup phase: not terminal, no UI state.
			return append(dst, ignore(statusReasons.of(orNone(ev.Phase))))
		}
		var p bridge.ChatPayload
		if !ev.Chat(&p) {
			return append(dst, ignore("malformed chat payload"))
		}
		return decideChat(dst, ev, &p, texts)
	case bridge.RuntimeAgent:
		var p bridge.AgentPayload
		if !ev.Agent(&p) {
			return append(dst, ignore("malformed agent payload"))
		}
		return decideAgent(dst, ev, &p, texts)
	case bridge.Approval:
		return decideTrust(dst, ev)
	case bridge.Unknown:
		return append(dst, ignore("unknown event kind"))
	case bridge.Request:
		return append(dst, ignore("request frame: "+orNone(ev.Method)))
	case bridge.Response:
		return append(dst, ignore("response frame: "+orNone(ev.Method)))
	case bridge.Marker:
		return append(dst, ignore("capture marker: "+ev.Mark))
	case bridge.Invalid:
		return append(dst, ignore("invalid frame: "+ev.Reason))
	}
	return append(dst, ignore("unknown event kind"))
}

func ignore(reason string) Intent { return Intent{Kind: Ignore, Reason: reason} }

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// closedPatch is the patch every terminal shares: the run is over.
func closedPatch(status string) Patch {
	return Patch{
		Status:        SetStr(status),
		RunID:         NullStr(),
		RunStartedAt:  NullInt(),
		StreamText:    NullStr(),
		ThinkingTrace: NullStr(),
	}
}

func decideChat(dst []Intent, ev *bridge.Event, p *bridge.ChatPayload, texts *jsonx.StrMemo) []Intent {
	if ev.AgentID == "" {
		return append(dst, ignore("chat event missing agentId"))
	}
	ts := ev.Timestamp
	clear := Intent{Kind: ClearPendingLivePatch, Plane: PlaneWork, AgentID: ev.AgentID}
	commit := Intent{Kind: CommitChat, Plane: PlaneWork, AgentID: ev.AgentID, SessionKey: ev.SessionKey, RunID: SetStr(p.RunID), Lines: []string{}}
	switch p.State {
	case "delta":
		patch := Patch{RunID: SetStr(p.RunID), LastActivityAt: SetInt(ts)}
		text, hasText, thinking, hasThinking := message.TextAndThinking(p.Message, texts)
		if hasText {
			patch.StreamText = SetStr(text)
		} else if delta, ok := p.DeltaTextString(); ok && p.Replace {
			// v4: a replace delta without a message carries the whole new text.
			patch.StreamText = textOrNull(delta)
		}
		if hasThinking {
			patch.ThinkingTrace = SetStr(thinking)
		}
		return append(dst, Intent{Kind: QueueLivePatch, Plane: PlaneWork, AgentID: ev.AgentID, SessionKey: ev.SessionKey, Patch: patch})
	case "final":
		text, hasText := message.Text(p.Message)
		commit.Patch = closedPatch(StatusIdle)
		commit.Patch.LastActivityAt = SetInt(ts)
		if hasText && text != "" {
			commit.Lines = append(commit.Lines, text)
		}
		commit.Lines = append(commit.Lines, message.ToolLines(p.Message)...)
		commit.Cost = ChatCostOf(p, text)
		dst = append(dst, clear, commit)
		if _, ok := message.Thinking(p.Message); !ok {
			dst = append(dst, Intent{Kind: RequestHistoryRefresh, Plane: PlaneAgent, AgentID: ev.AgentID, Reason: "chat-final-no-trace"})
		}
		return dst
	case "aborted":
		commit.Patch = closedPatch(StatusIdle)
		return append(dst, clear, commit)
	default: // "error"; ParseChatPayload admits nothing else
		commit.Patch = closedPatch(StatusError)
		if p.ErrorMsg != nil {
			commit.Patch.StreamText = SetStr(*p.ErrorMsg)
		}
		return append(dst, clear, commit)
	}
}

func textOrNull(s string) Str {
	if s == "" {
		return NullStr()
	}
	return SetStr(s)
}

// v4Streams names the agent streams the reference predates, with what they
// are, so an ignore says why rather than "unknown".
var v4Streams = map[string]string{
	"item":           "activity item",
	"usage":          "token usage report",
	"run_status":     "run status phase",
	"plan":           "plan update",
	"command_output": "command output",
	"compaction":     "context compaction",
	"approval":       "approval progress",
	"patch":          "patch progress",
}

// v4Ignores is the ignore reason for each of v4Streams, built once: these
// streams are a good share of a v4 capture.
var v4Ignores = func() map[string]string {
	m := make(map[string]string, len(v4Streams))
	for stream, what := range v4Streams {
		m[stream] = "v4 " + stream + " stream (" + what + "): no UI state in the reference pipeline"
	}
	return m
}()

func decideAgent(dst []Intent, ev *bridge.Event, p *bridge.AgentPayload, texts *jsonx.StrMemo) []Intent {
	if ev.AgentID == "" {
		return append(dst, ignore("agent event missing agentId"))
	}
	ts := ev.Timestamp
	switch {
	case p.Stream == "lifecycle":
		phase, hasPhase := "", false
		if jsonx.KindOf(p.Data) == jsonx.Object {
			phase, hasPhase = jsonx.GetStr(p.Data, "phase")
		}
		upd := Intent{Kind: UpdateAgentStatus, Plane: PlaneAgent, AgentID: ev.AgentID, RunID: SetStr(p.RunID)}
		switch phase {
		case "start":
			upd.Patch = Patch{Status: SetStr(StatusRunning), RunID: SetStr(p.RunID), RunStartedAt: SetInt(ts), StreamText: NullStr(), ThinkingTrace: NullStr()}
		case "end":
			upd.Patch = closedPatch(StatusIdle)
			upd.Patch.LastActivityAt = SetInt(ts)
		case "error":
			upd.Patch = closedPatch(StatusError)
			upd.Patch.LastActivityAt = SetInt(ts)
		default:
			if !hasPhase {
				phase = "undefined"
			}
			return append(dst, ignore(phaseReasons.of(phase)))
		}
		return append(dst, upd)
	case p.HasStream && bridge.IsReasoningStream(p.Stream):
		text, ok := texts.Str(p.DataText)
		if !ok || text == "" {
			return append(dst, ignore("reasoning stream without text: "+p.Stream))
		}
		return append(dst, Intent{Kind: QueueLivePatch, Plane: PlaneWork, AgentID: ev.AgentID, SessionKey: ev.SessionKey,
			Patch: Patch{ThinkingTrace: SetStr(text), RunID: SetStr(p.RunID), LastActivityAt: SetInt(ts)}})
	case p.Stream == "assistant":
		text, ok := texts.Str(p.DataText)
		if ok && text != "" {
			return append(dst, Intent{Kind: QueueLivePatch, Plane: PlaneWork, AgentID: ev.AgentID, SessionKey: ev.SessionKey,
				Patch: Patch{StreamText: SetStr(text), RunID: SetStr(p.RunID), LastActivityAt: SetInt(ts)}})
		}
		if replace, _ := jsonx.Get(p.Data, "replace"); string(replace) == "true" {
			// v4: an empty replace resets the partial reply (a retried attempt).
			return append(dst, Intent{Kind: QueueLivePatch, Plane: PlaneWork, AgentID: ev.AgentID, SessionKey: ev.SessionKey,
				Patch: Patch{StreamText: NullStr(), RunID: SetStr(p.RunID), LastActivityAt: SetInt(ts)}})
		}
		return append(dst, ignore("assistant stream without text"))
	case p.Stream == "error":
		if reason, _ := jsonx.GetStr(p.Data, "reason"); reason == "seq gap" {
			exp, _ := jsonx.Get(p.Data, "expected")
			got, _ := jsonx.Get(p.Data, "received")
			return append(dst, ignore(fmt.Sprintf("gateway reported a seq gap (expected %s, received %s)", orNone(string(exp)), orNone(string(got)))))
		}
		return append(dst, ignore("agent error stream (v4)"))
	}
	if reason, ok := v4Ignores[p.Stream]; ok {
		return append(dst, ignore(reason))
	}
	stream := p.Stream
	if !p.HasStream {
		stream = "undefined"
	}
	return append(dst, ignore(streamReasons.of(stream)))
}

// reasons holds "prefix + name + suffix" ready-made for the names a
// gateway sends on every run, so deriving their ignores does not allocate.
type reasons struct {
	prefix, suffix string
	made           map[string]string
}

func newReasons(prefix, suffix string, common ...string) reasons {
	r := reasons{prefix, suffix, make(map[string]string, len(common))}
	for _, name := range common {
		r.made[name] = prefix + name + suffix
	}
	return r
}

func (r reasons) of(name string) string {
	if s, ok := r.made[name]; ok {
		return s
	}
	return r.prefix + name + r.suffix
}

var (
	// The phases v4 gateways add between start and end, and before it.
	phaseReasons  = newReasons("unknown lifecycle phase: ", "", "model", "finishing", "waiting-approval", "approval-resolved")
	statusReasons = newReasons("chat status phase (v4): ", "; not terminal, nothing to show",
		"preparing_workspace", "naming_worktree", "creating_worktree", "running_setup",
		"provisioning_environment", "preparing_context", "memory_flushing", "starting_model")
	streamReasons = newReasons("tool/unknown stream (handled by handler): ", "", "tool")
)

func decideTrust(dst []Intent, ev *bridge.Event) []Intent {
	if ev.AgentID == "" {
		return append(dst, ignore("approval event missing agentId"))
	}
	kind := ApprovalResolved
	if ev.Event == "exec.approval.pending" || ev.Event == "exec.approval.requested" {
		kind = ApprovalPending
	}
	return append(dst, Intent{Kind: kind, Plane: PlaneTrust, AgentID: ev.AgentID, Payload: ev.Payload})
}

// ChatCostOf is the reference's deriveChatCost: null unless the message is
// a non-array object; the usage block's counts when there is one, else an
// estimate of ceil(len(text)/4) output tokens, len counted as JavaScript
// does (UTF-16 code units).
func ChatCostOf(p *bridge.ChatPayload, text string) *ChatCost {
	msg := p.Message
	if jsonx.KindOf(msg) != jsonx.Object {
		return nil
	}
	c := &ChatCost{Model: "unknown"}
	if p.Model != nil {
		c.Model = *p.Model
	} else if m, ok := jsonx.GetStr(msg, "model"); ok {
		c.Model = m
	}
	usage, ok := jsonx.Get(msg, "usage")
	if !ok || jsonx.KindOf(usage) != jsonx.Object {
		usage, ok = jsonx.GetPath(msg, "metadata", "usage")
	}
	if ok && jsonx.KindOf(usage) == jsonx.Object {
		in, out := tokenCount(usage, "input_tokens"), tokenCount(usage, "output_tokens")
		c.InputTokens, c.OutputTokens = &in, out
		return c
	}
	if text != "" {
		c.OutputTokens = int64(math.Ceil(float64(utf16Len(text)) / CharsPerToken))
	}
	return c
}

// tokenCount reads a count; anything but a positive number becomes 0.
func tokenCount(usage []byte, key string) int64 {
	v, _ := jsonx.Get(usage, key)
	f, ok := jsonx.Num(v)
	if !ok || !(f > 0) || math.IsInf(f, 0) {
		return 0
	}
	if f > math.MaxInt64/2 {
		return math.MaxInt64 / 2
	}
	return int64(f)
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x10000 && r <= utf8.MaxRune {
			n++ // a surrogate pair
		}
	}
	return n
}
