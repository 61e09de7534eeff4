// Package handler is the third, stateful stage of clawtap's pipeline
// (Bridge → Policy → Handler): it applies the intents Policy derived to
// injected store writers, and it is the one place that holds the
// reference pipeline's temporal guard state — the closed-run map, the
// pre/post runId capture around dispatch, and the summary-refresh debounce.
//
// It follows clawboo's createEventHandler (@clawboo/events) rule for rule,
// with one deliberate difference: time comes from an injected Clock and
// timers from an injected Timers source, never from time.Now or real
// timers, so a replay on a fake clock is deterministic. Every guard
// decision is reported to an optional Observer so replay output can show
// why an intent was dropped, which run was recorded closed, and when the
// reference's hazard (a late terminal of an older run closing the live run)
// happened.
//
// A Handler is not safe for concurrent use; the reference runs on one
// JavaScript thread and so does a replay.
package clawboo

import "github.com/clawtap/clawtap/pkg/ui"

// The reference's constants.
const (
	// ClosedRunTTLMs is how long a closed run stays closed. An entry
	// expires only when now > expiry (strictly), so a terminal arriving at
	// exactly +30 000 ms is still dropped.
	ClosedRunTTLMs = 30_000
	// ClosedRunsMaxSize caps the closed-run map; the oldest entries (in
	// insertion order) are evicted at the next prune.
	ClosedRunsMaxSize = 500
)

// Clock is the handler's only source of time, in unix milliseconds.
type Clock interface {
	Now() int64
}

// Timers schedules a callback ms milliseconds from the clock's now and
// returns a function that cancels it. Calling cancel after the callback ran
// is harmless.
type Timers interface {
	AfterFunc(ms int64, fn func()) (cancel func())
}

// Deps are the reference's injected dependencies: the store writers and
// readers the host wires in, plus the clock, the timers, an optional debug
// log and an optional observer of guard decisions.
type Deps struct {
	// GetAgentRunID reads the agent's current runId from the fleet store;
	// "" means none.
	GetAgentRunID func(agentID string) string
	// DispatchIntent applies updateAgentStatus, commitChat and approval
	// intents to the stores (the host's pending-approval rules live there).
	DispatchIntent func(in *Intent)
	// QueueLivePatch hands a streaming patch to the animation-frame queue.
	QueueLivePatch func(agentID string, patch ui.Patch, sessionKey string)
	// ClearPendingLivePatch is called before a commit; clawboo's host
	// flushes every pending patch.
	ClearPendingLivePatch func(agentID string)
	// AppendOutputLines appends committed transcript lines.
	AppendOutputLines func(agentID string, lines []string, sessionKey string)
	// RequestHistoryRefresh asks the host to re-fetch an agent's history.
	RequestHistoryRefresh func(agentID, reason string)
	// LoadSummarySnapshot reloads the fleet summary (debounced).
	LoadSummarySnapshot func()
	// RefreshHeartbeatLatest refreshes the latest heartbeat.
	RefreshHeartbeatLatest func()

	Clock  Clock
	Timers Timers

	// ByCommitGuard is the guard of clawboo after 1211c16 (pipeline-spec
	// §8): a closed run remembers whether a commit or a lifecycle terminal
	// closed it, and a commitChat is dropped only for a run a commit closed
	// (a replayed final) or while another run is live on the agent; a
	// commit closes the incoming frame's run. Off, the handler is 1211c16's.
	ByCommitGuard bool

	// Log receives the reference's debug messages (ignored intents). Optional.
	Log func(msg string)
	// Observer receives every guard decision. Optional.
	Observer func(d *Decision)
}

