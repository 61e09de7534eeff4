package claw3d

import (
	"fmt"
	"slices"
	"testing"
)

// streaming puts agent main on run r1 with streamText "Hello wor" in the
// store (a delta, flushed by its frame).
func streaming(t *testing.T) *fakeHost {
	t.Helper()
	hs := running(t, Options{})
	hs.feed(10, delta("r1", "Hello wor", 2))
	hs.run(50)
	if hs.agents["main"].streamText() != "Hello wor" {
		t.Fatalf("setup: streamText %q", hs.agents["main"].streamText())
	}
	hs.reset()
	return hs
}

// §4.4 ordering 1: chat final, then lifecycle end: the end is dropped.
func TestOrderFinalThenEnd(t *testing.T) {
	hs := streaming(t)
	hs.feed(100, final("r1", "Hello world", 5))
	hs.run(110)
	hs.reset()
	ins := hs.feed(102+10, lifecycle("r1", "end"))
	if kinds(ins) != "ignore(closed-run-event)" || len(hs.log) != 0 {
		t.Fatalf("end after final: %s %q", kinds(ins), hs.log)
	}
	a := hs.agents["main"]
	if a.status() != StatusIdle || a.activeRunID() != "" || a.streamText() != "" {
		t.Fatalf("agent %+v", *a)
	}
}

// §4.4 ordering 2: lifecycle end without streamText, then chat final:
// the final commits normally and the status (already idle) is untouched.
func TestOrderEndWithoutTextThenFinal(t *testing.T) {
	hs := running(t, Options{})
	ins := hs.feed(100, lifecycle("r1", "end"))
	want := "clearPendingLivePatch markRunClosed clearRunTracking dispatchUpdateAgent"
	if kinds(ins) != want {
		t.Fatalf("end: %s, want %s", kinds(ins), want)
	}
	if hs.agents["main"].status() != StatusIdle || hs.h.FallbackPending("r1") {
		t.Fatal("end did not apply at once")
	}
	ins = hs.feed(103, final("r1", "Hello world", 5))
	if got := hs.lines("main"); len(got) != 2 || got[1] != "Hello world" {
		t.Fatalf("lines %q", got)
	}
	u := find(ins, IntentUpdateAgent)
	if tp := u[len(u)-1].Patch; tp.Status.Set || tp.RunID.Set {
		t.Fatalf("status touched: %s", tp.AppendJSON(nil))
	}
	if len(hs.decided(MetricLifecycleFallbackReplacedByChatFinal)) != 0 {
		t.Fatal("no fallback was committed")
	}
	if e := hs.transcript("main").Entries()[1]; !e.Confirmed {
		t.Fatal("final not confirmed")
	}
}

// §4.4 ordering 3: lifecycle end with streamText schedules a 0 ms
// fallback that commits it unconfirmed; a chat final then replaces both
// entries through their entryIds, confirmed.
func TestOrderEndWithTextThenFinal(t *testing.T) {
	hs := streaming(t)
	ins := hs.feed(100, lifecycle("r1", "end"))
	if kinds(ins) != "clearPendingLivePatch scheduleLifecycleFallback" {
		t.Fatalf("end: %s", kinds(ins))
	}
	if f := find(ins, IntentScheduleLifecycleFallback); f[0].DelayMs != 0 || f[0].Text != "Hello wor" {
		t.Fatalf("fallback %+v", f[0])
	}
	if hs.agents["main"].status() != StatusRunning {
		t.Fatal("the idle patch is deferred until the fallback fires")
	}
	hs.run(100) // the 0 ms timer
	if !slices.Equal(hs.timerRuns, []string{"lifecycleFallback: appendOutput appendOutput dispatchUpdateAgent applyTerminalCommit markRunClosed clearRunTracking dispatchUpdateAgent"}) {
		t.Fatalf("fallback ran %q", hs.timerRuns)
	}
	es := hs.transcript("main").Entries()
	if len(es) != 2 || es[0].EntryID != "run:r1:assistant:meta" || es[1].EntryID != "run:r1:assistant:final" ||
		es[1].Text != "Hello wor" || es[0].Confirmed || es[1].Confirmed || es[1].Source != SourceRuntimeAgent {
		t.Fatalf("fallback entries %+v", es)
	}
	a := hs.agents["main"]
	if a.status() != StatusIdle || a.LastResult.V != "Hello wor" || a.LastAssistantMessageAt.V != T0+100 {
		t.Fatalf("agent after fallback %+v", *a)
	}
	hs.feed(103, final("r1", "Hello world", 5))
	es = hs.transcript("main").Entries()
	if len(es) != 2 || es[1].Text != "Hello world" || !es[0].Confirmed || !es[1].Confirmed || es[0].SequenceKey != 0 || es[1].SequenceKey != 1 {
		t.Fatalf("final did not replace the fallback's entries: %+v", es)
	}
	if len(hs.decided(MetricLifecycleFallbackReplacedByChatFinal)) != 1 {
		t.Fatalf("metric %+v", hs.decisions)
	}
	if hs.agents["main"].LastResult.V != "Hello world" {
		t.Fatal("lastResult not updated")
	}
}

