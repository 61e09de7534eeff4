package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/gateway"
	"github.com/clawtap/clawtap/pkg/jsonx"
)

// recRedactor removes what must not reach disk; pkg/redact's Redactor.
// Record returns rec itself when nothing changes, else a copy; it never
// modifies rec.
type recRedactor interface {
	Record(rec *capture.Record) *capture.Record
	Header(h capture.Header) capture.Header
}

// errRecordLimit ends a recording that reached --max-frames or --max-bytes.
var errRecordLimit = errors.New("limit reached")

// recBackoff is capped exponential backoff with jitter: attempt n waits
// between half and all of min(Max, Base·2ⁿ).
type recBackoff struct {
	Base, Max time.Duration
	Rand      func() float64 // [0,1)
}

func (b recBackoff) delay(attempt int) time.Duration {
	d := float64(b.Base) * math.Pow(2, float64(attempt))
	if d > float64(b.Max) || math.IsInf(d, 0) {
		d = float64(b.Max)
	}
	j := 0.5
	if b.Rand != nil {
		j = b.Rand()
	}
	return time.Duration(d/2 + d/2*j)
}

// recorder writes frames and markers to a capture, redacting first, and
// keeps the numbers the status line and the summary show.
type recorder struct {
	w   *capture.Writer
	red recRedactor // nil with --no-redact
	now func() time.Time

	maxFrames int64
	maxBytes  int64
	stop      context.CancelCauseFunc // called once a limit is reached

	mu        sync.Mutex
	scratch   capture.Record
	conns     int
	frames    int64
	bytes     int64
	dirty     bool
	limitHit  bool
	gaps      int
	lastSeq   map[int]int64
	runs      map[string]bool // runId → still running (false: finished)
	inFlight  int
	state     string
	werr      error
	peers     int // proxy: clients connected now
	shutdowns map[int]bool
}

func newRecorder(w *capture.Writer, red recRedactor, now func() time.Time) *recorder {
	if now == nil {
		now = time.Now
	}
	return &recorder{w: w, red: red, now: now, lastSeq: map[int]int64{}, runs: map[string]bool{},
		shutdowns: map[int]bool{}, state: "starting"}
}

// nextConn returns a new connection number.
func (r *recorder) nextConn() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.conns++
	return r.conns
}

func (r *recorder) setState(s string) {
	r.mu.Lock()
	r.state = s
	r.mu.Unlock()
}

// frame records one message. It is the hot path: one lock, one redaction
// pass, one classification pass, one buffered write.
func (r *recorder) frame(conn int, dir string, t time.Time, data []byte, binary bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.limitHit {
		return
	}
	if r.maxFrames > 0 && r.frames >= r.maxFrames {
		r.hitLimit()
		return
	}
	if r.maxBytes > 0 && r.bytes+int64(len(data)) > r.maxBytes {
		r.hitLimit()
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
	err := r.w.Write(out)
	r.scratch = capture.Record{}
	if !binary && dir == capture.DirIn {
		r.observe(conn, data, t)
	}
	if err != nil && r.werr == nil {
		r.werr = err
		if r.stop != nil {
			r.stop(err)
		}
	}
	r.frames++
	r.bytes += int64(len(data))
	r.dirty = true
}

func (r *recorder) hitLimit() {
	r.limitHit = true
	if r.stop != nil {
		r.stop(errRecordLimit)
	}
}

// observe counts frame-seq gaps and runs in flight from a frame the
// gateway sent. Called with r.mu held.
func (r *recorder) observe(conn int, data []byte, t time.Time) {
	ev := bridge.Classify(data, t.UnixMilli()) // total: invalid input is Invalid
	if ev.Kind == bridge.Invalid || ev.Type != "event" {
		return
	}
	if ev.HasSeq {
		if last, ok := r.lastSeq[conn]; ok && ev.Seq > last+1 {
			r.gaps++
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
		r.inFlight--
	case terminal && !known:
		r.runs[ev.RunID] = false
	case !terminal && !known:
		r.runs[ev.RunID] = true
		r.inFlight++
	}
	if len(r.runs) > 4096 { // forget finished runs; keep memory flat
		for id, running := range r.runs {
			if !running {
				delete(r.runs, id)
			}
		}
	}
}

// newConnection resets the per-connection view after a hello.
func (r *recorder) resetRuns() {
	r.mu.Lock()
	r.runs = map[string]bool{}
	r.inFlight = 0
	r.mu.Unlock()
}

// mark writes a marker and flushes, so every connection boundary is on
// disk at once.
func (r *recorder) mark(rec capture.Record) {
	if rec.T == 0 {
		rec.T = r.now().UnixMilli()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	out := &rec
	if r.red != nil {
		out = r.red.Record(out)
	}
	if err := r.w.Write(out); err != nil && r.werr == nil {
		r.werr = err
	}
	if err := r.w.Flush(); err != nil && r.werr == nil {
		r.werr = err
	}
	r.dirty = false
}

// flush pushes buffered records to disk if anything was written since the
// last flush.
func (r *recorder) flush() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.dirty {
		return r.werr
	}
	r.dirty = false
	if err := r.w.Flush(); err != nil && r.werr == nil {
		r.werr = err
	}
	return r.werr
}

// flushLoop flushes every interval until ctx ends.
func (r *recorder) flushLoop(ctx context.Context, every time.Duration) {
	if every <= 0 {
		return
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			_ = r.flush()
		}
	}
}

type recStats struct {
	state    string
	conns    int
	frames   int64
	bytes    int64
	gaps     int
	inFlight int
	peers    int
}

func (r *recorder) stats() recStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return recStats{state: r.state, conns: r.conns, frames: r.frames, bytes: r.bytes, gaps: r.gaps, inFlight: r.inFlight, peers: r.peers}
}

