package capture

// The read-ahead: Next's own work — decompressing, splitting lines,
// repairing UTF-8, parsing and validating records — runs on a goroutine of
// its own, a few batches ahead of the caller, so that a command's work on
// one record overlaps the reading of the next ones on another core. One
// goroutine reads, one consumes, through a FIFO: the records, warnings and
// counts reach the caller exactly as the serial reader gives them, in the
// same order, and the warnings on the caller's goroutine, just before the
// record they came with.
//
// A caller may add a stage (SetStage): work on each batch of records, in
// order, on a third goroutine between the reading and Next — the pipeline
// classifies records there — whose results (Batch.Note) Next's caller
// finds with Reader.Note.
//
// A transform (SetTransform: redaction on read) runs on a goroutine of its
// own too, between the reading and the stage, batch by batch in order, so
// that on two cores it costs little more time than the reading alone.

import (
	"sync"
	"sync/atomic"

	"github.com/clawtap/clawtap/pkg/jsonx"
)

// How far the read-ahead runs: a batch is sent when it holds batchRecords
// records or batchBytes bytes of frames, or when the reader has no more
// input buffered (so a live stream is not held back waiting for more);
// at most batchesAhead batches (or SetAhead's number) wait for the caller.
// Memory stays bounded by those and by the largest line.
const (
	batchRecords = 256
	batchBytes   = 128 << 10
	batchesAhead = 2
	// keepArena: an arena that a huge line grew past this is dropped,
	// not reused.
	keepArena = 4 << 20
)

// ahead is the caller's side of the read-ahead.
type ahead struct {
	batches chan *batch // to the caller
	staged  chan *batch // to the stage, when there is one
	xform   chan *batch // to the transform, when there is one
	free    chan *batch
	stop    chan struct{}
	exited  chan struct{} // the reading goroutine ended
	stageEx chan struct{} // the stage's goroutine ended (closed at once without one)
	xformEx chan struct{} // the transform's goroutine ended (closed at once without one)
	seqEx   chan struct{} // the sequencer ended (closed at once without parsers)

	parsersEx sync.WaitGroup // the parsers (parallel.go)

	cur   *batch
	made  int // batches allocated: never more than can exist at once
	i     int
	stats Stats // after the last record returned
	err   error // io.EOF once the end was returned
	out   Record
}

// batch is a run of records, their bytes in one arena.
type batch struct {
	refs    atomic.Int32 // Next's caller's hold while it reads the batch, and Hold's
	release func()       // lets go of one hold (Hold's)
	items   []item
	lines   []line // with parsers: the lines the splitter read, for a parser
	arena   []byte
	index   []jsonx.Index // the frames' members (IndexMembers), by item.idx
	view    Batch
	// The end of the capture: err (io.EOF), the warnings after the last
	// record, and the counts at the end.
	end   bool
	err   error
	warns []Warning
	stats Stats
}

// item is one record: its Frame and Raw as spans of the arena, the
// warnings met on the way to it, and the counts once it is read.
type item struct {
	rec        Record
	frame, raw span
	idx        int32 // the record's members in index, -1 for none
	warns      []Warning
	stats      Stats
	parsed     parsed // what the parser found, for the sequencer (parallel.go)
}

type span struct {
	start, end int
	set        bool // nil and empty differ: Frame != nil means a frame
}

func (b *batch) hold(v []byte) span {
	if v == nil {
		return span{}
	}
	start := len(b.arena)
	b.arena = append(b.arena, v...)
	return span{start: start, end: len(b.arena), set: true}
}

func (b *batch) slice(s span) []byte {
	if !s.set {
		return nil
	}
	return b.arena[s.start:s.end:s.end]
}

// seal points each record's Frame and Raw at the arena, once it is whole
// (those not in the arena are set already).
func (b *batch) seal() {
	for i := range b.items {
		it := &b.items[i]
		if it.frame.set {
			it.rec.Frame = b.slice(it.frame)
		}
		if it.raw.set {
			it.rec.Raw = b.slice(it.raw)
		}
	}
	b.view.b = b
}

