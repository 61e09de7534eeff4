package replay

import (
	"github.com/clawtap/clawtap/pkg/ui"
)

// Effect types. Each effect is one thing the pipeline or the host did.
const (
	// EffQueue: a live patch entered the animation-frame queue.
	// AgentID, SessionKey, Patch (the incoming patch), Action (new, merge,
	// replace), Count (patches now coalesced for the agent), At (the frame
	// that will flush it).
	EffQueue = "queue"
	// EffFlush: the queue wrote its batch to the fleet store, one write per
	// agent. Action is "frame" (an animation frame fired) or "clear" (the
	// host's clearPendingLivePatch, requested for AgentID, flushed
	// everything). Patches holds the writes.
	EffFlush = "flush"
	// EffDrop: disposing the queue dropped pending patches unwritten.
	EffDrop = "drop"
	// EffWrite: dispatchIntent applied Intent's Patch to AgentID in the fleet store.
	EffWrite = "write"
	// EffSkip: dispatchIntent skipped Intent's status patch for AgentID
	// because an approval is pending (Reason).
	EffSkip = "skip"
	// EffAppend: Count lines were appended to AgentID's transcript with
	// timestamp At (the stream-start anchor, or now); Reason says why the
	// host appended them when no final did (prose recovery, a notice).
	EffAppend = "append"
	// EffDuplicate: the chat store dropped Text as an exact duplicate
	// (same kind, timestamp and text among the last 50 entries or the
	// batch); with a Reason, the host held the line back itself (prose
	// recovery found it among the newest entries).
	EffDuplicate = "duplicate"
	// EffTrim: the transcript cap dropped Count of AgentID's oldest lines.
	EffTrim = "trim"
	// EffBill: commitChat billed AgentID: Model, Input (null when unknown),
	// Output; with Action BillNotRecorded the UI read the cost and recorded
	// nothing (Reason says why).
	EffBill = "bill"
	// EffRequest: the UI would make a request: Action is summaryReload,
	// heartbeatRefresh or historyRefresh (with AgentID and Reason).
	EffRequest = "request"
	// EffGuard: a closed-run guard decision; Action is one of the guard
	// actions of pkg/ui (dropped-closed-run, closed-run-recorded, hazard,
	// run-kept-open, fail-open, closed-run-expired, closed-run-evicted,
	// closed-run-passed); ClosedBy says what closed the run and Live which
	// run was live, where the UI tells.
	EffGuard = "guard"
	// EffTimer: a timer was armed (At = due), re-armed (a pending one was
	// cancelled first) or fired. Name is summaryRefresh; Heartbeat is the
	// armed intent's includeHeartbeatRefresh.
	EffTimer = "timer"
	// EffDispose: the connection closed (Reason close) or a new one
	// started (Reason reconnect): Name is handler (Count closed runs
	// cleared, Heartbeat unused) or patchQueue.
	EffDispose = "dispose"
	// EffHistory: the UI's history refresh came back and the host merged
	// the transcript: Count lines of run RunID (a chat final the handler
	// had dropped) were added to AgentID's transcript. See historySync.
	EffHistory = "history"
	// EffApproval: the approvals store changed: Action is added, updated,
	// removed, expired (by the 5 s sweep), or unknown (a resolved event for
	// an id that is not pending). ID, AgentID, Command.
	EffApproval = "approval"

	// BillNotRecorded is a bill effect's Action when the UI read a
	// turn's cost but recorded nothing.
	BillNotRecorded = "not-recorded"

	// Claw3D's effects (see docs/ui-claw3d.md).

	// EffDiscard: Claw3D's clearPendingLivePatch discarded AgentID's
	// pending live patch (Patches) unwritten.
	EffDiscard = "discard"
	// EffActivity: markActivity for AgentID at At.
	EffActivity = "activity"
	// EffMetric: Claw3D logged a metric: Action is its name
	// (late_event_ignored_closed_run, …), Detail its fields.
	EffMetric = "metric"
	// EffDecision: something Claw3D's handler decided that a later frame
	// depends on or a timer did (a closed run expired, a lifecycle fallback
	// fired, the roster hydrated, …): Action is its kind, Detail its fields.
	EffDecision = "decision"
	// EffLatest: updateSpecialLatestUpdate for AgentID with Text.
	EffLatest = "latest"
	// EffWarn: Claw3D logged a warning, Text.
	EffWarn = "warn"
)

// Effect is one effect of a step. Which fields apply depends on Type; the
// JSON form carries exactly the applicable ones.
type Effect struct {
	Type       string
	Action     string
	Name       string
	AgentID    string
	SessionKey string
	Intent     string
	RunID      string
	Incoming   string
	ID         string
	Model      string
	Reason     string
	Text       string
	Command    NStr
	Patch      ui.Patch
	Patches    []ui.AgentPatch
	Count      int64
	At         NInt
	Input      NNum
	Output     float64
	Heartbeat  bool
	Replaced   bool
	// ClosedBy and Live are a guard's: what closed the run ("commit",
	// "lifecycle"; "" where the UI does not say) and the run live on the
	// agent when it judged.
	ClosedBy string
	Live     string
	// Detail holds what the UI logged or decided (EffMetric, EffDecision):
	// a Claw3D metric, for one.
	Detail Detail
}

// Detail is a model's own record of a metric or decision, rendered as
// JSON with its times less base.
type Detail interface {
	AppendJSONAt(dst []byte, base int64) []byte
}

// agent returns the agent an effect concerns ("" for none). A flush or
// drop concerns each of its agents; see touches.
func (e *Effect) touches(agentID string) bool {
	if e.AgentID == agentID {
		return true
	}
	for i := range e.Patches {
		if e.Patches[i].AgentID == agentID {
			return true
		}
	}
	return false
}
