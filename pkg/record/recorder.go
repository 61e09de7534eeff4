// Package record records an OpenClaw gateway's WebSocket frames into a
// capture: as a client that does its own handshake and reconnects
// (Recorder.Record), or as a proxy between a UI and the gateway that
// records what the UI saw (Recorder.Proxy).
//
// Every record is redacted before it reaches the capture writer. The
// caller owns the writer, the clock, the context that stops the recording
// and what becomes of the file; the package never exits the process and
// never touches a signal.
package record

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/redact"
)

// DefaultFlushInterval is how often buffered records reach the file when
// Recorder.FlushInterval is zero.
const DefaultFlushInterval = 250 * time.Millisecond

// ErrLimit is the cause of a recording that MaxFrames or MaxBytes ended.
var ErrLimit = errors.New("limit reached")

// Redaction says what a Recorder removes before a record reaches the
// capture. The zero value removes credentials.
type Redaction struct {
	// Off writes frames as received, credentials included; the header
	// says so.
	Off bool
	// Content also masks message text, tool arguments and results and
	// attachments, and pseudonymises device ids, hosts and paths.
	Content bool
	// Salt keys Content's placeholders, so captures made with the same
	// salt line up; random per Recorder when empty.
	Salt []byte
}

// Clock is a Recorder's time: frame and marker times, backoff waits and
// the flush interval.
type Clock interface {
	Now() time.Time
	// Sleep waits d, or less if ctx ends first; it reports whether the
	// whole wait passed.
	Sleep(ctx context.Context, d time.Duration) bool
}

// RealClock is the wall clock.
type RealClock struct{}

// Now is time.Now.
func (RealClock) Now() time.Time { return time.Now() }

// Sleep waits d or until ctx ends.
func (RealClock) Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// Stats are a Recorder's running totals: what a status line and a summary
// show.
type Stats struct {
	State    string // starting, connecting, connected, reconnecting, waiting …, listening, stopped
	Conns    int    // connection numbers handed out, failed attempts included
	Opened   int    // connections whose WebSocket opened
	Frames   int64  // frames recorded
	Bytes    int64  // their length as received
	Gaps     int    // times the gateway's event seq skipped on a connection
	InFlight int    // runs started and not yet finished
	Peers    int    // proxy: clients connected now
	Oversize int    // proxy: messages larger than the buffer, forwarded but not recorded
	LimitHit bool   // MaxFrames or MaxBytes ended the recording
	// SubscribeRefused counts the connections whose sessions.subscribe
	// (Direct.SubscribeSessions) the gateway refused.
	SubscribeRefused int
}

// redactor is what pkg/redact's Redactor does for a recorder: Record
// returns rec itself when nothing changes, else a copy; it never modifies
// rec.
type redactor interface {
	Record(rec *capture.Record) *capture.Record
	Header(h capture.Header) capture.Header
}

// Recorder writes a gateway's frames and connection markers into a
// capture, redacting first. Set the fields, then call Record or Proxy
// once; Stats may be called at any time from any goroutine.
type Recorder struct {
	// Capture receives the header, then frames and markers. Required.
	// The Recorder flushes it but does not close it.
	Capture *capture.Writer
	// Tool names the recorder in the header (source.tool).
	Tool string
	// Redaction is what is removed before anything reaches Capture.
	Redaction Redaction
	// Clock gives times and waits; RealClock when nil.
	Clock Clock
	// MaxFrames and MaxBytes end the recording cleanly once reached
	// (ErrLimit); a frame that would pass MaxBytes is not written. Zero
	// means no limit.
	MaxFrames int64
	MaxBytes  int64
	// FlushInterval is how often buffered records are flushed, which is
	// what a crash can lose; DefaultFlushInterval when zero, only at
	// markers when negative. Markers are always flushed at once.
	FlushInterval time.Duration
	// OnHandshake runs once, when a handshake with the gateway first
	// succeeds, before its hello marker is flushed: the moment to publish
	// a file written under a temporary name. An error ends the recording
	// and is returned.
	OnHandshake func() error
	// Logf and Warnf receive progress and warnings, one line each, never
	// a secret; nil discards them.
	Logf, Warnf func(format string, args ...any)

	clock     Clock
	red       redactor
	stop      context.CancelCauseFunc
	aborted   atomic.Bool
	handshake sync.Once

	mu        sync.Mutex
	started   bool
	st        Stats
	scratch   capture.Record
	dirty     bool
	werr      error
	lastSeq   map[int]int64
	runs      map[string]bool // runId → still running (false: finished)
	shutdowns map[int]bool
}

