// Package replay runs a capture through clawtap's whole pipeline — Bridge
// → Policy → Handler — the way a chat UI would, on a fake clock, and keeps
// a model of the UI's stores so every step can say what the UI did and
// what its state became.
//
// The engine is deterministic by construction: no wall clock, no
// goroutines, maps iterated in sorted order. Time is the capture's: before
// each record the clock advances to the record's t, firing every timer due
// up to then (the summary-refresh debounce, animation frames, the approval
// expiry sweep) in order of due time, then creation order. Memory is
// bounded by live state: transcripts are capped per agent, nothing is kept
// per record. See docs/replay.md.
//
// The engine is one; the UI it models is a part of it (Options.UI): the
// UI's pipeline and host take each classified record at the engine's clock
// and write into the engine's stores, reporting what they did as the
// step's intents and effects.
package replay

import (
	"slices"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/ui"
)

// Timer names, as timer steps report them: the animation frame is the
// engine's; a model names its own.
const TimerFrame = "frame"

// Options tune an Engine.
type Options struct {
	// UI is the UI to model, one version of one model (pkg/models
	// lists them); it must be set.
	UI UI
	// FrameNum/FrameDen give the animation-frame period in ms as a
	// fraction; zero means 1000/60 (60 Hz).
	FrameNum, FrameDen uint64
	// Conn is the connection the UI starts on; 0 means the first record's.
	Conn int
	// HistorySync answers the UI's history refreshes from the capture,
	// merging the finals the pipeline dropped into the transcript, where
	// the model can (Layout.AnswersHistory). The UIs themselves do not:
	// clawboo's refresh lists sessions and discards the result, so off is
	// what the user saw.
	HistorySync bool
}

// Step is what one record, or one timer firing between records, did.
// A Step and everything it points to are valid only during the emit call.
type Step struct {
	// I is the record's index; for a timer step, the index of the last
	// record before the timer fired.
	I int
	// T is the clock, unix ms (render it with the engine's T0).
	T int64
	// Timer names the timer for a timer step; "" for a record step.
	Timer string
	// Conn is the connection the UI follows after the step.
	Conn int
	// T0 is the replay's first record time, the origin of offsets, and
	// State the UI state after the step.
	T0    int64
	State *State
	// Rec and Event describe the record (record steps only).
	Rec     *capture.Record
	Event   *bridge.Event
	Intents []ui.Intent
	Effects []Effect
	Diff    []Change
}

// Changed reports whether the step did anything.
func (s *Step) Changed() bool { return len(s.Effects) > 0 || len(s.Diff) > 0 }

// Engine replays records.
type Engine struct {
	opts     Options
	started  bool
	t0       int64
	lastI    int
	conn     int          // the followed connection
	ended    bool         // the followed connection closed or failed
	fresh    bool         // the pipeline has not seen a record since it was built
	seen     map[int]bool // connections seen while following another
	skipped  int
	replayed int // records replayed (not skipped)

	sched  scheduler
	frames frameClock
	cls    *bridge.Classifier
	host   Host
	rt     Runtime // the UI model's pipeline and host

	st State

	frameDue    int64
	frameTimer  *timer
	frameGen    uint64
	cancelFrame func() // cancelFrameTimer, bound once

	step       Step
	ev         bridge.Event
	patchArena []ui.AgentPatch
	sortBuf    []string
}

// New returns an engine with empty state.
func New(opts Options) *Engine {
	if opts.UI.IsZero() {
		panic("replay: Options.UI names no UI model (pkg/models lists them)")
	}
	e := &Engine{
		opts:  opts,
		lastI: -1,
		cls:   bridge.NewClassifier(),
		seen:  make(map[int]bool),
		conn:  opts.Conn,
	}
	e.cancelFrame = e.cancelFrameTimer
	e.frames = newFrameClock(0, opts.FrameNum, opts.FrameDen)
	e.st = newState(opts.UI)
	e.host = Host{e}
	e.rt = opts.UI.Model.New(opts.UI.Version, &e.host)
	e.fresh = true
	return e
}

