//go:build unix

package cli

import (
	"os"
	"os/signal"
	"syscall"
	"time"
)

// die ends the process by sig, its default action restored, so that the
// parent sees what ended it (a shell prints 130 for SIGINT, 143 for
// SIGTERM); should the signal be ignored, it exits with 128+sig.
func die(sig syscall.Signal) {
	signal.Reset(sig)
	_ = syscall.Kill(os.Getpid(), sig)
	time.Sleep(time.Second)
	os.Exit(128 + int(sig))
}
