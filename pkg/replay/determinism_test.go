package replay_test

import (
	"bytes"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/clawtap/clawtap/pkg/models"

	"github.com/clawtap/clawtap/pkg/replay"
)

// TestDeterministic replays every fixture under every UI 20 times and requires
// byte-identical output: no wall clock, no map-order dependence, no
// goroutines. The runs alternate between one and eight OS threads
// (GOMAXPROCS 1 and 8); make test runs it in its long stage, without the
// race detector (skipLarge).
func TestDeterministic(t *testing.T) {
	skipLarge(t)
	files, _ := filepath.Glob("../../fixtures/*.jsonl*")
	if len(files) == 0 {
		t.Fatal("no fixtures: run go run ./fixtures/gen")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	// Each run opens its fixture afresh (a decoder and read-ahead buffers,
	// about 1.5 MB), so the heap's floor set a collection every few runs;
	// at GOMAXPROCS 8 on a two-core machine those took three quarters of
	// the test's time (17 s; 4 s collecting a fifth as often). What the
	// test compares, the replays' output, does not depend on when the
	// collector runs.
	defer debug.SetGCPercent(debug.SetGCPercent(500))
	for _, u := range models.All() {
		for _, f := range files {
			t.Run(u.String()+"/"+filepath.Base(f), func(t *testing.T) {
				runtime.GOMAXPROCS(1)
				first := runFile(t, u, f, false) + runFile(t, u, f, true)
				for i := 1; i < 20; i++ {
					procs := []int{1, 8}[i%2]
					runtime.GOMAXPROCS(procs)
					again := runFile(t, u, f, false) + runFile(t, u, f, true)
					if !bytes.Equal([]byte(first), []byte(again)) {
						t.Fatalf("run %d (GOMAXPROCS %d) differs from run 0 (GOMAXPROCS 1):\n%s", i, procs, replay.UnifiedDiff("run0", "run", []byte(first), []byte(again)))
					}
				}
			})
		}
	}
}
