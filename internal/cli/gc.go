package cli

import (
	"os"
	"runtime/debug"
)

// The GC's heap growth and memory limit clawtap chooses for a command,
// unless GOGC and GOMEMLIMIT say otherwise (bench/README.md, "Memory",
// has the measurements).
const (
	// gcPercent is the default. Reading a capture keeps a few large
	// buffers without pointers (the zstd window, the read-ahead's
	// batches), which the GC marks for nothing; letting the heap grow by
	// half of what is live instead of Go's whole keeps the peak RSS of
	// the commands that hold more (check, diff, report) lower, for 1–3%
	// more CPU.
	gcPercent = 50
	// allocHeavyGC is for a command that allocates much short-lived
	// memory (schema validation decodes every frame into maps): there
	// marking is the GC's cost, and gcPercent would run it twice as often
	// (validate: 18% more CPU). Three quarters of the live heap keeps
	// validate's peak RSS under 50 MB for about 4% more CPU than Go's
	// default.
	allocHeavyGC = 75
	// smallHeapGC is for a command whose live heap stays small whatever
	// the capture (classify, intents, replay, stats: 6–12 MB): Go's
	// default. Doubling a heap that small costs 2–4 MB of RSS and halves
	// the GC's cycles, 4–6% of the time on a million frames.
	smallHeapGC = 100
	// boundedLimit is the soft memory limit of a command whose live heap
	// is large, though flat (report: 17-20 MB whatever the capture, its
	// runs and findings waiting in temporary files). With Go's default
	// growth the heap would reach twice that, so the limit, not the live
	// heap, sets the peak: about the limit plus the binary's 10 MB of
	// pages. 36 MiB costs under 1% more time than 38 on a million frames,
	// three million and 360,000 short runs, and takes 1.5-3 MB off each
	// peak (45.7 against 47.6 MB on the short runs); 34 costs 4-6%.
	boundedLimit = 36 << 20
	// boundedGC is the heap growth under that limit: Go's default. On a
	// million frames 100 costs 2.6 MB of RSS against 50 (47.8 against
	// 45.2 MB in the bench, under 38 MiB) and saves 6% of report's CPU,
	// the GC's cycles going from 24 to 15.
	boundedGC = 100
)

// Memory is how a command's heap may grow while it runs: the GC's
// percent (GOGC) and a soft memory limit (GOMEMLIMIT). A command runs
// under one (Apply), and leaves the process as it found it.
type Memory struct {
	GCPercent int   // the heap growth
	Limit     int64 // the soft memory limit in bytes; 0 is none
}

// The memory profiles of clawtap's commands.
var (
	// DefaultMemory is every command's unless it says otherwise.
	DefaultMemory = Memory{GCPercent: gcPercent}
	// SmallHeap is for a command whose live heap stays small whatever the
	// capture (classify, intents, replay, stats).
	SmallHeap = Memory{GCPercent: smallHeapGC}
	// AllocHeavy is for a command that allocates much short-lived memory
	// (validate, check --schema).
	AllocHeavy = Memory{GCPercent: allocHeavyGC}
	// MemoryBound is for a command whose live heap is large, though flat
	// (report): a soft limit and the heap growth that goes with it.
	MemoryBound = Memory{GCPercent: boundedGC, Limit: boundedLimit}
)

// Apply sets m's heap growth, unless GOGC is set, and its memory limit,
// unless GOMEMLIMIT is set or m has none, and returns the function that
// puts back what was there before.
func (m Memory) Apply() (restore func()) {
	setGC := os.Getenv("GOGC") == ""
	setLimit := m.Limit > 0 && os.Getenv("GOMEMLIMIT") == ""
	prevGC, prevLimit := 0, int64(0)
	if setGC {
		prevGC = debug.SetGCPercent(m.GCPercent)
	}
	if setLimit {
		prevLimit = debug.SetMemoryLimit(m.Limit)
	}
	return func() {
		if setLimit {
			debug.SetMemoryLimit(prevLimit)
		}
		if setGC {
			debug.SetGCPercent(prevGC)
		}
	}
}