// §4.4 ordering 4: late deltas after either terminal are dropped for 30 s;
// at exactly +30 000 ms the fence has expired (expiresAt <= now).
func TestClosedFenceBoundary(t *testing.T) {
	for _, tc := range []struct {
		after   int64
		dropped bool
	}{
		{0, true},
		{29_999, true},
		{30_000, false}, // expired: clawboo would still drop it
		{30_001, false},
	} {
		for _, terminal := range []string{"final", "end"} {
			t.Run(fmt.Sprintf("%s+%d", terminal, tc.after), func(t *testing.T) {
				hs := running(t, Options{})
				closedAt := int64(100)
				if terminal == "final" {
					hs.feed(closedAt, final("r1", "done", 5))
				} else {
					hs.feed(closedAt, lifecycle("r1", "end"))
				}
				hs.agent("main").Apply(&Patch{Status: ps("running"), RunID: ps("r1")}) // so only the fence can drop it
				hs.run(closedAt + tc.after)
				hs.reset()
				ins := hs.feed(closedAt+tc.after, delta("r1", "late", 6))
				got := kinds(ins) == "ignore(closed-run-delta)"
				if got != tc.dropped {
					t.Fatalf("dropped=%v, want %v: %s", got, tc.dropped, kinds(ins))
				}
				if !tc.dropped {
					if e := hs.decided(DecisionClosedRunExpired); len(e) != 1 || e[0].ExpiresAt != T0+closedAt+ClosedRunTTLMs {
						t.Fatalf("expiry %+v", hs.decisions)
					}
					if hs.h.IsClosed("r1") {
						t.Fatal("still closed after the prune")
					}
				}
			})
		}
	}
}

// The fence is pruned only on chat and agent frames.
func TestPruneOnlyOnRuntimeFrames(t *testing.T) {
	hs := running(t, Options{})
	hs.feed(100, final("r1", "done", 5))
	hs.feed(40_000, event("heartbeat", obj{"ts": 1}))
	hs.feed(40_001, event("tick", obj{}))
	if !hs.h.IsClosed("r1") {
		t.Fatal("pruned on a heartbeat or tick")
	}
	hs.feed(40_002, event("agent", obj{"runId": "zz", "sessionKey": "agent:nobody:main", "stream": "x"}))
	if hs.h.IsClosed("r1") {
		t.Fatal("not pruned on an agent frame")
	}
}

