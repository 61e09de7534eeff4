//go:build !unix

package cli

import (
	"os"
	"syscall"
)

// die ends the process with 128+sig, the code a shell gives a process a
// signal ended: there is no signal to send itself here.
func die(sig syscall.Signal) {
	os.Exit(128 + int(sig))
}