func (r *recorder) writeErr() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.werr
}

func (r *recorder) sawShutdown(conn int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.shutdowns[conn]
}

// recDirectConfig is what a direct (non-proxy) recording needs.
type recDirectConfig struct {
	url        string
	dial       gateway.Options
	subscribe  bool
	reconnect  bool
	backoff    recBackoff
	closeWait  time.Duration
	logf       func(format string, args ...any) // progress
	warnf      func(format string, args ...any)
	sleepUntil func(ctx context.Context, d time.Duration) bool // false when ctx ended first
}

func recSleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// runDirect records from the gateway until ctx ends, reconnecting as
// configured. It returns nil for a clean stop and a *gateway.Error when
// the gateway refused us for a reason retrying will not fix.
func (r *recorder) runDirect(ctx context.Context, cfg recDirectConfig) error {
	if cfg.sleepUntil == nil {
		cfg.sleepUntil = recSleep
	}
	if cfg.closeWait == 0 {
		cfg.closeWait = 2 * time.Second
	}
	safeURL := gateway.SafeURL(cfg.url)
	everConnected := false
	attempt := 0
	for {
		if ctx.Err() != nil {
			return nil
		}
		conn := r.nextConn()
		if everConnected {
			r.setState("reconnecting")
		} else {
			r.setState("connecting")
		}
		opened := false
		dopts := cfg.dial
		dopts.Now = r.now
		dopts.OnOpen = func(t time.Time) {
			opened = true
			r.mark(capture.Record{T: t.UnixMilli(), Conn: conn, Mark: capture.MarkOpen, URL: safeURL})
		}
		dopts.OnFrame = func(f gateway.Frame) { r.frame(conn, f.Dir, f.Time, f.Data, f.Binary) }
		c, err := gateway.Dial(ctx, cfg.url, dopts)
		if err != nil {
			if ctx.Err() != nil {
				if opened {
					r.mark(capture.Record{Conn: conn, Mark: capture.MarkClose, Dir: capture.DirOut, Code: 1000, Reason: "clawtap stopped recording during the handshake"})
				}
				return nil
			}
			var ge *gateway.Error
			if !errors.As(err, &ge) {
				r.mark(capture.Record{Conn: conn, Mark: capture.MarkError, URL: safeURL, Err: err.Error()})
				return err
			}
			r.mark(capture.Record{Conn: conn, Mark: capture.MarkError, URL: safeURL, Err: ge.Error(), Code: ge.CloseCode, Reason: ge.CloseReason})
			if opened {
				code, reason := ge.CloseCode, ge.CloseReason
				if code == 0 {
					code = 1006
				}
				r.mark(capture.Record{Conn: conn, Mark: capture.MarkClose, Dir: capture.DirIn, Code: code, Reason: reason})
			}
			// Retry what time can fix: a gateway still starting always; a
			// lost gateway only once we had a connection and may reconnect.
			retry := ge.Kind == gateway.KindUnavailable || ge.Kind == gateway.KindRateLimited ||
				ge.Kind == gateway.KindNetwork && everConnected && cfg.reconnect
			if !retry {
				return err
			}
			d := cfg.backoff.delay(attempt)
			if ge.RetryAfter > 0 {
				d = ge.RetryAfter + time.Duration(float64(ge.RetryAfter)*0.2*recJitter(cfg.backoff.Rand))
			}
			attempt++
			cfg.logf("%s; retrying in %s", ge.Error(), d.Round(time.Millisecond))
			r.setState(fmt.Sprintf("waiting %s to retry", d.Round(100*time.Millisecond)))
			if !cfg.sleepUntil(ctx, d) {
				return nil
			}
			continue
		}

		// Connected.
		h := c.Hello
		r.mark(capture.Record{Conn: conn, Mark: capture.MarkHello, Protocol: h.Protocol, Server: h.ServerVersion, ConnID: h.ConnID, BootID: h.BootID})
		r.resetRuns()
		r.setState("connected")
		if everConnected {
			cfg.logf("reconnected (connection %d, gateway %s)", conn, recOrUnknown(h.ServerVersion))
		} else {
			cfg.logf("connected to %s (gateway %s, protocol %d); recording", safeURL, recOrUnknown(h.ServerVersion), h.Protocol)
		}
		everConnected = true
		attempt = 0
		if cfg.subscribe {
			if _, err := c.Request("sessions.subscribe", map[string]any{}); err != nil {
				cfg.warnf("sessions.subscribe: %v", err)
			}
		}
		stopClose := context.AfterFunc(ctx, func() { _ = c.CloseWith(1000, "clawtap stopped recording", cfg.closeWait) })
		var rerr error
		for {
			f, err := c.Read()
			if err != nil {
				rerr = err
				break
			}
			if cfg.subscribe && len(f.Data) < 4096 {
				recCheckSubscribe(f.Data, cfg.warnf)
			}
		}
		stopClose()
		c.Close()
		code, reason := gateway.CloseStatus(rerr)
		if ctx.Err() != nil {
			r.mark(capture.Record{Conn: conn, Mark: capture.MarkClose, Dir: capture.DirOut, Code: 1000, Reason: "clawtap stopped recording"})
			return nil
		}
		r.mark(capture.Record{Conn: conn, Mark: capture.MarkClose, Dir: capture.DirIn, Code: code, Reason: reason})
		why := fmt.Sprintf("the gateway closed the connection (%d %s)", code, reason)
		if code == 1006 {
			why = "the connection to the gateway was lost"
		}
		if r.sawShutdown(conn) {
			why = fmt.Sprintf("the gateway shut down (%d %s)", code, reason)
		}
		if !cfg.reconnect {
			cfg.logf("%s; stopping (--no-reconnect)", why)
			return nil
		}
		d := cfg.backoff.delay(0)
		attempt = 1
		cfg.logf("%s; reconnecting in %s", why, d.Round(time.Millisecond))
		r.setState("reconnecting")
		if !cfg.sleepUntil(ctx, d) {
			return nil
		}
	}
}

func recJitter(rnd func() float64) float64 {
	if rnd == nil {
		return 0.5
	}
	return rnd()
}

func recOrUnknown(s string) string {
	if s == "" {
		return "version unknown"
	}
	return s
}

// recCheckSubscribe warns when our sessions.subscribe was refused.
func recCheckSubscribe(data []byte, warnf func(string, ...any)) {
	id, ok := jsonx.GetStr(data, "id")
	if !ok || len(id) < len("-sessions.subscribe") || id[len(id)-len("-sessions.subscribe"):] != "-sessions.subscribe" {
		return
	}
	if okv, ok := jsonx.Get(data, "ok"); ok && string(okv) == "false" {
		msg := "refused"
		if e, ok := jsonx.Get(data, "error"); ok {
			if m, ok := jsonx.GetStr(e, "message"); ok {
				msg = m
			}
		}
		warnf("sessions.subscribe failed: %s (session.tool and sessions.changed will be missing)", msg)
	}
}
