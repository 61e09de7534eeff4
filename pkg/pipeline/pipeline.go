// Package pipeline reads a capture once and runs each record through
// clawtap's stages — the Bridge classifies it, the gap detector follows the
// frame seq, the Policy derives intents, and the replay engine runs the UI
// model on the fake clock — and hands what every stage produced to the
// observers of that one pass. check, stats, gaps, report, diff, classify,
// intents and replay are observers, or compositions of them: a record is
// classified once, its intents derived once, and it is replayed once,
// however many observers look at it.
//
// The pass computes only what its observers need (Needs): classify pays
// for the Bridge alone, intents for the Policy, and only observers that
// need the replay make the engine run.
//
// For each record, observers are called in the order they were given:
// Before (the record is classified, its gaps known), then Step for every
// replay step (timers due before the record, then the record's own step),
// then After (with the record step's intents). At the end of the capture
// the engine drains its timers (more Step calls) and End is called.
//
// Runs have a life in the pass too: when an observer needs them (Runs),
// the pass keeps the one run table (pkg/runs), where a run is born, ends
// and is let go, and hands each record's run to the observers
// (Frame.Run); observers keep what they know of a run in a field of it.
// When a run is let go, crowded out by newer ones or at the end of the
// capture, RunObservers are told, in the order the runs were born, with
// what the run left the user with when they asked for that (Outcomes:
// pkg/outcome follows the replay run by run).
//
// Findings belong to the pass too, as diagnostics do to a go/analysis
// pass: an observer that makes them (a Reporter: check, validate) is
// given the pass's report function, and every FindingObserver (check's
// printer, stats, report, the OpenTelemetry export) receives each finding
// as it is made. They are peers: none owns another to read its findings.
package pipeline

import (
	"cmp"
	"errors"
	"io"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/finding"
	"github.com/clawtap/clawtap/pkg/gaps"
	"github.com/clawtap/clawtap/pkg/models"
	"github.com/clawtap/clawtap/pkg/outcome"
	"github.com/clawtap/clawtap/pkg/replay"
	"github.com/clawtap/clawtap/pkg/runs"
	"github.com/clawtap/clawtap/pkg/ui"
)

// Needs says which stages an observer reads beyond the classified record.
type Needs uint8

// What an observer can need.
const (
	// Gaps: Frame.Gaps, the frame-seq findings of the record.
	Gaps Needs = 1 << iota
	// Intents: Frame.Intents, the intents the UI derives from the record.
	Intents
	// Replay: the replay engine runs; Step is called for every step.
	Replay
	// Runs: the pass keeps its run table: Frame.Run, RunDone.
	Runs
	// Outcomes: the pass follows the replay run by run and says, as it
	// lets a run go, what the run left the user with (implies Runs and
	// Replay).
	Outcomes
)

// DefaultMaxRuns is how many runs the run table holds unless
// Options.MaxRuns says otherwise (see runs.DefaultMax).
const DefaultMaxRuns = runs.DefaultMax

// Frame is one record as the stages saw it. It and everything it points to
// are valid only during the call.
type Frame struct {
	Rec   *capture.Record
	Event *bridge.Event
	// Gaps holds the record's frame-seq findings (Needs Gaps).
	Gaps []gaps.Finding
	// Intents holds the record's intents (Needs Intents): in Before when
	// the pass does not replay, in After when it does (the record step's).
	Intents []ui.Intent
	// Replayed reports that the engine took the record (in After): a
	// record of a concurrent connection is skipped by the replay.
	Replayed bool
	// Run is the run the record names (Needs Runs), nil when it names
	// none.
	Run *runs.Run
}

// End is what an observer learns when the capture ends.
type End struct {
	// Stats is what the reader saw (records, malformed lines, truncation).
	Stats capture.Stats
	// Complete is false when the pass stopped at Options.Until.
	Complete bool
	// Engine is the replay engine, nil when no observer needed it.
	Engine *replay.Engine
	// Gaps sums up the frame seq of every connection (Needs Gaps).
	Gaps gaps.Summary
	// Runs is the run table (Needs Runs), nil otherwise. It is empty by
	// the time End is called: every run has been let go (RunDone).
	Runs *runs.Table
}

// Observer is anything that watches a pass. It implements Needs and any of
// HeaderObserver, BeforeObserver, StepObserver, AfterObserver and
// EndObserver.
type Observer interface {
	Needs() Needs
}

