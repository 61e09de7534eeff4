package bench

import (
	"bufio"
	"io"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/policy"
	"github.com/clawtap/clawtap/pkg/replay"
	"github.com/clawtap/clawtap/pkg/synth"
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
// transcripts, the closed-run cap), not by the capture's length: the heap
// after the whole capture is no bigger than after its first third.
func TestReplayMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("replays a generated 150k-frame capture")
	}
	path := filepath.Join(t.TempDir(), "m.jsonl.zst")
	w, err := capture.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	const n = 150_000
	if err := synth.Large(w, n, 3); err != nil {
		t.Fatal(err)
	}
	w.Close()
	r, err := capture.Open(path, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	e := replay.New(replay.Options{})
	heap := func() uint64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapInuse
	}
	var third uint64
	count := 0
	for {
		rec, err := r.Next()
		if err != nil {
			break
		}
		e.Record(rec, nil)
		if count++; count == n/3 {
			third = heap()
		}
	}
	e.Finish(nil)
	end := heap()
	if end > third+4<<20 {
		t.Fatalf("heap grew from %.1f MiB (a third in) to %.1f MiB (the end) over %d records", float64(third)/(1<<20), float64(end)/(1<<20), count)
	}
	t.Logf("heap in use %.1f MiB a third in, %.1f MiB at the end of %d records", float64(third)/(1<<20), float64(end)/(1<<20), count)
}
