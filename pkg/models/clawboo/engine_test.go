package clawboo_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/internal/uitest"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/models/clawboo"
	"github.com/clawtap/clawtap/pkg/replay"
)

// v1211c16 is the version these tests pin: what clawboo did at 1211c16.
var v1211c16 = replay.UI{Model: clawboo.Model{}, Version: clawboo.V1211c16}

// replayAll replays recs under opts, clawboo@1211c16 unless opts names a
// UI.
func replayAll(t *testing.T, opts replay.Options, recs ...*capture.Record) *uitest.StepLog {
	t.Helper()
	if opts.UI.IsZero() {
		opts.UI = v1211c16
	}
	return uitest.Replay(t, opts, 40, recs...)
}

// TestFramesCoalesce: deltas within one frame make one store write.
func TestFramesCoalesce(t *testing.T) {
	l := replayAll(t, replay.Options{},
		uitest.Start(0, "r1"),
		uitest.Delta(1, "main", "r1", "a"),
		uitest.Delta(5, "main", "r1", "ab"),
		uitest.Delta(10, "main", "r1", "abc"), // all before the frame at 17
		uitest.Delta(20, "main", "r1", "abcd"),
	)
	want := []string{
		"#0@0: write",
		"#1@1: queue:new",
		"#2@5: queue:merge",
		"#3@10: queue:merge",
		"3 frame@17: flush:frame agents.main.streamText=abc",
		"#4@20: queue:new",
		"4 frame@34: flush:frame agents.main.streamText=abcd",
	}
	for i, w := range want {
		if i >= len(l.Steps) || !strings.HasPrefix(l.Steps[i], w) {
			t.Fatalf("steps:\n%s\nwant prefixes:\n%s", strings.Join(l.Steps, "\n"), strings.Join(want, "\n"))
		}
	}
	// --frame-ms 50: one frame for all four.
	l = replayAll(t, replay.Options{FrameNum: 50, FrameDen: 1}, uitest.Start(0, "r1"), uitest.Delta(1, "main", "r1", "a"), uitest.Delta(20, "main", "r1", "ab"), uitest.Delta(49, "main", "r1", "abc"))
	l.Has(t, "3 frame@50: flush:frame agents.main.streamText=abc")
}

// TestClearFlushesEverything: clawboo's host flushes every pending patch,
// of every agent, on clearPendingLivePatch — before the commit.
func TestClearFlushesEverything(t *testing.T) {
	l := replayAll(t, replay.Options{},
		uitest.Start(0, "r1"),
		uitest.Delta(1, "main", "r1", "hello"),
		uitest.Delta(2, "other", "r9", "other text"),
		uitest.Final(3, "r1", "hello world"),
	)
	l.Has(t, "#3@3: flush:clear")
	l.Lacks(t, "frame@")
	e := l.E
	if got := e.State().Agent("other").StreamText; !got.Valid || got.V != "other text" {
		t.Fatalf("other agent's patch not flushed: %+v", got)
	}
	if got := uitest.Transcript(e, "main"); !slices.Equal(got, []string{"hello world"}) {
		t.Fatalf("lines %q", got)
	}
}

// TestQueueReplaceOnRunChange: a different runId within a frame replaces
// the pending patch; the old run's thinking does not bleed into the new run.
func TestQueueReplaceOnRunChange(t *testing.T) {
	l := replayAll(t, replay.Options{},
		uitest.Rec(0, `{"type":"event","event":"agent","payload":{"runId":"r1","sessionKey":"agent:main:main","stream":"thinking","data":{"text":"old thoughts"}}}`),
		uitest.Delta(1, "main", "r2", "new"),
	)
	l.Has(t, "#1@1: queue:replace")
	a := l.E.State().Agent("main")
	if a.ThinkingTrace.Valid || a.StreamText.V != "new" || a.RunID.V != "r2" {
		t.Fatalf("state %+v", a)
	}
}

func TestDebounceInEngine(t *testing.T) {
	l := replayAll(t, replay.Options{}, uitest.Presence(0), uitest.Heartbeat(100), uitest.Presence(2000), uitest.Heartbeat(2100), uitest.Presence(2200))
	l.Has(t, "1 summaryRefresh@850: timer:fired request:summaryReload request:heartbeatRefresh")
	l.Has(t, "4 summaryRefresh@2950: timer:fired request:summaryReload requests.summaryReload.count=2")
	if r := l.E.State().Requests(replay.ReqHeartbeatRefresh); r.Count != 1 || r.LastAt.V != uitest.T0+850 {
		t.Fatalf("heartbeat refreshes %+v", r)
	}
}

