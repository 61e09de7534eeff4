package claw3d

import (
	"slices"
	"strings"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/ui"
)

// The event ingress (resolveGatewayEventIngressDecision, §4.1): exec
// approvals and cron, beside the runtime handler; and the roster's
// hydration from responses.

var approvalFields = []string{"id", "request", "createdAtMs", "expiresAtMs"}
var requestFields = []string{"command", "agentId", "sessionKey"}

// approvalRequested accepts an approval only with a non-empty id, a
// request object with a non-empty command, and positive createdAtMs and
// expiresAtMs. Its agent is request.agentId (trusted even when it is not
// hydrated), else the agent whose session key is exactly
// request.sessionKey; with an agent the upsert is scoped and the agent is
// marked active, without one it is unscoped.
func (h *Handler) approvalRequested(payload []byte) {
	var f [4][]byte
	var r [3][]byte
	jsonx.Members(payload, approvalFields, f[:])
	id, okID := nonEmptyStr(f[0])
	okReq := isObject(f[1]) && jsonx.Members(f[1], requestFields, r[:])
	command, okCmd := nonEmptyStr(r[0])
	created, okC := num(f[2])
	expires, okE := num(f[3])
	if !okID || !okReq || !okCmd || !okC || !okE || created <= 0 || expires <= 0 {
		h.ignore(ReasonInvalidApproval, "", "", "")
		return
	}
	a := Approval{ID: id, Command: command, CreatedAtMs: clampMs(created), ExpiresAtMs: clampMs(expires)}
	a.SessionKey, _ = str(r[2])
	if agentID, ok := nonEmptyStr(r[1]); ok {
		a.AgentID = agentID
	} else if sk, ok := str(r[2]); ok {
		a.AgentID, _ = h.roster.ExactSessionKey(sk)
	}
	h.emit(Intent{Kind: IntentUpsertApproval, AgentID: a.AgentID, Approval: a})
	h.approvals[a.ID] = a
	if h.deps.UpsertApproval != nil {
		h.deps.UpsertApproval(&a)
	}
	if a.AgentID != "" {
		h.markActivityNow(a.AgentID, h.now())
	}
	h.armApprovalExpiry()
}

var resolvedFields = []string{"id", "decision", "ts"}

// approvalResolved removes an approval by id; it needs a non-empty id, a
// decision of allow-once, allow-always or deny, and a positive ts.
func (h *Handler) approvalResolved(payload []byte) {
	var f [3][]byte
	jsonx.Members(payload, resolvedFields, f[:])
	id, okID := nonEmptyStr(f[0])
	decision, _ := str(f[1])
	ts, okTS := num(f[2])
	if !okID || !okTS || ts <= 0 || (decision != "allow-once" && decision != "allow-always" && decision != "deny") {
		h.ignore(ReasonInvalidApproval, "", "", "")
		return
	}
	h.removeApproval(id, decision)
	h.armApprovalExpiry()
}

func (h *Handler) removeApproval(id, reason string) {
	a := h.approvals[id]
	delete(h.approvals, id)
	h.emit(Intent{Kind: IntentRemoveApproval, AgentID: a.AgentID, Reason: reason, Approval: Approval{ID: id}})
	if h.deps.RemoveApproval != nil {
		h.deps.RemoveApproval(id, reason)
	}
}

// armApprovalExpiry keeps one timer for the earliest pending expiry: an
// approval is removed once expiresAtMs <= now (the gateway sends nothing
// when one times out).
func (h *Handler) armApprovalExpiry() {
	due, any := int64(0), false
	for _, a := range h.approvals {
		if !any || a.ExpiresAtMs < due {
			due, any = a.ExpiresAtMs, true
		}
	}
	if h.approvalTimer != nil {
		if any && due == h.approvalDue {
			return
		}
		h.approvalTimer()
		h.approvalTimer = nil
	}
	if !any {
		return
	}
	h.approvalDue = due
	delay := max(due-h.now(), 0)
	var cancel func()
	cancel = h.deps.SetTimeout(delay, func() {
		if h.approvalTimer == nil || h.approvalDue != due {
			return
		}
		h.approvalTimer = nil
		h.timer(TimerApprovalExpiry, h.expireApprovals)
	})
	h.approvalTimer = cancel
}

// expireApprovals removes every approval due, earliest first (then by id).
func (h *Handler) expireApprovals() {
	now := h.now()
	var due []Approval
	for _, a := range h.approvals {
		if a.ExpiresAtMs <= now {
			due = append(due, a)
		}
	}
	slices.SortFunc(due, func(a, b Approval) int {
		if a.ExpiresAtMs != b.ExpiresAtMs {
			if a.ExpiresAtMs < b.ExpiresAtMs {
				return -1
			}
			return 1
		}
		return strings.Compare(a.ID, b.ID)
	})
	for _, a := range due {
		h.observe(Decision{Kind: DecisionApprovalExpired, ID: a.ID, AgentID: a.AgentID, ExpiresAt: a.ExpiresAtMs})
		h.removeApproval(a.ID, "expired")
	}
	h.armApprovalExpiry()
}

// PendingApprovals returns the pending approvals by id.
func (h *Handler) PendingApprovals() []Approval {
	out := make([]Approval, 0, len(h.approvals))
	for _, a := range h.approvals {
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b Approval) int { return strings.Compare(a.ID, b.ID) })
	return out
}

var cronFields = []string{"action", "sessionKey", "jobId", "sessionId", "runAtMs", "status", "summary", "error"}

