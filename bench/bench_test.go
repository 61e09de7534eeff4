// Package bench measures clawtap's throughput on a large generated capture
// (internal/synth.Large: realistic frames of ~500 bytes, mostly streamed deltas),
// next to the floor: the time to merely decompress the capture and split it
// into lines. Run with `make bench`; CLAWTAP_BENCH_FRAMES sets the size
// (default 1,000,000).
package bench

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/clawtap/clawtap/internal/synth"
	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/check"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/models/clawboo"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/stats"
	"github.com/klauspost/compress/zstd"
)

var (
	once    sync.Once
	capPath string
	capN    int
	capErr  error
)

// largeCapture writes the benchmark capture once per process.
func largeCapture(tb testing.TB) (string, int) {
	once.Do(func() {
		capN = 1_000_000
		if s := os.Getenv("CLAWTAP_BENCH_FRAMES"); s != "" {
			capN, capErr = strconv.Atoi(s)
			if capErr != nil {
				return
			}
		}
		dir, err := os.MkdirTemp("", "clawtap-bench-")
		if err != nil {
			capErr = err
			return
		}
		capPath = filepath.Join(dir, "large.jsonl.zst")
		w, err := capture.Create(capPath)
		if err != nil {
			capErr = err
			return
		}
		if err := synth.Large(w, capN, 1); err != nil {
			capErr = err
			return
		}
		capErr = w.Close()
	})
	if capErr != nil {
		tb.Fatal(capErr)
	}
	return capPath, capN
}

func reportRate(b *testing.B, frames int) {
	b.ReportMetric(float64(frames)*float64(b.N)/b.Elapsed().Seconds(), "frames/s")
	b.ReportMetric(0, "ns/op") // per-op time of a whole capture is noise next to frames/s
}

// BenchmarkFloor: decompress and split into lines, nothing else.
func BenchmarkFloor(b *testing.B) {
	path, n := largeCapture(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f, _ := os.Open(path)
		zr, _ := zstd.NewReader(bufio.NewReaderSize(f, 1<<16), zstd.WithDecoderConcurrency(1))
		br := bufio.NewReaderSize(zr, 1<<20)
		lines := 0
		for {
			_, err := br.ReadSlice('\n')
			if errors.Is(err, io.EOF) {
				break
			}
			if err == nil {
				lines++
			}
		}
		zr.Close()
		f.Close()
		if lines < n+1 { // header, frames, and the markers of restarts
			b.Fatalf("%d lines, want at least %d", lines, n+1)
		}
	}
	reportRate(b, n)
}

