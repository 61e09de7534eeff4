package replay

import (
	"bytes"
	"path/filepath"
	"testing"
)

// TestDeterministic replays every fixture 20 times and requires
// byte-identical output: no wall clock, no map-order dependence, no
// goroutines. Run it under the race detector and with both one and several
// OS threads too (CI's `make test` runs -race):
//
//	go test -race -run Deterministic ./pkg/replay/
//	GOMAXPROCS=1 go test -count=1 -run Deterministic ./pkg/replay/
//	GOMAXPROCS=8 go test -count=1 -run Deterministic ./pkg/replay/
func TestDeterministic(t *testing.T) {
	files, _ := filepath.Glob("../../fixtures/*.jsonl*")
	if len(files) == 0 {
		t.Fatal("no fixtures: run go run ./fixtures/gen")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			first := runFile(t, f, false) + runFile(t, f, true)
			for i := 1; i < 20; i++ {
				again := runFile(t, f, false) + runFile(t, f, true)
				if !bytes.Equal([]byte(first), []byte(again)) {
					t.Fatalf("run %d differs from run 0:\n%s", i, UnifiedDiff("run0", "run", []byte(first), []byte(again)))
				}
			}
		})
	}
}
