package report

import (
	"cmp"
	"encoding/binary"
	"errors"
	"math"
	"slices"
)

// The report writes each run once, when the pass lets it go
// (Builder.RunDone): encoded, to a spool of its own, end to end in the
// order of the runs' numbers, which is the order the page lists them in.
// The end of the pass and the page's writers read them back in that order,
// each a walk from the first, so no run is ever looked up by id or index
// once let go. What stays on the heap for a run let go is its lane and
// track (8 bytes).

var errRunSpool = errors.New("report: a run read back from the spool is corrupt")

// runList is the runs the pass let go, in the order of their numbers.
type runList struct {
	sp     *spool
	n      int
	lanes  []int32 // each run's lane; compacted at the end of the pass
	tracks []int32 // each run's track on its lane
	tr     trackPlacer
	maxT   int64 // the capture's end, where an unfinished run's bar stops
	// the runs from cutFrom on show no transcript or output (trim)
	cutFrom int
	// the runs' transcript and output lines, and their size in the data
	lines, text int
	buf, hdr    []byte
}

func newRunList(sp *spool) *runList {
	return &runList{sp: sp, cutFrom: math.MaxInt, tr: trackPlacer{sorted: true}}
}

// add writes run x, the next in order, and places it on its lane.
func (l *runList) add(x *Run) {
	l.buf = appendRun(l.buf[:0], x)
	l.hdr = binary.AppendUvarint(l.hdr[:0], uint64(len(l.buf)))
	l.sp.put(l.hdr)
	l.sp.put(l.buf)
	l.n++
	l.lanes = append(l.lanes, int32(x.Lane))
	// An unfinished run's bar reaches the capture's end, which is later
	// than any run's start: for placing, as good as the end itself.
	until := int64(math.MaxInt64)
	if x.hasChat || x.hasLife {
		until = max(x.End, x.Last)
	}
	l.tracks = append(l.tracks, l.tr.place(x.Lane, x.Start, until))
	n, lines := textSize(x)
	l.text += n
	l.lines += lines
}

// textSize is what a run's transcript and output lines add to the data,
// about, and how many they are.
func textSize(x *Run) (n, lines int) {
	for _, l := range x.transcript {
		n += l.text.n + 48
	}
	for _, l := range x.output {
		n += l.n + 8
	}
	return n, len(x.transcript) + len(x.output)
}

// each calls fn with every run in order, as the page shows it, until fn
// returns false: its end settled (a run that never finished ends with the
// capture, and none ends before it starts), its connections sorted, its
// lane and track set. A run that does not read back whole stops the walk
// and is the spool's error.
func (l *runList) each(fn func(x *Run) bool) {
	rd := seqReader{sp: l.sp, end: l.sp.end}
	var x Run
	for k := range l.n {
		b := rd.next()
		if b == nil {
			l.fail()
			return
		}
		d := decoder{b: b}
		d.run(&x)
		if d.bad {
			l.fail()
			return
		}
		x.N, x.Lane, x.Track = k+1, int(l.lanes[k]), int(l.tracks[k])
		if !x.hasChat && !x.hasLife {
			x.Terminal, x.End = TermNone, l.maxT
		}
		x.End = max(x.End, x.Start)
		x.Conns = make([]int, len(x.conns))
		for c := range x.conns {
			x.Conns[c] = int(x.conns[c].conn)
		}
		slices.Sort(x.Conns)
		if _, lines := textSize(&x); k >= l.cutFrom && lines > 0 {
			x.TranscriptElided += int32(lines)
			x.transcript, x.output, x.hasOutput = nil, nil, true
		}
		if !fn(&x) {
			return
		}
	}
}

func (l *runList) fail() {
	if l.sp.err == nil {
		l.sp.err = errRunSpool
	}
}

// placeSorted places the runs again in order of start on each lane, when
// they did not come so (the capture's clock went back): each run's span
// is read back once more.
func (l *runList) placeSorted() {
	type bar struct {
		k            int32
		start, until int64
	}
	var byLane [][]bar
	k := int32(0)
	l.each(func(x *Run) bool {
		for x.Lane >= len(byLane) {
			byLane = append(byLane, nil)
		}
		byLane[x.Lane] = append(byLane[x.Lane], bar{k, x.Start, max(x.End, x.Last)})
		k++
		return true
	})
	l.tr = trackPlacer{sorted: true}
	for lane, bars := range byLane {
		slices.SortStableFunc(bars, func(x, y bar) int { return cmpInt64(x.start, y.start) })
		for _, b := range bars {
			l.tracks[b.k] = l.tr.place(lane, b.start, b.until)
		}
	}
}

// cutTranscripts elides the transcripts and output of the last runs that
// have any, as few runs as free over bytes of the data (all of them when
// that is not enough), and returns the bytes freed and the lines elided.
func (l *runList) cutTranscripts(over int) (freed, lines int) {
	keep := l.text - over // what the runs before the cut may hold
	from, before, linesBefore := 0, 0, 0
	n, m := 0, 0
	l.each(func(x *Run) bool {
		if n > keep {
			return false
		}
		from, before, linesBefore = x.N-1, n, m
		dn, dm := textSize(x)
		n, m = n+dn, m+dm
		return true
	})
	l.cutFrom = from
	return l.text - before, l.lines - linesBefore
}

// place is run k's lane and track.
func (l *runList) place(k int) (lane, track int) {
	return int(l.lanes[k]), int(l.tracks[k])
}