// HeaderObserver takes the capture's header (nil for bare frames).
type HeaderObserver interface {
	Header(h *capture.Header)
}

// BeforeObserver sees each record before the replay takes it.
type BeforeObserver interface {
	Before(f *Frame) error
}

// StepObserver sees each replay step.
type StepObserver interface {
	Step(s *replay.Step) error
}

// AfterObserver sees each record after its replay steps.
type AfterObserver interface {
	After(f *Frame) error
}

// EndObserver is told when the capture ends, after the replay drained.
type EndObserver interface {
	End(e *End) error
}

// RunObserver is told of each run the run table lets go (Needs Runs),
// once, in the order the runs were born: at the record whose new run
// crowded it out, Options.MaxRuns runs later, or at the end of the
// capture, before End (r.Kept). The run is final then: nothing the pass
// reads later changes it. o is what the run left the user with (Needs
// Outcomes), nil when the pass does not follow outcomes or the replay
// never saw the run.
type RunObserver interface {
	RunDone(r *runs.Run, o *outcome.Run)
}

// TableObserver keeps what it knows of a run in a field of the pass's
// run table (runs.NewField): the pass hands it the table before the
// first record.
type TableObserver interface {
	Table(t *runs.Table)
}

// FindingObserver receives every finding made in the pass, as it is
// made, in the order made; its first error ends the pass.
type FindingObserver interface {
	Finding(f *finding.Finding) error
}

// Reporter is an observer that makes findings: the pass gives it the
// function it reports them with, which hands each to the
// FindingObservers. A Reporter in a pass with no FindingObserver still
// reports (to nobody), so what it counts stays true.
type Reporter interface {
	SetReport(report func(*finding.Finding) error)
}

// Options tune a Pass.
type Options struct {
	// Replay configures the engine when an observer needs it.
	Replay replay.Options
	// Until stops the pass early: at the first record past the bound the
	// clock runs to the bound (to the record's time for an index), firing
	// the timers due until then, and the pass ends with End.Complete
	// false.
	Until replay.Bound
	// MaxRuns bounds the run table (Needs Runs); 0 means DefaultMaxRuns.
	MaxRuns int
}

// Source yields records, each with its event when it arrives classified
// already (classify output read back); a nil event is classified by the
// pass.
type Source interface {
	Next() (*capture.Record, *bridge.Event, error)
	Header() *capture.Header
	Stats() capture.Stats
}

// Holder is a Source whose records, and the events it gives with them,
// can be kept past the next Next (Records: capture.Reader.Hold).
type Holder interface {
	Hold() (release func())
}

// ReadError is a failure to read the source, as opposed to an observer's
// error (a write error, typically), which the pass returns as it is.
type ReadError struct{ Err error }

func (e *ReadError) Error() string { return e.Err.Error() }
func (e *ReadError) Unwrap() error { return e.Err }

// Pass is one read of a capture.
type Pass struct {
	opts  Options
	needs Needs

	before []BeforeObserver
	steps  []StepObserver
	after  []AfterObserver
	ends   []EndObserver
	heads  []HeaderObserver
	runObs []RunObserver
	finds  []FindingObserver

	cls      *bridge.Classifier
	gt       *gaps.Detector
	der      replay.Deriver // the UI's intents from frames alone, when the pass does not replay
	eng      *replay.Engine
	runs     *runs.Table
	outcomes *outcome.Ledger

	src     Source // the source Next reads, once it started
	begun   bool
	done    bool
	ev      bridge.Event
	frame   Frame
	gapBuf  []gaps.Finding
	intents []ui.Intent
	emit    func(*replay.Step) error // p.step, bound once
	recStep *replay.Step             // the record's own step, during a record

	advanceErr error // from running the clock to Options.Until
}