// TestApprovalContinuation: while an approval is pending the host skips the
// terminal patch (billing first), the run stays open, and the final that
// follows the approval is accepted and billed again.
func TestApprovalContinuation(t *testing.T) {
	l := replayAll(t, replay.Options{},
		uitest.Start(0, "r1"),
		uitest.Approval(10, "a1", 0),
		uitest.Final(20, "r1", "I need approval"),
		uitest.End(21, "r1"),
		uitest.Resolved(30, "a1"),
		uitest.Final(40, "r1", "Done."),
		uitest.End(41, "r1"),
	)
	l.Has(t, "#2@20: append bill skip guard:run-kept-open")
	l.Has(t, "#3@21: skip guard:run-kept-open")
	l.Has(t, "#5@40: append bill write guard:closed-run-recorded")
	l.Has(t, "#6@41: guard:dropped-closed-run")
	e := l.E
	a := e.State().Agent("main")
	if a.Status.V != "idle" || a.RunID.Valid || a.PendingApprovals() != 0 {
		t.Fatalf("agent %+v", a)
	}
	if c := e.State().Cost("main", "m1"); c == nil || c.Turns != 2 || c.InputTokens != 20 || c.OutputTokens != 10 {
		t.Fatalf("cost %+v", c)
	}
	if got := uitest.Transcript(e, "main"); !slices.Equal(got, []string{"I need approval", "Done."}) {
		t.Fatalf("lines %q", got)
	}
}

// TestApprovalSweep: the gateway sends nothing on timeout; the host's 5 s
// sweep removes the expired approval and injects a meta line.
func TestApprovalSweep(t *testing.T) {
	l := replayAll(t, replay.Options{},
		uitest.Start(0, "r1"),
		uitest.Approval(1000, "a1", 7000), // expires at +7 s: the sweep at +10 s removes it
		uitest.Approval(1000, "a2", 0),    // no expiry: stays
		uitest.Presence(8000),
	)
	l.Has(t, "3 approvalSweep@10000: approval:expired append agents.main.outputLines.0=\"Exec approval for `ls -la` timed out.\" approvals.a1=null")
	e := l.E
	if e.State().Approval("a1") != nil || e.State().Approval("a2") == nil || e.PendingTimers() != 0 {
		t.Fatalf("approvals %v, timers %d", e.State().ApprovalIDs(), e.PendingTimers())
	}
	// Exactly at the tick: expired (expiresAtMs <= now).
	l = replayAll(t, replay.Options{}, uitest.Approval(0, "a1", 5000))
	l.Has(t, "0 approvalSweep@5000: approval:expired")
	// A terminal while the expired approval is still pending is skipped;
	// after the sweep the next one applies.
	l = replayAll(t, replay.Options{}, uitest.Start(0, "r1"), uitest.Approval(1, "a1", 2000), uitest.End(3000, "r1"), uitest.End(6000, "r1"))
	l.Has(t, "#2@3000: skip")
	l.Has(t, "#3@6000: write guard:closed-run-recorded")
}

// TestTTLThroughEngine: a duplicate final exactly 30 000 ms after the close
// is dropped; one a millisecond later commits again.
func TestTTLThroughEngine(t *testing.T) {
	for _, tc := range []struct {
		after   int64
		dropped bool
	}{{30_000, true}, {30_001, false}} {
		t.Run(fmt.Sprint(tc.after), func(t *testing.T) {
			l := replayAll(t, replay.Options{}, uitest.Start(0, "r1"), uitest.Final(100, "r1", "x"), uitest.Final(100+tc.after, "r1", "x"))
			if tc.dropped {
				l.Has(t, "#2@30100: guard:dropped-closed-run")
				if n := len(uitest.Transcript(l.E, "main")); n != 1 {
					t.Fatalf("%d lines", n)
				}
			} else {
				l.Has(t, "#2@30101: guard:closed-run-expired append bill write")
				if n := len(uitest.Transcript(l.E, "main")); n != 2 {
					t.Fatalf("%d lines", n)
				}
			}
		})
	}
}

func TestHazardInEngine(t *testing.T) {
	recs := []*capture.Record{
		uitest.Start(0, "r1"),
		uitest.Start(100, "r2"),
		uitest.Final(200, "r1", "late r1"),
		uitest.Final(300, "r2", "r2 answer"),
	}
	// The pipeline alone loses r2's answer.
	l := replayAll(t, replay.Options{}, recs...)
	l.Has(t, "#2@200: append bill write guard:closed-run-recorded guard:hazard")
	l.Has(t, "#3@300: guard:dropped-closed-run")
	l.Lacks(t, "history:merged")
	if got := uitest.Transcript(l.E, "main"); !slices.Equal(got, []string{"late r1"}) {
		t.Fatalf("lines %q: r2's answer should be lost", got)
	}
	// Answered from the capture, the history refresh r2's final asks for
	// brings it back.
	l = replayAll(t, replay.Options{HistorySync: true}, recs...)
	l.Has(t, "#3@300: guard:dropped-closed-run request:historyRefresh history:merged")
	if got := uitest.Transcript(l.E, "main"); !slices.Equal(got, []string{"late r1", "r2 answer"}) {
		t.Fatalf("lines %q: the history refresh should merge r2's answer", got)
	}
}

