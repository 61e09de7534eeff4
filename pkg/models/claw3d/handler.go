package claw3d

import (
	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/jsonx"
)

// Claw3D's constants (§4).
const (
	// ClosedRunTTLMs is how long a closed run stays closed. It expires
	// when expiresAt <= now, so at exactly +30 000 ms it is open again
	// (clawboo keeps it closed at that instant).
	ClosedRunTTLMs = 30_000
	// LifecycleFallbackDelayMs delays the lifecycle-end fallback commit.
	LifecycleFallbackDelayMs = 0
	// MarkActivityThrottleMs throttles markActivity per agent.
	MarkActivityThrottleMs = 300
	// SummaryRefreshDelayMs is the trailing debounce of loadSummarySnapshot.
	SummaryRefreshDelayMs = 750
	// ToolResultHistoryRefreshDelayMs delays the history refresh the first
	// tool result of a run asks for (with thinking traces shown).
	ToolResultHistoryRefreshDelayMs = 750
	// RunStartHistoryRefreshDelayMs delays the history refresh of a run
	// that started before any chat frame.
	RunStartHistoryRefreshDelayMs = 250
	// ChatFinalHistoryRefreshDelayMs defers the chat-final history refresh
	// (setTimeout(…, 0)).
	ChatFinalHistoryRefreshDelayMs = 0
)

// History-refresh reasons.
const (
	RefreshChatFinalNoTrace = "chat-final-no-trace"
	RefreshRunStartNoChat   = "run-start-no-chat"
)

// Commit sources of a run's terminal state.
const (
	CommitChatFinal         = "chat-final"
	CommitLifecycleFallback = "lifecycle-fallback"
)

// StatusConnected is the connection status under which summary refreshes
// run.
const StatusConnected = "connected"

// Store actions (Deps.Dispatch).
const (
	ActionUpdateAgent  = "updateAgent"
	ActionAppendOutput = "appendOutput"
	ActionMarkActivity = "markActivity"
)

// Action is what Claw3D dispatches to its agent store.
type Action struct {
	Type       string
	AgentID    string
	Patch      Patch     // updateAgent
	Line       string    // appendOutput
	Transcript EntryMeta // appendOutput
	At         int64     // markActivity
}

// HistoryRefresh is a requestHistoryRefresh call.
type HistoryRefresh struct {
	AgentID    string
	Reason     string
	SessionKey string // "" when not known
}

// AbortedLine is the question put to Deps.ShouldSuppressRunAbortedLine.
type AbortedLine struct {
	AgentID, RunID, SessionKey, StopReason string
}

// Deps are the effects and reads Claw3D's handler is given. Now and
// SetTimeout are required; any other nil function is a no-op (Agent
// returns an empty agent, Status "connected").
type Deps struct {
	// Now is the time, unix ms.
	Now func() int64
	// SetTimeout schedules fn ms milliseconds from now and returns a
	// cancel function; calling cancel after fn ran is harmless.
	SetTimeout func(ms int64, fn func()) (cancel func())
	// Status is the gateway connection status ("connected", …).
	Status func() string
	// Agent reads an agent from the store (getAgents): its fields as the
	// store holds them now, live patches still queued not included.
	Agent func(agentID string) Agent

	// Dispatch applies updateAgent, appendOutput and markActivity. The
	// action is valid during the call only.
	Dispatch func(a *Action)
	// QueueLivePatch hands a patch to the live patch queue (a
	// LivePatchQueue); the patch is valid during the call only.
	QueueLivePatch func(agentID string, patch *Patch)
	// ClearPendingLivePatch discards the agent's pending live patch.
	ClearPendingLivePatch func(agentID string)
	// LoadSummarySnapshot reloads the fleet summary (debounced 750 ms).
	LoadSummarySnapshot func()
	// RequestHistoryRefresh asks for an agent's history.
	RequestHistoryRefresh func(r *HistoryRefresh)
	// RefreshHeartbeatLatestUpdate and BumpHeartbeatTick run once per
	// heartbeat frame.
	RefreshHeartbeatLatestUpdate func()
	BumpHeartbeatTick            func()
	// ShouldSuppressRunAbortedLine can hide the "Run aborted." line (an
	// approval pause aborts with stopReason "rpc").
	ShouldSuppressRunAbortedLine func(q *AbortedLine) bool
	// UpdateSpecialLatestUpdate gets the agent as it was when the final
	// arrived and its last user message.
	UpdateSpecialLatestUpdate func(agentID string, agent *Agent, message string)
	// UpsertApproval and RemoveApproval maintain the pending approvals;
	// reason is the resolved decision or "expired".
	UpsertApproval func(a *Approval)
	RemoveApproval func(id, reason string)
	// LogWarn receives Claw3D's warnings.
	LogWarn func(message string)

	// Observer receives Claw3D's metrics and clawtap's decisions; the
	// decision is valid during the call only.
	Observer func(d *Decision)
	// TimerIntents receives the intents a timer ran (a lifecycle
	// fallback, a history refresh, the summary load, an approval expiry),
	// named by timer; the slice is valid during the call only.
	TimerIntents func(timer string, intents []Intent)
}

