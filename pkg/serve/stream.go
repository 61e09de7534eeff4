package serve

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
)

// Renumberer gives each client its own frame seq, following the rule in
// docs/serve.md:
//
//   - the first frame with a seq that a client is sent in a pass gets the
//     next number (1 on the first pass);
//   - every later one gets that number plus the distance of its recorded
//     seq from the pass's first recorded seq, so recorded steps of 1 stay
//     1, and recorded gaps, duplicates and steps back keep their size and
//     place (a step back never changes the numbering of what follows);
//   - a number below 1 is sent as 1;
//   - when --loop starts the capture over, the new pass continues after the
//     highest number sent, so the loop itself makes no gap.
//
// Frames without a seq stay without one and do not count.
type Renumberer struct {
	fresh bool  // the next frame starts a pass
	first int64 // recorded seq of the pass's first frame
	base  int64 // number given to the pass's first frame
	high  int64 // highest number sent
}

// NewRenumberer returns a renumberer for one client.
func NewRenumberer() *Renumberer { return &Renumberer{fresh: true} }

// Next returns the seq to send for a frame recorded with seq rec.
func (r *Renumberer) Next(rec int64) int64 {
	if r.fresh {
		r.fresh = false
		r.first, r.base = rec, r.high+1
	}
	out := r.base + (rec - r.first)
	if out < 1 {
		out = 1
	}
	r.high = max(r.high, out)
	return out
}

// Restart marks the start of a new pass over the capture (--loop).
func (r *Renumberer) Restart() { r.fresh = true }

// OnSend says what a client's chat.send does.
type OnSend string

const (
	// OnSendReply answers chat.send from the capture like any request; the
	// stream does not wait for it.
	OnSendReply OnSend = "reply"
	// OnSendNextRun pauses the stream where the recorded client sent
	// chat.send until this client sends one, then streams the next run,
	// the recorded response re-addressed to the client's id included, and
	// the recorded runId renamed to the client's idempotencyKey.
	OnSendNextRun OnSend = "next-run"
)

// Pacing says how recorded time becomes real time.
type Pacing struct {
	Speed  float64       // 2 plays twice as fast; 0 means 1
	MaxGap time.Duration // longest wait between two frames; 0 means no limit
	Fast   bool          // no waiting at all (--as-fast-as-possible)
}

// Wait returns how long to wait for a recorded gap of ms milliseconds:
// scaled by Speed, then clamped to MaxGap. Gaps that go back in time are 0.
func (p Pacing) Wait(ms int64) time.Duration {
	if p.Fast || ms <= 0 {
		return 0
	}
	speed := p.Speed
	if speed <= 0 {
		speed = 1
	}
	d := time.Duration(float64(ms) * float64(time.Millisecond) / speed)
	if p.MaxGap > 0 && d > p.MaxGap {
		d = p.MaxGap
	}
	return d
}

// StreamOptions configure a Streamer.
type StreamOptions struct {
	Pacing Pacing
	Loop   bool
	OnSend OnSend
	Clock  Clock // nil means the wall clock
	// PlayClose ends the stream, at its recorded time, with the way the
	// recorded connection ended (Script.End): Run returns an *EndError.
	PlayClose bool
	// Lead is an extra wait before the first frame after hello-ok, for a
	// UI that mounts its panes a few seconds after it connects and would
	// miss what comes before (--lead).
	Lead time.Duration
	// Resume continues a stream a client left: the items up to the capture
	// index After (recorded at AfterT) were sent on its earlier connection
	// and are skipped; the next one follows after its recorded gap.
	Resume bool
	After  int
	AfterT int64

	// from is a reader of the capture left before the connection's first
	// record (by the client's previous stream, see Streamer.leftover); the
	// first pass reads on from there. The streamer owns it.
	from *capture.Reader
}

// EndError is Run's error when the stream ended as the recorded connection
// did (StreamOptions.PlayClose): the server closes the client with it.
type EndError struct{ Closing }

func (e *EndError) Error() string {
	if e.Code == 0 {
		return "the recorded connection broke: " + e.Reason
	}
	return fmt.Sprintf("the recorded connection was closed: %d %s", e.Code, e.Reason)
}