// Batch is a run of records as a stage (SetStage) sees them, in capture
// order. Its records and their bytes are valid until the stage returns,
// and for Next's caller until Next returns a record of a later batch.
type Batch struct {
	b *batch
	// Note is the stage's, for its results; Reader.Note hands it to Next's
	// caller. It stays with the batch when the batch is reused, so a stage
	// can reuse what it allocated.
	Note any
}

// Len is the number of records in the batch.
func (b *Batch) Len() int { return len(b.b.items) }

// Record is the batch's i-th record.
func (b *Batch) Record(i int) *Record { return &b.b.items[i].rec }

// Index is where the i-th record's frame has the members the reader's
// schema names (IndexMembers), or nil when the reader does not index or
// the record has no frame indexed exactly (jsonx.Index.Exact). It is valid
// as long as the record.
func (b *Batch) Index(i int) *jsonx.Index { return b.b.indexOf(i) }

func (b *batch) indexOf(i int) *jsonx.Index {
	if k := b.items[i].idx; k >= 0 {
		return &b.index[k]
	}
	return nil
}

// SetStage runs fn on every batch of records, in order, on a goroutine of
// its own between the reading and Next. It reports false, and does
// nothing, when the reader is serial (Options.Serial), has a stage, or
// Next was called already. fn runs on one goroutine at a time; Note gives
// Next's caller the note fn left for a record.
func (r *Reader) SetStage(fn func(*Batch)) bool {
	if r.opts.Serial || r.stage != nil || r.ahead != nil || r.closed || fn == nil {
		return false
	}
	r.stage = fn
	return true
}

// IndexMembers has the walk that validates each record also record where
// its frame's members that s names are (jsonx.Schema): the classifier and
// the redactor then look them up (Batch.Index, Reader.Index) instead of
// walking the frame again. Call it before the first Next; false when
// reading has begun.
func (r *Reader) IndexMembers(s *jsonx.Schema) bool {
	if r.ahead != nil || r.closed || r.stats.Records > 0 || s == nil {
		return false
	}
	r.schema = s
	return true
}

// Index is where the frame of the record Next returned last has the
// members of the reader's schema (IndexMembers); nil when the reader does
// not index or that record has no frame indexed exactly. It is valid until
// the next call to Next.
func (r *Reader) Index() *jsonx.Index {
	if r.schema == nil {
		return nil
	}
	if a := r.ahead; a != nil {
		if a.cur == nil || a.i == 0 {
			return nil
		}
		return a.cur.indexOf(a.i - 1)
	}
	if !r.idx.Exact {
		return nil
	}
	return &r.idx
}

// SetTransform has fn change every record as it is read, before Next (or
// the stage) sees it: fn returns the record to use, rec itself or a new
// one of the same kind (a frame stays a frame: the counts are the
// reader's). A serial reader calls fn in Next; the read-ahead on a
// goroutine of its own, one record at a time and in order, after the
// reading and before the stage. Call it before the first Next; false when
// reading has begun.
func (r *Reader) SetTransform(fn func(rec *Record) *Record) bool {
	if r.ahead != nil || r.closed || r.stats.Records > 0 {
		return false
	}
	r.transform = fn
	return true
}

// SetAhead has the read-ahead hold at most n batches for Next (two
// unless set) and a stage as many. A caller much slower than the reading
// gains nothing from more than one, and a process that reads several
// captures at once holds every reader's batches. Call it before the first
// Next; false when reading has begun or the reader is serial.
func (r *Reader) SetAhead(n int) bool {
	if r.opts.Serial || r.ahead != nil || r.closed || n < 1 {
		return false
	}
	r.depth = n
	return true
}