// UI is the UI the engine models.
func (e *Engine) UI() UI { return e.opts.UI }

// Conn is the connection the UI follows now.
func (e *Engine) Conn() int { return e.conn }

// Skipped is the number of records of other, concurrent connections that
// were not replayed, and their connection numbers, sorted.
func (e *Engine) Skipped() (int, []int) {
	var conns []int
	for c, skipped := range e.seen {
		if skipped {
			conns = append(conns, c)
		}
	}
	slices.Sort(conns)
	return e.skipped, conns
}

// Replayed is the number of records replayed: 0 when every record was
// skipped, as when Options.Conn names no connection of the capture.
func (e *Engine) Replayed() int { return e.replayed }

// Started reports whether a record has been replayed.
func (e *Engine) Started() bool { return e.started }

// T0 is the first record's time, the origin of every offset in output.
func (e *Engine) T0() int64 { return e.t0 }

// Now is the fake clock.
func (e *Engine) Now() int64 { return e.sched.now }

// State returns the UI state model.
func (e *Engine) State() *State { return &e.st }

// ClosedRuns lists the runs the UI's pipeline holds closed now, oldest
// first, with the time each entry expires.
func (e *Engine) ClosedRuns() []ui.ClosedRun { return e.rt.ClosedRuns() }

// PendingTimers is the number of scheduled timers.
func (e *Engine) PendingTimers() int { return e.sched.pending() }

func (e *Engine) addEffect(ef Effect) { e.step.Effects = append(e.step.Effects, ef) }

// lastEffect is the step's newest effect, for a detail known only after it
// was reported.
func (e *Engine) lastEffect() *Effect { return &e.step.Effects[len(e.step.Effects)-1] }

func (e *Engine) copyPatches(src []ui.AgentPatch) []ui.AgentPatch {
	lo := len(e.patchArena)
	e.patchArena = append(e.patchArena, src...)
	return e.patchArena[lo:len(e.patchArena):len(e.patchArena)]
}

func (e *Engine) beginStep(i int, timerName string) {
	s := &e.step
	s.I, s.T, s.Timer = i, e.sched.now, timerName
	s.Rec, s.Event = nil, nil
	s.Intents = s.Intents[:0]
	clear(s.Effects)
	s.Effects = s.Effects[:0]
	s.Diff = s.Diff[:0]
	clear(e.patchArena)
	e.patchArena = e.patchArena[:0]
	e.rt.BeginStep()
}

func (e *Engine) endStep(emit func(*Step) error) error {
	e.step.Diff = e.st.tr.diff(&e.st, e.step.Diff)
	e.step.Conn, e.step.T0, e.step.State = e.conn, e.t0, &e.st
	if emit == nil {
		return nil
	}
	return emit(&e.step)
}

// after schedules fn ms from now under a timer name; the returned function
// cancels it (harmless once it fired).
func (e *Engine) after(ms int64, name string, fn func()) func() {
	t := e.sched.at(e.sched.now+ms, name, fn)
	gen := t.gen
	return func() { e.sched.cancelGen(t, gen) }
}

// requestFrame is the UI's requestAnimationFrame. A UI's patch queue has at
// most one frame scheduled, so one cancel function, bound once, serves
// them all.
func (e *Engine) requestFrame(fn func()) func() {
	due := e.frames.next(e.sched.now)
	e.frameDue = due
	e.frameTimer = e.sched.at(due, TimerFrame, fn)
	e.frameGen = e.frameTimer.gen
	return e.cancelFrame
}

func (e *Engine) cancelFrameTimer() { e.sched.cancelGen(e.frameTimer, e.frameGen) }