// Timer names passed to Deps.TimerIntents.
const (
	TimerLifecycleFallback = "lifecycleFallback"
	TimerHistoryRefresh    = "historyRefresh"
	TimerSummaryRefresh    = "summaryRefresh"
	TimerApprovalExpiry    = "approvalExpiry"
)

// Options are the UI settings that change the pipeline.
type Options struct {
	// HideThinkingTraces turns off Claw3D's showThinkingTraces, which is
	// on by default; it gates the tool-result history refresh.
	HideThinkingTraces bool
	// StrictRoster: agents are hydrated only from responses in the
	// capture (see Roster).
	StrictRoster bool
}

// Handler is Claw3D's runtime event handler
// (createGatewayRuntimeEventHandler) with its coordinator state, plus the
// event ingress for approvals and cron and the roster. It is not safe for
// concurrent use: Claw3D runs on one JavaScript thread, a replay on one
// goroutine.
type Handler struct {
	deps   Deps
	opts   Options
	roster Roster

	// The coordinator's per-run state: the six per-run maps of §4 are one
	// record per run, deleted together by clearRunTracking.
	runs      map[string]*runTrack
	refreshed refreshed // the refresh requests of runs no longer tracked
	terminal  map[string]*runTerminal
	closed    closedRuns
	fallback  map[string]*fallback
	// thinkingWarned: sessions already warned of a final without thinking.
	thinkingWarned map[string]bool
	// lastActivityMark: the last markActivity per agent (throttle).
	lastActivityMark map[string]int64

	summaryCancel func()
	summarySeq    uint64

	approvals     map[string]Approval
	approvalTimer func()
	approvalDue   int64
	cronSeen      map[string]bool

	out        []Intent // intents of the frame or timer being handled
	timerBuf   []Intent
	dec        Decision
	action     Action
	livePatch  Patch
	snapshot   Agent         // the agent handed to UpdateSpecialLatestUpdate
	stripIn    string        // the last StripUIMetadata input and output: a reply's
	stripOut   string        // text is stripped for the agent stream, the summary and the delta
	texts      jsonx.StrMemo // decodes a reply once for the agent and the chat stream
	thinkTexts jsonx.StrMemo // the same for reasoning streams
}

// runTrack is one run's tracking (chatRunSeen, assistantStreamByRun,
// thinkingStreamByRun, thinkingStartedAtByRun, toolLinesSeenByRun,
// historyRefreshRequestedByRun).
type runTrack struct {
	chatSeen          bool
	assistant         string // raw merged assistant text
	thinking          string // raw merged reasoning text
	thinkingStarted   bool
	thinkingStartedAt int64
	toolLines         []string
	historyRequested  uint8 // bit per history-refresh reason
}

const (
	historyChatFinal uint8 = 1 << iota
	historyRunStart
)

// runTerminal is runtimeTerminalState.runStateByRun's record.
type runTerminal struct {
	chatFinalSeen bool
	committed     bool
	lastSeq       float64
	hasLastSeq    bool
	source        string
}

// New returns a handler. Now and SetTimeout are required.
func New(deps Deps, opts Options) *Handler {
	if deps.Now == nil || deps.SetTimeout == nil {
		panic("claw3d: Deps.Now and Deps.SetTimeout are required")
	}
	h := &Handler{deps: deps, opts: opts, cronSeen: map[string]bool{}, approvals: map[string]Approval{}}
	h.roster.Strict = opts.StrictRoster
	h.reset()
	return h
}

func (h *Handler) reset() {
	h.runs = map[string]*runTrack{}
	h.refreshed.reset()
	h.terminal = map[string]*runTerminal{}
	h.closed.reset()
	h.fallback = map[string]*fallback{}
	h.thinkingWarned = map[string]bool{}
	h.lastActivityMark = map[string]int64{}
}

// Roster is the handler's roster; a host may add agents to it.
func (h *Handler) Roster() *Roster { return &h.roster }

