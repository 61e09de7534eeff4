package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/capture"
)

// recOutput is where record writes. Nothing reaches the path the user
// named until a handshake with the gateway succeeded: a regular file is
// written under a temporary name and published then; standard output, a
// pipe or a device gets the held bytes then. A recording that never
// reached the gateway leaves nothing.
type recOutput struct {
	dest      *output.Dest
	hold      *holdWriter // nil for a regular file: its temporary name holds it back
	published atomic.Bool

	mu    sync.Mutex // the recorder publishes while a second signal may abort
	ended bool
}

// openRecordOutput opens path under clawtap's output rules ("-" is
// standard output) and a capture writer on it, zstd-compressed when a
// file's name ends in .zst.
func (a *app) openRecordOutput(path string, force bool) (*recOutput, *capture.Writer, error) {
	special := false
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		special = true
	}
	dest, err := output.Create(path, output.Options{Force: force, Stdout: a.stdout})
	switch {
	case errors.Is(err, output.ErrExists):
		return nil, nil, usageError("choose another name or add --force", "%s already exists", path)
	case err != nil:
		return nil, nil, usageError("check the directory exists and is writable", "create %s: %v", path, err)
	}
	o := &recOutput{dest: dest}
	var sink io.Writer = dest
	if dest.IsStdout() || special {
		o.hold = &holdWriter{w: dest, held: true}
		sink = o.hold
	}
	w, err := capture.NewWriter(sink, !dest.IsStdout() && strings.HasSuffix(path, ".zst"))
	if err != nil {
		dest.Abort()
		return nil, nil, &exitError{code: exitTrouble, err: err}
	}
	return o, w, nil
}

// name is the path written, or "stdout".
func (o *recOutput) name() string { return o.dest.Name() }

// publish puts what was held back in place: the recorder reached the
// gateway.
func (o *recOutput) publish() error {
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

// commit completes the output, publishing it if that has not happened.
func (o *recOutput) commit() error {
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

// abort ends the output after a failure: a published file keeps what was
// flushed; anything not published disappears.
func (o *recOutput) abort() {
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
