package clawboo_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/replay"
	"github.com/clawtap/clawtap/pkg/ui/clawboo"
)

const T0 = 1_700_000_000_000

// rec builds a frame record at T0+ms on connection 1.
func rec(ms int64, frame string) *capture.Record {
	return &capture.Record{T: T0 + ms, Conn: 1, Dir: capture.DirIn, Frame: []byte(frame)}
}

func onConn(r *capture.Record, conn int) *capture.Record { r.Conn = conn; return r }

func mark(ms int64, conn int, m string) *capture.Record {
	return &capture.Record{T: T0 + ms, Conn: conn, Mark: m}
}

func start(ms int64, run string) *capture.Record {
	return rec(ms, fmt.Sprintf(`{"type":"event","event":"agent","payload":{"runId":%q,"sessionKey":"agent:main:main","stream":"lifecycle","data":{"phase":"start"}}}`, run))
}

func end(ms int64, run string) *capture.Record {
	return rec(ms, fmt.Sprintf(`{"type":"event","event":"agent","payload":{"runId":%q,"sessionKey":"agent:main:main","stream":"lifecycle","data":{"phase":"end"}}}`, run))
}

func delta(ms int64, agent, run, text string) *capture.Record {
	return rec(ms, fmt.Sprintf(`{"type":"event","event":"chat","payload":{"runId":%q,"sessionKey":"agent:%s:main","state":"delta","message":{"role":"assistant","content":[{"type":"text","text":%q}]}}}`, run, agent, text))
}

func final(ms int64, run, text string) *capture.Record {
	return rec(ms, fmt.Sprintf(`{"type":"event","event":"chat","payload":{"runId":%q,"sessionKey":"agent:main:main","state":"final","model":"m1","message":{"role":"assistant","content":[{"type":"text","text":%q}],"usage":{"input_tokens":10,"output_tokens":5}}}}`, run, text))
}

func presence(ms int64) *capture.Record {
	return rec(ms, `{"type":"event","event":"presence","payload":{}}`)
}

func heartbeat(ms int64) *capture.Record {
	return rec(ms, `{"type":"event","event":"heartbeat","payload":{}}`)
}

func approval(ms int64, id string, expiresMs int64) *capture.Record {
	exp := ""
	if expiresMs != 0 {
		exp = fmt.Sprintf(`,"expiresAtMs":%d`, T0+expiresMs)
	}
	return rec(ms, fmt.Sprintf(`{"type":"event","event":"exec.approval.requested","payload":{"id":%q,"request":{"command":"ls -la","agentId":"main"},"createdAtMs":%d%s}}`, id, T0+ms, exp))
}

func resolved(ms int64, id string) *capture.Record {
	return rec(ms, fmt.Sprintf(`{"type":"event","event":"exec.approval.resolved","payload":{"id":%q,"decision":"allow-once","request":{"agentId":"main"}}}`, id))
}

// stepLog is a compact, comparable trace of a replay.
type stepLog struct {
	steps []string
	e     *replay.Engine
	f     *replay.Formatter
}

func (l *stepLog) emit(s *replay.Step) error {
	if !s.Changed() {
		return nil
	}
	var b strings.Builder
	if s.Timer != "" {
		fmt.Fprintf(&b, "%d %s@%d:", s.I, s.Timer, s.T-T0)
	} else {
		fmt.Fprintf(&b, "#%d@%d:", s.I, s.T-T0)
	}
	for i := range s.Effects {
		e := &s.Effects[i]
		b.WriteString(" " + e.Type)
		if e.Action != "" {
			b.WriteString(":" + e.Action)
		}
		if e.Type == replay.EffDispose {
			b.WriteString(":" + e.Name)
		}
	}
	for _, c := range s.Diff {
		fmt.Fprintf(&b, " %s=%s", c.Path, l.f.ValueText(c.To))
	}
	l.steps = append(l.steps, b.String())
	return nil
}

// v1211c16 is the version these tests pin: what clawboo did at 1211c16.
var v1211c16 = replay.UI{Model: clawboo.Model{}, Version: clawboo.V1211c16}

