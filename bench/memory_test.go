package bench

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/clawtap/clawtap/internal/synth"
	"github.com/clawtap/clawtap/pkg/capture"
)

// heapProfile is what memoryRun saw: the heap in use a third of the way
// through a capture, at its end, and at its highest sample.
type heapProfile struct {
	third, end, peak uint64
	frames           int
}

func (h heapProfile) mib(v uint64) float64 { return float64(v) / (1 << 20) }

// memoryRun generates a capture of n frames, feeds every record to fn, and
// samples the heap in use (after a GC) every 50k records, a third of the
// way in, and at the end (after done, if given).
func memoryRun(t *testing.T, n int, seed int64, fn func(*capture.Record), done func()) heapProfile {
	t.Helper()
	if testing.Short() {
		t.Skip("generates a large capture")
	}
	path := filepath.Join(t.TempDir(), "m.jsonl.zst")
	w, err := capture.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := synth.Large(w, n, seed); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := capture.Open(path, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	heap := func() uint64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapInuse
	}
	var h heapProfile
	records := 0
	for {
		rec, err := r.Next()
		if err != nil {
			break
		}
		fn(rec)
		if rec.IsFrame() {
			h.frames++
		}
		if records++; records%50_000 == 0 || records == n/3 {
			v := heap()
			if records == n/3 {
				h.third = v
			}
			h.peak = max(h.peak, v)
		}
	}
	if done != nil {
		done()
	}
	h.end = heap()
	h.peak = max(h.peak, h.end)
	if h.frames != n {
		t.Fatalf("read %d frames, want %d", h.frames, n)
	}
	return h
}
