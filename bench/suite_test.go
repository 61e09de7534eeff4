package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/clawtap/clawtap/internal/suite"
	"github.com/clawtap/clawtap/internal/synth"
	"github.com/clawtap/clawtap/pkg/capture"
)

// suiteFolder writes n generated captures (each a different seed of
// synth.Large, frames frames long) and their goldens and expectations.
func suiteFolder(b *testing.B, n, frames int) []suite.Capture {
	dir := b.TempDir()
	for i := range n {
		w, err := capture.Create(filepath.Join(dir, fmt.Sprintf("c%03d.jsonl.zst", i)))
		if err != nil {
			b.Fatal(err)
		}
		if err := synth.Large(w, frames, int64(i+1)); err != nil {
			b.Fatal(err)
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	caps, err := suite.Discover([]string{dir})
	if err != nil {
		b.Fatal(err)
	}
	err = suite.Run(context.Background(), caps, suite.Config{Update: true, Jobs: runtime.NumCPU()}, func(r *suite.Result) error {
		if r.Err != nil {
			return r.Err
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return caps
}

// BenchmarkSuite runs a suite of 200 captures (CLAWTAP_SUITE_BENCH_FRAMES
// frames each, default 1000) with one worker and with one per CPU, and
// reports both times and the speed-up (the target: at least 0.8 × CPUs on
// an idle machine). It runs on every CPU whatever -cpu says.
func BenchmarkSuite(b *testing.B) {
	frames := 1000
	if s := os.Getenv("CLAWTAP_SUITE_BENCH_FRAMES"); s != "" {
		var err error
		if frames, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	caps := suiteFolder(b, 200, frames)
	cpus := runtime.NumCPU()
	// The speed-up is the point: make bench's -cpu 1 must not hide it.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(cpus))
	timeRun := func(jobs int) time.Duration {
		start := time.Now()
		err := suite.Run(context.Background(), caps, suite.Config{Jobs: jobs}, func(r *suite.Result) error {
			if r.Status() != suite.Pass {
				return fmt.Errorf("%s: %s %v", r.Capture.Path, r.Status(), r.Err)
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	b.ResetTimer()
	var one, all time.Duration
	for range b.N {
		one += timeRun(1)
		all += timeRun(cpus)
	}
	n := time.Duration(b.N)
	b.ReportMetric((one / n).Seconds(), "s/j1")
	b.ReportMetric((all / n).Seconds(), "s/jCPUs")
	b.ReportMetric(float64(one)/float64(all), "speedup")
	b.ReportMetric(float64(cpus), "CPUs")
	b.Logf("200 captures × %d frames: -j 1 %v, -j %d %v, speed-up %.2f× on %d CPUs", frames, one/n, cpus, all/n, float64(one)/float64(all), cpus)
}