// TestHistorySync: the real gateway's order (lifecycle end, then the chat
// final) drops the final's commitChat; the history refresh merges its lines
// once, even when the final is delivered twice, and never duplicates a
// final the pipeline committed itself. A final with thinking asks for no
// refresh and stays lost.
func TestHistorySync(t *testing.T) {
	l := replayAll(t, replay.Options{HistorySync: true},
		uitest.Start(0, "r1"), uitest.End(100, "r1"), uitest.Final(101, "r1", "one"), uitest.Final(102, "r1", "one"),
		uitest.Start(200, "r2"), uitest.Final(300, "r2", "two"), uitest.Final(301, "r2", "two"),
	)
	l.Has(t, "#2@101: guard:dropped-closed-run request:historyRefresh history:merged")
	l.Has(t, "#3@102: guard:dropped-closed-run request:historyRefresh")
	l.Lacks(t, "#3@102: guard:dropped-closed-run request:historyRefresh history")
	l.Lacks(t, "#6@301: guard:dropped-closed-run request:historyRefresh history")
	if got := uitest.Transcript(l.E, "main"); !slices.Equal(got, []string{"one", "two"}) {
		t.Fatalf("lines %q", got)
	}
}

// TestReconnectDispose: a close disposes the handler (closed runs
// forgotten, timer cancelled) and the queue (pending patches dropped); the
// stores survive; the next connection is followed.
func TestReconnectDispose(t *testing.T) {
	l := replayAll(t, replay.Options{},
		uitest.Start(0, "r1"),
		uitest.Final(10, "r1", "answer"),
		uitest.Delta(11, "main", "r1", "late"),
		uitest.Presence(12),
		uitest.Mark(13, 1, capture.MarkClose),
		uitest.OnConn(uitest.Final(5000, "r1", "answer"), 2), // replayed after the reconnect
	)
	l.Has(t, "#4@13: dispose:handler dispose:patchQueue drop")
	l.Lacks(t, "summaryRefresh@762")
	l.Lacks(t, "frame@17")
	l.Has(t, "#5@5000: append bill write request:historyRefresh")
	if got := uitest.Transcript(l.E, "main"); !slices.Equal(got, []string{"answer", "answer"}) {
		t.Fatalf("lines %q", got)
	}
	if l.E.Conn() != 2 {
		t.Fatalf("following conn %d", l.E.Conn())
	}
}

// TestConcurrentConnectionSkipped: a second client open at the same time is
// not the UI reconnecting.
func TestConcurrentConnectionSkipped(t *testing.T) {
	l := replayAll(t, replay.Options{},
		uitest.Start(0, "r1"),
		uitest.OnConn(uitest.Start(1, "r1"), 2),
		uitest.OnConn(uitest.Final(2, "r1", "x"), 2),
		uitest.Final(3, "r1", "x"),
	)
	if n, conns := l.E.Skipped(); n != 2 || !slices.Equal(conns, []int{2}) {
		t.Fatalf("skipped %d %v", n, conns)
	}
	l.Lacks(t, "#1@")
	l = replayAll(t, replay.Options{Conn: 2}, uitest.Start(0, "r1"), uitest.OnConn(uitest.Start(1, "r1"), 2))
	l.Lacks(t, "#0@")
	l.Has(t, "#1@1: write")
}

func TestTimerStepIndex(t *testing.T) {
	l := replayAll(t, replay.Options{}, uitest.Presence(0), uitest.Rec(500, `{"type":"event","event":"tick","payload":{}}`))
	// The debounce fires after record #1 (a tick that changed nothing).
	l.Has(t, "1 summaryRefresh@750")
}

// TestDiffPathsAndOrder: a step's diff is sorted by path.
func TestDiffPathsAndOrder(t *testing.T) {
	l := replayAll(t, replay.Options{}, uitest.Start(0, "r1"))
	if len(l.Steps) != 1 || l.Steps[0] != "#0@0: write agents.main.status=running agents.main.runId=r1 agents.main.runStartedAt=+0.000s" {
		t.Fatalf("steps %q", l.Steps)
	}
}
