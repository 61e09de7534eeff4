package claw3d

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// running puts agent main on run r1 (a lifecycle start at T0).
func running(t *testing.T, opts Options) *fakeHost {
	t.Helper()
	hs := newFakeHost(t, opts).withAgents("main")
	hs.feed(0, lifecycle("r1", "start"))
	hs.reset()
	return hs
}

// §4.2 step 1.
func TestChatWithoutSessionKey(t *testing.T) {
	hs := running(t, Options{})
	ins := hs.feed(10, chatEv(obj{"runId": "r1", "state": "delta", "message": assistantMsg("x")}))
	if kinds(ins) != "ignore(no-session-key)" || len(hs.log) != 0 {
		t.Fatalf("intents %s, log %q", kinds(ins), hs.log)
	}
	// An empty one is no session key either.
	ins = hs.feed(20, chatEv(obj{"runId": "r1", "sessionKey": "", "state": "delta", "message": assistantMsg("x")}))
	if kinds(ins) != "ignore(no-session-key)" {
		t.Fatalf("empty sessionKey: %s", kinds(ins))
	}
}

// §4.2 step 3: only a delta is fenced; a final of a closed run goes on.
func TestChatClosedRunFence(t *testing.T) {
	hs := running(t, Options{})
	hs.feed(10, final("r1", "done", 5))
	hs.run(15) // the final's history refresh
	hs.reset()
	ins := hs.feed(20, delta("r1", "done late", 6))
	if kinds(ins) != "ignore(closed-run-delta)" || len(hs.log) != 0 {
		t.Fatalf("late delta: %s %q", kinds(ins), hs.log)
	}
	if m := hs.decided(MetricLateEventIgnoredClosedRun); len(m) != 1 || m[0].Stream != "chat" || m[0].RunID != "r1" {
		t.Fatalf("metric %+v", hs.decisions)
	}
	ins = hs.feed(30, final("r1", "done again", 7))
	if len(find(ins, IntentAppendOutput)) == 0 {
		t.Fatalf("a final is not stopped by the fence: %s", kinds(ins))
	}
}

// §4.2 step 4: markChatRunSeen runs even for frames dropped later (here a
// user-role frame and one for an unknown agent), so a lifecycle start
// that follows asks for no run-start history refresh.
func TestChatRunSeenEvenWhenDropped(t *testing.T) {
	for _, tc := range []struct {
		name  string
		frame string
	}{
		{"user role", chatEv(obj{"runId": "r2", "sessionKey": mainKey, "state": "delta", "message": obj{"role": "user", "content": "hi"}})},
		{"unknown agent", chatEv(obj{"runId": "r2", "sessionKey": "agent:ghost:main", "state": "delta", "message": assistantMsg("x")})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hs := newFakeHost(t, Options{StrictRoster: true}).withAgents("main")
			hs.feed(0, tc.frame)
			ins := hs.feed(10, lifecycle("r2", "start"))
			if len(find(ins, IntentRequestHistoryRefresh)) != 0 {
				t.Fatalf("run-start refresh despite a chat frame: %s", kinds(ins))
			}
		})
	}
	hs := newFakeHost(t, Options{}).withAgents("main")
	ins := hs.feed(10, lifecycle("r3", "start"))
	if r := find(ins, IntentRequestHistoryRefresh); len(r) != 1 || r[0].Reason != RefreshRunStartNoChat || r[0].DelayMs != 250 {
		t.Fatalf("no run-start refresh without chat frames: %s", kinds(ins))
	}
}

// §4.2 step 6: a frame of another run than the agent's clears that run's
// tracking and is dropped, in every state: an older run's final changes
// nothing at all.
func TestChatOtherRunDropped(t *testing.T) {
	for _, state := range []string{"delta", "final", "aborted", "error"} {
		t.Run(state, func(t *testing.T) {
			hs := running(t, Options{})
			ins := hs.feed(10, chatEv(obj{"runId": "r0", "sessionKey": mainKey, "state": state, "message": assistantMsg("old"), "errorMessage": "e"}))
			if kinds(ins) != "clearRunTracking ignore(other-run)" || len(hs.log) != 0 {
				t.Fatalf("intents %s, log %q", kinds(ins), hs.log)
			}
			if hs.agents["main"].LatestPreview.Set {
				t.Fatal("summary patch written for another run")
			}
		})
	}
}

