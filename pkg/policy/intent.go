package policy

import (
	"math"
	"strconv"

	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/jsstr"
)

// Intent kinds: the reference's EventIntent union.
const (
	QueueLivePatch         = "queueLivePatch"
	ClearPendingLivePatch  = "clearPendingLivePatch"
	CommitChat             = "commitChat"
	UpdateAgentStatus      = "updateAgentStatus"
	ScheduleSummaryRefresh = "scheduleSummaryRefresh"
	RequestHistoryRefresh  = "requestHistoryRefresh"
	ApprovalPending        = "approvalPending"
	ApprovalResolved       = "approvalResolved"
	Ignore                 = "ignore"
)

// Planes group intents as the reference does.
const (
	PlaneWork  = "work"
	PlaneAgent = "agent"
	PlaneTrust = "trust"
)

// Agent statuses.
const (
	StatusIdle    = "idle"
	StatusRunning = "running"
	StatusError   = "error"
)

// SummaryRefreshDelayMs is the reference's fixed debounce delay.
const SummaryRefreshDelayMs = 750

// CharsPerToken is the reference's token estimate for text without usage.
const CharsPerToken = 4

// Str is an optional, nullable string: in a patch, a missing key means
// "leave the field alone" and null means "clear it".
type Str struct {
	Set  bool
	Null bool
	V    string
}

// Int is an optional, nullable integer (unix ms here).
type Int struct {
	Set  bool
	Null bool
	V    int64
}

// SetStr, NullStr, SetInt and NullInt build optional values.
func SetStr(s string) Str           { return Str{Set: true, V: s} }
func NullStr() Str                  { return Str{Set: true, Null: true} }
func SetInt(n int64) Int            { return Int{Set: true, V: n} }
func NullInt() Int                  { return Int{Set: true, Null: true} }
func (s Str) Value() (string, bool) { return s.V, s.Set && !s.Null }

// Patch is the reference's AgentStatusPatch.
type Patch struct {
	Status         Str
	RunID          Str
	RunStartedAt   Int
	StreamText     Str
	ThinkingTrace  Str
	LastActivityAt Int

	// The fields Claw3D's agent store adds; clawboo never sets them.
	SessionCreated         Bool
	LatestPreview          Str
	LastUserMessage        Str
	LastResult             Str
	LastAssistantMessageAt Int
}

// Bool is an optional, nullable boolean, like Str and Int.
type Bool struct {
	Set  bool
	Null bool
	V    bool
}

// SetBool builds a set Bool.
func SetBool(v bool) Bool { return Bool{Set: true, V: v} }

// Empty reports whether the patch sets nothing.
func (p *Patch) Empty() bool { return *p == Patch{} }

// Merge shallow-merges src over p: every key src sets (a value or null)
// replaces p's.
func (p *Patch) Merge(src *Patch) {
	mergeStr(&p.Status, src.Status)
	mergeStr(&p.RunID, src.RunID)
	mergeInt(&p.RunStartedAt, src.RunStartedAt)
	mergeStr(&p.StreamText, src.StreamText)
	mergeStr(&p.ThinkingTrace, src.ThinkingTrace)
	mergeInt(&p.LastActivityAt, src.LastActivityAt)
	if src.SessionCreated.Set {
		p.SessionCreated = src.SessionCreated
	}
	mergeStr(&p.LatestPreview, src.LatestPreview)
	mergeStr(&p.LastUserMessage, src.LastUserMessage)
	mergeStr(&p.LastResult, src.LastResult)
	mergeInt(&p.LastAssistantMessageAt, src.LastAssistantMessageAt)
}

func mergeStr(dst *Str, src Str) {
	if src.Set {
		*dst = src
	}
}

func mergeInt(dst *Int, src Int) {
	if src.Set {
		*dst = src
	}
}

// ChatCost is what a chat final bills. The counts are JavaScript numbers,
// as the reference passes them through: 1.5 stays 1.5 and 1e21 stays
// 1e21 (and a count of 1e400, which JSON.parse makes Infinity, stays
// +Inf and is written null, as JSON.stringify writes it).
type ChatCost struct {
	Model        string
	InputTokens  *float64 // nil means unknown (the host fills it in)
	OutputTokens float64
}

// Intent is one member of the EventIntent union. Which fields apply depends
// on Kind; JSON output carries exactly the reference's fields for each kind.
type Intent struct {
	Kind       string
	Plane      string
	AgentID    string
	SessionKey string // optional: present when HasSessionKey or non-empty
	// HasSessionKey: the event had a sessionKey, even "" (queueLivePatch
	// and commitChat write it then).
	HasSessionKey bool
	RunID         Str // commitChat, updateAgentStatus: the incoming frame's runId or null
	Patch         Patch
	Lines         []string  // commitChat outputLines
	Cost          *ChatCost // commitChat
	DelayMs       int64
	Heartbeat     bool   // scheduleSummaryRefresh includeHeartbeatRefresh
	Reason        string // ignore, requestHistoryRefresh
	Payload       []byte // approvals: the raw payload, passed through
}

// AppendJSON appends the intent as a JSON object.
func (in *Intent) AppendJSON(dst []byte) []byte { return in.AppendJSONAt(dst, 0) }

