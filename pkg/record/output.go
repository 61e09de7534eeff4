package record

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
)

// Destination is where an Output's bytes go: a file written under a
// temporary name that Publish puts in place and Commit completes, or a
// stream (stdout, a pipe, a device) where Publish does nothing. Abort
// drops what was not published. clawtap's output.Dest is one.
type Destination interface {
	io.Writer
	Publish() error
	Commit() error
	Abort()
	Name() string
}

// Output is where a recording is written. Nothing reaches the path the
// user named until a handshake with the gateway succeeded (Publish, the
// Recorder's OnHandshake): a file is held back by its temporary name; a
// stream's bytes are held in memory (Hold). A recording that never reached
// the gateway leaves nothing. Publish, Commit and Abort may be called from
// different goroutines.
type Output struct {
	dest      Destination
	hold      *holdWriter // nil when the destination holds back itself
	published atomic.Bool

	mu    sync.Mutex // the recorder publishes while a second signal may abort
	ended bool
}

// NewOutput writes to d; hold keeps the bytes in memory until Publish, for
// a destination that cannot hold them back itself.
func NewOutput(d Destination, hold bool) *Output {
	o := &Output{dest: d}
	if hold {
		o.hold = &holdWriter{w: d, held: true}
	}
	return o
}

// Write writes to the destination, or holds p until Publish.
func (o *Output) Write(p []byte) (int, error) {
	if o.hold != nil {
		return o.hold.Write(p)
	}
	return o.dest.Write(p)
}

// Name is the destination's name.
func (o *Output) Name() string { return o.dest.Name() }

// Published reports whether Publish succeeded.
func (o *Output) Published() bool { return o.published.Load() }

// Publish puts what was held back in place: the recorder reached the
// gateway.
func (o *Output) Publish() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ended {
		return errors.New("the output was closed")
	}
	var err error
	if o.hold != nil {
		err = o.hold.release()
	} else if err = o.dest.Publish(); err != nil {
		err = fmt.Errorf("put the capture in place: %w", err)
	}
	if err == nil {
		o.published.Store(true)
	}
	return err
}

// Commit completes the output, publishing it if that has not happened.
func (o *Output) Commit() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.ended = true
	if o.hold != nil {
		if err := o.hold.release(); err != nil {
			o.dest.Abort()
			return err
		}
	}
	return o.dest.Commit()
}

// Abort ends the output after a failure: a published file keeps what was
// flushed; anything not published disappears.
func (o *Output) Abort() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.ended {
		o.ended = true
		o.dest.Abort()
	}
}

// holdMax bounds what a holdWriter keeps: a gateway that stays
// unavailable for hours must not grow memory.
const holdMax = 1 << 20

// holdWriter keeps what is written in memory until release, then writes
// through. Past holdMax bytes it releases by itself.
type holdWriter struct {
	mu   sync.Mutex
	w    io.Writer
	buf  []byte
	held bool
}

func (h *holdWriter) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.held {
		return h.w.Write(p)
	}
	h.buf = append(h.buf, p...)
	if len(h.buf) > holdMax {
		return len(p), h.releaseLocked()
	}
	return len(p), nil
}

func (h *holdWriter) release() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.releaseLocked()
}

func (h *holdWriter) releaseLocked() error {
	if !h.held {
		return nil
	}
	h.held = false
	_, err := h.w.Write(h.buf)
	h.buf = nil
	return err
}
