// Package policy answers "what should happen?" for a classified frame: it
// derives the reference pipeline's typed intents. It is pure: it reads only
// its input (the capture record's time, never the wall clock) and returns
// descriptions, never mutations, so the same event always derives the same
// intents. Nothing here panics or drops an event silently; what the UI
// would not act on becomes an ignore intent with a reason.
//
// The rules follow the reference (clawboo's @clawboo/events) field for
// field, and byte for byte where the reference writes a string (its
// ignore reasons). What the gateway sends that the reference predates
// (protocol v4: deltaText, replace, chat status, new streams) gets exactly
// what the reference does with it; pkg/check says what that misses.
// Numbers and strings are JavaScript's (see pkg/jsstr).
package clawboo

import (
	"math"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/jsstr"
	"github.com/clawtap/clawtap/pkg/message"
	"github.com/clawtap/clawtap/pkg/ui"
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
		// A v4 chat "status" frame fails the parse too, as in the reference.
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
func closedPatch(status string) ui.Patch {
	return ui.Patch{
		Status:        ui.SetStr(status),
		RunID:         ui.NullStr(),
		RunStartedAt:  ui.NullInt(),
		StreamText:    ui.NullStr(),
		ThinkingTrace: ui.NullStr(),
	}
}

func decideChat(dst []Intent, ev *bridge.Event, p *bridge.ChatPayload, texts *jsonx.StrMemo) []Intent {
	if ev.AgentID == "" {
		return append(dst, ignore("chat event missing agentId"))
	}
	ts := ev.Timestamp
	clear := Intent{Kind: ClearPendingLivePatch, Plane: PlaneWork, AgentID: ev.AgentID}
	commit := Intent{Kind: CommitChat, Plane: PlaneWork, AgentID: ev.AgentID, SessionKey: ev.SessionKey, HasSessionKey: ev.HasSessionKey, RunID: ui.SetStr(p.RunID), Lines: []string{}}
	switch p.State {
	case "delta":
		// deltaText and replace (v4) are not read: streamText is the
		// message's text or absent.
		patch := ui.Patch{RunID: ui.SetStr(p.RunID), LastActivityAt: ui.SetInt(ts)}
		// p.Message is the event's: derived once, for the observers too.
		text, hasText, thinking, hasThinking := ev.MessageTextAndThinking(texts)
		if hasText {
			patch.StreamText = ui.SetStr(text)
		}
		if hasThinking {
			patch.ThinkingTrace = ui.SetStr(thinking)
		}
		return append(dst, Intent{Kind: QueueLivePatch, Plane: PlaneWork, AgentID: ev.AgentID, SessionKey: ev.SessionKey, HasSessionKey: ev.HasSessionKey, Patch: patch})
	case "final":
		var text string
		commit.Lines, text = finalLines(ev)
		commit.Patch = closedPatch(StatusIdle)
		commit.Patch.LastActivityAt = ui.SetInt(ts)
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
			commit.Patch.StreamText = ui.SetStr(*p.ErrorMsg)
		}
		return append(dst, clear, commit)
	}
}

// finalLines are a chat final's lines to commit and its text
// (bridge.Event.FinalLines).
func finalLines(ev *bridge.Event) ([]string, string) { return ev.FinalLines() }

func decideAgent(dst []Intent, ev *bridge.Event, p *bridge.AgentPayload, texts *jsonx.StrMemo) []Intent {
	if ev.AgentID == "" {
		return append(dst, ignore("agent event missing agentId"))
	}
	ts := ev.Timestamp
	switch {
	case p.Stream == "lifecycle":
		var phaseRaw []byte
		if jsonx.KindOf(p.Data) == jsonx.Object {
			phaseRaw, _ = jsonx.Get(p.Data, "phase")
		}
		phase, isStr := jsonx.Str(phaseRaw)
		upd := Intent{Kind: UpdateAgentStatus, Plane: PlaneAgent, AgentID: ev.AgentID, RunID: ui.SetStr(p.RunID)}
		switch phase {
		case "start":
			upd.Patch = ui.Patch{Status: ui.SetStr(StatusRunning), RunID: ui.SetStr(p.RunID), RunStartedAt: ui.SetInt(ts), StreamText: ui.NullStr(), ThinkingTrace: ui.NullStr()}
		case "end":
			upd.Patch = closedPatch(StatusIdle)
			upd.Patch.LastActivityAt = ui.SetInt(ts)
		case "error":
			upd.Patch = closedPatch(StatusError)
			upd.Patch.LastActivityAt = ui.SetInt(ts)
		default:
			if !isStr { // the phase as a template literal writes it
				return append(dst, ignore(phaseReasons.prefix+message.JSString(phaseRaw)))
			}
			return append(dst, ignore(phaseReasons.of(phase)))
		}
		return append(dst, upd)
	case p.Reasoning:
		text, ok := ev.DataTextString(texts) // p.DataText, decoded once for the observers too
		if !ok || text == "" {
			return append(dst, ignore("reasoning stream with no text"))
		}
		return append(dst, Intent{Kind: QueueLivePatch, Plane: PlaneWork, AgentID: ev.AgentID, SessionKey: ev.SessionKey, HasSessionKey: ev.HasSessionKey,
			Patch: ui.Patch{ThinkingTrace: ui.SetStr(text), RunID: ui.SetStr(p.RunID), LastActivityAt: ui.SetInt(ts)}})
	case p.Stream == "assistant":
		// data.replace (v4) is not read: an empty replace is an empty text.
		text, ok := ev.DataTextString(texts) // p.DataText, decoded once for the observers too
		if !ok || text == "" {
			return append(dst, ignore("assistant stream with no text"))
		}
		return append(dst, Intent{Kind: QueueLivePatch, Plane: PlaneWork, AgentID: ev.AgentID, SessionKey: ev.SessionKey, HasSessionKey: ev.HasSessionKey,
			Patch: ui.Patch{StreamText: ui.SetStr(text), RunID: ui.SetStr(p.RunID), LastActivityAt: ui.SetInt(ts)}})
	}
	// v4 streams (item, usage, run_status, error, …) included.
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
	phaseReasons = newReasons("unknown lifecycle phase: ", "", "model", "finishing", "waiting-approval", "approval-resolved")
	// tool, and the streams v4 gateways add.
	streamReasons = newReasons("tool/unknown stream (handled by handler): ", "",
		"tool", "item", "usage", "run_status", "plan", "command_output", "compaction", "approval", "patch", "error")
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
// a non-array object; the usage block's counts when there is one (each a
// JavaScript number, passed through), else an estimate of
// Math.ceil(len(text)/4) output tokens, len counted as JavaScript does
// (UTF-16 code units).
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
		c.OutputTokens = math.Ceil(float64(jsstr.UTF16Len(text)) / CharsPerToken)
	}
	return c
}

// tokenCount reads a count: a positive number as it is (1.5, 1e21, even
// 1e400, which JSON.parse makes Infinity); anything else becomes 0.
func tokenCount(usage []byte, key string) float64 {
	v, _ := jsonx.Get(usage, key)
	f, ok := jsonx.Num(v)
	if !ok || !(f > 0) {
		return 0
	}
	return f
}