// advance fires every timer due at or before t, each as its own step, and
// leaves the clock at t (the clock never goes backwards).
func (e *Engine) advance(t int64, emit func(*Step) error) error {
	for {
		tm := e.sched.next(t)
		if tm == nil {
			break
		}
		if tm.due > e.sched.now {
			e.sched.now = tm.due
		}
		e.beginStep(e.lastI, tm.name)
		fn := tm.fn
		e.sched.release(tm)
		fn()
		if err := e.endStep(emit); err != nil {
			return err
		}
	}
	if t > e.sched.now {
		e.sched.now = t
	}
	return nil
}

// Advance runs the clock to t (unix ms) without a record, firing due
// timers as steps; use it to end a replay window at a time.
func (e *Engine) Advance(t int64, emit func(*Step) error) error {
	if !e.started {
		return nil
	}
	return e.advance(t, emit)
}

// Record replays one record: timers due up to its t fire first, each as
// its own step, then the record is classified, its intents derived and
// applied, and its step emitted. emit may be nil.
func (e *Engine) Record(rec *capture.Record, emit func(*Step) error) error {
	return e.record(rec, nil, emit)
}

// RecordEvent is Record for a record the caller has classified already,
// with a bridge.Classifier of its own that has seen every record before
// this one, so that a caller that needs the events too classifies once.
// ev must be the record's event, used before the caller classifies again.
func (e *Engine) RecordEvent(rec *capture.Record, ev *bridge.Event, emit func(*Step) error) error {
	return e.record(rec, ev, emit)
}

func (e *Engine) record(rec *capture.Record, ev *bridge.Event, emit func(*Step) error) error {
	if rec.T > MaxTime || rec.T < -MaxTime {
		// An absurd time (a hostile or corrupt capture) is clamped so that
		// clock arithmetic cannot overflow.
		c := *rec
		c.T = min(max(rec.T, -MaxTime), MaxTime)
		rec = &c
	}
	if !e.started {
		e.started = true
		e.t0 = rec.T
		e.sched.now = rec.T
		e.frames = newFrameClock(rec.T, e.frames.num, e.frames.den)
		if e.conn == 0 {
			e.conn = rec.Conn
		}
	}
	reconnect := false
	if rec.Conn != e.conn {
		// A connection that starts after the followed one ended is the
		// UI reconnecting; one that was already seen, or that shows up
		// while the followed one is open, is another client.
		if !e.ended || e.seen[rec.Conn] {
			e.seen[rec.Conn] = true
			e.skipped++
			return nil
		}
		reconnect = true
	}
	if err := e.advance(rec.T, emit); err != nil {
		return err
	}
	e.beginStep(rec.Index, "")
	e.lastI = rec.Index
	if reconnect {
		if !e.fresh {
			e.dispose("reconnect")
		}
		e.conn, e.ended = rec.Conn, false
	}
	e.fresh = false
	e.replayed++
	if ev != nil {
		e.ev = *ev
	} else {
		e.ev = e.cls.Record(rec)
	}
	e.step.Rec, e.step.Event = rec, &e.ev
	e.rt.Record(rec, &e.ev)
	switch rec.Mark {
	case capture.MarkClose:
		e.ended = true
		e.dispose("close")
	case capture.MarkError:
		e.ended = true
	}
	return e.endStep(emit)
}

// dispose tears the UI's pipeline down and marks it fresh for the next
// connection.
func (e *Engine) dispose(reason string) {
	e.rt.Dispose(reason)
	e.fresh = true
}

// MaxTime bounds the clock: ±2^50 ms is ±35 000 years around 1970.
const MaxTime = 1 << 50

// maxDrain bounds the timer steps Finish runs.
const maxDrain = 1 << 20

// Finish lets the clock run on after the last record until no timer is
// pending — the debounce fires, the last frame flushes, approvals with an
// expiry time expire — as the UI would if it stayed open.
func (e *Engine) Finish(emit func(*Step) error) error {
	for n := 0; e.sched.pending() > 0 && n < maxDrain; n++ {
		due := e.sched.heap[0].due
		if err := e.advance(due, emit); err != nil {
			return err
		}
	}
	return nil
}