// errWrite marks an error of the capture writer, as opposed to one of
// the network.
type errWrite struct{ err error }

func (e *errWrite) Error() string { return e.err.Error() }
func (e *errWrite) Unwrap() error { return e.err }

// IsWriteError reports whether err came from writing the capture (a full
// disk, a closed pipe) rather than from the gateway.
func IsWriteError(err error) bool {
	var we *errWrite
	return errors.As(err, &we)
}

// Stats returns the running totals.
func (r *Recorder) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.st
	if s.State == "" {
		s.State = "starting"
	}
	return s
}

// Abort stops writing at once, for a process about to exit: no record is
// started after it returns and nothing is flushed. The capture keeps what
// was flushed before.
func (r *Recorder) Abort() { r.aborted.Store(true) }

// begin writes the header and starts the flush loop. It returns the
// recording's context (ended by ctx, a limit or a write error) and end,
// which stops the loop, flushes and returns the first write error.
func (r *Recorder) begin(ctx context.Context, src capture.Source) (context.Context, func() error, error) {
	if r.Capture == nil {
		return nil, nil, errors.New("record: Recorder.Capture is nil")
	}
	r.mu.Lock()
	if r.started {
		r.mu.Unlock()
		return nil, nil, errors.New("record: a Recorder records once")
	}
	r.started = true
	r.lastSeq, r.runs, r.shutdowns = map[int]int64{}, map[string]bool{}, map[int]bool{}
	r.st.State = "starting"
	r.mu.Unlock()

	r.clock = r.Clock
	if r.clock == nil {
		r.clock = RealClock{}
	}
	src.Tool = r.Tool
	h := capture.NewHeader(r.clock.Now(), src)
	if !r.Redaction.Off {
		red := redact.New(redact.Options{Content: r.Redaction.Content, Salt: r.Redaction.Salt})
		r.red = red
		h = red.Header(h)
	} else {
		h.Redaction = &capture.Redaction{Notes: []string{"recorded with --no-redact: credentials and content are as they came off the wire"}}
	}
	err := r.Capture.WriteHeader(h)
	if err == nil {
		err = r.Capture.Flush()
	}
	if err != nil {
		return nil, nil, &errWrite{fmt.Errorf("write the capture header: %w", err)}
	}

	ctx, cancel := context.WithCancelCause(ctx)
	r.stop = cancel
	every := r.FlushInterval
	if every == 0 {
		every = DefaultFlushInterval
	}
	loopCtx, loopStop := context.WithCancel(context.Background())
	loopDone := make(chan struct{})
	go func() {
		defer close(loopDone)
		for every > 0 && r.clock.Sleep(loopCtx, every) {
			r.flush()
		}
	}()
	end := func() error {
		loopStop()
		<-loopDone
		cancel(nil)
		r.setState("stopped")
		r.flush()
		return r.writeErr()
	}
	return ctx, end, nil
}

func (r *Recorder) logf(format string, args ...any) {
	if r.Logf != nil {
		r.Logf(format, args...)
	}
}

func (r *Recorder) warnf(format string, args ...any) {
	if r.Warnf != nil {
		r.Warnf(format, args...)
	}
}

func (r *Recorder) now() time.Time { return r.clock.Now() }

// nextConn returns a new connection number.
func (r *Recorder) nextConn() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.st.Conns++
	return r.st.Conns
}

func (r *Recorder) setState(s string) {
	r.mu.Lock()
	r.st.State = s
	r.mu.Unlock()
}

func (r *Recorder) addPeers(n int) {
	r.mu.Lock()
	r.st.Peers += n
	r.mu.Unlock()
}