// §4.2 step 7: a delta for an agent with no active run and not running
// is dropped (clearRunTracking with a runId, inactive-agent-delta
// without); a user turn still gets its summary patch.
func TestChatInactiveAgentDelta(t *testing.T) {
	hs := newFakeHost(t, Options{}).withAgents("main")
	ins := hs.feed(0, delta("r1", "hello", 1))
	if kinds(ins) != "clearRunTracking ignore(inactive-agent-delta)" || len(hs.log) != 0 {
		t.Fatalf("delta to an idle agent: %s %q", kinds(ins), hs.log)
	}
	ins = hs.feed(10, chatEv(obj{"sessionKey": mainKey, "state": "delta", "message": assistantMsg("x")}))
	if kinds(ins) != "ignore(inactive-agent-delta)" {
		t.Fatalf("without runId: %s", kinds(ins))
	}
	ins = hs.feed(20, chatEv(obj{"runId": "r1", "sessionKey": mainKey, "state": "delta", "message": obj{"role": "user", "content": "my question"}}))
	if kinds(ins) != "dispatchUpdateAgent" || hs.agents["main"].LastUserMessage.V != "my question" {
		t.Fatalf("user delta: %s %+v", kinds(ins), hs.agents["main"])
	}
	// A final to an idle agent is not a delta: it goes on (§4.4).
	ins = hs.feed(30, final("r9", "answer", 3))
	if len(find(ins, IntentAppendOutput)) != 2 {
		t.Fatalf("final to an idle agent: %s", kinds(ins))
	}
}