// cron appends "Cron finished (<status>): <jobId>" and the run's summary
// to the agent's main session, once per dedupe key
// cron:<jobId>:<sessionId || runAtMs || "none">, for a finished job of an
// agent:<id>:… session.
func (h *Handler) cron(payload []byte) {
	var f [8][]byte
	jsonx.Members(payload, cronFields, f[:])
	if action, _ := str(f[0]); action != "finished" {
		h.ignore(ReasonCronNotFinished, "", "", "")
		return
	}
	sessionKey, _ := str(f[1])
	agentID := bridge.SessionAgentID(sessionKey)
	jobID, okJob := nonEmptyStr(f[2])
	if agentID == "" || !okJob {
		h.ignore(ReasonCronInvalid, "", "", "")
		return
	}
	key := "cron:" + jobID + ":" + orTruthy(f[3], f[4], "none")
	if h.cronSeen[key] {
		h.ignore(ReasonCronDuplicate, agentID, "", "")
		return
	}
	h.cronSeen[key] = true
	h.learn(sessionKey)
	ra, ok := h.roster.Get(agentID)
	if !ok {
		h.ignore(ReasonAgentNotHydrated, agentID, "", "")
		return
	}
	line := "Cron finished (" + orTruthy(f[5], nil, "unknown") + "): " + jobID + "\n\n" + orTruthy(f[6], f[7], "(no output)")
	ts := h.now()
	if n, ok := num(f[4]); ok {
		ts = int64(n)
	}
	meta := EntryMeta{Source: SourceRuntimeAgent, Kind: KindAssistant, Role: "assistant", SessionKey: ra.SessionKey,
		TimestampMs: ui.SetInt(ts)}
	h.appendOutput(agentID, line, &meta)
}

// orTruthy is String(a || b || def) over raw members.
func orTruthy(a, b []byte, def string) string {
	for _, v := range [2][]byte{a, b} {
		if jsonx.Truthy(v) {
			return jsString(v)
		}
	}
	return def
}

// jsString is String(v) for a raw JSON value.
func jsString(v []byte) string {
	switch jsonx.KindOf(v) {
	case jsonx.String:
		s, _ := jsonx.Str(v)
		return s
	case jsonx.Number:
		f, _ := jsonx.Num(v)
		return jsNumber(f)
	case jsonx.Bool, jsonx.Null:
		return string(v)
	case jsonx.Object:
		return "[object Object]"
	case jsonx.Array:
		var parts []string
		_ = jsonx.ArrayEach(v, func(e []byte) bool {
			if jsonx.KindOf(e) == jsonx.Null {
				parts = append(parts, "")
			} else {
				parts = append(parts, jsString(e))
			}
			return true
		})
		return strings.Join(parts, ",")
	}
	return ""
}

// summaryRefresh is decideSummaryRefreshEvent and its effect: only while
// connected; a heartbeat bumps the tick and refreshes the heartbeat's
// latest update at once; both re-arm the 750 ms load.
func (h *Handler) summaryRefresh(heartbeat bool) {
	if h.status() != StatusConnected {
		h.ignore(ReasonNotConnected, "", "", "")
		return
	}
	if heartbeat {
		h.emit(Intent{Kind: IntentBumpHeartbeatTick})
		if h.deps.BumpHeartbeatTick != nil {
			h.deps.BumpHeartbeatTick()
		}
		h.emit(Intent{Kind: IntentRefreshHeartbeatLatestUpdate})
		if h.deps.RefreshHeartbeatLatestUpdate != nil {
			h.deps.RefreshHeartbeatLatestUpdate()
		}
	}
	replaced := h.summaryCancel != nil
	if replaced {
		h.summaryCancel()
		h.summaryCancel = nil
	}
	h.summarySeq++
	seq := h.summarySeq
	h.emit(Intent{Kind: IntentScheduleSummaryRefresh, DelayMs: SummaryRefreshDelayMs})
	h.observe(Decision{Kind: DecisionSummaryRefreshArmed, Due: h.now() + SummaryRefreshDelayMs, Replaced: replaced})
	h.summaryCancel = h.deps.SetTimeout(SummaryRefreshDelayMs, func() {
		if seq != h.summarySeq || h.summaryCancel == nil {
			return // cancelled
		}
		h.summaryCancel = nil
		h.timer(TimerSummaryRefresh, func() {
			h.observe(Decision{Kind: DecisionSummaryRefreshFired})
			if h.deps.LoadSummarySnapshot != nil {
				h.deps.LoadSummarySnapshot()
			}
		})
	})
}

// response hydrates the roster from a successful hello-ok, agents.list or
// sessions.list answer.
func (h *Handler) response(ev *bridge.Event) {
	if ev.OK == nil || !*ev.OK || !isObject(ev.Payload) {
		h.ignore(ReasonResponse, "", "", "")
		return
	}
	var added, removed []RosterAgent
	source := ""
	switch {
	case ev.Method == "agents.list":
		var ok bool
		if added, removed, ok = h.roster.HydrateAgentsList(ev.Payload); !ok {
			h.ignore(ReasonResponse, "", "", "")
			return
		}
		source = FromAgentsList
	case ev.Method == "sessions.list":
		added, source = h.roster.HydrateSessionsList(ev.Payload), FromSessionList
	default:
		if t, _ := jsonx.GetStr(ev.Payload, "type"); t != "hello-ok" {
			h.ignore(ReasonResponse, "", "", "")
			return
		}
		added, source = h.roster.HydrateHello(ev.Payload), FromHello
	}
	for _, a := range removed {
		h.emit(Intent{Kind: IntentRemoveAgent, AgentID: a.AgentID})
	}
	for _, a := range added {
		h.emit(Intent{Kind: IntentHydrateAgent, AgentID: a.AgentID, SessionKey: a.SessionKey, Source: a.Source})
	}
	h.observe(Decision{Kind: DecisionRosterHydrated, Source: source, Count: len(added)})
}
