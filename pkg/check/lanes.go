package check

import (
	"slices"
	"sync/atomic"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/pipeline"
)

// The other UIs' passes of a Multi run as lanes, each on a goroutine of
// its own, a few records behind the first UI's pass: the first pass hands
// each record, held (pipeline.Pass.Hold) with its event (one copy every
// lane reads, bridge.Event.Detach), to the lanes in chunks, and takes back,
// chunk by chunk, the findings each lane made at each record. A record's
// findings are merged and reported once every lane has seen it, in record
// order, the first pass's own first: the findings, their order and their
// merging are those of the passes run one after the other, record by
// record. When the records cannot be held (a source other than a capture
// reader) the lanes run on the first pass's goroutine, record by record.

const (
	chunkLen   = 64 // records handed to the lanes at once
	lanesAhead = 2  // chunks a lane may have waiting
)

// laneItem is one record as a lane replays it.
type laneItem struct {
	seq     int // the record's place in the pass, from 0
	rec     capture.Record
	ev      bridge.Event
	scratch bridge.Scratch
}

// laneChunk is records for the lanes, and maybe the end of the pass:
// every lane reads the same chunk, none writes it.
type laneChunk struct {
	items    []laneItem
	end      *pipeline.End // the end, after the items, or nil
	endSeq   int           // the end's place: the count of records
	left     atomic.Int32  // the lanes still reading it
	releases []func()      // the holds of its records
	free     chan *laneChunk
}

// done is a lane's last look at the chunk: the last lane lets go of its
// held records and puts it back for reuse.
func (c *laneChunk) done() {
	if c.left.Add(-1) != 0 {
		return
	}
	for _, r := range c.releases {
		r()
	}
	clear(c.releases)
	c.releases = c.releases[:0]
	clear(c.items)
	c.items = c.items[:0]
	select {
	case c.free <- c:
	default:
	}
}

// laneFound is a finding a lane made at record seq (at the end: seq is
// the count of records).
type laneFound struct {
	seq int
	f   Finding
}

// laneResult is what a lane found replaying the records before upTo.
type laneResult struct {
	upTo  int
	found []laneFound
	err   error
}

// lane is one other UI's pass.
type lane struct {
	ui    string
	pass  *pipeline.Pass
	in    chan *laneChunk
	out   chan laneResult
	seq   int         // the record being replayed (the lane's side)
	found []laneFound // since the last result (the lane's side)
	err   error       // the lane's pass failed (the lane's side)

	// The first pass's side.
	upTo  int         // the records the results so far cover
	queue []laneFound // findings not merged yet, in order
}

// onFinding takes a finding of the lane's analyzer, at the record in hand.
func (l *lane) onFinding(f *Finding) error {
	l.found = append(l.found, laneFound{seq: l.seq, f: asUI(f, l.ui)})
	return nil
}

// push replays one record (inline or on the lane's goroutine).
func (l *lane) push(seq int, rec *capture.Record, ev *bridge.Event) {
	l.seq = seq
	if l.err == nil {
		_, l.err = l.pass.Push(rec, ev)
	}
}

// end ends the lane's pass.
func (l *lane) end(seq int, e *pipeline.End) {
	l.seq = seq
	if l.err == nil {
		l.err = l.pass.EndAs(e)
	}
}

// result hands over what the lane found so far.
func (l *lane) result(upTo int) laneResult {
	r := laneResult{upTo: upTo, found: l.found, err: l.err}
	l.found = nil
	return r
}

// run replays chunks, on the lane's goroutine, until the end of the pass.
func (l *lane) run() {
	for c := range l.in {
		upTo := 0
		for i := range c.items {
			it := &c.items[i]
			l.push(it.seq, &it.rec, &it.ev)
			upTo = it.seq + 1
		}
		end, endSeq := c.end, c.endSeq
		c.done() // (the chunk may be reused from here on)
		if end != nil {
			l.end(endSeq, end)
			upTo = endSeq + 1
		}
		l.out <- l.result(upTo)
	}
	close(l.out)
}

// chunk returns an empty chunk, a used one when there is one.
func (m *Multi) chunk() *laneChunk {
	select {
	case c := <-m.free:
		c.end = nil
		return c
	default:
		return &laneChunk{items: make([]laneItem, 0, chunkLen), free: m.free}
	}
}

// fromFirst takes the first pass's findings: with other UIs, they wait
// for the record's findings under every UI, those of the rules that
// depend on the UI to be merged.
func (m *Multi) fromFirst(f *Finding) error {
	if len(m.lanes) == 0 {
		return m.emit(f)
	}
	m.cur = append(m.cur, firstFound{seq: m.seq, ui: slices.Contains(uiRules, f.Rule), f: *f})
	return m.err
}

// handOn is the last of the check's observers in the first UI's pass
// (InlinePass puts others after it): it hands each
// record on to the lanes and merges the findings of the records every
// lane has seen.
type handOn struct{ m *Multi }

func (handOn) Needs() pipeline.Needs { return 0 }

func (h handOn) Header(hd *capture.Header) {
	for _, l := range h.m.lanes {
		l.pass.Begin(hd)
	}
}