// Handle runs one classified record through Claw3D at Deps.Now() and
// appends the intents it ran to dst. Responses hydrate the roster;
// events go through the ingress (approvals, cron) and the runtime handler
// (summary refresh, chat, agent); anything else is ignored with a reason.
func (h *Handler) Handle(dst []Intent, ev *bridge.Event) []Intent {
	saved := h.out
	h.out = dst
	switch {
	case ev.Kind == bridge.Response:
		h.response(ev)
	case ev.Type != "event":
		h.ignore(ReasonNotEvent, "", "", "")
	default:
		switch ev.Event {
		case "presence", "heartbeat":
			h.summaryRefresh(ev.Event == "heartbeat")
		case "chat":
			h.chat(ev)
		case "agent":
			h.agentEvent(ev)
		case "exec.approval.requested":
			h.approvalRequested(ev.Payload)
		case "exec.approval.resolved":
			h.approvalResolved(ev.Payload)
		case "cron":
			h.cron(ev.Payload)
		default:
			h.ignore(ReasonNotRuntimeEvent, "", "", "")
		}
	}
	res := h.out
	h.out = saved
	return res
}

// timer runs fn as the callback of a timer, collecting its intents for
// Deps.TimerIntents.
func (h *Handler) timer(name string, fn func()) {
	saved := h.out
	h.out = h.timerBuf[:0]
	fn()
	if h.deps.TimerIntents != nil && len(h.out) > 0 {
		h.deps.TimerIntents(name, h.out)
	}
	clear(h.out)
	h.timerBuf = h.out[:0]
	h.out = saved
}

func (h *Handler) now() int64 { return h.deps.Now() }

// stripUI is StripUIMetadata remembering its last answer: the streams
// hand it the same (shared) text several times per step.
func (h *Handler) stripUI(s string) string {
	if s != h.stripIn || s == "" {
		h.stripIn, h.stripOut = s, StripUIMetadata(s)
	}
	return h.stripOut
}

func (h *Handler) emit(in Intent) { h.out = append(h.out, in) }

func (h *Handler) ignore(reason, agentID, runID, stream string) {
	h.emit(Intent{Kind: IntentIgnore, Reason: reason, AgentID: agentID, RunID: runID, Stream: stream})
}

func (h *Handler) observe(d Decision) {
	if h.deps.Observer != nil {
		h.dec = d
		h.deps.Observer(&h.dec)
	}
}

func (h *Handler) agent(agentID string) Agent {
	var a Agent
	if h.deps.Agent != nil {
		a = h.deps.Agent(agentID)
	}
	a.AgentID = agentID
	if ra, ok := h.roster.Get(agentID); ok {
		a.SessionKey = ra.SessionKey
	}
	return a
}

func (h *Handler) status() string {
	if h.deps.Status == nil {
		return StatusConnected
	}
	return h.deps.Status()
}

// Store effects, each listed as an intent first.

func (h *Handler) dispatch(a *Action) {
	if h.deps.Dispatch != nil {
		h.action = *a
		h.deps.Dispatch(&h.action)
	}
}

func (h *Handler) updateAgent(agentID string, p *Patch) {
	h.emit(Intent{Kind: IntentUpdateAgent, AgentID: agentID, Patch: *p})
	h.dispatch(&Action{Type: ActionUpdateAgent, AgentID: agentID, Patch: *p})
}

func (h *Handler) appendOutput(agentID, line string, meta *EntryMeta) {
	if meta.Kind == "" {
		meta.Kind = InferKind(line)
	}
	if meta.Role == "" {
		meta.Role = inferRole(meta.Kind, line)
	}
	if !meta.Confirmed.Set {
		meta.Confirmed = SetBool(meta.Source == SourceHistory)
	}
	h.emit(Intent{Kind: IntentAppendOutput, AgentID: agentID, Line: line, Entry: *meta})
	h.dispatch(&Action{Type: ActionAppendOutput, AgentID: agentID, Line: line, Transcript: *meta})
}

func (h *Handler) queueLivePatch(agentID, sessionKey string, p *Patch) {
	h.emit(Intent{Kind: IntentQueueLivePatch, AgentID: agentID, SessionKey: sessionKey, Patch: *p})
	if h.deps.QueueLivePatch != nil {
		h.livePatch = *p // handed over from the handler, so p stays on the caller's stack
		h.deps.QueueLivePatch(agentID, &h.livePatch)
	}
}

func (h *Handler) clearPendingLivePatch(agentID string) {
	h.emit(Intent{Kind: IntentClearPendingLivePatch, AgentID: agentID})
	if h.deps.ClearPendingLivePatch != nil {
		h.deps.ClearPendingLivePatch(agentID)
	}
}

// markActivity dispatches markActivity unless the agent was marked less
// than MarkActivityThrottleMs ago.
func (h *Handler) markActivity(agentID string, now int64) {
	if last, ok := h.lastActivityMark[agentID]; ok && now-last < MarkActivityThrottleMs {
		return
	}
	h.lastActivityMark[agentID] = now
	h.markActivityNow(agentID, now)
}

