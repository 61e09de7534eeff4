package capture

// The read-ahead across cores. With more than one core the reading
// goroutine only decompresses the input and splits it into lines, copied
// into a batch's arena (split); parsers, one goroutine each, take the
// batches in turn (round robin), validate, parse and index each line
// (the one walk per frame) and check its UTF-8 (repaired and parsed again
// when it is invalid); and a sequencer takes the
// batches back from the parsers in the same turn, so in capture order,
// counts each record (its Index, the reader's Stats) and hands the batch
// on, to the transform, the stage or Next, as the single reading goroutine
// does. The records, warnings and counts are the serial reader's, in the
// same order: what a line is does not depend on the lines before it, and
// whatever does (the record's index, the counts, the first invalid UTF-8
// warning) is decided by the sequencer, in order.

import (
	"runtime"
	"unsafe"

	"github.com/clawtap/clawtap/pkg/jsonx"
)

// maxParsers bounds the parsers: past a few, the reading goroutine (the
// zstd decoder) is the slowest stage.
const maxParsers = 4

// parsers is how many parsing goroutines the read-ahead runs: none (the
// reading goroutine parses) on one core.
func (r *Reader) parsers() int {
	n := r.opts.Parsers
	if n == 0 {
		n = runtime.GOMAXPROCS(0)
	}
	if n < 2 {
		return 0
	}
	return min(n, maxParsers)
}

// line is one line of a batch the splitter filled, before it is parsed:
// its bytes in the arena, its number, the warnings met on the way to it
// and the counts of the reading (Bytes, Oversized) once it was read.
type line struct {
	start, end int
	n          int
	warns      []Warning
	stats      Stats
}

// split is the reading goroutine with parsers: lines, batch by batch, to
// each parser in turn.
func (r *Reader) split(a *ahead, to []chan *batch) {
	defer close(a.exited)
	defer r.releaseDecoder()
	defer func() {
		for _, c := range to {
			close(c)
		}
	}()
	turn := 0
	send := func(b *batch) bool {
		ok := a.send(to[turn], b)
		turn = (turn + 1) % len(to)
		return ok
	}
	b := a.batch()
	for {
		l, n, err := r.nextLine()
		if err != nil {
			b.end, b.err, b.warns, b.stats = true, err, r.pending, r.stats
			r.pending = nil
			send(b)
			return
		}
		start := len(b.arena)
		b.arena = append(b.arena, l...)
		b.lines = append(b.lines, line{start: start, end: len(b.arena), n: n, warns: r.pending, stats: r.stats})
		r.pending = nil
		if len(b.lines) >= batchRecords || len(b.arena) >= batchBytes || (r.br.Buffered() == 0 && len(r.queue) == 0) {
			if !send(b) {
				return
			}
			b = a.batch()
		}
	}
}

// parser is one parsing goroutine: each batch from the splitter is
// parsed into records, then handed on to the sequencer.
func (r *Reader) parser(a *ahead, from <-chan *batch, to chan<- *batch) {
	defer a.parsersEx.Done()
	var fix []byte
	for b := range from {
		r.parseBatch(b, &fix)
		if !a.send(to, b) {
			return
		}
	}
}

// parseBatch parses a batch's lines into its items, each record's
// bytes in the arena (a repaired line is added to it).
func (r *Reader) parseBatch(b *batch, fix *[]byte) {
	b.items = b.items[:0]
	for k := range b.lines {
		l := &b.lines[k]
		text := b.arena[l.start:l.end]
		it := item{warns: l.warns, stats: l.stats, idx: -1}
		var idx *jsonx.Index
		if r.schema != nil {
			b.index = append(b.index, jsonx.Index{})
			idx = &b.index[len(b.index)-1]
		}
		var p parsed
		p.parse(text, l.n, &it.rec, r.schema, idx)
		if !validUTF8(text, idx) { // parsed again, repaired, in the arena
			at := len(b.arena)
			b.arena = append(b.arena, repaired(text, fix)...)
			text = b.arena[at:]
			p = parsed{badUTF8: true}
			p.parse(text, l.n, &it.rec, r.schema, idx)
		}
		if idx != nil {
			if idx.Exact && it.rec.Frame != nil {
				it.idx = int32(len(b.index) - 1)
			} else {
				b.index = b.index[:len(b.index)-1]
			}
		}
		it.parsed = p
		it.frame, it.rec.Frame = b.within(it.rec.Frame)
		it.raw, it.rec.Raw = b.within(it.rec.Raw)
		b.items = append(b.items, it)
	}
}

// within returns v as a span of the arena when it lies in it (and nil),
// else no span and v itself (a raw message decoded from its JSON string).
func (b *batch) within(v []byte) (span, []byte) {
	if v == nil {
		return span{}, nil
	}
	if len(v) > 0 && len(b.arena) > 0 {
		base := uintptr(unsafe.Pointer(unsafe.SliceData(b.arena)))
		p := uintptr(unsafe.Pointer(unsafe.SliceData(v)))
		if p >= base && p+uintptr(len(v)) <= base+uintptr(len(b.arena)) {
			at := int(p - base)
			return span{start: at, end: at + len(v), set: true}, nil
		}
	}
	return span{}, v
}

// sequence is the sequencer: it takes the batches back from the parsers
// in the splitter's turn, counts their records in capture order and hands
// them on to out.
// st is the reader's counts when the read-ahead began; from then on the
// counts of the records are the sequencer's alone.
func (r *Reader) sequence(a *ahead, from []chan *batch, out chan<- *batch, st Stats) {
	defer close(a.seqEx)
	for turn := 0; ; turn = (turn + 1) % len(from) {
		var b *batch
		select {
		case b = <-from[turn]:
		case <-a.stop:
			return
		}
		for i := range b.items {
			it := &b.items[i]
			r.account(&it.rec, &it.parsed, &st, &it.warns)
			it.stats = merged(it.stats, st)
		}
		if b.end {
			b.stats = merged(b.stats, st)
		}
		b.seal()
		end := b.end
		if !a.send(out, b) || end {
			return
		}
	}
}

// merged is the reading's counts (read: bytes, oversized lines, the end)
// with the records' (counted: records and their kinds).
func merged(read, counted Stats) Stats {
	read.Records, read.Frames, read.Raw, read.Marks, read.Bare = counted.Records, counted.Frames, counted.Raw, counted.Marks, counted.Bare
	read.Malformed, read.InvalidUTF8, read.BadTime = counted.Malformed, counted.InvalidUTF8, counted.BadTime
	return read
}
