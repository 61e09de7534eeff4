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
	// still grows, slowly, with the capture (report: about 100 bytes a
	// run and its finding). Below it the GC runs as boundedGC says; near
	// it, more often. report's live heap is 17 MB on a million frames
	// (the limit never binds) and 22 MB on three million, where it keeps
	// the peak RSS at 46 MB instead of 54 for 3% more time.
	boundedLimit = 38 << 20
	// boundedGC is the heap growth under that limit: Go's default. The
	// limit or the live heap, not the growth, sets the peak of a long
	// capture (48 MB on three million frames, 49–50.5 MB on 90,000 runs,
	// either way); on a million frames 100 costs 2.6 MB of RSS against 50
	// (47.8 against 45.2 MB in the bench) and saves 6% of report's CPU,
	// the GC's cycles going from 24 to 15.
	boundedGC = 100
)

// gcTuned is set when TuneGC chose the heap growth (GOGC was not set).
var gcTuned bool

// MemoryBound gives a command whose memory grows a little with the
// capture a soft memory limit, unless GOMEMLIMIT is set, and the heap
// growth that goes with it, unless GOGC is set.
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
