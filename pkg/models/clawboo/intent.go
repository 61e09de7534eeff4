package clawboo

import (
	"strconv"
	"strings"

	"github.com/clawtap/clawtap/pkg/human"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/ui"
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
	RunID         ui.Str // commitChat, updateAgentStatus: the incoming frame's runId or null
	Patch         ui.Patch
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
		dst = ui.AppendStrOrNull(dst, in.RunID)
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
		dst = ui.AppendStrOrNull(dst, in.RunID)
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

// ClipTexts is the intent with its patch's texts and output lines cut to
// n runes, for a line a person reads; the intent itself when none is
// longer (ui.Clipper).
func (in *Intent) ClipTexts(n int) ui.Intent {
	if !in.longerThan(n) {
		return in
	}
	c := *in
	c.Patch = c.Patch.CutTexts(n)
	c.Lines = make([]string, len(in.Lines))
	for i, l := range in.Lines {
		c.Lines[i] = ui.CutRunes(l, n)
	}
	return &c
}

func (in *Intent) longerThan(n int) bool {
	if in.Patch.LongerThan(n) {
		return true
	}
	for _, l := range in.Lines {
		if len(l) > n {
			return true
		}
	}
	return false
}

// Describe says what the intent changes beyond its effects, for a
// semantic diff (ui.Describer): a commit with its run and lines, a status
// update; "" for the rest.
func (in *Intent) Describe(run func(string) string, text bool) string {
	switch in.Kind {
	case CommitChat:
		d := "commitChat " + in.AgentID + " " + run(in.RunID.V) + " lines=" + strconv.Itoa(len(in.Lines))
		if text && len(in.Lines) > 0 {
			d += " " + strconv.Quote(human.Clip(strings.Join(in.Lines, " | "), 80))
		}
		return d
	case UpdateAgentStatus:
		st, _ := in.Patch.Status.Value()
		return "status " + in.AgentID + " " + st + " " + run(in.RunID.V)
	}
	return ""
}

// IntentKind and IntentAgent make an Intent a ui.Intent.
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
		dst = ui.AppendNumber(dst, *c.InputTokens)
	}
	dst = append(dst, `,"outputTokens":`...)
	dst = ui.AppendNumber(dst, c.OutputTokens)
	return append(dst, '}')
}