// forEach reads the capture and calls fn for each record.
func forEach(b *testing.B, path string, fn func(*capture.Record)) {
	r, err := capture.Open(path, capture.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	for {
		rec, err := r.Next()
		if err != nil {
			return
		}
		fn(rec)
	}
}

// BenchmarkRead: the capture reader alone (which validates every frame).
func BenchmarkRead(b *testing.B) {
	path, n := largeCapture(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		forEach(b, path, func(*capture.Record) {})
	}
	reportRate(b, n)
}

// BenchmarkClassify: read and classify every record (the Bridge).
func BenchmarkClassify(b *testing.B) {
	path, n := largeCapture(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		classifyPass(b, path)
	}
	reportRate(b, n)
}

// classifyPass reads and classifies the whole capture once.
func classifyPass(b *testing.B, path string) {
	cl := bridge.NewClassifier()
	chats := 0
	forEach(b, path, func(rec *capture.Record) {
		if ev := cl.Record(rec); ev.Kind == bridge.RuntimeChat {
			chats++
		}
	})
	if chats == 0 {
		b.Fatal("no chat frames classified")
	}
}

// BenchmarkClassifyNDJSON: what `clawtap classify -o json` does, output discarded.
func BenchmarkClassifyNDJSON(b *testing.B) {
	path, n := largeCapture(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cl := bridge.NewClassifier()
		w := bufio.NewWriterSize(io.Discard, 64<<10)
		var buf []byte
		forEach(b, path, func(rec *capture.Record) {
			ev := cl.Record(rec)
			buf = ev.AppendJSON(buf[:0], bridge.Meta{I: rec.Index, T: rec.T, Conn: rec.Conn, Dir: rec.Dir})
			buf = append(buf, '\n')
			w.Write(buf)
		})
		w.Flush()
	}
	reportRate(b, n)
}

// BenchmarkIntents: what `clawtap intents` does (classify, derive, encode).
func BenchmarkIntents(b *testing.B) {
	path, n := largeCapture(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cl := bridge.NewClassifier()
		var pol clawboo.Deriver
		w := bufio.NewWriterSize(io.Discard, 64<<10)
		var intents []clawboo.Intent
		var buf []byte
		patches := 0
		forEach(b, path, func(rec *capture.Record) {
			ev := cl.Record(rec)
			intents = pol.Append(intents[:0], &ev)
			for j := range intents {
				if intents[j].Kind == clawboo.QueueLivePatch {
					patches++
				}
				buf = append(buf[:0], `{"i":`...)
				buf = jsonx.AppendInt(buf, int64(rec.Index))
				buf = append(buf, `,"intent":`...)
				buf = intents[j].AppendJSON(buf)
				buf = append(buf, '}', '\n')
				w.Write(buf)
			}
		})
		w.Flush()
		if patches == 0 {
			b.Fatal("no live patches derived")
		}
	}
	reportRate(b, n)
}

// TestMemoryFlat: classifying and deriving intents keep memory bounded by
// live state, not by the capture's length: the reader's buffers and the
// classifier's bounded tables, nothing per frame.
func TestMemoryFlat(t *testing.T) {
	cl := bridge.NewClassifier()
	var pol clawboo.Deriver
	var intents []clawboo.Intent
	h := memoryRun(t, 300_000, 7, func(rec *capture.Record) {
		ev := cl.Record(rec)
		intents = pol.Append(intents[:0], &ev)
	}, nil)
	if h.peak > 48<<20 {
		t.Fatalf("heap in use peaked at %.1f MiB over %d frames; memory must not grow with the capture", h.mib(h.peak), h.frames)
	}
	t.Logf("heap in use peaked at %.1f MiB over %d frames", h.mib(h.peak), h.frames)
}

// BenchmarkCheck: what `clawtap check` does (every default rule, the
// replay for dropped-final included), output discarded.
func BenchmarkCheck(b *testing.B) {
	path, n := largeCapture(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a, err := check.New(check.Options{})
		if err != nil {
			b.Fatal(err)
		}
		runPass(b, path, a)
	}
	reportRate(b, n)
}

// runPass reads the capture through one pass with the observers.
func runPass(b *testing.B, path string, obs ...pipeline.Observer) {
	r, err := capture.Open(path, capture.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	if err := pipeline.New(pipeline.Options{}, obs...).Run(pipeline.Records(r)); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkCheckNoReplay: `clawtap check --no-replay`.
func BenchmarkCheckNoReplay(b *testing.B) {
	path, n := largeCapture(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a, _ := check.New(check.Options{NoReplay: true})
		runPass(b, path, a)
	}
	reportRate(b, n)
}

// BenchmarkStats: what `clawtap stats` does.
func BenchmarkStats(b *testing.B) {
	path, n := largeCapture(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c := stats.New()
		runPass(b, path, c)
		if s := c.Result(); s.Runs.Count == 0 {
			b.Fatal("no runs counted")
		}
	}
	reportRate(b, n)
}

// TestMemoryFlatCheckStats: check and stats keep memory bounded by live
// state (runs, connections), not by the capture's length.
func TestMemoryFlatCheckStats(t *testing.T) {
	a, _ := check.New(check.Options{})
	c := stats.New()
	p := pipeline.New(pipeline.Options{}, a, c)
	h := memoryRun(t, 300_000, 11, func(rec *capture.Record) {
		if _, err := p.Push(rec, nil); err != nil {
			t.Fatal(err)
		}
	}, func() {
		p.Close(capture.Stats{})
		c.Result()
	})
	if h.peak > 64<<20 {
		t.Fatalf("heap in use peaked at %.1f MiB over %d frames; check and stats must not grow with the capture", h.mib(h.peak), h.frames)
	}
	t.Logf("heap in use: %.1f MiB a third in, peak %.1f MiB over %d frames", h.mib(h.third), h.mib(h.peak), h.frames)
}
