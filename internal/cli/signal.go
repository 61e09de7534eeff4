package cli

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
)

// ErrSignal is the cause of a context that Interrupts ended.
var ErrSignal = errors.New("signal")

// Interrupts stops work on the first SIGINT or SIGTERM (ctx ends with
// cause ErrSignal, after onFirst, which may be nil) and closes aborted on
// a second one. stop releases the signals.
func Interrupts(parent context.Context, onFirst func(os.Signal)) (ctx context.Context, aborted <-chan struct{}, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sigc := make(chan os.Signal, 2)
	signal.Notify(sigc, os.Interrupt, syscall.SIGTERM)
	ab, done := make(chan struct{}), make(chan struct{})
	go func() {
		select {
		case s := <-sigc:
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
		close(done)
		cancel(nil)
	}
}
