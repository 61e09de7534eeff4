package claw3d

import "github.com/clawtap/clawtap/pkg/jsonx"

// Metrics Claw3D logs (logMetric), reported to Deps.Observer under these
// exact names.
const (
	// MetricLateEventIgnoredClosedRun: a chat delta or an agent event
	// (other than lifecycle start) of a closed run was dropped. Stream,
	// RunID.
	MetricLateEventIgnoredClosedRun = "late_event_ignored_closed_run"
	// MetricStaleTerminalChatEventIgnored: a terminal chat frame of a run
	// whose chat final is committed was stale. RunID, Seq,
	// LastTerminalSeq, CommitSource.
	MetricStaleTerminalChatEventIgnored = "stale_terminal_chat_event_ignored"
	// MetricLifecycleFallbackReplacedByChatFinal: a chat terminal arrived
	// after a lifecycle fallback had committed the run. RunID.
	MetricLifecycleFallbackReplacedByChatFinal = "lifecycle_fallback_replaced_by_chat_final"
)

// Decisions clawtap reports beside Claw3D's metrics, so a replay can say
// what a timer or the bookkeeping did.
const (
	DecisionClosedRunExpired    = "closed-run-expired"         // RunID, ExpiresAt: pruned (expiresAt <= now) with its terminal state
	DecisionFallbackFired       = "lifecycle-fallback-fired"   // AgentID, RunID: the fallback committed streamText
	DecisionFallbackSkipped     = "lifecycle-fallback-skipped" // AgentID, RunID: it fired after a chat final was seen
	DecisionHistoryRefreshFired = "history-refresh-fired"      // AgentID, RunID, Reason
	DecisionSummaryRefreshArmed = "summary-refresh-armed"      // Due; Replaced: a pending load was re-armed
	DecisionSummaryRefreshFired = "summary-refresh-fired"
	DecisionApprovalExpired     = "approval-expired" // ID, AgentID, ExpiresAt
	DecisionRosterHydrated      = "roster-hydrated"  // Source, Count (agents added)
	DecisionDisposed            = "disposed"         // Count: fallback timers cancelled; Replaced: summary load cancelled
)

// Decision is one metric or decision. Which fields apply depends on Kind.
type Decision struct {
	Kind            string
	AgentID         string
	RunID           string
	Stream          string
	Seq             float64
	HasSeq          bool
	LastTerminalSeq float64
	HasLastSeq      bool
	CommitSource    string
	ExpiresAt       int64
	Due             int64
	Reason          string
	ID              string
	Source          string
	Count           int
	Replaced        bool
}

// IsMetric reports whether the decision is one of Claw3D's own metrics.
func (d *Decision) IsMetric() bool {
	switch d.Kind {
	case MetricLateEventIgnoredClosedRun, MetricStaleTerminalChatEventIgnored, MetricLifecycleFallbackReplacedByChatFinal:
		return true
	}
	return false
}

// AppendJSON appends the decision as a JSON object; times are unix ms.
func (d *Decision) AppendJSON(dst []byte) []byte { return d.AppendJSONAt(dst, 0) }

// AppendJSONAt is AppendJSON with base subtracted from every time.
func (d *Decision) AppendJSONAt(dst []byte, base int64) []byte {
	w := jw{dst: append(dst, `{"kind":`...)}
	w.dst = jsonx.AppendString(w.dst, d.Kind)
	switch d.Kind {
	case MetricLateEventIgnoredClosedRun:
		w.str("stream", d.Stream)
		w.str("runId", d.RunID)
	case MetricStaleTerminalChatEventIgnored:
		w.str("runId", d.RunID)
		w.num("seq", d.Seq, d.HasSeq)
		w.num("lastTerminalSeq", d.LastTerminalSeq, d.HasLastSeq)
		w.str("commitSource", d.CommitSource)
	case MetricLifecycleFallbackReplacedByChatFinal:
		w.str("runId", d.RunID)
	case DecisionClosedRunExpired:
		w.str("runId", d.RunID)
		w.int("expiresAt", d.ExpiresAt-base)
	case DecisionFallbackFired, DecisionFallbackSkipped:
		w.str("agentId", d.AgentID)
		w.str("runId", d.RunID)
	case DecisionHistoryRefreshFired:
		w.str("agentId", d.AgentID)
		w.opt("runId", d.RunID)
		w.str("reason", d.Reason)
	case DecisionSummaryRefreshArmed:
		w.int("dueAt", d.Due-base)
		w.key("replaced")
		w.dst = appendBool(w.dst, d.Replaced)
	case DecisionApprovalExpired:
		w.str("id", d.ID)
		w.opt("agentId", d.AgentID)
		w.int("expiresAt", d.ExpiresAt-base)
	case DecisionRosterHydrated:
		w.str("source", d.Source)
		w.int("count", int64(d.Count))
	case DecisionDisposed:
		w.int("fallbacksCancelled", int64(d.Count))
		w.key("summaryCancelled")
		w.dst = appendBool(w.dst, d.Replaced)
	}
	return append(w.dst, '}')
}

func appendBool(dst []byte, v bool) []byte {
	if v {
		return append(dst, "true"...)
	}
	return append(dst, "false"...)
}
