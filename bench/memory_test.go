package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/clawtap/clawtap/pkg/models"

	"github.com/clawtap/clawtap/internal/synth"
	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/check"
	"github.com/clawtap/clawtap/pkg/diff"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/replay"
	"github.com/clawtap/clawtap/pkg/report"
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
	h := memoryRunOf(t, func(w *capture.Writer) error { return synth.Large(w, n, seed) }, n/3, fn, done)
	if h.frames != n {
		t.Fatalf("read %d frames, want %d", h.frames, n)
	}
	return h
}

// manyRuns writes synth.ManyRunsEach's capture of runs short runs.
func manyRuns(runs int, seed int64) func(w *capture.Writer) error {
	return func(w *capture.Writer) error {
		if err := w.WriteHeader(synth.NewHeader("many short runs")); err != nil {
			return err
		}
		return synth.ManyRunsEach(runs, seed, w.Write)
	}
}

// writeCapture writes the capture gen makes to a temporary file; in
// -short mode the test is skipped instead (the capture is large).
func writeCapture(t *testing.T, gen func(*capture.Writer) error) string {
	t.Helper()
	if testing.Short() {
		t.Skip("generates a large capture")
	}
	path := filepath.Join(t.TempDir(), "m.jsonl.zst")
	if err := createCapture(path, gen); err != nil {
		t.Fatal(err)
	}
	return path
}

