package claw3d

import (
	"strconv"

	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/policy"
)

// Agent statuses.
const (
	StatusIdle    = "idle"
	StatusRunning = "running"
	StatusError   = "error"
)

// Bool is an optional, nullable boolean, like policy.Str and policy.Int:
// in a patch a missing key leaves the field alone and null clears it.
type Bool struct {
	Set  bool
	Null bool
	V    bool
}

// SetBool returns a set Bool.
func SetBool(v bool) Bool { return Bool{Set: true, V: v} }

// Patch is a partial update of a Claw3D agent (the updateAgent action and
// the live patches): every field Claw3D's runtime pipeline writes. A field
// whose Set is false is left alone; Null clears it.
type Patch struct {
	Status                 policy.Str
	RunID                  policy.Str
	RunStartedAt           policy.Int
	StreamText             policy.Str
	ThinkingTrace          policy.Str
	LastActivityAt         policy.Int
	SessionCreated         Bool
	LatestPreview          policy.Str
	LastUserMessage        policy.Str
	LastResult             policy.Str
	LastAssistantMessageAt policy.Int
}

// Empty reports whether the patch sets nothing.
func (p *Patch) Empty() bool { return *p == Patch{} }

// Merge shallow-merges src over p: every key src sets, a value or null,
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

func mergeStr(dst *policy.Str, src policy.Str) {
	if src.Set {
		*dst = src
	}
}

func mergeInt(dst *policy.Int, src policy.Int) {
	if src.Set {
		*dst = src
	}
}

// runIDOf is a patch's runId as the live queue compares it: trimmed, ""
// when absent or null.
func runIDOf(s policy.Str) string {
	v, _ := s.Value()
	return trim(v)
}

// MergePendingLivePatch is Claw3D's mergePendingLivePatch (§4.7), which
// differs from clawboo's queue: with each runId trimmed, when both are
// non-empty and differ the incoming patch replaces the pending one as it
// is; when only the incoming patch has one, the pending streamText and
// thinkingTrace are dropped before the shallow merge (a new run's patch
// never carries the old run's text); otherwise the incoming keys are
// shallow-merged over the pending ones. It reports which happened:
// MergeReplace, MergeDropText or MergeMerged.
func MergePendingLivePatch(pending *Patch, incoming *Patch) string {
	prev, next := runIDOf(pending.RunID), runIDOf(incoming.RunID)
	switch {
	case prev != "" && next != "" && prev != next:
		*pending = *incoming
		return MergeReplace
	case prev == "" && next != "":
		pending.StreamText, pending.ThinkingTrace = policy.Str{}, policy.Str{}
		pending.Merge(incoming)
		return MergeDropText
	}
	pending.Merge(incoming)
	return MergeMerged
}

// AppendJSON appends the patch with only the keys it sets, in a fixed
// order; times are written as they are (unix ms).
func (p *Patch) AppendJSON(dst []byte) []byte { return p.appendJSON(dst, 0) }

// appendJSON writes times relative to base (0: absolute).
func (p *Patch) appendJSON(dst []byte, base int64) []byte {
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
	str := func(k string, s policy.Str) {
		if s.Set {
			key(k)
			dst = appendStrOrNull(dst, s)
		}
	}
	num := func(k string, v policy.Int) {
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
	if p.SessionCreated.Set {
		key("sessionCreated")
		switch {
		case p.SessionCreated.Null:
			dst = append(dst, "null"...)
		default:
			dst = strconv.AppendBool(dst, p.SessionCreated.V)
		}
	}
	str("latestPreview", p.LatestPreview)
	str("lastUserMessage", p.LastUserMessage)
	str("lastResult", p.LastResult)
	num("lastAssistantMessageAt", p.LastAssistantMessageAt)
	return append(dst, '}')
}

func appendStrOrNull(dst []byte, s policy.Str) []byte {
	if !s.Set || s.Null {
		return append(dst, "null"...)
	}
	return jsonx.AppendString(dst, s.V)
}

// Agent is what the pipeline reads of one agent of the fleet store: the
// fields a Patch writes, plus the roster's session key and what the host
// knows of the agent's transcript and overrides. A host can keep its
// agents as Agent values and update them with Apply.
type Agent struct {
	AgentID    string
	SessionKey string // the agent's main session key (from the Roster)

	Status                 policy.Str
	RunID                  policy.Str
	RunStartedAt           policy.Int
	StreamText             policy.Str
	ThinkingTrace          policy.Str
	LastActivityAt         policy.Int
	SessionCreated         Bool
	LatestPreview          policy.Str
	LastUserMessage        policy.Str
	LastResult             policy.Str
	LastAssistantMessageAt policy.Int

	// LatestOverride is a special latest-update text the UI shows instead
	// of the last user message; while it is set, a final does not queue a
	// latest update.
	LatestOverride string
	// HasTraceLine reports whether the agent's transcript holds a
	// "[[trace]]" line (Transcript.HasTrace), which suppresses the
	// chat-final history refresh.
	HasTraceLine bool
}

// Apply writes a patch into the agent.
func (a *Agent) Apply(p *Patch) {
	mergeStr(&a.Status, p.Status)
	mergeStr(&a.RunID, p.RunID)
	mergeInt(&a.RunStartedAt, p.RunStartedAt)
	mergeStr(&a.StreamText, p.StreamText)
	mergeStr(&a.ThinkingTrace, p.ThinkingTrace)
	mergeInt(&a.LastActivityAt, p.LastActivityAt)
	if p.SessionCreated.Set {
		a.SessionCreated = p.SessionCreated
	}
	mergeStr(&a.LatestPreview, p.LatestPreview)
	mergeStr(&a.LastUserMessage, p.LastUserMessage)
	mergeStr(&a.LastResult, p.LastResult)
	mergeInt(&a.LastAssistantMessageAt, p.LastAssistantMessageAt)
}

// status, runID, … read the agent as Claw3D's code reads its state (null
// and missing are alike; run ids are trimmed where Claw3D trims them).
func (a *Agent) status() string        { s, _ := a.Status.Value(); return s }
func (a *Agent) activeRunID() string   { return runIDOf(a.RunID) }
func (a *Agent) hasRunStartedAt() bool { return a.RunStartedAt.Set && !a.RunStartedAt.Null }
func (a *Agent) streamText() string    { s, _ := a.StreamText.Value(); return s }
func (a *Agent) thinkingTrace() string {
	s, _ := a.ThinkingTrace.Value()
	return s
}