// Decision kinds reported to Deps.Observer; the guard's are pkg/ui's
// guard actions.
const (
	// DroppedClosed: a commitChat or terminal updateAgentStatus was skipped
	// because its incoming runId is in the closed-run map.
	DroppedClosed = ui.GuardDropped
	// FailOpen: a commitChat or terminal updateAgentStatus had no runId,
	// so the guard could not apply and the intent went through.
	FailOpen = ui.GuardFailOpen
	// ClosedRecorded: the dispatch cleared the agent's runId, so the
	// pre-dispatch runId was recorded closed.
	ClosedRecorded = ui.GuardClosed
	// Passed: under ByCommitGuard, a commitChat went through for a run its
	// own lifecycle terminal had closed: no other run is live, so the
	// final is the run's reply, not a replay.
	Passed = ui.GuardPassed
	// Hazard: the run recorded closed (pre) is not the incoming frame's run:
	// a terminal of another run closed the live one, whose own terminal
	// will now be dropped until the entry expires.
	Hazard = ui.GuardHazard
	// KeptOpen: a terminal was dispatched but the agent's runId survived
	// (the host skipped the patch because an approval is pending), so the
	// run stays open and its continuation final will be accepted.
	KeptOpen = ui.GuardKeptOpen
	// Expired: a closed-run entry expired at a prune (now > expiry).
	Expired = ui.GuardExpired
	// Evicted: a closed-run entry was evicted because the map held more
	// than ClosedRunsMaxSize entries.
	Evicted = ui.GuardEvicted
	// SummaryArmed: the summary-refresh debounce timer was armed; Replaced
	// says a pending one was cancelled first.
	SummaryArmed = "summary-refresh-armed"
	// SummaryFired: the debounce timer fired.
	SummaryFired = "summary-refresh-fired"
	// Disposed: Dispose ran; Count is the number of closed runs cleared,
	// Replaced says a pending debounce timer was cancelled.
	Disposed = "disposed"
)

// Decision is one guard decision. Which fields apply depends on Kind.
type Decision struct {
	Kind     string
	Intent   string // the intent kind concerned
	AgentID  string
	RunID    string // the run concerned: dropped, recorded closed, expired, evicted
	Incoming string // the incoming frame's runId ("" when it had none)
	Pre      string // the agent's runId before dispatch
	Post     string // the agent's runId after dispatch
	Expiry   int64  // closed-run expiry (DroppedClosed, ClosedRecorded, Expired, Evicted)
	// ClosedBy is what closed the run, under ByCommitGuard: "commit" or
	// "lifecycle" (DroppedClosed, ClosedRecorded, Passed).
	ClosedBy string
	// Live is the run live on the agent when a commit was judged
	// (DroppedClosed under ByCommitGuard: another run is live).
	Live string
	Due  int64 // timer due time (SummaryArmed)
	// Heartbeat is the armed/fired debounce intent's includeHeartbeatRefresh.
	Heartbeat bool
	Replaced  bool // SummaryArmed, Disposed: a pending timer was cancelled
	Count     int  // Disposed: closed runs cleared
}

// Handler is the reference's event handler.
type Handler struct {
	deps   Deps
	closed closedRuns

	summaryCancel func()
	summarySeq    uint64 // identifies the armed timer, so a stale callback is inert
	dec           Decision
}

// New returns a handler. Clock and Timers are required; missing store
// writers are treated as no-ops so tests can wire only what they observe.
func NewHandler(deps Deps) *Handler {
	if deps.Clock == nil || deps.Timers == nil {
		panic("handler: Deps.Clock and Deps.Timers are required")
	}
	h := &Handler{deps: deps}
	h.closed.init()
	return h
}

func (h *Handler) observe(d Decision) {
	if h.deps.Observer != nil {
		h.dec = d
		h.deps.Observer(&h.dec)
	}
}

// ApplyIntents applies the intents derived from one event, in order. The
// closed-run map is pruned first, as the reference does at the top of
// every call.
func (h *Handler) ApplyIntents(intents []Intent) {
	h.prune()
	for i := range intents {
		h.apply(&intents[i])
	}
}

