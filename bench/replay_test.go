package bench

import (
	"bufio"
	"io"
	"testing"
	"time"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/models"
	"github.com/clawtap/clawtap/pkg/models/clawboo"
	"github.com/clawtap/clawtap/pkg/replay"
)

// BenchmarkReplay: what `clawtap replay` does without printing — read,
// classify, derive, apply on the fake clock, diff every step. Compare its
// frames/s with BenchmarkClassify (target: at least half), or read
// BenchmarkReplayVsClassify.
func BenchmarkReplay(b *testing.B) {
	path, n := largeCapture(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		replayPass(b, path)
	}
	reportRate(b, n)
}

// replayPass replays the whole capture once.
func replayPass(b *testing.B, path string) {
	e := replay.New(replay.Options{UI: models.Default()})
	steps := 0
	emit := func(s *replay.Step) error {
		if s.Changed() {
			steps++
		}
		return nil
	}
	forEach(b, path, func(rec *capture.Record) { e.Record(rec, emit) })
	e.Finish(emit)
	if steps == 0 {
		b.Fatal("no steps")
	}
}

// BenchmarkReplayVsClassify measures issue 3's target directly: replay's
// rate as a fraction of classify's (target: at least 0.5). The two passes
// alternate within each iteration, so a machine that speeds up or slows
// down during the run affects both alike.
func BenchmarkReplayVsClassify(b *testing.B) {
	path, _ := largeCapture(b)
	var inClassify, inReplay time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		classifyPass(b, path)
		mid := time.Now()
		replayPass(b, path)
		inClassify, inReplay = inClassify+mid.Sub(start), inReplay+time.Since(mid)
	}
	b.ReportMetric(inClassify.Seconds()/inReplay.Seconds(), "replay/classify")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkDerive: read, classify and derive intents, nothing else — the
// ceiling for BenchmarkReplay, which adds the handler, the host and the diff.
func BenchmarkDerive(b *testing.B) {
	path, n := largeCapture(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cl := bridge.NewClassifier()
		var pol clawboo.Deriver
		var intents []clawboo.Intent
		count := 0
		forEach(b, path, func(rec *capture.Record) {
			ev := cl.Record(rec)
			intents = pol.Append(intents[:0], &ev)
			count += len(intents)
		})
		if count == 0 {
			b.Fatal("no intents")
		}
	}
	reportRate(b, n)
}

// BenchmarkReplayNDJSON: `clawtap replay -o json`, output discarded.
func BenchmarkReplayNDJSON(b *testing.B) {
	path, n := largeCapture(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e := replay.New(replay.Options{UI: models.Default()})
		f := &replay.Formatter{}
		w := bufio.NewWriterSize(io.Discard, 64<<10)
		var buf []byte
		emit := func(s *replay.Step) error {
			if s.Changed() {
				f.T0 = e.T0()
				buf = f.AppendStepJSON(buf[:0], s)
				w.Write(buf)
			}
			return nil
		}
		forEach(b, path, func(rec *capture.Record) { e.Record(rec, emit) })
		e.Finish(emit)
		w.Flush()
	}
	reportRate(b, n)
}

// TestReplayMemoryFlat: replay keeps memory bounded by live state (capped
// transcripts, the closed-run cap), not by the capture's length: the heap
// at the end is no bigger than a third of the way in.
func TestReplayMemoryFlat(t *testing.T) {
	e := replay.New(replay.Options{UI: models.Default()})
	h := memoryRun(t, 150_000, 3, func(rec *capture.Record) { e.Record(rec, nil) }, func() { e.Finish(nil) })
	if h.end > h.third+4<<20 {
		t.Fatalf("heap grew from %.1f MiB (a third in) to %.1f MiB (the end) over %d frames", h.mib(h.third), h.mib(h.end), h.frames)
	}
	t.Logf("heap in use %.1f MiB a third in, %.1f MiB at the end of %d frames", h.mib(h.third), h.mib(h.end), h.frames)
}