// §4.4: the per-run seq staleness of terminal chat frames.
func TestStaleTerminalSeq(t *testing.T) {
	noSeq := func(run, text string) string {
		return chatEv(obj{"runId": run, "sessionKey": mainKey, "state": "final", "message": assistantMsg(text)})
	}
	for _, tc := range []struct {
		name   string
		first  string
		second string
		stale  bool
		text   string // the final line after both
	}{
		{"same seq", final("r1", "one", 5), final("r1", "two", 5), true, "one"},
		{"lower seq", final("r1", "one", 5), final("r1", "two", 4), true, "one"},
		{"higher seq: accepted, newest text wins", final("r1", "one", 5), final("r1", "two", 6), false, "two"},
		{"no seq after a chat-final commit", final("r1", "one", 5), noSeq("r1", "two"), true, "one"},
		{"seq after a commit without seq", noSeq("r1", "one"), final("r1", "two", 1), false, "two"},
		{"error after final, lower seq (2026.9.6's second error)", final("r1", "one", 5),
			chatEv(obj{"runId": "r1", "sessionKey": mainKey, "state": "error", "seq": 1, "errorMessage": "Agent failed before reply"}), true, "one"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hs := running(t, Options{})
			hs.feed(100, tc.first)
			hs.reset()
			ins := hs.feed(200, tc.second)
			m := hs.decided(MetricStaleTerminalChatEventIgnored)
			if (len(m) == 1) != tc.stale {
				t.Fatalf("stale=%v, want %v: %s", len(m) == 1, tc.stale, kinds(ins))
			}
			if tc.stale {
				if kinds(ins) != "dispatchUpdateAgent ignore(stale-terminal-event)" {
					t.Fatalf("a stale frame does more: %s", kinds(ins))
				}
				if m[0].RunID != "r1" || m[0].CommitSource != CommitChatFinal {
					t.Fatalf("metric %+v", m[0])
				}
			}
			if got := hs.lines("main"); got[len(got)-1] != tc.text {
				t.Fatalf("final text %q, want %q (lines %q)", got[len(got)-1], tc.text, got)
			}
		})
	}
	// The metric's fields.
	hs := running(t, Options{})
	hs.feed(100, final("r1", "one", 5))
	hs.feed(200, final("r1", "one", 3))
	m := hs.decided(MetricStaleTerminalChatEventIgnored)[0]
	if got := string(m.AppendJSON(nil)); got != `{"kind":"stale_terminal_chat_event_ignored","runId":"r1","seq":3,"lastTerminalSeq":5,"commitSource":"chat-final"}` {
		t.Fatalf("metric JSON %s", got)
	}
}

// A commit by a lifecycle fallback is always replaceable, whatever the
// seq, even a final without one.
func TestFallbackCommitReplaceable(t *testing.T) {
	hs := streaming(t)
	hs.feed(100, lifecycle("r1", "end"))
	hs.run(100)
	hs.feed(110, chatEv(obj{"runId": "r1", "sessionKey": mainKey, "state": "final", "message": assistantMsg("Hello world")}))
	if len(hs.decided(MetricStaleTerminalChatEventIgnored)) != 0 || hs.lines("main")[1] != "Hello world" {
		t.Fatalf("final after fallback: %q %+v", hs.lines("main"), hs.decisions)
	}
	hs = streaming(t)
	hs.feed(100, lifecycle("r1", "end"))
	hs.run(100)
	hs.feed(110, final("r1", "Hello world", 1))
	if len(hs.decided(MetricStaleTerminalChatEventIgnored)) != 0 || hs.lines("main")[1] != "Hello world" {
		t.Fatalf("final after fallback: %q %+v", hs.lines("main"), hs.decisions)
	}
	// Now committed by a chat final: the same seq again is stale.
	hs.feed(120, final("r1", "Hello world!", 1))
	if len(hs.decided(MetricStaleTerminalChatEventIgnored)) != 1 {
		t.Fatal("not stale after the chat-final commit")
	}
}

// Pruning the fence drops the run's terminal state: 30 s later the same
// final is no longer stale.
func TestPruneDropsTerminalState(t *testing.T) {
	hs := running(t, Options{})
	hs.feed(100, final("r1", "one", 5))
	hs.feed(30_100, final("r1", "one again", 5))
	if len(hs.decided(MetricStaleTerminalChatEventIgnored)) != 0 {
		t.Fatal("terminal state survived the prune")
	}
	if got := hs.lines("main"); got[len(got)-1] != "one again" {
		t.Fatalf("lines %q", got)
	}
}

// A chat final that arrives while the fallback is pending cancels it.
func TestFinalCancelsPendingFallback(t *testing.T) {
	hs := streaming(t)
	hs.feed(100, lifecycle("r1", "end"))
	ins := hs.handle(final("r1", "Hello world", 5)) // same instant, before the timer runs
	if len(find(ins, IntentCancelLifecycleFallback)) != 1 || hs.h.FallbackPending("r1") {
		t.Fatalf("fallback not cancelled: %s", kinds(ins))
	}
	hs.run(1000)
	if len(hs.decided(DecisionFallbackFired)) != 0 {
		t.Fatal("cancelled fallback fired")
	}
	if got := hs.lines("main"); len(got) != 2 || got[1] != "Hello world" || !hs.transcript("main").Entries()[1].Confirmed {
		t.Fatalf("lines %q", got)
	}
	// The chat final's own terminal patch made the agent idle (its runId
	// was still r1); the deferred lifecycle patch never ran.
	if hs.agents["main"].status() != StatusIdle {
		t.Fatalf("status %q", hs.agents["main"].status())
	}
}

