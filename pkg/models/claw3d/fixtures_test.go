package claw3d

import (
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
)

// replayFixture runs the first connection of a capture through the
// handler on the test host, the clock following the records, and lets
// the timers run out at the end.
func replayFixture(t *testing.T, path string, opts Options) *fakeHost {
	t.Helper()
	r, err := capture.Open(path, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	hs := newFakeHost(t, opts)
	conn := 0
	first := true
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if first {
			hs.clock.Set(rec.T)
			conn, first = rec.Conn, false
		}
		if rec.Conn != conn {
			continue
		}
		hs.clock.Advance(rec.T)
		ev := hs.cls.Record(rec)
		hs.h.Handle(nil, &ev)
		checkInvariants(t, hs, string(rec.Frame), 1000)
	}
	hs.clock.Advance(hs.clock.Now() + 120_000)
	return hs
}

// TestFixtures replays every fixture's first connection through the
// model: nothing breaks the invariants, and the stories the fixtures tell
// end as Claw3D ends them.
func TestFixtures(t *testing.T) {
	type want struct {
		status   string // agent main's final status
		last     string // its last transcript line starts with this ("" : no lines)
		lines    int
		late     int // late_event_ignored_closed_run
		stale    int // stale_terminal_chat_event_ignored
		replaced int // lifecycle_fallback_replaced_by_chat_final
	}
	wants := map[string]want{
		// chat aborted closes the run; both lifecycle frames after it are late.
		"abort.jsonl.zst":   {status: StatusIdle, last: RunAbortedLine, lines: 1, late: 2},
		"bare-frames.jsonl": {status: StatusIdle, last: "Pong!", lines: 2},
		// The sender sees tool start/result: [[tool]] and [[tool-result]] lines,
		// then the reply; lifecycle end before the final: fallback replaced.
		"demo.jsonl.zst": {status: StatusIdle, last: "Let me look.", lines: 4, late: 1, replaced: 1},
		// The same final twice, same seq: the second is stale.
		"duplicate-final.jsonl.zst": {status: StatusIdle, last: "2 + 2 = 4.", lines: 2, stale: 1, replaced: 1},
		// lifecycle error, the chat error (committed), the second chat error
		// with payload seq 1 (stale).
		"error-run.jsonl.zst": {status: StatusError, last: "Error: 429 Too Many Requests", lines: 1, stale: 1},
		// No agent frames: the final commits to an agent whose status was
		// never set, and sets none.
		"slash-command.jsonl.zst": {status: "", last: "🦞 OpenClaw 2026.9.6", lines: 2},
		// r1's late final arrives while r2 is live: another run's frame,
		// dropped whole (no hazard, unlike clawboo); r2 ends cleanly.
		"stale-terminal.jsonl.zst": {status: StatusIdle, last: "Title: Q3 Revenue Review 2026.", lines: 2, replaced: 1},
		"streamed-run.jsonl.zst":   {status: StatusIdle, last: "Tide pools are rocky hollows", lines: 2, late: 1, replaced: 1},
		// Cut off mid-run: still running, its text on screen.
		"truncated.jsonl.zst": {status: StatusRunning, last: "", lines: 0},
	}
	paths, _ := filepath.Glob("../../../fixtures/*.jsonl*")
	if len(paths) < len(wants) {
		t.Fatalf("fixtures: %d", len(paths))
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			hs := replayFixture(t, p, Options{})
			w, ok := wants[filepath.Base(p)]
			if !ok {
				return // replayed for the invariants only
			}
			a := hs.agent("main")
			lines := hs.lines("main")
			if a.status() != w.status || len(lines) != w.lines || (w.lines > 0 && !strings.HasPrefix(lines[len(lines)-1], w.last)) {
				t.Fatalf("status %q, lines %q", a.status(), lines)
			}
			if w.status != StatusRunning && (a.activeRunID() != "" || a.streamText() != "" || a.thinkingTrace() != "") {
				t.Fatalf("ghost run state: %+v", *a)
			}
			if got := [3]int{len(hs.decided(MetricLateEventIgnoredClosedRun)), len(hs.decided(MetricStaleTerminalChatEventIgnored)),
				len(hs.decided(MetricLifecycleFallbackReplacedByChatFinal))}; got != [3]int{w.late, w.stale, w.replaced} {
				t.Fatalf("metrics late/stale/replaced %v, want %v", got, [3]int{w.late, w.stale, w.replaced})
			}
			if es := hs.transcript("main").Entries(); len(es) > 0 && w.status != StatusError && w.last != RunAbortedLine && !es[len(es)-1].Confirmed {
				t.Fatalf("final entry not confirmed: %+v", es[len(es)-1])
			}
		})
	}
}