// Streamer plays a script to one client: it walks the timeline, waits the
// recorded (scaled, clamped) gaps on its clock, renumbers seq and hands
// each frame to emit. One Streamer serves one client.
type Streamer struct {
	s     *Script
	opts  StreamOptions
	clock Clock
	renum *Renumberer
	sends chan clientSend // the client's chat.send requests

	readers sync.Mutex
	from    *capture.Reader // not yet used by a pass
	rest    *capture.Reader // the reader the stream ended with, at the recorded end

	pos   atomic.Int64 // capture index of the last item sent, -1 before
	item  atomic.Int64 // timeline items done in this pass
	pass  atomic.Int64
	sent  atomic.Int64 // frames sent
	lastT atomic.Int64 // recorded time of the last item sent
	wait  atomic.Bool  // waiting for a chat.send
	claim atomic.Int64 // chat.send requests accepted

	skipTo int // the first pass skips items up to this capture index (-1: none)

	onWait func() // test hook: called when the stream starts waiting for a chat.send
}

// NewStreamer returns a streamer of s for one client.
func NewStreamer(s *Script, opts StreamOptions) *Streamer {
	if opts.Clock == nil {
		opts.Clock = WallClock{}
	}
	if opts.OnSend == "" {
		opts.OnSend = OnSendReply
	}
	st := &Streamer{s: s, opts: opts, clock: opts.Clock, renum: NewRenumberer(), from: opts.from, skipTo: -1}
	st.pos.Store(-1)
	if opts.Resume {
		st.skipTo = opts.After
		st.pos.Store(int64(opts.After))
	}
	if opts.OnSend == OnSendNextRun {
		st.sends = make(chan clientSend, maxQueuedSends)
	}
	return st
}

// Position reports where the streamer is: the capture index of the last
// item sent (-1 before the first), the timeline items done in the current
// pass, the pass (from 0), frames sent, and whether it waits for a
// chat.send.
func (st *Streamer) Position() (index, item, pass, sent int64, waiting bool) {
	return st.pos.Load(), st.item.Load(), st.pass.Load(), st.sent.Load(), st.wait.Load()
}

// Pos is the capture index of the last item sent, -1 before the first.
func (st *Streamer) Pos() int { return int(st.pos.Load()) }

// maxQueuedSends bounds the chat.send requests a client can send ahead of
// the stream.
const maxQueuedSends = 1024

// clientSend is a client's chat.send: its raw JSON id and its
// idempotencyKey ("" when it sent none), which becomes the run's id.
type clientSend struct {
	id  []byte
	key string
}

// Send offers a client's chat.send (its raw id and its idempotencyKey) to
// the stream with --on-send next-run. It reports false when the capture has
// no run left for it, and the caller answers it as not in capture.
func (st *Streamer) Send(id []byte, key string) bool {
	if st.sends == nil {
		return false
	}
	if !st.opts.Loop && st.claim.Load() >= int64(st.s.Sends()) {
		return false
	}
	select {
	case st.sends <- clientSend{append([]byte(nil), id...), key}:
		st.claim.Add(1)
		return true
	default:
		return false
	}
}

// Run streams until the timeline ends (never with Loop), ctx is done or
// emit fails. emit gets each frame to send as one text message; the slice
// is only valid during the call. Each pass reads the capture from disk
// afresh, one record at a time.
func (st *Streamer) Run(ctx context.Context, emit func(frame []byte) error) error {
	due := st.clock.Now().Add(st.opts.Lead)
	for pass := int64(0); ; pass++ {
		st.pass.Store(pass)
		st.item.Store(0)
		prevT, err := st.play(ctx, emit, &due)
		if err != nil {
			return err
		}
		if !st.opts.Loop {
			if !st.opts.PlayClose {
				return nil
			}
			c := st.s.End()
			if c == nil {
				return nil
			}
			if c.T > prevT {
				due = due.Add(st.opts.Pacing.Wait(c.T - prevT))
			}
			if err := st.sleepUntil(ctx, due); err != nil {
				return err
			}
			return &EndError{*c}
		}
		st.renum.Restart()
		st.pos.Store(-1)
		// The next pass starts after the recorded wait before the first
		// item (from the hello), as the first pass did.
	}
}

