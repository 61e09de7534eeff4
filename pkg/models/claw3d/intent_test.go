package claw3d

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/clawtap/clawtap/pkg/ui"
)

// TestIntentJSON pins the JSON of every intent kind: stable camelCase
// keys, times relative to the base given.
func TestIntentJSON(t *testing.T) {
	const base = 1000
	for _, tc := range []struct {
		in   Intent
		want string
	}{
		{Intent{Kind: IntentIgnore, Reason: ReasonOtherRun, AgentID: "main", RunID: "r1", Stream: "assistant"},
			`{"kind":"ignore","reason":"other-run","agentId":"main","runId":"r1","stream":"assistant"}`},
		{Intent{Kind: IntentIgnore, Reason: ReasonNotEvent}, `{"kind":"ignore","reason":"not-an-event"}`},
		{Intent{Kind: IntentHydrateAgent, AgentID: "a", SessionKey: "agent:a:main", Source: FromSessionKey},
			`{"kind":"hydrateAgent","agentId":"a","sessionKey":"agent:a:main","source":"session-key"}`},
		{Intent{Kind: IntentRemoveAgent, AgentID: "a"}, `{"kind":"removeAgent","agentId":"a"}`},
		{Intent{Kind: IntentQueueLivePatch, AgentID: "a", SessionKey: "k", Patch: Patch{StreamText: ui.SetStr("x"), LastActivityAt: ui.SetInt(1500)}},
			`{"kind":"queueLivePatch","agentId":"a","sessionKey":"k","patch":{"streamText":"x","lastActivityAt":500}}`},
		{Intent{Kind: IntentClearPendingLivePatch, AgentID: "a"}, `{"kind":"clearPendingLivePatch","agentId":"a"}`},
		{Intent{Kind: IntentUpdateAgent, AgentID: "a", Patch: Patch{RunID: ui.NullStr()}},
			`{"kind":"dispatchUpdateAgent","agentId":"a","patch":{"runId":null}}`},
		{Intent{Kind: IntentAppendOutput, AgentID: "a", Line: "hi", Entry: EntryMeta{EntryID: "run:r:assistant:final", Source: SourceRuntimeChat,
			Kind: KindAssistant, Role: "assistant", Confirmed: SetBool(true), RunID: "r", SessionKey: "k", TimestampMs: ui.SetInt(1200)}},
			`{"kind":"appendOutput","agentId":"a","line":"hi","transcript":{"entryId":"run:r:assistant:final","source":"runtime-chat","kind":"assistant","role":"assistant","confirmed":true,"runId":"r","sessionKey":"k","timestampMs":200}}`},
		{Intent{Kind: IntentAppendOutput, AgentID: "a", Line: "x", Entry: EntryMeta{Source: SourceRuntimeAgent, Kind: KindTool, Role: "tool"}},
			`{"kind":"appendOutput","agentId":"a","line":"x","transcript":{"source":"runtime-agent","kind":"tool","role":"tool","confirmed":false,"timestampMs":null}}`},
		{Intent{Kind: IntentMarkActivity, AgentID: "a", At: 1300}, `{"kind":"markActivity","agentId":"a","at":300}`},
		{Intent{Kind: IntentMarkThinkingStarted, RunID: "r", At: 1300}, `{"kind":"markThinkingStarted","runId":"r","at":300}`},
		{Intent{Kind: IntentClearRunTracking, RunID: "r"}, `{"kind":"clearRunTracking","runId":"r"}`},
		{Intent{Kind: IntentMarkRunClosed, RunID: "r", At: 31_000}, `{"kind":"markRunClosed","runId":"r","expiresAt":30000}`},
		{Intent{Kind: IntentApplyTerminalCommit, RunID: "r", Source: CommitChatFinal, Seq: 5, HasSeq: true},
			`{"kind":"applyTerminalCommit","runId":"r","commitSource":"chat-final","seq":5}`},
		{Intent{Kind: IntentApplyTerminalCommit, RunID: "r", Source: CommitLifecycleFallback},
			`{"kind":"applyTerminalCommit","runId":"r","commitSource":"lifecycle-fallback","seq":null}`},
		{Intent{Kind: IntentScheduleLifecycleFallback, AgentID: "a", RunID: "r", Text: "t"},
			`{"kind":"scheduleLifecycleFallback","agentId":"a","runId":"r","delayMs":0,"finalText":"t"}`},
		{Intent{Kind: IntentCancelLifecycleFallback, RunID: "r"}, `{"kind":"cancelLifecycleFallback","runId":"r"}`},
		{Intent{Kind: IntentRequestHistoryRefresh, AgentID: "a", Reason: RefreshRunStartNoChat, SessionKey: "k", RunID: "r", DelayMs: 250},
			`{"kind":"requestHistoryRefresh","agentId":"a","reason":"run-start-no-chat","sessionKey":"k","runId":"r","delayMs":250}`},
		{Intent{Kind: IntentQueueLatestUpdate, AgentID: "a", Text: "q"}, `{"kind":"queueLatestUpdate","agentId":"a","message":"q"}`},
		{Intent{Kind: IntentScheduleSummaryRefresh, DelayMs: 750}, `{"kind":"scheduleSummaryRefresh","delayMs":750}`},
		{Intent{Kind: IntentBumpHeartbeatTick}, `{"kind":"bumpHeartbeatTick"}`},
		{Intent{Kind: IntentRefreshHeartbeatLatestUpdate}, `{"kind":"refreshHeartbeatLatestUpdate"}`},
		{Intent{Kind: IntentUpsertApproval, Approval: Approval{ID: "a1", Command: "ls", CreatedAtMs: 1100, ExpiresAtMs: 2000}},
			`{"kind":"upsertApproval","approval":{"id":"a1","agentId":null,"command":"ls","createdAtMs":100,"expiresAtMs":1000}}`},
		{Intent{Kind: IntentUpsertApproval, AgentID: "m", Approval: Approval{ID: "a1", AgentID: "m", SessionKey: "k", Command: "ls"}},
			`{"kind":"upsertApproval","approval":{"id":"a1","agentId":"m","sessionKey":"k","command":"ls","createdAtMs":-1000,"expiresAtMs":-1000}}`},
		{Intent{Kind: IntentRemoveApproval, AgentID: "m", Reason: "deny", Approval: Approval{ID: "a1"}},
			`{"kind":"removeApproval","id":"a1","agentId":"m","reason":"deny"}`},
		{Intent{Kind: IntentLogWarn, Text: NoThinkingTraceWarning}, `{"kind":"logWarn","message":"No thinking trace extracted from chat event."}`},
	} {
		got := string(tc.in.AppendJSONAt(nil, base))
		if got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.in.Kind, got, tc.want)
		}
		if !json.Valid([]byte(got)) {
			t.Errorf("%s: invalid JSON", tc.in.Kind)
		}
	}
	if b, err := json.Marshal(Intent{Kind: IntentBumpHeartbeatTick}); err != nil || string(b) != `{"kind":"bumpHeartbeatTick"}` {
		t.Fatalf("MarshalJSON %s %v", b, err)
	}
}

