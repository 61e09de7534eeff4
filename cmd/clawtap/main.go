// Command clawtap records, replays and debugs the OpenClaw Gateway's
// WebSocket event stream. See README.md and docs/.
package main

import (
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/output"
)

// main runs clawtap on the process's arguments and streams. Each command
// sets the GC's heap growth (and report a soft memory limit) as it runs:
// cli.Memory, applied by app.run.
func main() {
	stop := profile(os.Getenv("CLAWTAP_CPUPROFILE"))
	code := processMain(os.Args[1:])
	stop()
	heapProfile(os.Getenv("CLAWTAP_MEMPROFILE"))
	os.Exit(code)
}

// processMain is Main as the process runs it: a SIGINT or SIGTERM that
// the command does not handle itself (record, serve and test do) ends the
// process at once, leaving no temporary file behind (cli.ExitOnSignal);
// and what a command left under way as it ended (a suite stopped by a
// signal does not wait for a capture stuck in a read) is not left on disk.
func processMain(args []string) int {
	defer cli.ExitOnSignal()()
	defer output.RemoveTemporaries()
	return Main(args, os.Stdin, os.Stdout, os.Stderr)
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