// New returns a pass with its observers, called in this order.
func New(opts Options, observers ...Observer) *Pass {
	if opts.Replay.UI.IsZero() {
		opts.Replay.UI = models.Default()
	}
	p := &Pass{opts: opts, cls: bridge.NewClassifier()}
	for _, o := range observers {
		p.needs |= o.Needs()
		if h, ok := o.(HeaderObserver); ok {
			p.heads = append(p.heads, h)
		}
		if b, ok := o.(BeforeObserver); ok {
			p.before = append(p.before, b)
		}
		if s, ok := o.(StepObserver); ok {
			p.steps = append(p.steps, s)
		}
		if a, ok := o.(AfterObserver); ok {
			p.after = append(p.after, a)
		}
		if e, ok := o.(EndObserver); ok {
			p.ends = append(p.ends, e)
		}
		if r, ok := o.(RunObserver); ok {
			p.runObs = append(p.runObs, r)
		}
		if f, ok := o.(FindingObserver); ok {
			p.finds = append(p.finds, f)
		}
	}
	for _, o := range observers {
		if r, ok := o.(Reporter); ok {
			r.SetReport(p.report)
		}
	}
	if p.needs&Outcomes != 0 {
		p.needs |= Runs | Replay // outcomes follow the replay's steps, run by run
	}
	if p.needs&Gaps != 0 {
		p.needs |= Runs // the payload seq counts per run
	}
	if p.needs&Runs != 0 {
		p.runs = runs.New(cmp.Or(opts.MaxRuns, DefaultMaxRuns))
		p.runs.OnLetGo = p.runDone
		if p.needs&Outcomes != 0 {
			p.outcomes = outcome.New(p.runs)
		}
		for _, o := range observers {
			if t, ok := o.(TableObserver); ok {
				t.Table(p.runs)
			}
		}
	}
	if p.needs&Intents != 0 && p.needs&Replay == 0 {
		if p.der = opts.Replay.UI.Deriver(); p.der == nil {
			p.needs |= Replay // the UI's intents need its state
		}
	}
	if p.needs&Gaps != 0 {
		p.gt = gaps.NewDetector(p.runs)
	}
	if p.needs&Replay != 0 {
		p.eng = replay.New(opts.Replay)
	}
	p.emit = p.step
	return p
}

// UI is the UI the pass models.
func (p *Pass) UI() replay.UI { return p.opts.Replay.UI }

// Engine is the replay engine, nil when no observer needs the replay.
func (p *Pass) Engine() *replay.Engine { return p.eng }

// Gaps is the gap detector, nil when no observer needs gaps.
func (p *Pass) Gaps() *gaps.Detector { return p.gt }

// Runs is the run table, nil when no observer needs runs.
func (p *Pass) Runs() *runs.Table { return p.runs }

// Outcomes follows what each run left the user with, nil when no
// observer needs outcomes.
func (p *Pass) Outcomes() *outcome.Ledger { return p.outcomes }

// report hands a finding to the FindingObservers.
func (p *Pass) report(f *finding.Finding) error {
	for _, o := range p.finds {
		if err := o.Finding(f); err != nil {
			return err
		}
	}
	return nil
}

// Run reads the whole source through the pass.
func (p *Pass) Run(src Source) error {
	for {
		more, err := p.Next(src)
		if err != nil || !more {
			return err
		}
	}
}

// Next runs one record of src through the pass, or, at the end, ends it;
// it reports whether there may be more. Passes over two captures advance
// in lock-step this way (diff).
func (p *Pass) Next(src Source) (bool, error) {
	if p.done {
		return false, nil
	}
	if p.src == nil {
		p.src = src
		if a, ok := src.(AheadSource); ok && p.needs&(Intents|Replay) != 0 {
			a.ClassifyAhead()
		}
		p.Begin(src.Header())
	}
	rec, ev, err := src.Next()
	if errors.Is(err, io.EOF) {
		return false, p.Close(src.Stats())
	}
	if err != nil {
		p.done = true
		return false, &ReadError{err}
	}
	more, err := p.Push(rec, ev)
	return more && err == nil, err
}

// Begin hands the capture's header to the observers; a pass fed with Push
// calls it first (Run and Next do it themselves).
func (p *Pass) Begin(h *capture.Header) {
	if p.begun {
		return
	}
	p.begun = true
	for _, o := range p.heads {
		o.Header(h)
	}
}

// Push runs one record through the pass; ev is its event when the record
// arrives classified, else nil. It reports false when the pass has ended:
// the record lies past Options.Until (the pass ended there) or an observer
// failed.
func (p *Pass) Push(rec *capture.Record, ev *bridge.Event) (bool, error) {
	if p.done {
		return false, nil
	}
	if p.past(rec) {
		return false, p.end(false, capture.Stats{})
	}
	if err := p.record(rec, ev); err != nil {
		return false, err
	}
	return true, nil
}

// Hold keeps the record in hand (an observer's Frame.Rec and
// Frame.Event's payload) valid past the observer's call, until release is
// called, once: an observer that hands records to another goroutine holds
// them. It is nil when the source cannot hold its records; they are then
// valid only during the call.
func (p *Pass) Hold() (release func()) {
	if h, ok := p.src.(Holder); ok {
		return h.Hold()
	}
	return nil
}

