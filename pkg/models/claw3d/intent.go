package claw3d

import (
	"strconv"

	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/jsstr"
)

// Intent kinds: the commands Claw3D's planners and coordinator turn a
// frame into, in the order they run. Most carry an effect through Deps;
// the coordinator's own bookkeeping (clearRunTracking, markRunClosed,
// applyTerminalCommit, …) is listed too, so a replay can show why a later
// frame is treated as it is.
const (
	IntentIgnore                       = "ignore"
	IntentHydrateAgent                 = "hydrateAgent"
	IntentRemoveAgent                  = "removeAgent"
	IntentQueueLivePatch               = "queueLivePatch"
	IntentClearPendingLivePatch        = "clearPendingLivePatch"
	IntentUpdateAgent                  = "dispatchUpdateAgent"
	IntentAppendOutput                 = "appendOutput"
	IntentMarkActivity                 = "markActivity"
	IntentMarkThinkingStarted          = "markThinkingStarted"
	IntentClearRunTracking             = "clearRunTracking"
	IntentMarkRunClosed                = "markRunClosed"
	IntentApplyTerminalCommit          = "applyTerminalCommit"
	IntentScheduleLifecycleFallback    = "scheduleLifecycleFallback"
	IntentCancelLifecycleFallback      = "cancelLifecycleFallback"
	IntentRequestHistoryRefresh        = "requestHistoryRefresh"
	IntentQueueLatestUpdate            = "queueLatestUpdate"
	IntentScheduleSummaryRefresh       = "scheduleSummaryRefresh"
	IntentBumpHeartbeatTick            = "bumpHeartbeatTick"
	IntentRefreshHeartbeatLatestUpdate = "refreshHeartbeatLatestUpdate"
	IntentUpsertApproval               = "upsertApproval"
	IntentRemoveApproval               = "removeApproval"
	IntentLogWarn                      = "logWarn"
)

// Ignore reasons. The first four are Claw3D's own policy reasons; the
// others are clawtap's names for the frames Claw3D drops silently.
const (
	ReasonClosedRunDelta     = "closed-run-delta"
	ReasonClosedRunEvent     = "closed-run-event"
	ReasonStaleTerminal      = "stale-terminal-event"
	ReasonInactiveAgentDelta = "inactive-agent-delta"

	ReasonNotEvent          = "not-an-event"            // a req, a marker, an invalid record
	ReasonNotRuntimeEvent   = "not-a-runtime-event"     // classifyGatewayEventKind's ignore
	ReasonResponse          = "response-not-hydrating"  // a res that hydrates nothing
	ReasonNoSessionKey      = "no-session-key"          // chat frame without sessionKey
	ReasonNoRunID           = "no-run-id"               // agent frame without runId
	ReasonAgentNotHydrated  = "agent-not-hydrated"      // no hydrated agent matches
	ReasonOtherRun          = "other-run"               // the agent's active run is another one
	ReasonInactiveAgent     = "inactive-agent"          // agent idle with no run: agent frame dropped
	ReasonUIMetadataDelta   = "ui-metadata-delta"       // a delta whose text is UI metadata
	ReasonLifecycleOtherRun = "lifecycle-other-run"     // resolveLifecyclePatch: end/error of another run
	ReasonLifecyclePhase    = "lifecycle-phase"         // a phase other than start/end/error
	ReasonNoThinking        = "reasoning-without-text"  // a reasoning frame that yields no trace
	ReasonToolNoPhase       = "tool-without-phase"      // a tool frame without data.phase
	ReasonUnknownStream     = "unhandled-stream"        // item, usage, run_status, …
	ReasonNotConnected      = "not-connected"           // summary refresh while not connected
	ReasonInvalidApproval   = "invalid-approval"        // fails the ingress's validity rules
	ReasonCronNotFinished   = "cron-not-finished"       // a cron action other than finished
	ReasonCronInvalid       = "cron-invalid"            // no agent session key or no jobId
	ReasonCronDuplicate     = "cron-duplicate"          // its dedupe key was seen
	ReasonChatState         = "chat-state-not-terminal" // a chat state other than delta/final/aborted/error
)

