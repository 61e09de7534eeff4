package cli

import (
	"math"
	"runtime/debug"
	"testing"
)

// clawtap's heap growth follows the command unless GOGC was set.
func TestGCFollowsTheCommandUnlessGOGCIsSet(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer func(v bool) { gcTuned = v }(gcTuned)
	percent := func() int { p := debug.SetGCPercent(-1); debug.SetGCPercent(p); return p }

	t.Setenv("GOGC", "")
	TuneGC()
	if p := percent(); p != gcPercent {
		t.Errorf("default: GOGC=%d, want %d", p, gcPercent)
	}
	SmallHeap()
	if p := percent(); p != smallHeapGC {
		t.Errorf("a small heap: GOGC=%d, want %d", p, smallHeapGC)
	}
	AllocHeavy()
	if p := percent(); p != allocHeavyGC {
		t.Errorf("allocation-heavy: GOGC=%d, want %d", p, allocHeavyGC)
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	t.Setenv("GOMEMLIMIT", "")
	MemoryBound()
	if p := percent(); p != boundedGC {
		t.Errorf("memory-bound: GOGC=%d, want %d", p, boundedGC)
	}

	gcTuned = false
	debug.SetGCPercent(200)
	t.Setenv("GOGC", "200")
	TuneGC()
	SmallHeap()
	AllocHeavy()
	MemoryBound()
	if p := percent(); p != 200 {
		t.Errorf("GOGC=200 set by the user became %d", p)
	}
}

// report's memory limit holds unless GOMEMLIMIT was set.
func TestMemoryBoundUnlessGOMEMLIMITIsSet(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	limit := func() int64 { return debug.SetMemoryLimit(-1) }

	debug.SetMemoryLimit(math.MaxInt64)
	t.Setenv("GOMEMLIMIT", "")
	MemoryBound()
	if l := limit(); l != boundedLimit {
		t.Errorf("default: limit %d, want %d", l, boundedLimit)
	}

	debug.SetMemoryLimit(1 << 30)
	t.Setenv("GOMEMLIMIT", "1GiB")
	MemoryBound()
	if l := limit(); l != 1<<30 {
		t.Errorf("GOMEMLIMIT=1GiB set by the user became %d", l)
	}
}
