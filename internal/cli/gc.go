package cli

import (
	"os"
	"runtime/debug"
)

// The GC's heap growth clawtap chooses, unless GOGC says otherwise
// (bench/README.md, "Memory", has the measurements).
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

// gcTuned is set when TuneGC chose the heap growth (GOGC was not set).
var gcTuned bool

// MemoryBound gives a command whose live heap is large a soft memory
// limit, unless GOMEMLIMIT is set, and the heap growth that goes with
// it, unless GOGC is set.
func MemoryBound() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(boundedLimit)
	}
	setGC(boundedGC)
}

// TuneGC sets clawtap's default heap growth, unless GOGC is set; main
// calls it first.
func TuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
		gcTuned = true
	}
}

// AllocHeavy gives an allocation-heavy command its heap growth.
func AllocHeavy() { setGC(allocHeavyGC) }

// SmallHeap gives a command with a small live heap Go's default.
func SmallHeap() { setGC(smallHeapGC) }

func setGC(percent int) {
	if gcTuned {
		debug.SetGCPercent(percent)
	}
}