func (h handOn) After(f *pipeline.Frame) error { return h.m.record(f) }

func (h handOn) End(e *pipeline.End) error { return h.m.end(e) }

// start runs the lanes on goroutines of their own, unless the records
// cannot be held or InlinePass asked for them inline.
func (m *Multi) start() {
	m.started = true
	if m.inline {
		return
	}
	release := m.pass.Hold()
	if release == nil {
		m.inline = true
		return
	}
	release()
	m.free = make(chan *laneChunk, lanesAhead+2)
	for _, l := range m.lanes {
		l.in, l.out = make(chan *laneChunk, lanesAhead), make(chan laneResult, lanesAhead+2)
		go l.run()
	}
}

// record hands a record of the first pass on to the lanes.
func (m *Multi) record(f *pipeline.Frame) error {
	if len(m.lanes) == 0 {
		return m.err
	}
	if !m.started {
		m.start()
	}
	seq := m.seq
	m.seq++
	m.firstQ = append(m.firstQ, m.cur...)
	m.cur = m.cur[:0]
	if m.inline {
		for _, l := range m.lanes {
			l.push(seq, f.Rec, f.Event)
			m.took(l, l.result(seq+1))
		}
		return m.merge()
	}
	if m.filled == nil {
		m.filled = m.chunk()
	}
	c := m.filled
	c.releases = append(c.releases, m.pass.Hold())
	c.items = append(c.items, laneItem{seq: seq, rec: *f.Rec})
	it := &c.items[len(c.items)-1]
	it.ev = f.Event.Detach(&it.scratch)
	if len(c.items) == chunkLen {
		m.handChunk(nil)
	}
	m.poll()
	return m.merge()
}

// handChunk hands the chunk being filled to every lane, with the end of
// the pass when e is set.
func (m *Multi) handChunk(e *pipeline.End) {
	c := m.filled
	if c == nil {
		c = m.chunk()
	}
	m.filled = nil
	c.end, c.endSeq = e, m.seq
	c.left.Store(int32(len(m.lanes)))
	for _, l := range m.lanes {
		for sent := false; !sent; {
			select {
			case l.in <- c:
				sent = true
			case r, ok := <-l.out:
				if ok {
					m.took(l, r)
				}
			}
		}
	}
}

// poll takes the lanes' results that are there.
func (m *Multi) poll() {
	for _, l := range m.lanes {
		for more := true; more; {
			select {
			case r, ok := <-l.out:
				if ok {
					m.took(l, r)
				}
				more = ok
			default:
				more = false
			}
		}
	}
}

// took notes a lane's result.
func (m *Multi) took(l *lane, r laneResult) {
	l.upTo = r.upTo
	l.queue = append(l.queue, r.found...)
	if r.err != nil && m.err == nil {
		m.err = r.err
	}
}

// end ends the lanes' passes with the first's, waits for them and merges
// what is left.
func (m *Multi) end(e *pipeline.End) error {
	if len(m.lanes) == 0 {
		return m.err
	}
	if !m.started {
		m.start()
	}
	m.firstQ = append(m.firstQ, m.cur...)
	m.cur = nil
	if m.inline {
		for _, l := range m.lanes {
			l.end(m.seq, e)
			m.took(l, l.result(m.seq+1))
		}
		return m.merge()
	}
	m.handChunk(e)
	for _, l := range m.lanes {
		close(l.in)
		for r := range l.out {
			m.took(l, r)
		}
	}
	return m.merge()
}

// merge reports the findings of every record each lane has seen, record
// by record: the first pass's findings of rules that do not depend on the
// UI as they came, then those that do, merged with the other UIs'.
func (m *Multi) merge() error {
	ready := m.seq + 1 // every record, and the end
	for _, l := range m.lanes {
		ready = min(ready, l.upTo)
	}
	for m.err == nil {
		seq := ready
		if len(m.firstQ) > 0 {
			seq = min(seq, m.firstQ[0].seq)
		}
		for _, l := range m.lanes {
			if len(l.queue) > 0 {
				seq = min(seq, l.queue[0].seq)
			}
		}
		if seq >= ready {
			break
		}
		n := 0
		for ; n < len(m.firstQ) && m.firstQ[n].seq == seq; n++ {
			if ff := &m.firstQ[n]; !ff.ui {
				if err := m.emit(&ff.f); err != nil {
					return err
				}
			}
		}
		for k := range m.firstQ[:n] {
			if ff := &m.firstQ[k]; ff.ui {
				m.pending = append(m.pending, asUI(&ff.f, m.uis[0].String()))
			}
		}
		m.firstQ = shift(m.firstQ, n)
		for _, l := range m.lanes {
			k := 0
			for ; k < len(l.queue) && l.queue[k].seq == seq; k++ {
				m.pending = append(m.pending, l.queue[k].f)
			}
			l.queue = shift(l.queue, k)
		}
		if err := m.flush(); err != nil {
			return err
		}
	}
	return m.err
}

// shift drops the first n of s, keeping its room when it empties.
func shift[T any](s []T, n int) []T {
	if n == len(s) {
		clear(s)
		return s[:0]
	}
	return s[n:]
}