// Note returns the note the stage (SetStage) left on the batch of the
// record Next returned last, and the record's index in that batch; nil
// without a stage or a record.
func (r *Reader) Note() (note any, i int) {
	a := r.ahead
	if a == nil || a.cur == nil || a.i == 0 {
		return nil, 0
	}
	return a.cur.view.Note, a.i - 1
}

func (r *Reader) startAhead() {
	depth := r.depth
	if depth == 0 {
		depth = batchesAhead
	}
	parsers := r.parsers()
	a := &ahead{
		batches: make(chan *batch, depth),
		// Room for every batch that can exist at once (one filling, depth
		// waiting for the transform, one in it, depth waiting for the
		// stage, one in it, depth waiting for the caller, one read; with
		// parsers, three more for each and one in the sequencer), so none
		// is ever dropped to be allocated again.
		free:    make(chan *batch, 3*depth+4+3*parsers+1),
		stop:    make(chan struct{}),
		exited:  make(chan struct{}),
		stageEx: make(chan struct{}),
		xformEx: make(chan struct{}),
		seqEx:   make(chan struct{}),
		stats:   r.stats,
	}
	r.ahead = a
	r.collecting = true // from here on only the read-ahead touches the reading state
	out := a.batches
	if r.stage != nil {
		a.staged = make(chan *batch, depth)
		out = a.staged
		go runStage(a, r.stage)
	} else {
		close(a.stageEx)
	}
	if r.transform != nil {
		r.xformAhead = true
		a.xform = make(chan *batch, depth)
		go runTransform(a, r.transform, out)
		out = a.xform
	} else {
		close(a.xformEx)
	}
	if parsers == 0 {
		close(a.seqEx)
		go r.produce(a, out)
		return
	}
	toParse, parsed := make([]chan *batch, parsers), make([]chan *batch, parsers)
	for k := range parsers {
		toParse[k], parsed[k] = make(chan *batch, 1), make(chan *batch, 1)
		a.parsersEx.Add(1)
		go r.parser(a, toParse[k], parsed[k])
	}
	go r.sequence(a, parsed, out, r.stats)
	go r.split(a, toParse)
}

// runTransform is the transform's goroutine: each record of each batch
// from the reading goroutine goes through fn, then the batch goes on to
// out (the stage or the caller). A record whose frame fn changed loses its
// index (Batch.Index): it indexes the frame before the change.
func runTransform(a *ahead, fn func(*Record) *Record, out chan<- *batch) {
	defer close(a.xformEx)
	for {
		var b *batch
		select {
		case b = <-a.xform:
		case <-a.stop:
			return
		}
		for i := range b.items {
			it := &b.items[i]
			frame := it.rec.Frame
			if rec := fn(&it.rec); rec != &it.rec {
				it.rec = *rec
			}
			if !sameBytes(it.rec.Frame, frame) {
				it.idx = -1
			}
		}
		end := b.end
		if !a.send(out, b) || end {
			return
		}
	}
}

// runStage is the stage's goroutine: each batch from the reading goroutine
// goes through fn, then on to the caller.
func runStage(a *ahead, fn func(*Batch)) {
	defer close(a.stageEx)
	for {
		var b *batch
		select {
		case b = <-a.staged:
		case <-a.stop:
			return
		}
		if len(b.items) > 0 {
			fn(&b.view)
		}
		end := b.end // once sent, b is the caller's, then reused
		if !a.send(a.batches, b) || end {
			return
		}
	}
}