func TestDecisionJSON(t *testing.T) {
	for _, tc := range []struct {
		d      Decision
		want   string
		metric bool
	}{
		{Decision{Kind: MetricLateEventIgnoredClosedRun, Stream: "chat", RunID: "r"}, `{"kind":"late_event_ignored_closed_run","stream":"chat","runId":"r"}`, true},
		{Decision{Kind: MetricStaleTerminalChatEventIgnored, RunID: "r", CommitSource: CommitChatFinal},
			`{"kind":"stale_terminal_chat_event_ignored","runId":"r","seq":null,"lastTerminalSeq":null,"commitSource":"chat-final"}`, true},
		{Decision{Kind: MetricLifecycleFallbackReplacedByChatFinal, RunID: "r"}, `{"kind":"lifecycle_fallback_replaced_by_chat_final","runId":"r"}`, true},
		{Decision{Kind: DecisionClosedRunExpired, RunID: "r", ExpiresAt: 1500}, `{"kind":"closed-run-expired","runId":"r","expiresAt":500}`, false},
		{Decision{Kind: DecisionFallbackFired, AgentID: "a", RunID: "r"}, `{"kind":"lifecycle-fallback-fired","agentId":"a","runId":"r"}`, false},
		{Decision{Kind: DecisionHistoryRefreshFired, AgentID: "a", Reason: RefreshChatFinalNoTrace}, `{"kind":"history-refresh-fired","agentId":"a","reason":"chat-final-no-trace"}`, false},
		{Decision{Kind: DecisionSummaryRefreshArmed, Due: 1750, Replaced: true}, `{"kind":"summary-refresh-armed","dueAt":750,"replaced":true}`, false},
		{Decision{Kind: DecisionSummaryRefreshFired}, `{"kind":"summary-refresh-fired"}`, false},
		{Decision{Kind: DecisionApprovalExpired, ID: "a1", ExpiresAt: 1000}, `{"kind":"approval-expired","id":"a1","expiresAt":0}`, false},
		{Decision{Kind: DecisionRosterHydrated, Source: FromAgentsList, Count: 2}, `{"kind":"roster-hydrated","source":"agents.list","count":2}`, false},
		{Decision{Kind: DecisionDisposed, Count: 1}, `{"kind":"disposed","fallbacksCancelled":1,"summaryCancelled":false}`, false},
	} {
		if got := string(tc.d.AppendJSONAt(nil, 1000)); got != tc.want || tc.d.IsMetric() != tc.metric {
			t.Errorf("%s:\n got %s (metric %v)\nwant %s", tc.d.Kind, got, tc.d.IsMetric(), tc.want)
		}
	}
}

func TestJSNumber(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{0, "0"}, {math.Copysign(0, -1), "0"}, {5, "5"}, {-3, "-3"}, {1.5, "1.5"}, {0.000001, "0.000001"},
		{1e-7, "1e-7"}, {1e21, "1e+21"}, {123456789012345680000, "123456789012345680000"}, {1.7e308, "1.7e+308"},
		{math.Inf(1), "Infinity"}, {math.Inf(-1), "-Infinity"}, {math.NaN(), "NaN"}, {9007199254740993, "9007199254740992"},
	} {
		if got := jsNumber(tc.f); got != tc.want {
			t.Errorf("jsNumber(%v) = %s, want %s", tc.f, got, tc.want)
		}
	}
}

func TestJSString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`"a"`, "a"}, {`12.50`, "12.5"}, {`true`, "true"}, {`{"a":1}`, "[object Object]"}, {`[1,null,"x",[2,3]]`, "1,,x,2,3"}, {``, ""},
	} {
		if got := jsString([]byte(tc.in)); got != tc.want {
			t.Errorf("jsString(%s) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
