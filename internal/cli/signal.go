package cli

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"github.com/clawtap/clawtap/internal/output"
)

// ErrSignal is the cause of a context that Interrupts ended.
var ErrSignal = errors.New("signal")

// handling counts the Interrupts in force: while one is, a signal is the
// command's to handle, not ExitOnSignal's. handled says a command took a
// signal: ExitOnSignal may read its own copy of it only after the command
// has returned and released its Interrupts, and must not end the process
// by a signal the command answered (exit 130).
var (
	handling atomic.Int32
	handled  atomic.Bool
)

// Interrupts stops work on the first SIGINT or SIGTERM (ctx ends with
// cause ErrSignal, after onFirst, which may be nil) and closes aborted on
// a second one. stop releases the signals. While it is in force, the
// command that called it handles the signals: ExitOnSignal leaves them.
func Interrupts(parent context.Context, onFirst func(os.Signal)) (ctx context.Context, aborted <-chan struct{}, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sigc := make(chan os.Signal, 2)
	handling.Add(1)
	signal.Notify(sigc, os.Interrupt, syscall.SIGTERM)
	ab, done := make(chan struct{}), make(chan struct{})
	go func() {
		select {
		case s := <-sigc:
			handled.Store(true)
			if onFirst != nil {
				onFirst(s)
			}
			cancel(ErrSignal)
		case <-done:
			return
		}
		select {
		case <-sigc:
			close(ab)
		case <-done:
		}
	}()
	return ctx, ab, func() {
		signal.Stop(sigc)
		handling.Add(-1)
		close(done)
		cancel(nil)
	}
}

// ExitOnSignal is for the process, not a command: from now until release,
// a SIGINT or SIGTERM that no command handles (Interrupts) removes the
// temporary files of the outputs being written (output.RemoveTemporaries)
// and ends the process at once, by that signal, as it would have ended
// without a handler. A command that reads or computes has nothing to
// finish: its output is not complete, and none is left behind.
func ExitOnSignal() (release func()) {
	sigc := make(chan os.Signal, 4)
	signal.Notify(sigc, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigc:
				if handling.Load() > 0 || handled.Load() {
					continue
				}
				output.RemoveTemporaries()
				die(s.(syscall.Signal))
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(sigc)
		close(done)
	}
}
