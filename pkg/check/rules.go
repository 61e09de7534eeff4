// Package check finds protocol-level problems in a capture in one streaming
// pass: frame seq gaps, runs that never end or end twice, stale terminals,
// sends the gateway queued into a busy turn, streamed text that is not
// cumulative, thinking-tag leaks, unresolved
// approvals, tool-event amplification, unanswered or failed requests,
// oversized and invalid frames. Every rule comes from a bug users of
// gateway UIs reported; docs/check-rules.md documents each one.
//
// Memory is bounded by live state: per-connection and per-run tables with
// caps, nothing kept per frame.
package check

import (
	"slices"

	"github.com/clawtap/clawtap/pkg/finding"
)

// Severity of a finding.
type Severity = finding.Severity

// Severities, in increasing order.
const (
	Info  = finding.Info
	Warn  = finding.Warn
	Error = finding.Error
)

// ParseSeverity reads info, warn (or warning) and error.
func ParseSeverity(s string) (Severity, error) { return finding.ParseSeverity(s) }

// Rule ids. They are stable: tools may match on them.
const (
	RuleSeqGap          = "seq-gap"
	RuleSeqDuplicate    = "seq-duplicate"
	RuleSeqBackwards    = "seq-backwards"
	RuleSeqNotRestarted = "seq-not-restarted"
	RuleGatewaySeqGap   = "gateway-seq-gap"
	RuleRunSeqJump      = "run-seq-jump"

	RuleRunUnterminated   = "run-unterminated"
	RuleRunInFlight       = "run-in-flight"
	RuleRunNoChatTerminal = "run-no-chat-terminal"
	RuleRunFailed         = "run-failed"
	RuleRunAborted        = "run-aborted"
	RuleDuplicateTerminal = "duplicate-terminal"
	RuleDoubleError       = "double-chat-error"
	RuleLateEvent         = "late-event"
	RuleStaleTerminal     = "stale-terminal"
	RuleDroppedFinal      = "dropped-final"
	RuleEmptyFinal        = "empty-final"

	RuleLostReply   = "lost-reply"
	RuleGhostStream = "ghost-stream"
	RuleBilling     = "billing"

	RuleTextNotCumulative = "text-not-cumulative"
	RuleReplaceDelta      = "replace-delta"
	RuleFinalTextMismatch = "final-text-mismatch"
	RuleThinkingLeak      = "thinking-leak"

	RuleApprovalExpired = "approval-expired"
	RuleApprovalPending = "approval-pending"
	RuleToolAmplified   = "tool-amplified"

	RuleRequestUnanswered = "request-unanswered"
	RuleRequestFailed     = "request-failed"
	RuleSlowResponse      = "slow-response"

	RuleFrameTooLarge    = "frame-too-large"
	RuleInvalidFrame     = "invalid-frame"
	RuleMalformedPayload = "malformed-payload"
	RuleUnknownEvent     = "unknown-event"
	RuleCaptureTruncated = "capture-truncated"
)

// Rule describes one rule.
type Rule struct {
	ID       string
	Severity Severity // default severity; a few rules lower it where the evidence says the cause is benign
	Default  bool     // on unless selected with --rule
	Group    string   // seq, runs, ui, text, approvals, requests, frames
	Summary  string   // what it detects, one line
}