// produce is the read-ahead's goroutine; it sends batches to out.
func (r *Reader) produce(a *ahead, out chan<- *batch) {
	defer close(a.exited)
	defer r.releaseDecoder()
	b := a.batch()
	for {
		rec, err := r.next()
		if err != nil {
			b.end, b.err, b.warns, b.stats = true, err, r.pending, r.stats
			r.pending = nil
			b.seal()
			a.send(out, b)
			return
		}
		it := item{rec: *rec, warns: r.pending, stats: r.stats}
		r.pending = nil
		it.frame, it.raw = b.hold(rec.Frame), b.hold(rec.Raw)
		it.idx = -1
		if r.schema != nil && rec.Frame != nil && r.idx.Exact {
			it.idx = int32(len(b.index))
			b.index = append(b.index, r.idx)
		}
		it.rec.Frame, it.rec.Raw = nil, nil
		b.items = append(b.items, it)
		if len(b.items) >= batchRecords || len(b.arena) >= batchBytes || (r.br.Buffered() == 0 && len(r.queue) == 0) {
			b.seal()
			if !a.send(out, b) {
				return
			}
			b = a.batch()
		}
	}
}

// batch returns an empty batch, a used one when there is one.
func (a *ahead) batch() *batch {
	select {
	case b := <-a.free:
		clear(b.items) // drop the warnings' and strings' references
		clear(b.lines)
		b.items, b.lines, b.arena, b.index = b.items[:0], b.lines[:0], b.arena[:0], b.index[:0]
		b.end, b.err, b.warns, b.stats = false, nil, nil, Stats{}
		return b
	default:
		a.made++
		return &batch{items: make([]item, 0, batchRecords), arena: make([]byte, 0, batchBytes+batchBytes/4)}
	}
}

// send hands a batch on; false when the reader was closed.
func (a *ahead) send(to chan<- *batch, b *batch) bool {
	select {
	case to <- b:
		return true
	case <-a.stop:
		return false
	}
}

// next is Next on the caller's goroutine.
func (a *ahead) next(r *Reader) (*Record, error) {
	for {
		if b := a.cur; b != nil && a.i < len(b.items) {
			it := &b.items[a.i]
			a.i++
			for _, w := range it.warns {
				r.deliver(w)
			}
			a.stats = it.stats
			a.out = it.rec
			return &a.out, nil
		}
		if a.err != nil {
			return nil, a.err
		}
		if b := a.cur; b != nil {
			a.cur = nil
			if b.end {
				for _, w := range b.warns {
					r.deliver(w)
				}
				a.stats, a.err = b.stats, b.err
				continue
			}
			a.unref(b)
		}
		a.cur, a.i = <-a.batches, 0
		a.cur.refs.Store(1)
	}
}

// unref lets go of one hold on b; the last one gives it back for reuse
// (unless a huge line grew its arena).
func (a *ahead) unref(b *batch) {
	if b.refs.Add(-1) == 0 && cap(b.arena) <= keepArena {
		select {
		case a.free <- b:
		default:
		}
	}
}

// Hold keeps the record Next returned last, and the batch it came in
// with its stage's note (Batch.Note), valid past the next calls to Next:
// until release is called, once for each Hold (records of one batch give
// the same function, without allocating). It is nil when there is nothing to hold
// (a serial reader, no record yet): the record is then valid until the
// next Next only. A caller that holds records without letting them go
// holds the read-ahead's memory: batches in use are not reused.
func (r *Reader) Hold() (release func()) {
	a := r.ahead
	if a == nil || a.cur == nil || a.i == 0 {
		return nil
	}
	b := a.cur
	b.refs.Add(1)
	if b.release == nil {
		b.release = func() { a.unref(b) }
	}
	return b.release
}

// stopAhead ends the read-ahead. A file the reader opened is closed, which
// ends a read in flight on it (a pipe too), and the goroutines are waited
// for. On an input the caller gave (standard input) a read in flight may
// wait for data for as long as the writer likes, so Close does not wait:
// the goroutines end once it returns, and the read-ahead releases the
// decoder and calls Options.Release then.
func (r *Reader) stopAhead() error {
	close(r.ahead.stop)
	if r.closer == nil {
		return nil
	}
	err := r.closer.Close()
	<-r.ahead.exited
	r.ahead.parsersEx.Wait()
	<-r.ahead.seqEx
	<-r.ahead.xformEx
	<-r.ahead.stageEx
	return err
}