// createCapture writes the capture gen makes to path.
func createCapture(path string, gen func(*capture.Writer) error) error {
	w, err := capture.Create(path)
	if err != nil {
		return err
	}
	if err := gen(w); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// manyRunsCaptures holds manyRuns's captures, each written once per
// process (two tests read each), in a directory TestMain removes.
var manyRunsCaptures struct {
	sync.Mutex
	dir   string
	paths map[[2]int64]string
}

// manyRunsCapture returns the path of manyRuns(runs, seed)'s capture,
// written on first use; in -short mode the test is skipped instead.
func manyRunsCapture(t *testing.T, runs int, seed int64) string {
	t.Helper()
	if testing.Short() {
		t.Skip("generates a large capture")
	}
	c := &manyRunsCaptures
	c.Lock()
	defer c.Unlock()
	key := [2]int64{int64(runs), seed}
	if p, ok := c.paths[key]; ok {
		return p
	}
	if c.dir == "" {
		dir, err := os.MkdirTemp("", "clawtap-bench-runs-")
		if err != nil {
			t.Fatal(err)
		}
		c.dir, c.paths = dir, map[[2]int64]string{}
	}
	p := filepath.Join(c.dir, fmt.Sprintf("runs%d-seed%d.jsonl.zst", runs, seed))
	if err := createCapture(p, manyRuns(runs, seed)); err != nil {
		t.Fatal(err)
	}
	c.paths[key] = p
	return p
}

func TestMain(m *testing.M) {
	code := m.Run()
	if manyRunsCaptures.dir != "" {
		os.RemoveAll(manyRunsCaptures.dir)
	}
	os.Exit(code)
}

// memoryRunOf is memoryRun over the capture gen writes, sampling the heap
// at record third as well.
func memoryRunOf(t *testing.T, gen func(*capture.Writer) error, third int, fn func(*capture.Record), done func()) heapProfile {
	t.Helper()
	return memoryRunFile(t, writeCapture(t, gen), third, fn, done)
}

// memoryRunFile is memoryRunOf over the capture at path.
func memoryRunFile(t *testing.T, path string, third int, fn func(*capture.Record), done func()) heapProfile {
	t.Helper()
	r, err := capture.Open(path, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	heap := func() uint64 { return afterGC().HeapInuse }
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
		if records++; records%50_000 == 0 || records == third {
			v := heap()
			if records == third {
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
	return h
}

// TestCheckMemoryFlatOverManyRuns: check's tables are bounded by a count of
// runs (pipeline.DefaultMaxRuns), so a capture of 30,000 short runs fills
// them before a third of the way in; the heap must not grow after that.
func TestCheckMemoryFlatOverManyRuns(t *testing.T) {
	a, _ := check.New(check.Options{})
	a.OnFinding = func(*check.Finding) error { return nil } // printed and gone, as in clawtap check
	p := pipeline.New(pipeline.Options{}, a)
	h := memoryRunFile(t, manyRunsCapture(t, 30_000, 5), 90_000, func(rec *capture.Record) {
		if _, err := p.Push(rec, nil); err != nil {
			t.Fatal(err)
		}
	}, func() { p.Close(capture.Stats{}) })
	if sum := a.Summary(); sum.Runs < 30_000 {
		t.Fatalf("check saw %d runs, want 30,000: the capture no longer has the runs this test needs", sum.Runs)
	}
	if h.end > h.third+2<<20 {
		t.Fatalf("heap in use grew from %.1f MiB a third in to %.1f MiB at the end: check must not grow with the capture's runs", h.mib(h.third), h.mib(h.end))
	}
	t.Logf("heap in use: %.1f MiB a third in, %.1f MiB at the end, peak %.1f MiB", h.mib(h.third), h.mib(h.end), h.mib(h.peak))
}

// TestDiffUIsMemoryFlatOverManyRuns: diff --ui compares each run once both
// replays let it go, so its heap stays flat over 30,000 runs.
func TestDiffUIsMemoryFlatOverManyRuns(t *testing.T) {
	path := manyRunsCapture(t, 30_000, 5)
	open := func() pipeline.AheadSource {
		r, err := capture.Open(path, capture.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		return pipeline.Records(r)
	}
	a := &sampled{AheadSource: open(), at: map[int]*uint64{}}
	var third, last uint64
	a.at[90_000], a.at[260_000] = &third, &last
	res, err := diff.CompareUIs(a, [2]replay.UI{models.MustLookup("clawboo@1211c16"), models.MustLookup("claw3d")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.MetaRuns < 30_000 || third == 0 || last == 0 {
		t.Fatalf("compared %d runs over %d records, want 30,000 runs past record 260,000: the capture no longer has what this test needs", res.MetaRuns, a.n)
	}
	mib := func(v uint64) float64 { return float64(v) / (1 << 20) }
	if last > third+4<<20 { // a slice that doubles, not a run's worth each
		t.Fatalf("live heap grew from %.1f MiB at record 90,000 to %.1f MiB at record 260,000: diff --ui must not grow with the capture's runs", mib(third), mib(last))
	}
	t.Logf("live heap: %.1f MiB at record 90,000, %.1f MiB at record 260,000", mib(third), mib(last))
}

// sampled is a source that samples the live heap (after a GC) when it
// hands out the records named in at.
type sampled struct {
	pipeline.AheadSource
	n  int
	at map[int]*uint64
}

func (s *sampled) Next() (*capture.Record, *bridge.Event, error) {
	if p := s.at[s.n]; p != nil {
		*p = afterGC().HeapAlloc
	}
	s.n++
	return s.AheadSource.Next()
}

// afterGC collects garbage and reads the memory statistics: what the heap
// holds live.
func afterGC() runtime.MemStats {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms
}

// TestReportMemoryOverManyRuns: the report writes each run to a temporary
// file as the pass lets it go, and the findings there in sorted blocks;
// what stays on the heap for each run is its lane and track, and how many
// rows it has. 40,000 more short runs (and as many findings) must cost far
// less than the 100 bytes a run they once did.
func TestReportMemoryOverManyRuns(t *testing.T) {
	an, err := check.New(check.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := report.NewBuilder(report.Options{Name: "many"})
	rep := b.Report()
	defer rep.Close()
	p := pipeline.New(pipeline.Options{}, an, b)
	h := memoryRunFile(t, manyRunsCapture(t, 60_000, 5), 240_000, func(rec *capture.Record) {
		if _, err := p.Push(rec, nil); err != nil {
			t.Fatal(err)
		}
	}, func() {
		if err := p.Close(capture.Stats{}); err != nil {
			t.Fatal(err)
		}
	})
	if rep.NumRuns() < 60_000 || rep.NumFindings() < 60_000 {
		t.Fatalf("%d runs and %d findings, want 60,000 of each: the capture no longer has what this test needs", rep.NumRuns(), rep.NumFindings())
	}
	if h.end > h.third+2<<20 {
		t.Fatalf("heap in use grew from %.1f MiB at 20,000 runs to %.1f MiB at 60,000: the report must not keep much for each run", h.mib(h.third), h.mib(h.end))
	}
	t.Logf("heap in use: %.1f MiB at 20,000 runs, %.1f MiB at 60,000, peak %.1f MiB", h.mib(h.third), h.mib(h.end), h.mib(h.peak))
}