// AppendJSONAt is AppendJSON with base subtracted from the patch's times.
func (in *Intent) AppendJSONAt(dst []byte, base int64) []byte {
	dst = append(dst, `{"kind":`...)
	dst = jsonx.AppendString(dst, in.Kind)
	if in.Kind != Ignore {
		dst = append(dst, `,"plane":`...)
		dst = jsonx.AppendString(dst, in.Plane)
	}
	switch in.Kind {
	case QueueLivePatch:
		dst = appendAgent(dst, in.AgentID)
		dst = in.appendSession(dst)
		dst = append(dst, `,"patch":`...)
		dst = in.Patch.AppendJSONAt(dst, base)
	case ClearPendingLivePatch:
		dst = appendAgent(dst, in.AgentID)
	case CommitChat:
		dst = appendAgent(dst, in.AgentID)
		dst = in.appendSession(dst)
		dst = append(dst, `,"runId":`...)
		dst = appendStrOrNull(dst, in.RunID)
		dst = append(dst, `,"patch":`...)
		dst = in.Patch.AppendJSONAt(dst, base)
		dst = append(dst, `,"outputLines":[`...)
		for i, l := range in.Lines {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = jsonx.AppendString(dst, l)
		}
		dst = append(dst, `],"cost":`...)
		dst = in.Cost.AppendJSON(dst)
	case UpdateAgentStatus:
		dst = appendAgent(dst, in.AgentID)
		dst = append(dst, `,"runId":`...)
		dst = appendStrOrNull(dst, in.RunID)
		dst = append(dst, `,"patch":`...)
		dst = in.Patch.AppendJSONAt(dst, base)
	case ScheduleSummaryRefresh:
		dst = append(dst, `,"delayMs":`...)
		dst = strconv.AppendInt(dst, in.DelayMs, 10)
		dst = append(dst, `,"includeHeartbeatRefresh":`...)
		dst = strconv.AppendBool(dst, in.Heartbeat)
	case RequestHistoryRefresh:
		dst = appendAgent(dst, in.AgentID)
		dst = append(dst, `,"reason":`...)
		dst = jsonx.AppendString(dst, in.Reason)
	case ApprovalPending, ApprovalResolved:
		dst = appendAgent(dst, in.AgentID)
		dst = append(dst, `,"payload":`...)
		if in.Payload == nil {
			dst = append(dst, "null"...)
		} else {
			dst = append(dst, in.Payload...)
		}
	case Ignore:
		dst = append(dst, `,"reason":`...)
		dst = jsonx.AppendString(dst, in.Reason)
	}
	return append(dst, '}')
}

// MarshalJSON implements json.Marshaler.
func (in Intent) MarshalJSON() ([]byte, error) { return in.AppendJSON(nil), nil }

// IntentKind and IntentAgent make an Intent a replay.Intent.
func (in *Intent) IntentKind() string  { return in.Kind }
func (in *Intent) IntentAgent() string { return in.AgentID }

func appendAgent(dst []byte, id string) []byte {
	dst = append(dst, `,"agentId":`...)
	return jsonx.AppendString(dst, id)
}

func (in *Intent) appendSession(dst []byte) []byte {
	if !in.HasSessionKey && in.SessionKey == "" {
		return dst
	}
	dst = append(dst, `,"sessionKey":`...)
	return jsonx.AppendString(dst, in.SessionKey)
}

// AppendNumber appends f as JSON.stringify writes a number: as
// JavaScript's Number#toString (1.5, 1e+21, -0 as 0), and null when it
// is not finite.
func AppendNumber(dst []byte, f float64) []byte {
	if math.IsInf(f, 0) || f != f {
		return append(dst, "null"...)
	}
	return jsstr.AppendNumber(dst, f)
}

func appendStrOrNull(dst []byte, s Str) []byte {
	if !s.Set || s.Null {
		return append(dst, "null"...)
	}
	return jsonx.AppendString(dst, s.V)
}

// AppendJSON appends the patch with only the keys it sets, in a fixed order.
func (p *Patch) AppendJSON(dst []byte) []byte { return p.AppendJSONAt(dst, 0) }

// AppendJSONAt is AppendJSON with base subtracted from every time (an
// offset from a capture's start).
func (p *Patch) AppendJSONAt(dst []byte, base int64) []byte {
	dst = append(dst, '{')
	n := 0
	key := func(k string) {
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		dst = append(dst, '"')
		dst = append(dst, k...)
		dst = append(dst, '"', ':')
	}
	str := func(k string, s Str) {
		if s.Set {
			key(k)
			dst = appendStrOrNull(dst, s)
		}
	}
	num := func(k string, v Int) {
		if v.Set {
			key(k)
			if v.Null {
				dst = append(dst, "null"...)
			} else {
				dst = strconv.AppendInt(dst, v.V-base, 10)
			}
		}
	}
	str("status", p.Status)
	str("runId", p.RunID)
	num("runStartedAt", p.RunStartedAt)
	str("streamText", p.StreamText)
	str("thinkingTrace", p.ThinkingTrace)
	num("lastActivityAt", p.LastActivityAt)
	if b := p.SessionCreated; b.Set {
		key("sessionCreated")
		switch {
		case b.Null:
			dst = append(dst, "null"...)
		default:
			dst = strconv.AppendBool(dst, b.V)
		}
	}
	str("latestPreview", p.LatestPreview)
	str("lastUserMessage", p.LastUserMessage)
	str("lastResult", p.LastResult)
	num("lastAssistantMessageAt", p.LastAssistantMessageAt)
	return append(dst, '}')
}

// AppendJSON appends the cost, or null.
func (c *ChatCost) AppendJSON(dst []byte) []byte {
	if c == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, `{"model":`...)
	dst = jsonx.AppendString(dst, c.Model)
	dst = append(dst, `,"inputTokens":`...)
	if c.InputTokens == nil {
		dst = append(dst, "null"...)
	} else {
		dst = AppendNumber(dst, *c.InputTokens)
	}
	dst = append(dst, `,"outputTokens":`...)
	dst = AppendNumber(dst, c.OutputTokens)
	return append(dst, '}')
}