// replayAll replays recs under opts, clawboo@1211c16 unless opts names a
// UI.
func replayAll(t *testing.T, opts replay.Options, recs ...*capture.Record) *stepLog {
	t.Helper()
	if opts.UI.IsZero() {
		opts.UI = v1211c16
	}
	e := replay.New(opts)
	l := &stepLog{e: e, f: &replay.Formatter{T0: T0, Width: 40}}
	for i, r := range recs {
		r.Index = i
		if err := e.Record(r, l.emit); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Finish(l.emit); err != nil {
		t.Fatal(err)
	}
	return l
}

func (l *stepLog) has(t *testing.T, sub string) {
	t.Helper()
	for _, s := range l.steps {
		if strings.Contains(s, sub) {
			return
		}
	}
	t.Fatalf("no step contains %q:\n%s", sub, strings.Join(l.steps, "\n"))
}

func (l *stepLog) lacks(t *testing.T, sub string) {
	t.Helper()
	for _, s := range l.steps {
		if strings.Contains(s, sub) {
			t.Fatalf("a step contains %q: %s", sub, s)
		}
	}
}

func lines(e *replay.Engine, agent string) []string {
	a := e.State().Agent(agent)
	if a == nil {
		return nil
	}
	var out []string
	for _, l := range a.Lines() {
		out = append(out, l.Text)
	}
	return out
}

// TestFramesCoalesce: deltas within one frame make one store write.
func TestFramesCoalesce(t *testing.T) {
	l := replayAll(t, replay.Options{},
		start(0, "r1"),
		delta(1, "main", "r1", "a"),
		delta(5, "main", "r1", "ab"),
		delta(10, "main", "r1", "abc"), // all before the frame at 17
		delta(20, "main", "r1", "abcd"),
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
		if i >= len(l.steps) || !strings.HasPrefix(l.steps[i], w) {
			t.Fatalf("steps:\n%s\nwant prefixes:\n%s", strings.Join(l.steps, "\n"), strings.Join(want, "\n"))
		}
	}
	// --frame-ms 50: one frame for all four.
	l = replayAll(t, replay.Options{FrameNum: 50, FrameDen: 1}, start(0, "r1"), delta(1, "main", "r1", "a"), delta(20, "main", "r1", "ab"), delta(49, "main", "r1", "abc"))
	l.has(t, "3 frame@50: flush:frame agents.main.streamText=abc")
}

// TestClearFlushesEverything: clawboo's host flushes every pending patch,
// of every agent, on clearPendingLivePatch — before the commit.
func TestClearFlushesEverything(t *testing.T) {
	l := replayAll(t, replay.Options{},
		start(0, "r1"),
		delta(1, "main", "r1", "hello"),
		delta(2, "other", "r9", "other text"),
		final(3, "r1", "hello world"),
	)
	l.has(t, "#3@3: flush:clear")
	l.lacks(t, "frame@")
	e := l.e
	if got := e.State().Agent("other").StreamText; !got.Valid || got.V != "other text" {
		t.Fatalf("other agent's patch not flushed: %+v", got)
	}
	if got := lines(e, "main"); !slices.Equal(got, []string{"hello world"}) {
		t.Fatalf("lines %q", got)
	}
}

// TestQueueReplaceOnRunChange: a different runId within a frame replaces
// the pending patch; the old run's thinking does not bleed into the new run.
func TestQueueReplaceOnRunChange(t *testing.T) {
	l := replayAll(t, replay.Options{},
		rec(0, `{"type":"event","event":"agent","payload":{"runId":"r1","sessionKey":"agent:main:main","stream":"thinking","data":{"text":"old thoughts"}}}`),
		delta(1, "main", "r2", "new"),
	)
	l.has(t, "#1@1: queue:replace")
	a := l.e.State().Agent("main")
	if a.ThinkingTrace.Valid || a.StreamText.V != "new" || a.RunID.V != "r2" {
		t.Fatalf("state %+v", a)
	}
}

func TestDebounceInEngine(t *testing.T) {
	l := replayAll(t, replay.Options{}, presence(0), heartbeat(100), presence(2000), heartbeat(2100), presence(2200))
	l.has(t, "1 summaryRefresh@850: timer:fired request:summaryReload request:heartbeatRefresh")
	l.has(t, "4 summaryRefresh@2950: timer:fired request:summaryReload requests.summaryReload.count=2")
	if r := l.e.State().Requests(replay.ReqHeartbeatRefresh); r.Count != 1 || r.LastAt.V != T0+850 {
		t.Fatalf("heartbeat refreshes %+v", r)
	}
}

// TestApprovalContinuation: while an approval is pending the host skips the
// terminal patch (billing first), the run stays open, and the final that
// follows the approval is accepted and billed again.
func TestApprovalContinuation(t *testing.T) {
	l := replayAll(t, replay.Options{},
		start(0, "r1"),
		approval(10, "a1", 0),
		final(20, "r1", "I need approval"),
		end(21, "r1"),
		resolved(30, "a1"),
		final(40, "r1", "Done."),
		end(41, "r1"),
	)
	l.has(t, "#2@20: append bill skip guard:run-kept-open")
	l.has(t, "#3@21: skip guard:run-kept-open")
	l.has(t, "#5@40: append bill write guard:closed-run-recorded")
	l.has(t, "#6@41: guard:dropped-closed-run")
	e := l.e
	a := e.State().Agent("main")
	if a.Status.V != "idle" || a.RunID.Valid || a.PendingApprovals() != 0 {
		t.Fatalf("agent %+v", a)
	}
	if c := e.State().Cost("main", "m1"); c == nil || c.Turns != 2 || c.InputTokens != 20 || c.OutputTokens != 10 {
		t.Fatalf("cost %+v", c)
	}
	if got := lines(e, "main"); !slices.Equal(got, []string{"I need approval", "Done."}) {
		t.Fatalf("lines %q", got)
	}
}

// TestApprovalSweep: the gateway sends nothing on timeout; the host's 5 s
// sweep removes the expired approval and injects a meta line.
func TestApprovalSweep(t *testing.T) {
	l := replayAll(t, replay.Options{},
		start(0, "r1"),
		approval(1000, "a1", 7000), // expires at +7 s: the sweep at +10 s removes it
		approval(1000, "a2", 0),    // no expiry: stays
		presence(8000),
	)
	l.has(t, "3 approvalSweep@10000: approval:expired append agents.main.outputLines.0=\"Exec approval for `ls -la` timed out.\" approvals.a1=null")
	e := l.e
	if e.State().Approval("a1") != nil || e.State().Approval("a2") == nil || e.PendingTimers() != 0 {
		t.Fatalf("approvals %v, timers %d", e.State().ApprovalIDs(), e.PendingTimers())
	}
	// Exactly at the tick: expired (expiresAtMs <= now).
	l = replayAll(t, replay.Options{}, approval(0, "a1", 5000))
	l.has(t, "0 approvalSweep@5000: approval:expired")
	// A terminal while the expired approval is still pending is skipped;
	// after the sweep the next one applies.
	l = replayAll(t, replay.Options{}, start(0, "r1"), approval(1, "a1", 2000), end(3000, "r1"), end(6000, "r1"))
	l.has(t, "#2@3000: skip")
	l.has(t, "#3@6000: write guard:closed-run-recorded")
}

// TestTTLThroughEngine: a duplicate final exactly 30 000 ms after the close
// is dropped; one a millisecond later commits again.
func TestTTLThroughEngine(t *testing.T) {
	for _, tc := range []struct {
		after   int64
		dropped bool
	}{{30_000, true}, {30_001, false}} {
		t.Run(fmt.Sprint(tc.after), func(t *testing.T) {
			l := replayAll(t, replay.Options{}, start(0, "r1"), final(100, "r1", "x"), final(100+tc.after, "r1", "x"))
			if tc.dropped {
				l.has(t, "#2@30100: guard:dropped-closed-run")
				if n := len(lines(l.e, "main")); n != 1 {
					t.Fatalf("%d lines", n)
				}
			} else {
				l.has(t, "#2@30101: guard:closed-run-expired append bill write")
				if n := len(lines(l.e, "main")); n != 2 {
					t.Fatalf("%d lines", n)
				}
			}
		})
	}
}

func TestHazardInEngine(t *testing.T) {
	recs := []*capture.Record{
		start(0, "r1"),
		start(100, "r2"),
		final(200, "r1", "late r1"),
		final(300, "r2", "r2 answer"),
	}
	// The pipeline alone loses r2's answer.
	l := replayAll(t, replay.Options{}, recs...)
	l.has(t, "#2@200: append bill write guard:closed-run-recorded guard:hazard")
	l.has(t, "#3@300: guard:dropped-closed-run")
	l.lacks(t, "history:merged")
	if got := lines(l.e, "main"); !slices.Equal(got, []string{"late r1"}) {
		t.Fatalf("lines %q: r2's answer should be lost", got)
	}
	// Answered from the capture, the history refresh r2's final asks for
	// brings it back.
	l = replayAll(t, replay.Options{HistorySync: true}, recs...)
	l.has(t, "#3@300: guard:dropped-closed-run request:historyRefresh history:merged")
	if got := lines(l.e, "main"); !slices.Equal(got, []string{"late r1", "r2 answer"}) {
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
		start(0, "r1"), end(100, "r1"), final(101, "r1", "one"), final(102, "r1", "one"),
		start(200, "r2"), final(300, "r2", "two"), final(301, "r2", "two"),
	)
	l.has(t, "#2@101: guard:dropped-closed-run request:historyRefresh history:merged")
	l.has(t, "#3@102: guard:dropped-closed-run request:historyRefresh")
	l.lacks(t, "#3@102: guard:dropped-closed-run request:historyRefresh history")
	l.lacks(t, "#6@301: guard:dropped-closed-run request:historyRefresh history")
	if got := lines(l.e, "main"); !slices.Equal(got, []string{"one", "two"}) {
		t.Fatalf("lines %q", got)
	}
}

// TestReconnectDispose: a close disposes the handler (closed runs
// forgotten, timer cancelled) and the queue (pending patches dropped); the
// stores survive; the next connection is followed.
func TestReconnectDispose(t *testing.T) {
	l := replayAll(t, replay.Options{},
		start(0, "r1"),
		final(10, "r1", "answer"),
		delta(11, "main", "r1", "late"),
		presence(12),
		mark(13, 1, capture.MarkClose),
		onConn(final(5000, "r1", "answer"), 2), // replayed after the reconnect
	)
	l.has(t, "#4@13: dispose:handler dispose:patchQueue drop")
	l.lacks(t, "summaryRefresh@762")
	l.lacks(t, "frame@17")
	l.has(t, "#5@5000: append bill write request:historyRefresh")
	if got := lines(l.e, "main"); !slices.Equal(got, []string{"answer", "answer"}) {
		t.Fatalf("lines %q", got)
	}
	if l.e.Conn() != 2 {
		t.Fatalf("following conn %d", l.e.Conn())
	}
}

// TestConcurrentConnectionSkipped: a second client open at the same time is
// not the UI reconnecting.
func TestConcurrentConnectionSkipped(t *testing.T) {
	l := replayAll(t, replay.Options{},
		start(0, "r1"),
		onConn(start(1, "r1"), 2),
		onConn(final(2, "r1", "x"), 2),
		final(3, "r1", "x"),
	)
	if n, conns := l.e.Skipped(); n != 2 || !slices.Equal(conns, []int{2}) {
		t.Fatalf("skipped %d %v", n, conns)
	}
	l.lacks(t, "#1@")
	l = replayAll(t, replay.Options{Conn: 2}, start(0, "r1"), onConn(start(1, "r1"), 2))
	l.lacks(t, "#0@")
	l.has(t, "#1@1: write")
}

func TestTimerStepIndex(t *testing.T) {
	l := replayAll(t, replay.Options{}, presence(0), rec(500, `{"type":"event","event":"tick","payload":{}}`))
	// The debounce fires after record #1 (a tick that changed nothing).
	l.has(t, "1 summaryRefresh@750")
}

// TestDiffPathsAndOrder: a step's diff is sorted by path.
func TestDiffPathsAndOrder(t *testing.T) {
	l := replayAll(t, replay.Options{}, start(0, "r1"))
	if len(l.steps) != 1 || l.steps[0] != "#0@0: write agents.main.status=running agents.main.runId=r1 agents.main.runStartedAt=+0.000s" {
		t.Fatalf("steps %q", l.steps)
	}
}