// EndAs ends a pass fed with Push as the pass that fed it ended: with its
// reader's counts, complete or not (Until). A pass that ended already
// (at its own Until, or an observer failed) is left as it is.
func (p *Pass) EndAs(e *End) error {
	if p.done {
		return nil
	}
	return p.end(e.Complete, e.Stats)
}

// Close ends a pass that read the whole capture: the replay drains its
// timers and the observers are told, with what the reader saw.
func (p *Pass) Close(st capture.Stats) error {
	if p.done {
		return nil
	}
	return p.end(true, st)
}

// past reports whether rec lies beyond Options.Until; if so the clock is
// run to the bound first.
func (p *Pass) past(rec *capture.Record) bool {
	u := p.opts.Until
	if !u.Set {
		return false
	}
	switch {
	case u.IsIndex && rec.Index > u.Index:
		// Timers due before the next record belong to the window.
		if p.eng != nil {
			if err := p.eng.Advance(rec.T, p.emit); err != nil {
				p.advanceErr = err
			}
		}
		return true
	case !u.IsIndex && p.eng != nil && p.eng.Started() && rec.T-p.eng.T0() > u.Ms:
		if err := p.eng.Advance(p.eng.T0()+u.Ms, p.emit); err != nil {
			p.advanceErr = err
		}
		return true
	}
	return false
}

func (p *Pass) record(rec *capture.Record, given *bridge.Event) error {
	f := &p.frame
	*f = Frame{Rec: rec}
	if given != nil {
		p.ev = *given
	} else {
		p.ev = p.cls.Record(rec)
	}
	f.Event = &p.ev
	if p.runs != nil {
		f.Run = p.runs.Record(rec, &p.ev)
	}
	if p.gt != nil {
		p.gapBuf = p.gt.Observe(p.gapBuf[:0], rec.Index, rec.T, rec.Conn, rec.Dir, &p.ev, f.Run)
		f.Gaps = p.gapBuf
	}
	if p.der != nil {
		p.intents = p.der.Derive(p.intents[:0], &p.ev)
		f.Intents = p.intents
	}
	for _, o := range p.before {
		if err := o.Before(f); err != nil {
			return p.fail(err)
		}
	}
	if p.eng != nil {
		p.recStep = nil
		if err := p.eng.RecordEvent(rec, &p.ev, p.emit); err != nil {
			return p.fail(err)
		}
		if s := p.recStep; s != nil {
			f.Replayed, f.Intents = true, s.Intents
		}
	}
	for _, o := range p.after {
		if err := o.After(f); err != nil {
			return p.fail(err)
		}
	}
	return nil
}

// step hands a replay step to the observers.
func (p *Pass) step(s *replay.Step) error {
	if s.Timer == "" {
		p.recStep = s
	}
	if p.outcomes != nil {
		var r *runs.Run
		if s.Timer == "" {
			r = p.frame.Run
		}
		p.outcomes.Step(s, r) // first: the step's observers read what it made of the run
	}
	for _, o := range p.steps {
		if err := o.Step(s); err != nil {
			return err
		}
	}
	return nil
}

// runDone hands a run the table lets go to the RunObservers, with what
// it left the user with.
func (p *Pass) runDone(r *runs.Run) {
	var o *outcome.Run
	if p.outcomes != nil {
		o = p.outcomes.LetGo(r)
	}
	for _, x := range p.runObs {
		x.RunDone(r, o)
	}
}

func (p *Pass) fail(err error) error {
	p.done = true
	return err
}

func (p *Pass) end(complete bool, st capture.Stats) error {
	p.done = true
	if p.advanceErr != nil {
		return p.advanceErr
	}
	if complete && p.eng != nil {
		if err := p.eng.Finish(p.emit); err != nil {
			return err
		}
	}
	if !complete && p.src != nil {
		st = p.src.Stats()
	}
	e := End{Complete: complete, Engine: p.eng, Stats: st, Runs: p.runs}
	if p.gt != nil {
		e.Gaps = p.gt.Summary()
	}
	if p.outcomes != nil {
		p.outcomes.Finish(p.eng.State())
	}
	if p.runs != nil {
		p.runs.Finish() // every run held goes, in order, before End
	}
	for _, o := range p.ends {
		if err := o.End(&e); err != nil {
			return err
		}
	}
	return nil
}
