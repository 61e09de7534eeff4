package cli

import (
	"math"
	"runtime/debug"
	"testing"
)

func gcPercentNow() int     { p := debug.SetGCPercent(-1); debug.SetGCPercent(p); return p }
func memoryLimitNow() int64 { return debug.SetMemoryLimit(-1) }

// clawtap's heap growth follows the command unless GOGC was set, and
// goes back to what it was when the command is done.
func TestGCFollowsTheCommandUnlessGOGCIsSet(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	for _, c := range []struct {
		name string
		m    Memory
		want int
	}{
		{"default", DefaultMemory, gcPercent},
		{"a small heap", SmallHeap, smallHeapGC},
		{"allocation-heavy", AllocHeavy, allocHeavyGC},
		{"memory-bound", MemoryBound, boundedGC},
	} {
		debug.SetGCPercent(123)
		restore := c.m.Apply()
		if p := gcPercentNow(); p != c.want {
			t.Errorf("%s: GOGC=%d, want %d", c.name, p, c.want)
		}
		restore()
		if p := gcPercentNow(); p != 123 {
			t.Errorf("%s: GOGC=%d after the command, want 123 as before", c.name, p)
		}
	}

	debug.SetGCPercent(200)
	t.Setenv("GOGC", "200")
	for _, m := range []Memory{DefaultMemory, SmallHeap, AllocHeavy, MemoryBound} {
		restore := m.Apply()
		if p := gcPercentNow(); p != 200 {
			t.Errorf("GOGC=200 set by the user became %d", p)
		}
		restore()
	}
}

// report's memory limit holds unless GOMEMLIMIT was set, and goes when
// the command is done.
func TestMemoryBoundUnlessGOMEMLIMITIsSet(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	defer debug.SetGCPercent(debug.SetGCPercent(-1))

	debug.SetMemoryLimit(math.MaxInt64)
	t.Setenv("GOMEMLIMIT", "")
	restore := MemoryBound.Apply()
	if l := memoryLimitNow(); l != boundedLimit {
		t.Errorf("default: limit %d, want %d", l, boundedLimit)
	}
	restore()
	if l := memoryLimitNow(); l != math.MaxInt64 {
		t.Errorf("after the command: limit %d, want none (%d) as before", l, int64(math.MaxInt64))
	}
	restore = DefaultMemory.Apply()
	if l := memoryLimitNow(); l != math.MaxInt64 {
		t.Errorf("a command without a limit set one: %d", l)
	}
	restore()

	debug.SetMemoryLimit(1 << 30)
	t.Setenv("GOMEMLIMIT", "1GiB")
	restore = MemoryBound.Apply()
	if l := memoryLimitNow(); l != 1<<30 {
		t.Errorf("GOMEMLIMIT=1GiB set by the user became %d", l)
	}
	restore()
	if l := memoryLimitNow(); l != 1<<30 {
		t.Errorf("GOMEMLIMIT=1GiB set by the user became %d after the command", l)
	}
}
