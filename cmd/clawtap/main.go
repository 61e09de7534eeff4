// Command clawtap records, replays and debugs the OpenClaw Gateway's
// WebSocket event stream. See README.md and docs/.
package main

import (
	"fmt"
	"os"
	"runtime/debug"
	"runtime/pprof"
)

// gcPercent is the heap growth clawtap lets the GC allow, unless GOGC says
// otherwise. Reading a capture keeps a few large buffers without pointers
// (the zstd window of 8 MB, the read-ahead's batches), which the GC marks
// for nothing; letting the heap grow by half of what is live instead of
// Go's whole keeps peak RSS under 50 MB for most read commands, for 1–3%
// more CPU (bench/README.md).
const gcPercent = 50

// gcTuned is set when main chose gcPercent (GOGC was not set).
var gcTuned bool

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
		gcTuned = true
	}
	stop := profile(os.Getenv("CLAWTAP_CPUPROFILE"))
	code := Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	heapProfile(os.Getenv("CLAWTAP_MEMPROFILE"))
	os.Exit(code)
}

// profile writes a CPU profile of the whole run to path, when set: the
// real command's profile, for bench/README.md's "Profiling".
func profile(path string) (stop func()) {
	if path == "" {
		return func() {}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "clawtap: warning: CLAWTAP_CPUPROFILE: %v\n", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

// heapProfile writes the heap's profile at the end of the run to path, when
// set: what a command still held when it finished (bench/README.md).
func heapProfile(path string) {
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err == nil {
		err = pprof.Lookup("heap").WriteTo(f, 0)
		f.Close()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "clawtap: warning: CLAWTAP_MEMPROFILE: %v\n", err)
	}
}

// allocHeavyGC is the heap growth for a command that allocates much
// short-lived memory (schema validation decodes every frame into maps):
// there marking is the GC's cost, and gcPercent would run it twice as
// often (validate: 18% more CPU). Three quarters of the live heap keeps
// validate's peak RSS under 50 MB for about 4% more CPU than Go's default.
const allocHeavyGC = 75

// allocHeavy gives such a command allocHeavyGC, unless GOGC says otherwise.
func allocHeavy() {
	if gcTuned {
		debug.SetGCPercent(allocHeavyGC)
	}
}

// smallHeapGC is the heap growth for a command whose live heap stays
// small whatever the capture (classify, intents, replay, stats: 6–12 MB):
// Go's default. Doubling a heap that small costs 2–4 MB of RSS and halves
// the GC's cycles, 4–6% of the time on a million frames (bench/README.md).
const smallHeapGC = 100

// smallHeap gives such a command smallHeapGC, unless GOGC says otherwise.
func smallHeap() {
	if gcTuned {
		debug.SetGCPercent(smallHeapGC)
	}
}