// Intent is one command. Which fields apply depends on Kind; AppendJSON
// writes exactly those.
type Intent struct {
	Kind       string
	AgentID    string
	SessionKey string
	RunID      string
	Reason     string    // ignore; requestHistoryRefresh; removeApproval (resolved decision, or "expired")
	Stream     string    // ignore of an agent frame
	Patch      Patch     // queueLivePatch, dispatchUpdateAgent
	Line       string    // appendOutput
	Entry      EntryMeta // appendOutput's transcript meta
	At         int64     // markActivity, markThinkingStarted; markRunClosed: expiresAt
	DelayMs    int64     // scheduled timers
	Source     string    // applyTerminalCommit: commitSource; hydrateAgent: roster source
	Seq        float64   // applyTerminalCommit
	HasSeq     bool
	Text       string   // scheduleLifecycleFallback: finalText; queueLatestUpdate: message; logWarn
	Approval   Approval // upsertApproval
}

// Approval is a pending exec approval as the ingress accepts it.
type Approval struct {
	ID          string
	AgentID     string // "" for an unscoped approval
	SessionKey  string
	Command     string
	CreatedAtMs int64
	ExpiresAtMs int64
}

// AppendJSON appends the intent as a JSON object with stable camelCase
// keys; times are unix ms.
func (in *Intent) AppendJSON(dst []byte) []byte { return in.AppendJSONAt(dst, 0) }

// IntentKind and IntentAgent make an Intent a replay.Intent.
func (in *Intent) IntentKind() string  { return in.Kind }
func (in *Intent) IntentAgent() string { return in.AgentID }

// AppendJSONAt is AppendJSON with base subtracted from every time, so a
// replay can print times relative to its start.
func (in *Intent) AppendJSONAt(dst []byte, base int64) []byte {
	w := jw{dst: append(dst, `{"kind":`...)}
	w.dst = jsonx.AppendString(w.dst, in.Kind)
	switch in.Kind {
	case IntentIgnore:
		w.str("reason", in.Reason)
		w.opt("agentId", in.AgentID)
		w.opt("runId", in.RunID)
		w.opt("stream", in.Stream)
	case IntentHydrateAgent:
		w.str("agentId", in.AgentID)
		w.str("sessionKey", in.SessionKey)
		w.str("source", in.Source)
	case IntentRemoveAgent, IntentClearPendingLivePatch:
		w.str("agentId", in.AgentID)
	case IntentQueueLivePatch:
		w.str("agentId", in.AgentID)
		w.opt("sessionKey", in.SessionKey)
		w.key("patch")
		w.dst = in.Patch.AppendJSONAt(w.dst, base)
	case IntentUpdateAgent:
		w.str("agentId", in.AgentID)
		w.key("patch")
		w.dst = in.Patch.AppendJSONAt(w.dst, base)
	case IntentAppendOutput:
		w.str("agentId", in.AgentID)
		w.str("line", in.Line)
		w.key("transcript")
		w.dst = in.Entry.appendJSON(w.dst, base)
	case IntentMarkActivity:
		w.str("agentId", in.AgentID)
		w.int("at", in.At-base)
	case IntentMarkThinkingStarted:
		w.str("runId", in.RunID)
		w.int("at", in.At-base)
	case IntentClearRunTracking, IntentCancelLifecycleFallback:
		w.str("runId", in.RunID)
	case IntentMarkRunClosed:
		w.str("runId", in.RunID)
		w.int("expiresAt", in.At-base)
	case IntentApplyTerminalCommit:
		w.str("runId", in.RunID)
		w.str("commitSource", in.Source)
		w.num("seq", in.Seq, in.HasSeq)
	case IntentScheduleLifecycleFallback:
		w.str("agentId", in.AgentID)
		w.str("runId", in.RunID)
		w.int("delayMs", in.DelayMs)
		w.str("finalText", in.Text)
	case IntentRequestHistoryRefresh:
		w.str("agentId", in.AgentID)
		w.str("reason", in.Reason)
		w.opt("sessionKey", in.SessionKey)
		w.opt("runId", in.RunID)
		w.int("delayMs", in.DelayMs)
	case IntentQueueLatestUpdate:
		w.str("agentId", in.AgentID)
		w.str("message", in.Text)
	case IntentScheduleSummaryRefresh:
		w.int("delayMs", in.DelayMs)
	case IntentUpsertApproval:
		a := &in.Approval
		w.key("approval")
		w.dst = append(w.dst, `{"id":`...)
		w.dst = jsonx.AppendString(w.dst, a.ID)
		w.dst = append(w.dst, `,"agentId":`...)
		if a.AgentID == "" {
			w.dst = append(w.dst, "null"...)
		} else {
			w.dst = jsonx.AppendString(w.dst, a.AgentID)
		}
		w.n = 1
		w.opt("sessionKey", a.SessionKey)
		w.str("command", a.Command)
		w.int("createdAtMs", a.CreatedAtMs-base)
		w.int("expiresAtMs", a.ExpiresAtMs-base)
		w.dst = append(w.dst, '}')
	case IntentRemoveApproval:
		w.str("id", in.Approval.ID)
		w.opt("agentId", in.AgentID)
		w.str("reason", in.Reason)
	case IntentLogWarn:
		w.str("message", in.Text)
	}
	return append(w.dst, '}')
}