func (h *Handler) apply(in *Intent) {
	switch in.Kind {
	case QueueLivePatch:
		if h.deps.QueueLivePatch != nil {
			h.deps.QueueLivePatch(in.AgentID, in.Patch, in.SessionKey)
		}
	case ClearPendingLivePatch:
		if h.deps.ClearPendingLivePatch != nil {
			h.deps.ClearPendingLivePatch(in.AgentID)
		}
	case CommitChat:
		if h.deps.ByCommitGuard {
			h.commitByCommit(in)
			return
		}
		if h.dropIfClosed(in) {
			return
		}
		h.clearAndAppend(in)
		pre := h.runID(in.AgentID)
		h.dispatch(in)
		post := h.runID(in.AgentID)
		h.closeIfCleared(in, pre, post)
	case UpdateAgentStatus:
		status, _ := in.Patch.Status.Value()
		terminal := status != StatusRunning
		if terminal && h.dropIfClosed(in) {
			return
		}
		pre := h.runID(in.AgentID)
		h.dispatch(in)
		// The reference re-reads the runId only for a terminal patch that
		// clears it (patch.runId === null).
		if terminal && in.Patch.RunID.Set && in.Patch.RunID.Null {
			post := h.runID(in.AgentID)
			h.closeIfCleared(in, pre, post)
		}
	case ScheduleSummaryRefresh:
		h.scheduleSummaryRefresh(in.DelayMs, in.Heartbeat)
	case RequestHistoryRefresh:
		if h.deps.RequestHistoryRefresh != nil {
			h.deps.RequestHistoryRefresh(in.AgentID, in.Reason)
		}
	case ApprovalPending, ApprovalResolved:
		h.dispatch(in)
	case Ignore:
		if h.deps.Log != nil {
			h.deps.Log("ignore: " + in.Reason)
		}
	default:
		if h.deps.Log != nil {
			h.deps.Log("unknown intent kind: " + in.Kind)
		}
	}
}

func (h *Handler) runID(agentID string) string {
	if h.deps.GetAgentRunID == nil {
		return ""
	}
	return h.deps.GetAgentRunID(agentID)
}

func (h *Handler) dispatch(in *Intent) {
	if h.deps.DispatchIntent != nil {
		h.deps.DispatchIntent(in)
	}
}

// clearAndAppend is a commit's first half: the pending live patches go,
// then the lines (if any) are appended.
func (h *Handler) clearAndAppend(in *Intent) {
	if h.deps.ClearPendingLivePatch != nil {
		h.deps.ClearPendingLivePatch(in.AgentID)
	}
	if len(in.Lines) > 0 && h.deps.AppendOutputLines != nil {
		h.deps.AppendOutputLines(in.AgentID, in.Lines, in.SessionKey)
	}
}

// commitByCommit is commitChat under ByCommitGuard: the guard reads what
// closed the incoming run and which run is live, a commit that passes is
// applied, and then the incoming run is closed by the commit when the
// dispatch cleared the agent's runId (a commit without a runId closes
// nothing).
func (h *Handler) commitByCommit(in *Intent) {
	run, hasRun := in.RunID.Value()
	live := h.runID(in.AgentID) // read whatever the guard decides, as clawboo does
	switch {
	case !hasRun || run == "":
		h.observe(Decision{Kind: FailOpen, Intent: in.Kind, AgentID: in.AgentID})
	default:
		if exp, by, closed := h.closed.get(run); closed {
			d := Decision{Kind: Passed, Intent: in.Kind, AgentID: in.AgentID, RunID: run, Incoming: run, Expiry: exp, ClosedBy: by.String(), Live: live}
			if by == closedByCommit || live != "" && live != run {
				d.Kind = DroppedClosed
				h.observe(d)
				return
			}
			h.observe(d)
		}
	}
	h.clearAndAppend(in)
	h.dispatch(in)
	if !hasRun || run == "" {
		return
	}
	if post := h.runID(in.AgentID); post != "" {
		if post == run {
			h.observe(Decision{Kind: KeptOpen, Intent: in.Kind, AgentID: in.AgentID, RunID: run, Incoming: run, Post: post})
		}
		return
	}
	exp := h.deps.Clock.Now() + ClosedRunTTLMs
	h.closed.set(run, exp, closedByCommit)
	h.observe(Decision{Kind: ClosedRecorded, Intent: in.Kind, AgentID: in.AgentID, RunID: run, Incoming: run, Expiry: exp, ClosedBy: closedByCommit.String()})
}

// dropIfClosed is the stale-run guard: it matches the INCOMING runId and
// fails open when there is none. Under ByCommitGuard it guards lifecycle
// terminals only, and drops one for any closed run, whatever closed it.
func (h *Handler) dropIfClosed(in *Intent) bool {
	run, ok := in.RunID.Value()
	if !ok || run == "" {
		h.observe(Decision{Kind: FailOpen, Intent: in.Kind, AgentID: in.AgentID})
		return false
	}
	exp, by, closed := h.closed.get(run)
	if !closed {
		return false
	}
	h.observe(Decision{Kind: DroppedClosed, Intent: in.Kind, AgentID: in.AgentID, RunID: run, Incoming: run, Expiry: exp, ClosedBy: by.String()})
	return true
}

