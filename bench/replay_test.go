package bench

import (
	"bufio"
	"io"
	"runtime"
	"testing"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/policy"
	"github.com/clawtap/clawtap/pkg/replay"
)

// BenchmarkReplay: what `clawtap replay` does without printing — read,
// classify, derive, apply on the fake clock, diff every step. Compare its
// frames/s with BenchmarkClassify (target: at least half).
func BenchmarkReplay(b *testing.B) {
	path, n := largeCapture(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e := replay.New(replay.Options{})
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
	report(b, n)
}

// BenchmarkDerive: read, classify and derive intents, nothing else — the
// ceiling for BenchmarkReplay, which adds the handler, the host and the diff.
func BenchmarkDerive(b *testing.B) {
	path, n := largeCapture(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cl := bridge.NewClassifier()
		var intents []policy.Intent
		count := 0
		forEach(b, path, func(rec *capture.Record) {
			ev := cl.Record(rec)
			intents = policy.Append(intents[:0], &ev)
			count += len(intents)
		})
		if count == 0 {
			b.Fatal("no intents")
		}
	}
	report(b, n)
}

// BenchmarkReplayNDJSON: `clawtap replay -o json`, output discarded.
func BenchmarkReplayNDJSON(b *testing.B) {
	path, n := largeCapture(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e := replay.New(replay.Options{})
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
	report(b, n)
}

// TestReplayMemoryFlat: replay keeps memory bounded by live state (capped
// transcripts, the closed-run cap), not by the capture's length.
func TestReplayMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("replays a large generated capture")
	}
	path, n := largeCapture(t)
	e := replay.New(replay.Options{})
	var peak uint64
	var ms runtime.MemStats
	count := 0
	r, err := capture.Open(path, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for {
		rec, err := r.Next()
		if err != nil {
			break
		}
		e.Record(rec, nil)
		if count++; count%100_000 == 0 {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
		}
	}
	if peak > 64<<20 {
		t.Fatalf("heap in use peaked at %d MiB over %d records", peak>>20, count)
	}
	t.Logf("heap in use peaked at %.1f MiB over %d records (%d frames)", float64(peak)/(1<<20), count, n)
}