func (h *Handler) markActivityNow(agentID string, now int64) {
	h.emit(Intent{Kind: IntentMarkActivity, AgentID: agentID, At: now})
	h.dispatch(&Action{Type: ActionMarkActivity, AgentID: agentID, At: now})
}

func (h *Handler) logWarn(msg string) {
	h.emit(Intent{Kind: IntentLogWarn, Text: msg})
	if h.deps.LogWarn != nil {
		h.deps.LogWarn(msg)
	}
}

// Per-run tracking.

// track returns the run's tracking record, creating it.
func (h *Handler) track(runID string) *runTrack {
	t := h.runs[runID]
	if t == nil {
		t = &runTrack{historyRequested: h.refreshed.take(runID)}
		h.runs[runID] = t
	}
	return t
}

// clearRunTracking forgets the run's six per-run maps and cancels its
// fallback timer; the closed-run fence is left alone.
func (h *Handler) clearRunTracking(runID string) {
	h.emit(Intent{Kind: IntentClearRunTracking, RunID: runID})
	delete(h.runs, runID)
	h.refreshed.take(runID)
	if fb := h.fallback[runID]; fb != nil {
		fb.cancel()
		delete(h.fallback, runID)
	}
}

// markThinkingStarted records when the run's thinking started, once.
func (h *Handler) markThinkingStarted(runID string, now int64) {
	if runID == "" {
		return
	}
	t := h.track(runID)
	if t.thinkingStarted {
		return
	}
	t.thinkingStarted, t.thinkingStartedAt = true, now
	h.emit(Intent{Kind: IntentMarkThinkingStarted, RunID: runID, At: now})
}

// requestHistoryRefresh schedules a history refresh for the agent after
// delayMs, at most once per run and reason while the run is tracked (a
// run without an id is not limited).
func (h *Handler) requestHistoryRefresh(agentID, runID, sessionKey, reason string, delayMs int64) {
	if runID != "" {
		bit := historyChatFinal
		if reason == RefreshRunStartNoChat {
			bit = historyRunStart
		}
		if t := h.runs[runID]; t != nil {
			if t.historyRequested&bit != 0 {
				return
			}
			t.historyRequested |= bit
		} else { // its tracking was cleared (a final): kept apart, bounded
			if h.refreshed.has(runID, bit) {
				return
			}
			h.refreshed.add(runID, bit)
		}
	}
	h.emit(Intent{Kind: IntentRequestHistoryRefresh, AgentID: agentID, RunID: runID, SessionKey: sessionKey, Reason: reason, DelayMs: delayMs})
	req := HistoryRefresh{AgentID: agentID, Reason: reason, SessionKey: sessionKey}
	h.deps.SetTimeout(delayMs, func() {
		h.timer(TimerHistoryRefresh, func() {
			h.observe(Decision{Kind: DecisionHistoryRefreshFired, AgentID: agentID, RunID: runID, Reason: reason})
			if h.deps.RequestHistoryRefresh != nil {
				h.deps.RequestHistoryRefresh(&req)
			}
		})
	})
}

// Dispose is the handler's dispose(): the summary timer and every
// fallback timer are cancelled and the coordinator state is reset (runs,
// terminal states, the closed-run fence, the per-session and per-agent
// memories). The roster, the pending approvals and the cron dedupe keys
// belong to the page, not the handler, and survive.
func (h *Handler) Dispose() {
	replaced := h.summaryCancel != nil
	if replaced {
		h.summaryCancel()
		h.summaryCancel = nil
	}
	h.summarySeq++
	n := 0
	for _, fb := range h.fallback {
		fb.cancel() // order does not matter: nothing observable happens
		n++
	}
	h.reset()
	h.observe(Decision{Kind: DecisionDisposed, Count: n, Replaced: replaced})
}

// IsClosed reports whether the run is behind the closed-run fence (as of
// the last prune).
func (h *Handler) IsClosed(runID string) bool { return h.closed.has(runID) }

// ClosedRuns returns the closed-run fence in insertion order.
func (h *Handler) ClosedRuns() []ClosedRun { return h.closed.list() }

// FallbackPending reports whether a lifecycle fallback is scheduled for
// the run.
func (h *Handler) FallbackPending(runID string) bool { return h.fallback[runID] != nil }

// SummaryRefreshPending reports whether the summary load is armed.
func (h *Handler) SummaryRefreshPending() bool { return h.summaryCancel != nil }

// TrackedRuns is the number of runs with tracking state (for tests and
// memory checks).
func (h *Handler) TrackedRuns() int { return len(h.runs) }

// RefreshedRuns is the number of runs no longer tracked whose history
// refresh requests are remembered (for tests and memory checks).
func (h *Handler) RefreshedRuns() int { return h.refreshed.len() }