// closeIfCleared records pre as closed when the dispatch cleared the
// agent's runId. It is pre, not the incoming runId, that is recorded: the
// reference's hazard, reproduced on purpose and reported.
func (h *Handler) closeIfCleared(in *Intent, pre, post string) {
	incoming, _ := in.RunID.Value()
	if pre == "" {
		return
	}
	if post != "" {
		if post == pre {
			h.observe(Decision{Kind: KeptOpen, Intent: in.Kind, AgentID: in.AgentID, RunID: pre, Incoming: incoming, Pre: pre, Post: post})
		}
		return
	}
	exp := h.deps.Clock.Now() + ClosedRunTTLMs
	by := closedByAny // 1211c16's map keeps the expiry alone
	if h.deps.ByCommitGuard {
		by = closedByLifecycle // only lifecycle terminals come here
	}
	h.closed.set(pre, exp, by)
	d := Decision{Kind: ClosedRecorded, Intent: in.Kind, AgentID: in.AgentID, RunID: pre, Incoming: incoming, Pre: pre, Post: post, Expiry: exp, ClosedBy: by.String()}
	h.observe(d)
	if incoming != "" && incoming != pre {
		d.Kind = Hazard
		h.observe(d)
	}
}

// prune deletes expired entries (now > expiry, strictly), then evicts the
// oldest entries in insertion order until at most ClosedRunsMaxSize remain.
func (h *Handler) prune() {
	now := h.deps.Clock.Now()
	h.closed.pruneExpired(now, func(run string, exp int64) {
		h.observe(Decision{Kind: Expired, RunID: run, Expiry: exp})
	})
	for h.closed.len() > ClosedRunsMaxSize {
		run, exp := h.closed.evictOldest()
		h.observe(Decision{Kind: Evicted, RunID: run, Expiry: exp})
	}
}

// scheduleSummaryRefresh is the trailing debounce: the pending timer is
// cancelled and a new one armed, so the last intent of a burst decides
// whether the heartbeat refresh happens.
func (h *Handler) scheduleSummaryRefresh(delayMs int64, heartbeat bool) {
	replaced := h.summaryCancel != nil
	if replaced {
		h.summaryCancel()
		h.summaryCancel = nil
	}
	h.summarySeq++
	seq := h.summarySeq
	due := h.deps.Clock.Now() + delayMs
	h.observe(Decision{Kind: SummaryArmed, Due: due, Heartbeat: heartbeat, Replaced: replaced})
	h.summaryCancel = h.deps.Timers.AfterFunc(delayMs, func() {
		if seq != h.summarySeq || h.summaryCancel == nil {
			return // cancelled
		}
		h.summaryCancel = nil
		h.observe(Decision{Kind: SummaryFired, Heartbeat: heartbeat})
		if h.deps.LoadSummarySnapshot != nil {
			h.deps.LoadSummarySnapshot()
		}
		if heartbeat && h.deps.RefreshHeartbeatLatest != nil {
			h.deps.RefreshHeartbeatLatest()
		}
	})
}

// Dispose clears the debounce timer and the closed-run map, as the host
// does when the gateway connection closes; after a reconnect the same
// runId can commit again.
func (h *Handler) Dispose() {
	replaced := h.summaryCancel != nil
	if replaced {
		h.summaryCancel()
		h.summaryCancel = nil
	}
	h.summarySeq++
	n := h.closed.len()
	h.closed.reset()
	h.observe(Decision{Kind: Disposed, Count: n, Replaced: replaced})
}

// IsClosed reports whether run is in the closed-run map (not pruned yet).
func (h *Handler) IsClosed(run string) bool {
	_, _, ok := h.closed.get(run)
	return ok
}

// ClosedRuns returns the closed-run map in insertion order.
func (h *Handler) ClosedRuns() []ui.ClosedRun { return h.closed.list(nil) }

// AppendClosedRuns appends the closed-run map in insertion order to dst.
func (h *Handler) AppendClosedRuns(dst []ui.ClosedRun) []ui.ClosedRun { return h.closed.list(dst) }

// SummaryRefreshPending reports whether the debounce timer is armed.
func (h *Handler) SummaryRefreshPending() bool { return h.summaryCancel != nil }