// play streams one pass over the timeline and returns the recorded time
// it reached.
func (st *Streamer) play(ctx context.Context, emit func(frame []byte) error, due *time.Time) (int64, error) {
	nextRun := st.opts.OnSend == OnSendNextRun
	prevT := st.s.StartT
	if st.skipTo >= 0 {
		prevT = st.opts.AfterT // the last item the client was sent
	}
	st.readers.Lock()
	from := st.from
	st.from = nil
	st.readers.Unlock()
	tl, err := st.s.openTimeline(nextRun, from)
	if err != nil {
		return prevT, err
	}
	defer tl.close()
	ids := map[int]clientSend{} // chat.send number → the client's send
	var runs runNames           // recorded runIds → the client's keys
	var buf []byte
	for {
		it, err := tl.next()
		if err == io.EOF {
			st.skipTo = -1
			if st.opts.PlayClose && !st.opts.Loop {
				st.readers.Lock()
				st.rest = tl.detach() // where the next connection may be read on
				st.readers.Unlock()
			}
			return prevT, nil
		}
		if err != nil {
			return prevT, err
		}
		if st.skipTo >= 0 {
			if it.Index <= st.skipTo {
				continue // sent on the client's earlier connection
			}
			st.skipTo = -1
		}
		t := it.T
		if t <= 0 {
			t = prevT // no recorded time: no wait
		}
		if prevT <= 0 {
			prevT = t
		}
		if it.Kind == ItemSend {
			st.wait.Store(true)
			if st.onWait != nil {
				st.onWait()
			}
			select {
			case cs := <-st.sends:
				ids[it.Send] = cs
				runs.add(it.RunID, cs.key)
			case <-ctx.Done():
				st.wait.Store(false)
				return prevT, ctx.Err()
			}
			st.wait.Store(false)
			// The run's pacing starts from the client's send.
			*due, prevT = st.clock.Now(), t
			st.item.Add(1)
			continue
		}
		*due = due.Add(st.opts.Pacing.Wait(t - prevT))
		prevT = t
		if err := st.sleepUntil(ctx, *due); err != nil {
			return prevT, err
		}
		frame := it.Frame
		switch {
		case it.Kind == ItemSendResponse:
			cs, ok := ids[it.Send]
			if !ok {
				st.item.Add(1)
				continue
			}
			runs.add(it.RunID, cs.key)
			frame = readdress(frame, cs.id)
		case it.HasSeq:
			buf = append(buf[:0], frame[:it.SeqAt.start]...)
			buf = jsonx.AppendInt(buf, st.renum.Next(it.Seq))
			buf = append(buf, frame[it.SeqAt.end:]...)
			frame = buf
		}
		frame = runs.apply(frame)
		if err := emit(frame); err != nil {
			return prevT, err
		}
		st.sent.Add(1)
		st.lastT.Store(t)
		st.pos.Store(int64(it.Index))
		st.item.Add(1)
	}
}

// leftover hands over the reader the stream ended with, positioned at the
// recorded connection's end: the connection the client opens next starts
// after it. Nil when there is none.
func (st *Streamer) leftover() *capture.Reader {
	st.readers.Lock()
	defer st.readers.Unlock()
	r := st.rest
	st.rest = nil
	return r
}

// release closes the readers the streamer still holds.
func (st *Streamer) release() {
	st.readers.Lock()
	defer st.readers.Unlock()
	for _, r := range []*capture.Reader{st.from, st.rest} {
		if r != nil {
			r.Close()
		}
	}
	st.from, st.rest = nil, nil
}

func (st *Streamer) sleepUntil(ctx context.Context, due time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	d := due.Sub(st.clock.Now())
	if d <= 0 {
		return nil
	}
	t := st.clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// readdress returns a response frame with its id replaced by the raw JSON
// id of the client's request; every other byte stays as recorded.
func readdress(frame, id []byte) []byte {
	if _, v, ok := member(frame, "id"); ok {
		return splice(frame, v, id)
	}
	return setMember(frame, "id", id)
}

// runNames renames the recorded runs a client started with --on-send
// next-run: each recorded runId becomes the idempotencyKey the client sent,
// as the gateway makes a run's id the key of the chat.send that started it.
// A UI that follows its own runs by that key (the Control UI does) then sees
// the run as its own. The rename is of whole JSON strings, wherever they
// are in a frame (payload.runId, the response's runId, a message's
// __openclaw.runId): a run id is a UUID, so an equal string is that run.
type runNames struct {
	from, to [][]byte // quoted JSON strings
}

func (r *runNames) add(recorded, key string) {
	if recorded == "" || key == "" || recorded == key {
		return
	}
	from := jsonx.AppendStringMinimal(nil, recorded)
	for _, f := range r.from {
		if bytes.Equal(f, from) {
			return // the run is renamed already
		}
	}
	r.from = append(r.from, from)
	r.to = append(r.to, jsonx.AppendStringMinimal(nil, key))
}

// apply returns frame with the runs renamed. A frame that changes is a new
// slice: the script's frames are shared by every client and stay as read.
func (r *runNames) apply(frame []byte) []byte {
	for i, from := range r.from {
		if bytes.Contains(frame, from) {
			frame = bytes.ReplaceAll(frame, from, r.to[i])
		}
	}
	return frame
}