// MarshalJSON implements json.Marshaler.
func (in Intent) MarshalJSON() ([]byte, error) { return in.AppendJSON(nil), nil }

// appendJSON writes the transcript meta of an appendOutput.
func (m *EntryMeta) appendJSON(dst []byte, base int64) []byte {
	w := jw{dst: append(dst, '{')}
	w.opt("entryId", m.EntryID)
	w.str("source", m.Source)
	w.str("kind", m.Kind)
	w.str("role", m.Role)
	w.key("confirmed")
	w.dst = strconv.AppendBool(w.dst, m.Confirmed.Set && !m.Confirmed.Null && m.Confirmed.V)
	w.opt("runId", m.RunID)
	w.opt("sessionKey", m.SessionKey)
	w.key("timestampMs")
	if ts, ok := timeOf(m.TimestampMs); ok {
		w.dst = strconv.AppendInt(w.dst, ts-base, 10)
	} else {
		w.dst = append(w.dst, "null"...)
	}
	return append(w.dst, '}')
}

// jw writes the members of a JSON object; n counts members written, so
// the first key of an object opened with '{' gets no comma.
type jw struct {
	dst []byte
	n   int
}

func (w *jw) key(k string) {
	if w.n > 0 || (len(w.dst) > 0 && w.dst[len(w.dst)-1] != '{') {
		w.dst = append(w.dst, ',')
	}
	w.n++
	w.dst = append(w.dst, '"')
	w.dst = append(w.dst, k...)
	w.dst = append(w.dst, '"', ':')
}

func (w *jw) str(k, v string) {
	w.key(k)
	w.dst = jsonx.AppendString(w.dst, v)
}

// opt writes a string member only when it is non-empty.
func (w *jw) opt(k, v string) {
	if v != "" {
		w.str(k, v)
	}
}

func (w *jw) int(k string, v int64) {
	w.key(k)
	w.dst = strconv.AppendInt(w.dst, v, 10)
}

// num writes a JSON number as JavaScript would print it, or null.
func (w *jw) num(k string, v float64, ok bool) {
	w.key(k)
	if !ok {
		w.dst = append(w.dst, "null"...)
		return
	}
	w.dst = jsstr.AppendNumber(w.dst, v)
}