var rules = []Rule{
	{RuleSeqGap, Error, true, "seq", "the frame seq of a connection jumped forward: frames were lost (warn on pre-2026.4.22 gateways, whose shared counter leaves benign holes)"},
	{RuleSeqDuplicate, Warn, true, "seq", "the same frame seq arrived twice on a connection"},
	{RuleSeqBackwards, Warn, true, "seq", "a lower frame seq than the last on a connection"},
	{RuleSeqNotRestarted, Warn, true, "seq", "a connection whose start is in the capture did not start at seq 1 on a per-connection-seq gateway (info when the gateway shares one counter or the capture began mid-connection)"},
	{RuleGatewaySeqGap, Warn, true, "seq", "the gateway itself reported a per-run seq gap (agent stream:error, reason \"seq gap\")"},
	{RuleRunSeqJump, Info, false, "seq", "the per-run payload seq skipped numbers (normal: pacing, merging and targeted tool events)"},

	{RuleRunUnterminated, Warn, true, "runs", "a run started (lifecycle start or deltas) and never got a terminal: it went silent, or its connection closed"},
	{RuleRunInFlight, Info, true, "runs", "a run was still live when the capture ended (recent activity or waiting for an approval)"},
	{RuleRunNoChatTerminal, Info, true, "runs", "a run's lifecycle ended but no chat final/aborted/error followed (agent-only and channel runs)"},
	{RuleRunFailed, Warn, true, "runs", "a run ended in error (lifecycle error or chat error), with the gateway's message"},
	{RuleRunAborted, Info, true, "runs", "a run was aborted (chat aborted), with its stop reason"},
	{RuleDuplicateTerminal, Error, true, "runs", "a second chat terminal (final/aborted/error) or lifecycle terminal for the same run on one connection"},
	{RuleDoubleError, Info, true, "runs", "the second chat error a 2026.9.6 gateway sends for every failed run (payload seq 1, no agentId, \"Agent failed before reply\")"},
	{RuleEmptyFinal, Info, true, "runs", "a run's only frame is a chat final with no message: the gateway queued the chat.send into a busy session's turn, and the reply comes under another run"},
	{RuleLateEvent, Warn, true, "runs", "an event for a run after its terminal: a late delta, a late lifecycle end"},
	{RuleStaleTerminal, Warn, true, "runs", "a terminal for one run arrived while another run of the same session was live"},
	{RuleDroppedFinal, Error, true, "runs", "replay shows the UI recording the live run closed on an older run's terminal, then dropping the live run's own final"},
	{RuleLifecycleRestart, Warn, true, "runs", "a second lifecycle start on a run with no terminal between (2026.9.7: an unfinished-plan check continues the run); says which UIs reset the live text (info on a UI that does not, and for a retry attempt)"},
	{RuleErrorAfterAborted, Warn, true, "runs", "a chat error after the run's chat aborted (2026.9.7: the stopped reply could not be saved); says which UIs show it over the aborted turn and which drop it"},
	{RuleStatusMidTurn, Warn, true, "runs", "a chat status after the run showed text (2026.9.4: status comes mid-turn, with retry); says which UIs restart the bubble (info on a UI that does not)"},
	{RuleAnnounceDoubleAnswer, Warn, true, "runs", "a chat.send got an empty final while an announce run held its session, and the reply came under another run (seen on 2026.9.4): resending makes the model answer twice (error when the capture shows it resent)"},

	{RuleLostReply, Warn, true, "ui", "replay shows a run's reply never reaching the UI's transcript: its chat final was dropped (clawboo: the run's own lifecycle end closed it first) and nothing else committed it"},
	{RuleGhostStream, Warn, true, "ui", "replay shows an agent left idle or in error after its run but still holding a runId or streamed text, or a streaming bubble left on screen"},
	{RuleBilling, Warn, true, "ui", "replay shows a turn billed twice, or a committed reply never billed (UIs that bill per commit: clawboo)"},
	{RuleLiveTextFrozen, Warn, true, "ui", "a run's live text came as chat deltas without message (2026.9.7 append-only live text); says which UIs froze it on the first snapshot (info on a UI that followed it)"},

	{RuleTextNotCumulative, Warn, true, "text", "streamed text that is not cumulative: it shrank, changed, or doubled then un-doubled"},
	{RuleReplaceDelta, Info, true, "text", "a delta with replace:true (the text was rewritten, e.g. a retry reset or a stripped NO_REPLY)"},
	{RuleFinalTextMismatch, Warn, true, "text", "a chat final whose text differs from the last streamed chat text (truncation, e.g. a cut MEDIA: path)"},
	{RuleThinkingLeak, Warn, true, "text", "an unclosed or unopened <think>/<thinking>/<analysis> tag in visible text"},
	{RuleBaselineMissing, Error, true, "text", "a chat delta without message and without replace while the connection holds none of the run's text (2026.9.7): the official client drops it and reconnects"},
	{RuleRetractionVisible, Warn, true, "text", "a retraction delta (replace:true, empty deltaText; 2026.9.5) withdrew visible text; says which UIs left it on screen (info on a UI that cleared it)"},

	{RuleApprovalExpired, Warn, true, "approvals", "an exec/plugin approval passed its expiresAtMs without a resolved event"},
	{RuleApprovalPending, Info, true, "approvals", "an approval was still unresolved when the capture ended"},
	{RuleToolAmplified, Warn, true, "approvals", "the same tool call reached one connection both as an agent tool event and as session.tool"},

	{RuleRequestUnanswered, Warn, true, "requests", "a req got no res before its connection closed or the capture ended"},
	{RuleRequestFailed, Warn, true, "requests", "a res with ok:false, with its error code"},
	{RuleSlowResponse, Warn, true, "requests", "a res arrived more than --slow-ms after its req"},
	{RuleIdempotencyConflict, Error, true, "requests", "a chat.send idempotency key reused with other input: refused as chat-request-conflict since 2026.9.2 (warn when an older gateway silently ignored the new text)"},

	{RuleFrameTooLarge, Warn, true, "frames", "a frame over the gateway's size limits (64 KiB before the handshake, policy.maxPayload after)"},
	{RuleInvalidFrame, Warn, true, "frames", "a record that is not a gateway frame: not JSON, not an object, no known type, or an unreadable line"},
	{RuleMalformedPayload, Warn, true, "frames", "a chat or agent event whose payload UIs reject (no runId, no sessionKey, unknown state)"},
	{RuleUnknownEvent, Info, true, "frames", "an event name no gateway release advertises (first occurrence of each name)"},
	{RuleCaptureTruncated, Warn, true, "frames", "the capture ends mid-line or mid-stream (the recorder was killed)"},
	{RuleReleaseMismatch, Warn, true, "frames", "a frame of a wire change newer than the gateway release the connection's hello names (deltas without message from a 2026.9.6 gateway): the release is wrong, or the frame is not the gateway's"},
}

// Rules returns every rule, in documentation order.
func Rules() []Rule { return slices.Clone(rules) }

// LookupRule returns the rule with the given id.
func LookupRule(id string) (Rule, bool) {
	k, ok := ruleIndex[id]
	if !ok {
		return Rule{}, false
	}
	return rules[k], true
}

// ruleIndex finds a rule by id for every finding made.
var ruleIndex = func() map[string]int {
	m := make(map[string]int, len(rules))
	for k, r := range rules {
		if _, ok := m[r.ID]; !ok { // the first, as a search would find
			m[r.ID] = k
		}
	}
	return m
}()

func defaultSeverity(id string) Severity {
	r, _ := LookupRule(id)
	return r.Severity
}
