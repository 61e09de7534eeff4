package claw3d

import (
	"github.com/clawtap/clawtap/pkg/jsstr"
	"github.com/clawtap/clawtap/pkg/ui"
)

// Agent statuses.
const (
	StatusIdle    = "idle"
	StatusRunning = "running"
	StatusError   = "error"
)

// Bool, SetBool and Patch are the agent store's vocabulary, shared with
// clawboo's model: ui.Patch carries every field Claw3D's runtime
// pipeline writes (a field whose Set is false is left alone; Null clears
// it), and merges and renders them.
type (
	Bool  = ui.Bool
	Patch = ui.Patch
)

// SetBool returns a set Bool.
func SetBool(v bool) Bool { return ui.SetBool(v) }

// runIDOf is a patch's runId as the live queue compares it: trimmed, ""
// when absent or null.
func runIDOf(s ui.Str) string {
	v, _ := s.Value()
	return jsstr.Trim(v)
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
		pending.StreamText, pending.ThinkingTrace = ui.Str{}, ui.Str{}
		pending.Merge(incoming)
		return MergeDropText
	}
	pending.Merge(incoming)
	return MergeMerged
}

// Agent is what the pipeline reads of one agent of the fleet store: the
// fields a Patch writes, plus the roster's session key and what the host
// knows of the agent's transcript and overrides. A host can keep its
// agents as Agent values and update them with Apply.
type Agent struct {
	AgentID    string
	SessionKey string // the agent's main session key (from the Roster)

	// The store's fields, as a patch that sets them all.
	Patch

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
func (a *Agent) Apply(p *Patch) { a.Patch.Merge(p) }

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