// frame records one message. It is the hot path: one lock, one redaction
// pass, one classification pass, one buffered write.
func (r *Recorder) frame(conn int, dir string, t time.Time, data []byte, binary bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.st.LimitHit || r.aborted.Load() {
		return
	}
	if r.MaxFrames > 0 && r.st.Frames >= r.MaxFrames || r.MaxBytes > 0 && r.st.Bytes+int64(len(data)) > r.MaxBytes {
		r.st.LimitHit = true
		r.stop(ErrLimit)
		return
	}
	// One scratch record, reused: the redactor never keeps or modifies it.
	r.scratch = capture.Record{T: t.UnixMilli(), Conn: conn, Dir: dir}
	if binary {
		r.scratch.Raw, r.scratch.IsRaw = data, true
	} else {
		r.scratch.Frame = data
	}
	out := &r.scratch
	if r.red != nil {
		out = r.red.Record(out)
	}
	err := r.Capture.Write(out)
	r.scratch = capture.Record{}
	if !binary && dir == capture.DirIn {
		r.observe(conn, data, t)
	}
	r.failLocked(err)
	r.st.Frames++
	r.st.Bytes += int64(len(data))
	r.dirty = true
}

// failLocked keeps the first write error and ends the recording with it.
// Called with r.mu held.
func (r *Recorder) failLocked(err error) {
	if err == nil || r.werr != nil {
		return
	}
	r.werr = &errWrite{err}
	r.stop(r.werr)
}

// observe counts frame-seq gaps and runs in flight from a frame the
// gateway sent. Called with r.mu held.
func (r *Recorder) observe(conn int, data []byte, t time.Time) {
	ev := bridge.Classify(data, t.UnixMilli()) // total: invalid input is Invalid
	if ev.Kind == bridge.Invalid || ev.Type != "event" {
		return
	}
	if ev.HasSeq {
		if last, ok := r.lastSeq[conn]; ok && ev.Seq > last+1 {
			r.st.Gaps++
		}
		r.lastSeq[conn] = ev.Seq
	}
	if ev.Event == "shutdown" {
		r.shutdowns[conn] = true
	}
	if ev.RunID == "" || (ev.Kind != bridge.RuntimeChat && ev.Kind != bridge.RuntimeAgent) {
		return
	}
	terminal := ev.Kind == bridge.RuntimeChat && (ev.State == "final" || ev.State == "aborted" || ev.State == "error") ||
		ev.Kind == bridge.RuntimeAgent && ev.Stream == "lifecycle" && (ev.Phase == "end" || ev.Phase == "error")
	running, known := r.runs[ev.RunID]
	switch {
	case terminal && running:
		r.runs[ev.RunID] = false
		r.st.InFlight--
	case terminal && !known:
		r.runs[ev.RunID] = false
	case !terminal && !known:
		r.runs[ev.RunID] = true
		r.st.InFlight++
	}
	if len(r.runs) > 4096 { // forget finished runs; keep memory flat
		for id, running := range r.runs {
			if !running {
				delete(r.runs, id)
			}
		}
	}
}

// resetRuns forgets the runs in flight: a new connection to the gateway
// starts with none.
func (r *Recorder) resetRuns() {
	r.mu.Lock()
	r.runs = map[string]bool{}
	r.st.InFlight = 0
	r.mu.Unlock()
}

// mark writes a marker and flushes, so every connection boundary is on
// disk at once.
func (r *Recorder) mark(rec capture.Record) {
	if rec.T == 0 {
		rec.T = r.now().UnixMilli()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.aborted.Load() {
		return
	}
	switch rec.Mark {
	case capture.MarkOpen:
		r.st.Opened++
	case capture.MarkOversize:
		r.st.Oversize++
	}
	out := &rec
	if r.red != nil {
		out = r.red.Record(out)
	}
	r.failLocked(r.Capture.Write(out))
	r.failLocked(r.Capture.Flush())
	r.dirty = false
}

// handshaken records a successful handshake: the first one runs
// OnHandshake, then the hello marker is written and flushed. It reports
// false when OnHandshake failed and the recording is ending.
func (r *Recorder) handshaken(hello capture.Record) bool {
	ok := true
	r.handshake.Do(func() {
		if r.OnHandshake == nil {
			return
		}
		if err := r.OnHandshake(); err != nil {
			ok = false
			r.mu.Lock()
			if r.werr == nil {
				r.werr = err
				r.stop(err)
			}
			r.mu.Unlock()
		}
	})
	hello.Mark = capture.MarkHello
	r.mark(hello)
	return ok
}

// flush pushes buffered records to the file if anything was written since
// the last flush.
func (r *Recorder) flush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.dirty || r.aborted.Load() {
		return
	}
	r.dirty = false
	r.failLocked(r.Capture.Flush())
}

func (r *Recorder) writeErr() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.werr
}

func (r *Recorder) sawShutdown(conn int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.shutdowns[conn]
}