// seqReader reads what was put in a spool from off to end as records,
// each a uvarint length and its bytes, in order, a chunk at a time and
// past the spool's windows: several walk a spool at once (the findings'
// blocks as they are merged).
type seqReader struct {
	sp       *spool
	off, end int64
	buf      []byte
	at       int
	chunk    int // bytes read at once; seqChunk when 0
}

const seqChunk = 32 << 10

// next returns the next record, valid until the next call; nil at the
// end, or when what is left is not a whole record (the caller says so).
func (r *seqReader) next() []byte {
	for {
		b := r.buf[r.at:]
		n, w := binary.Uvarint(b)
		if w > 0 && n <= uint64(len(b)-w) {
			r.at += w + int(n)
			return b[w : w+int(n)]
		}
		left := r.end - r.off
		if left <= 0 || w < 0 || r.sp.err != nil {
			return nil
		}
		want := int64(cmp.Or(r.chunk, seqChunk))
		if w > 0 {
			want = max(want, int64(w)+int64(n)-int64(len(b)))
		}
		r.buf = append(r.buf[:0], b...)
		r.at = 0
		k := min(want, left, math.MaxInt32)
		r.buf = r.sp.peek(r.buf, span{off: r.off, n: int32(k)})
		r.off += k
	}
}

// appendRun encodes r (all but what the list keeps or derives: its
// number, lane, track and sorted connections).
func appendRun(b []byte, r *Run) []byte {
	b = appendStr(b, r.ID)
	for _, v := range [...]int64{r.Start, r.End, r.Last, int64(r.FirstI), int64(r.LastI), int64(r.TermI)} {
		b = binary.AppendVarint(b, v)
	}
	b = appendStr(b, r.Terminal)
	for _, v := range [...]int32{r.Terminals, r.Frames, r.AgentDeltas, r.ChatDeltas, r.Tools, r.Approvals, r.Late, r.TranscriptElided} {
		b = binary.AppendVarint(b, int64(v))
	}
	var flags byte
	for bit, on := range [...]bool{r.hasOutput, r.hasChat, r.hasLife, r.Reopened} {
		if on {
			flags |= 1 << bit
		}
	}
	b = append(b, flags)
	b = binary.AppendUvarint(b, uint64(len(r.conns)))
	for _, c := range r.conns {
		b = binary.AppendVarint(b, int64(c.conn))
		b = binary.AppendVarint(b, int64(c.terminals))
		b = binary.AppendVarint(b, int64(c.tools))
		b = binary.AppendVarint(b, int64(c.toolItems))
	}
	b = binary.AppendUvarint(b, uint64(len(r.transcript)))
	for _, l := range r.transcript {
		b = appendStr(b, l.Kind)
		b = binary.AppendVarint(b, l.T)
		b = appendStr(b, l.Via)
		b = appendText(b, l.text)
	}
	b = binary.AppendUvarint(b, uint64(len(r.output)))
	for _, t := range r.output {
		b = appendText(b, t)
	}
	return b
}

func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendText(b []byte, t spooledText) []byte {
	b = binary.AppendVarint(b, t.at.off)
	b = binary.AppendVarint(b, int64(t.at.n))
	return binary.AppendVarint(b, int64(t.n))
}

// decoder reads what appendRun and appendFinding wrote; bad is set, and
// zeros read, once the bytes run out or do not fit.
type decoder struct {
	b   []byte
	bad bool
}

func (d *decoder) int() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.bad, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) count() int {
	v, n := binary.Uvarint(d.b)
	if n <= 0 || v > uint64(len(d.b)) { // each item takes a byte at least
		d.bad, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return int(v)
}

func (d *decoder) bytes() []byte {
	n := d.count()
	if n > len(d.b) {
		d.bad, d.b = true, nil
		return nil
	}
	s := d.b[:n]
	d.b = d.b[n:]
	return s
}

func (d *decoder) str() string { return string(d.bytes()) }

func (d *decoder) byte() byte {
	if len(d.b) == 0 {
		d.bad = true
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) text() spooledText {
	return spooledText{at: span{off: d.int(), n: int32(d.int())}, n: int(d.int())}
}

func (d *decoder) run(r *Run) {
	*r = Run{ID: d.str()}
	var ints [6]int64
	for k := range ints {
		ints[k] = d.int()
	}
	r.Start, r.End, r.Last = ints[0], ints[1], ints[2]
	r.FirstI, r.LastI, r.TermI = int(ints[3]), int(ints[4]), int(ints[5])
	r.Terminal = d.str()
	for _, p := range [...]*int32{&r.Terminals, &r.Frames, &r.AgentDeltas, &r.ChatDeltas, &r.Tools, &r.Approvals, &r.Late, &r.TranscriptElided} {
		*p = int32(d.int())
	}
	flags := d.byte()
	r.hasOutput, r.hasChat, r.hasLife, r.Reopened = flags&1 != 0, flags&2 != 0, flags&4 != 0, flags&8 != 0
	if n := d.count(); n > 0 {
		r.conns = make([]connTerm, n)
		for c := range r.conns {
			r.conns[c] = connTerm{conn: int32(d.int()), terminals: int32(d.int()), tools: int32(d.int()), toolItems: int32(d.int())}
		}
	}
	if n := d.count(); n > 0 {
		r.transcript = make([]spooledLine, n)
		for l := range r.transcript {
			x := &r.transcript[l]
			x.Kind = d.str()
			x.T = d.int()
			x.Via = d.str()
			x.text = d.text()
		}
	}
	if n := d.count(); n > 0 {
		r.output = make([]spooledText, n)
		for o := range r.output {
			r.output[o] = d.text()
		}
	}
	if len(d.b) != 0 {
		d.bad = true
	}
}