// A lifecycle error while a fallback is pending cancels it and, the run
// being neither committed nor finalized, clears its terminal state; the
// error applies at once.
func TestErrorCancelsPendingFallback(t *testing.T) {
	hs := streaming(t)
	hs.feed(100, lifecycle("r1", "end"))
	hs.agent("main").Apply(&Patch{RunID: ps("r1")})
	ins := hs.handle(lifecycle("r1", "error"))
	want := "clearPendingLivePatch cancelLifecycleFallback markRunClosed clearRunTracking dispatchUpdateAgent"
	if kinds(ins) != want {
		t.Fatalf("error: %s, want %s", kinds(ins), want)
	}
	if _, ok := hs.h.terminal["r1"]; ok {
		t.Fatal("terminal state kept")
	}
	hs.run(1000)
	if hs.agents["main"].status() != StatusError || len(hs.lines("main")) != 0 {
		t.Fatalf("status %q, lines %q", hs.agents["main"].status(), hs.lines("main"))
	}
}

// clearRunTracking leaves the fence alone.
func TestClearRunTrackingKeepsFence(t *testing.T) {
	hs := running(t, Options{})
	hs.feed(100, final("r1", "done", 5))
	hs.h.clearRunTracking("r1")
	if !hs.h.IsClosed("r1") {
		t.Fatal("clearRunTracking opened the fence")
	}
}

// §7.2: the gateway ends the agent run before the chat stream finishes:
// lifecycle end → chat delta → chat final. End state clean, the final
// text committed and confirmed, no ghost runId or streamText.
func TestRealGatewayOrdering(t *testing.T) {
	hs := running(t, Options{})
	hs.feed(10, assistant("r1", "Hello"))
	hs.feed(11, delta("r1", "Hello", 2))
	hs.feed(60, assistant("r1", "Hello wor"))
	hs.feed(61, delta("r1", "Hello wor", 3))
	hs.run(100) // frames flush
	hs.feed(200, lifecycle("r1", "end"))
	ins := hs.feed(201, delta("r1", "Hello world", 4))
	if kinds(ins) != "ignore(closed-run-delta)" {
		t.Fatalf("late delta: %s", kinds(ins))
	}
	hs.feed(203, final("r1", "Hello world", 4))
	hs.run(10_000)
	a := hs.agents["main"]
	if a.status() != StatusIdle || a.activeRunID() != "" || a.streamText() != "" || a.thinkingTrace() != "" {
		t.Fatalf("ghost state: %+v", *a)
	}
	es := hs.transcript("main").Entries()
	if len(es) != 2 || es[1].Text != "Hello world" || !es[1].Confirmed || !es[0].Confirmed {
		t.Fatalf("transcript %+v", es)
	}
	if len(hs.queue.Pending()) != 0 {
		t.Fatalf("pending patches %+v", hs.queue.Pending())
	}
	if len(hs.decided(MetricLifecycleFallbackReplacedByChatFinal)) != 1 || len(hs.decided(MetricLateEventIgnoredClosedRun)) != 1 {
		t.Fatalf("metrics %+v", hs.decisions)
	}
}

// The same ordering when the last delta's live patch has not flushed yet
// at the lifecycle end: the end discards it (clearPendingLivePatch), the
// store's older streamText is what the fallback commits, and the chat
// final still leaves everything clean.
func TestRealGatewayOrderingUnflushed(t *testing.T) {
	hs := running(t, Options{})
	hs.feed(10, delta("r1", "Hello", 2))
	hs.run(30) // flushed: "Hello"
	hs.feed(40, delta("r1", "Hello wor", 3))
	hs.feed(41, lifecycle("r1", "end")) // before the next frame
	if f := hs.h.fallback["r1"]; f == nil || f.finalText != "Hello" {
		t.Fatalf("fallback %+v", f)
	}
	if len(hs.queue.Pending()) != 0 {
		t.Fatal("pending patch not discarded")
	}
	hs.feed(44, final("r1", "Hello world", 4))
	hs.run(1000)
	a := hs.agents["main"]
	if a.status() != StatusIdle || a.activeRunID() != "" || a.streamText() != "" || hs.lines("main")[1] != "Hello world" {
		t.Fatalf("agent %+v, lines %q", *a, hs.lines("main"))
	}
}