// §4.2 step 8: the summary patch, by role and state.
func TestChatSummaryPatch(t *testing.T) {
	for _, tc := range []struct {
		name, state string
		msg         any
		err         string
		want        string
	}{
		{"assistant text is the preview", "delta", assistantMsg("  Hi [message_id:1]"), "", `{"lastActivityAt":10,"sessionCreated":true,"latestPreview":"Hi"}`},
		{"user text", "delta", obj{"role": "user", "content": "[Zalo A] question"}, "", `{"lastActivityAt":10,"sessionCreated":true,"lastUserMessage":"question"}`},
		{"error message", "error", nil, "boom", `{"lastActivityAt":10,"sessionCreated":true,"latestPreview":"boom"}`},
		{"UI metadata: only lastActivityAt", "delta", assistantMsg("Project path: /w. memory_search. x"), "", `{"lastActivityAt":10}`},
		{"user UI metadata", "delta", obj{"role": "user", "content": " A new session was started via /new or /reset"}, "", `{"lastActivityAt":10}`},
		{"empty text: no preview", "delta", assistantMsg("   "), "", `{"lastActivityAt":10,"sessionCreated":true}`},
		{"no message", "final", nil, "", `{"lastActivityAt":10,"sessionCreated":true}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hs := running(t, Options{})
			p := obj{"runId": "r1", "sessionKey": mainKey, "state": tc.state, "seq": 1}
			if tc.msg != nil {
				p["message"] = tc.msg
			}
			if tc.err != "" {
				p["errorMessage"] = tc.err
			}
			ins := hs.feed(10, chatEv(p))
			u := find(ins, IntentUpdateAgent)
			if len(u) == 0 {
				t.Fatalf("no summary patch: %s", kinds(ins))
			}
			if got := string(u[0].Patch.AppendJSONAt(nil, T0)); got != tc.want {
				t.Fatalf("summary patch %s, want %s", got, tc.want)
			}
		})
	}
}

// §4.2 step 8 runs before the stale check: a replayed final still
// rewrites latestPreview, and does nothing else.
func TestChatSummaryBeforeStaleCheck(t *testing.T) {
	hs := running(t, Options{})
	hs.feed(10, final("r1", "first", 5))
	ins := hs.feed(20, chatEv(obj{"runId": "r1", "sessionKey": mainKey, "state": "final", "seq": 5, "message": assistantMsg("replayed")}))
	if kinds(ins) != "dispatchUpdateAgent ignore(stale-terminal-event)" {
		t.Fatalf("stale final: %s", kinds(ins))
	}
	if hs.agents["main"].LatestPreview.V != "replayed" {
		t.Fatalf("latestPreview %q", hs.agents["main"].LatestPreview.V)
	}
	if !slices.Equal(hs.lines("main"), []string{`[[meta]]{"role":"assistant","timestamp":1700000000010}`, "first"}) {
		t.Fatalf("transcript %q", hs.lines("main"))
	}
}

// §4.2 step 9: user and system turns stop after the summary patch.
func TestChatUserAndSystemStop(t *testing.T) {
	for _, role := range []string{"user", "system"} {
		hs := running(t, Options{})
		ins := hs.feed(400, chatEv(obj{"runId": "r1", "sessionKey": mainKey, "state": "final", "message": obj{"role": role, "content": "x"}}))
		if kinds(ins) != "dispatchUpdateAgent" {
			t.Fatalf("%s final: %s", role, kinds(ins))
		}
	}
}

// §4.2 step 10: markActivity at most once per 300 ms per agent.
func TestMarkActivityThrottle(t *testing.T) {
	hs := newFakeHost(t, Options{}).withAgents("main", "ops")
	hs.feed(0, lifecycle("r1", "start")) // marks at 0
	for _, ms := range []int64{100, 299, 300, 450, 599, 600} {
		hs.feed(ms, delta("r1", "x", 1))
	}
	hs.feed(610, js(obj{"type": "event", "event": "agent", "payload": obj{"runId": "o1", "sessionKey": "agent:ops:main", "stream": "lifecycle", "data": obj{"phase": "start"}}}))
	want := []string{"activity main 0", "activity main 300", "activity main 600", "activity ops 610"}
	if got := hs.logged("activity"); !slices.Equal(got, want) {
		t.Fatalf("marks %q, want %q", got, want)
	}
}

// §4.2 step 12, delta: the live patch.
func TestChatDeltaPatch(t *testing.T) {
	hs := running(t, Options{})
	msg := obj{"role": "assistant", "content": []any{obj{"type": "thinking", "thinking": "plan"}, obj{"type": "text", "text": "Hel"}}}
	ins := hs.feed(10, chatEv(obj{"runId": "r1", "sessionKey": mainKey, "state": "delta", "message": msg}))
	q := find(ins, IntentQueueLivePatch)
	if len(q) != 1 || string(q[0].Patch.AppendJSONAt(nil, T0)) != `{"status":"running","runId":"r1","streamText":"Hel","thinkingTrace":"plan"}` {
		t.Fatalf("patch %s (runStartedAt is set: the start gave it)", kinds(ins))
	}
	if m := find(ins, IntentMarkThinkingStarted); len(m) != 1 || m[0].At != T0+10 {
		t.Fatalf("markThinkingStarted %s", kinds(ins))
	}
	ins = hs.feed(20, chatEv(obj{"runId": "r1", "sessionKey": mainKey, "state": "delta", "message": msg}))
	if len(find(ins, IntentMarkThinkingStarted)) != 0 {
		t.Fatal("thinking started marked twice")
	}
	// An empty text is still a streamText, with status running; no
	// thinking: no thinkingTrace key.
	ins = hs.feed(30, delta("r1", "", 2))
	if q := find(ins, IntentQueueLivePatch); len(q) != 1 || string(q[0].Patch.AppendJSONAt(nil, T0)) != `{"status":"running","runId":"r1","streamText":""}` {
		t.Fatalf("empty text patch: %s", q[0].Patch.AppendJSON(nil))
	}
	// A delta with no message has no text: no status either.
	ins = hs.feed(40, chatEv(obj{"runId": "r1", "sessionKey": mainKey, "state": "delta"}))
	if q := find(ins, IntentQueueLivePatch); len(q) != 1 || string(q[0].Patch.AppendJSONAt(nil, T0)) != `{"runId":"r1"}` {
		t.Fatalf("no-message patch: %s", kinds(ins))
	}
}

// runStartedAt is set by a delta only when the agent has none.
func TestChatDeltaRunStartedAt(t *testing.T) {
	hs := newFakeHost(t, Options{}).withAgents("main")
	hs.agent("main").Apply(&Patch{Status: ps("running")}) // running, no run id, no start time
	ins := hs.feed(10, delta("r1", "x", 1))
	if q := find(ins, IntentQueueLivePatch); len(q) != 1 || !q[0].Patch.RunStartedAt.Set || q[0].Patch.RunStartedAt.V != T0+10 {
		t.Fatalf("runStartedAt not set: %s", kinds(ins))
	}
}

// A delta whose text starts with UI metadata does nothing (not even its
// tool lines).
func TestChatDeltaUIMetadata(t *testing.T) {
	hs := running(t, Options{})
	msg := obj{"role": "assistant", "content": []any{obj{"type": "text", "text": "Workspace path: /w\n\nhi"}, obj{"type": "toolCall", "name": "ls"}}}
	ins := hs.feed(10, chatEv(obj{"runId": "r1", "sessionKey": mainKey, "state": "delta", "message": msg}))
	if kinds(ins) != "dispatchUpdateAgent ignore(ui-metadata-delta)" {
		t.Fatalf("intents %s", kinds(ins))
	}
}

// Tool lines of deltas are deduplicated per run, by exact string.
func TestChatToolLinesDedupe(t *testing.T) {
	hs := running(t, Options{})
	call := func(id string) obj {
		return obj{"role": "assistant", "content": []any{obj{"type": "toolCall", "name": "ls", "id": id}}}
	}
	hs.feed(10, chatEv(obj{"runId": "r1", "sessionKey": mainKey, "state": "delta", "message": call("c1")}))
	hs.feed(20, chatEv(obj{"runId": "r1", "sessionKey": mainKey, "state": "delta", "message": call("c1")}))
	hs.feed(30, chatEv(obj{"runId": "r1", "sessionKey": mainKey, "state": "delta", "message": call("c2")}))
	if got := hs.lines("main"); !slices.Equal(got, []string{"[[tool]] ls (c1)", "[[tool]] ls (c2)"}) {
		t.Fatalf("lines %q", got)
	}
	// Without a runId (the agent is running, so the delta passes) there is
	// nothing to deduplicate against.
	hs.feed(40, chatEv(obj{"sessionKey": mainKey, "state": "delta", "message": call("c3")}))
	hs.feed(50, chatEv(obj{"sessionKey": mainKey, "state": "delta", "message": call("c3")}))
	if got := hs.lines("main"); len(got) != 4 {
		t.Fatalf("lines without runId deduplicated: %q", got)
	}
}

// §4.2 final: the appends, in order, then the intents.
func TestChatFinal(t *testing.T) {
	hs := running(t, Options{})
	hs.agent("main").Apply(&Patch{LastUserMessage: ps("question")})
	hs.feed(10, chatEv(obj{"runId": "r1", "sessionKey": mainKey, "state": "delta",
		"message": obj{"role": "assistant", "content": []any{obj{"type": "thinking", "thinking": "plan"}}}}))
	msg := obj{"role": "assistant", "timestamp": T0 + 900, "content": []any{
		obj{"type": "thinking", "thinking": "plan it\nthen do it"},
		obj{"type": "toolCall", "name": "ls", "id": "c1"},
		obj{"type": "text", "text": "Done.\r\n\n\n\nBye  "},
	}}
	hs.reset()
	ins := hs.feed(1000, chatEv(obj{"runId": "r1", "sessionKey": mainKey, "state": "final", "seq": 9, "message": msg}))
	want := "dispatchUpdateAgent markActivity appendOutput appendOutput appendOutput appendOutput applyTerminalCommit " +
		"clearPendingLivePatch clearRunTracking markRunClosed dispatchUpdateAgent queueLatestUpdate dispatchUpdateAgent"
	if kinds(ins) != want {
		t.Fatalf("intents\n%s\nwant\n%s", kinds(ins), want)
	}
	wantLines := []string{
		`[[meta]]{"role":"assistant","timestamp":1700000000900,"thinkingDurationMs":890}`,
		"[[trace]]\n_plan it_\n\n_then do it_",
		"[[tool]] ls (c1)",
		"Done.\n\nBye",
	}
	if got := hs.lines("main"); !slices.Equal(got, wantLines) {
		t.Fatalf("lines\n%q\nwant\n%q", got, wantLines)
	}
	es := hs.transcript("main").Entries()
	if es[0].EntryID != "run:r1:assistant:meta" || !es[0].Confirmed || es[3].EntryID != "run:r1:assistant:final" || !es[3].Confirmed {
		t.Fatalf("stable entryIds, confirmed: %+v", es)
	}
	if c := find(ins, IntentApplyTerminalCommit); c[0].Source != CommitChatFinal || !c[0].HasSeq || c[0].Seq != 9 {
		t.Fatalf("commit %+v", c[0])
	}
	if m := find(ins, IntentMarkRunClosed); m[0].At != T0+1000+ClosedRunTTLMs {
		t.Fatalf("closed until %d", m[0].At-T0)
	}
	a := hs.agents["main"]
	if a.status() != StatusIdle || a.RunID.Set && !a.RunID.Null || a.LastResult.V != "Done.\n\nBye" ||
		a.LastAssistantMessageAt.V != T0+900 || !a.StreamText.Null || !a.ThinkingTrace.Null || !a.RunStartedAt.Null {
		t.Fatalf("agent %+v", *a)
	}
	if !slices.Equal(hs.latest, []string{"main:question"}) {
		t.Fatalf("latest update %q", hs.latest)
	}
	// Thinking was found: no warning, no history refresh.
	if len(hs.logged("warn")) != 0 || len(find(ins, IntentRequestHistoryRefresh)) != 0 {
		t.Fatalf("warn/refresh with thinking: %q", hs.log)
	}
	if hs.h.TrackedRuns() != 0 || !hs.h.IsClosed("r1") {
		t.Fatal("run still tracked, or not closed")
	}
}

// A final without thinking: the trace comes from the agent's
// thinkingTrace; a warning once per session; the history refresh (0 ms)
// unless the transcript holds a trace line.
func TestChatFinalWithoutThinking(t *testing.T) {
	hs := running(t, Options{})
	hs.agent("main").Apply(&Patch{ThinkingTrace: ps("streamed thought")})
	ins := hs.feed(10, final("r1", "answer", 3))
	if got := hs.lines("main"); len(got) != 3 || got[1] != "[[trace]]\n_streamed thought_" {
		t.Fatalf("lines %q", got)
	}
	if r := find(ins, IntentRequestHistoryRefresh); len(r) != 1 || r[0].DelayMs != 0 || r[0].Reason != RefreshChatFinalNoTrace {
		t.Fatalf("refresh %s", kinds(ins))
	}
	if len(hs.history) != 0 {
		t.Fatal("refresh ran before its 0 ms timer")
	}
	hs.run(10)
	if len(hs.history) != 1 || hs.history[0].SessionKey != mainKey {
		t.Fatalf("refresh %+v", hs.history)
	}
	if w := hs.logged("warn"); len(w) != 1 {
		t.Fatalf("warn %q", w)
	}
	// Next run, same session: no second warning; the trace line written
	// above now suppresses the refresh.
	hs.feed(100, lifecycle("r2", "start"))
	ins = hs.feed(200, final("r2", "again", 3))
	if len(hs.logged("warn")) != 1 || len(find(ins, IntentRequestHistoryRefresh)) != 0 {
		t.Fatalf("second final: %s, %q", kinds(ins), hs.logged("warn"))
	}
}

// A final for an idle agent whose runId is null commits its text and
// changes no status.
func TestChatFinalIdleAgentKeepsStatus(t *testing.T) {
	hs := newFakeHost(t, Options{}).withAgents("main")
	hs.agent("main").Apply(&Patch{Status: ps("idle")})
	ins := hs.feed(10, final("r1", "late answer", 4))
	u := find(ins, IntentUpdateAgent)
	last := u[len(u)-1].Patch
	if last.Status.Set || last.RunID.Set {
		t.Fatalf("terminal patch touches status: %s", last.AppendJSON(nil))
	}
	if got := hs.lines("main"); len(got) != 2 || got[1] != "late answer" {
		t.Fatalf("lines %q", got)
	}
}

// aborted: "Run aborted." (unless suppressed), idle; error: the message
// or "Run error.", status error.
func TestChatAbortedAndError(t *testing.T) {
	for _, tc := range []struct {
		name, state, stop, err string
		suppress               bool
		line, status           string
	}{
		{"aborted", "aborted", "stop", "", false, RunAbortedLine, StatusIdle},
		{"aborted, suppressed approval pause", "aborted", "rpc", "", true, "", StatusIdle},
		{"aborted, not suppressed for another stop reason", "aborted", "stop", "", true, RunAbortedLine, StatusIdle},
		{"error with message", "error", "", "quota", false, "Error: quota", StatusError},
		{"error without message", "error", "", "", false, RunErrorLine, StatusError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hs := running(t, Options{})
			hs.suppress = tc.suppress
			p := obj{"runId": "r1", "sessionKey": mainKey, "state": tc.state, "seq": 4, "message": assistantMsg("partial")}
			if tc.stop != "" {
				p["stopReason"] = tc.stop
			}
			if tc.err != "" {
				p["errorMessage"] = tc.err
			}
			ins := hs.feed(10, chatEv(p))
			var want []string
			if tc.line != "" {
				want = []string{tc.line}
			}
			if got := hs.lines("main"); !slices.Equal(got, want) {
				t.Fatalf("lines %q, want %q", got, want)
			}
			if hs.agents["main"].status() != tc.status || len(find(ins, IntentRequestHistoryRefresh)) != 0 {
				t.Fatalf("status %q; %s", hs.agents["main"].status(), kinds(ins))
			}
			if !hs.h.IsClosed("r1") {
				t.Fatal("run not closed")
			}
		})
	}
}

// A tool-role final appends its tool lines, no text, and still applies
// the terminal patch.
func TestChatToolRoleFinal(t *testing.T) {
	hs := running(t, Options{})
	msg := obj{"role": "toolResult", "toolName": "ls", "toolCallId": "c1", "content": "a.txt"}
	hs.feed(10, chatEv(obj{"runId": "r1", "sessionKey": mainKey, "state": "final", "message": msg}))
	if got := hs.lines("main"); !slices.Equal(got, []string{"[[tool-result]] ls (c1)\n```text\na.txt\n```"}) {
		t.Fatalf("lines %q", got)
	}
	if hs.agents["main"].status() != StatusIdle {
		t.Fatal("terminal patch not applied")
	}
}

// The completion time: the message's timestamp, createdAt or at (a
// positive number or a date), else now.
func TestChatCompletionTime(t *testing.T) {
	for _, tc := range []struct {
		name string
		msg  obj
		want int64
	}{
		{"timestamp", obj{"timestamp": T0 + 5}, T0 + 5},
		{"createdAt date", obj{"createdAt": "2023-11-14T22:13:20.100Z"}, 1_700_000_000_100},
		{"at", obj{"timestamp": 0, "at": T0 + 7}, T0 + 7},
		{"unparseable: now", obj{"timestamp": "soon"}, T0 + 10},
		{"none: now", obj{}, T0 + 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hs := running(t, Options{})
			m := assistantMsg("x")
			for k, v := range tc.msg {
				m[k] = v
			}
			hs.feed(10, chatEv(obj{"runId": "r1", "sessionKey": mainKey, "state": "final", "message": m}))
			if e := hs.transcript("main").Entries(); e[0].TimestampMs.V != tc.want || !strings.Contains(e[0].Text, jsNumber(float64(tc.want))) {
				t.Fatalf("meta at %d, want %d", e[0].TimestampMs.V, tc.want)
			}
		})
	}
}

// A final clears its run's tracking and then asks for the history refresh,
// which Claw3D remembers per run for good; the replay remembers the last
// maxRefreshed such runs, so its memory stays flat over a long capture,
// and still asks once per run for those it remembers.
func TestRefreshedRunsAreBounded(t *testing.T) {
	skipLarge(t)
	hs := running(t, Options{})
	requests := 0
	at := int64(10)
	for k := 0; k < maxRefreshed+50; k++ {
		run := fmt.Sprintf("r%d", k)
		hs.feed(at, lifecycle(run, "start"))
		requests += len(find(hs.feed(at+1, final(run, "answer", 2*k+1)), IntentRequestHistoryRefresh))
		at += 10
	}
	if requests != maxRefreshed+50 {
		t.Fatalf("%d history refreshes for %d finals without thinking, want one each", requests, maxRefreshed+50)
	}
	if n := hs.h.RefreshedRuns(); n != maxRefreshed || hs.h.TrackedRuns() != 0 {
		t.Fatalf("%d runs remembered for their refresh (%d tracked), want %d and 0", n, hs.h.TrackedRuns(), maxRefreshed)
	}
}

// refreshed forgets its oldest run past maxRefreshed, and a run taken
// back (tracked again) and added anew is not forgotten for its old place.
func TestRefreshedForgetsTheOldest(t *testing.T) {
	var r refreshed
	r.add("a", historyChatFinal)
	r.add("b", historyChatFinal)
	if bits := r.take("a"); bits != historyChatFinal || r.has("a", historyChatFinal) {
		t.Fatalf("take a: %d", bits)
	}
	r.add("a", historyRunStart) // a again, at the back
	for k := 0; k < maxRefreshed-2; k++ {
		r.add(fmt.Sprintf("x%d", k), historyChatFinal)
	}
	if r.len() != maxRefreshed || !r.has("b", historyChatFinal) {
		t.Fatalf("%d held, b held %v", r.len(), r.has("b", historyChatFinal))
	}
	r.add("y", historyChatFinal) // b, the oldest, goes; a's first place is stale
	if r.len() != maxRefreshed || r.has("b", historyChatFinal) || !r.has("a", historyRunStart) || !r.has("y", historyChatFinal) {
		t.Fatalf("%d held; b %v, a %v, y %v", r.len(), r.has("b", historyChatFinal), r.has("a", historyRunStart), r.has("y", historyChatFinal))
	}
}
