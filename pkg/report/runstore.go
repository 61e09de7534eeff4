package report

import (
	"encoding/binary"
	"errors"
	"slices"
)

// The report has a Run for every run of the capture, and a long capture
// has tens of thousands: held on the heap, they made the builder's memory
// grow with the capture (about 270 bytes a run). The runs the pass touched
// last stay on the heap; the others wait in the text spool, encoded, and
// come back when a frame, a transcript line or the end of the pass needs
// them. Where each waits is kept by pages, most of which wait in the
// spool too (runmeta.go), and so do the hashes of the ids of all but the
// runs added last (runindex.go). What stays on the heap for every run is
// a bit or so of a filter and, once the pass has ended, its lane and
// track: about 9 bytes a run.

// maxLiveRuns is how many runs stay on the heap: the pass's run table
// holds as many (pipeline.DefaultMaxRuns), so a run the report lets go is
// one the replay let go too, and seldom comes back.
const maxLiveRuns = 1024

var errRunSpool = errors.New("report: a run read back from the spool is corrupt")

// runStore holds the report's runs by index, in the order they appeared.
type runStore struct {
	meta    metaTable
	slots   []*Run  // the runs on the heap; nil in a free slot
	touched []bool  // by slot: the run was used since it was last queued
	free    []int32 // free slots
	queue   []int32 // the runs on the heap, in the order they may leave it
	head    int
	back    int                 // runs brought back from the spool
	max     int                 // maxLiveRuns; smaller in tests
	hash    func(string) uint32 // hashID; a weaker one in tests
	ids     *runIndex
	sp      *spool
	buf     []byte
	// set when the pass has ended: each run's lane and track, and the
	// capture's end, where an unfinished run's bar stops
	lanes, tracks []int32
	maxT          int64
}

// runMeta is where a run waits in the spool (a span, flattened), or its
// slot while it is on the heap (runmeta.go keeps them).
type runMeta struct {
	off  int64
	n    int32
	slot int32 // -1 in the spool
}

func (m *runMeta) at() span { return span{off: m.off, n: m.n} }

func (m *runMeta) put(sp span) { m.off, m.n = sp.off, sp.n }

func newRunStore(sp *spool) *runStore {
	return &runStore{max: maxLiveRuns, hash: hashID, ids: newRunIndex(sp), sp: sp, meta: metaTable{sp: sp}}
}

func (s *runStore) len() int { return s.meta.len() }

// nlive is how many runs are on the heap.
func (s *runStore) nlive() int { return len(s.slots) - len(s.free) }

// add appends a new run and returns its index.
func (s *runStore) add(r *Run) int {
	k := s.meta.add(runMeta{slot: -1})
	s.hold(k, r)
	s.ids.add(s.hash(r.ID), r.ID, int32(k))
	s.evict()
	return k
}

// hold puts run k on the heap, in a slot, used.
func (s *runStore) hold(k int, r *Run) {
	var slot int32
	if n := len(s.free); n > 0 {
		slot, s.free = s.free[n-1], s.free[:n-1]
		s.slots[slot], s.touched[slot] = r, true
	} else {
		slot = int32(len(s.slots))
		s.slots, s.touched = append(s.slots, r), append(s.touched, true)
	}
	s.meta.edit(k).slot = slot
	s.queue = append(s.queue, int32(k))
}

// live is run k if it is on the heap, else nil.
func (s *runStore) live(k int) *Run {
	if slot := s.meta.get(k).slot; slot >= 0 {
		return s.slots[slot]
	}
	return nil
}

// find returns the index of the run with this id.
func (s *runStore) find(id string) (int, bool) {
	found := -1
	s.ids.each(s.hash(id), id, func(k int32) bool {
		if s.id(int(k)) == id {
			found = int(k)
		}
		return found >= 0
	})
	return found, found >= 0
}

// id is run k's id, without bringing the run back to the heap.
func (s *runStore) id(k int) string {
	if r := s.live(k); r != nil {
		return r.ID
	}
	var id string
	m := s.meta.get(k)
	id, s.buf = leadingString(s.sp, s.buf, m.at())
	return id
}

// leadingString reads the string an encoded run or finding starts with
// (its id, its rule) out of order: as much as such a string usually
// takes, and the rest only for a longer one. It returns the buffer it
// read into, for reuse.
func leadingString(sp *spool, buf []byte, at span) (string, []byte) {
	buf = sp.peek(buf[:0], span{off: at.off, n: min(at.n, 64)})
	if n, w := binary.Uvarint(buf); w > 0 && n <= uint64(len(buf)-w) {
		return string(buf[w : w+int(n)]), buf
	}
	buf = sp.peek(buf[:0], at)
	d := decoder{b: buf}
	return d.str(), buf
}

// get returns run k on the heap, bringing it back from the spool if it
// left: the pointer is valid until the next add or get.
func (s *runStore) get(k int) *Run {
	if slot := s.meta.get(k).slot; slot >= 0 {
		s.touched[slot] = true
		return s.slots[slot]
	}
	r := &Run{}
	s.decode(k, r)
	s.back++
	s.hold(k, r)
	s.evict()
	return r
}

// view returns a copy of run k as it is now, wherever it waits.
func (s *runStore) view(k int) Run {
	if r := s.live(k); r != nil {
		return *r
	}
	var r Run
	s.decode(k, &r)
	return r
}

// set replaces run k (the end of the pass trims transcripts).
func (s *runStore) set(k int, r Run) {
	if p := s.live(k); p != nil {
		*p = r
		return
	}
	s.buf = appendRun(s.buf[:0], &r)
	at := s.sp.put(s.buf)
	s.meta.edit(k).put(at)
}

// settled is run k with its end settled: a run that never finished ends
// with the capture, and no run ends before it starts.
func (s *runStore) settled(k int) Run {
	r := s.view(k)
	if !r.hasChat && !r.hasLife {
		r.Terminal, r.End = TermNone, s.maxT
	}
	r.End = max(r.End, r.Start)
	return r
}

// final is run k as the report shows it: settled, its connections sorted,
// its lane and track set.
func (s *runStore) final(k int) Run {
	r := s.settled(k)
	r.Conns = make([]int, len(r.conns))
	for c := range r.conns {
		r.Conns[c] = int(r.conns[c].conn)
	}
	slices.Sort(r.Conns)
	r.conns = nil
	if s.lanes != nil {
		r.Lane, r.Track = s.place(k)
	}
	return r
}

// evict sends the runs used least lately to the spool, past s.max.
func (s *runStore) evict() {
	for s.nlive() > s.max && s.head < len(s.queue) {
		k := s.queue[s.head]
		s.head++
		slot := s.meta.get(int(k)).slot
		if s.touched[slot] {
			s.touched[slot] = false
			s.queue = append(s.queue, k)
			continue
		}
		s.buf = appendRun(s.buf[:0], s.slots[slot])
		s.slots[slot] = nil
		s.free = append(s.free, slot)
		at := s.sp.put(s.buf)
		m := s.meta.edit(int(k))
		m.put(at)
		m.slot = -1
	}
	if s.head > len(s.queue)/2 && s.head > 1024 {
		s.queue = append(s.queue[:0], s.queue[s.head:]...)
		s.head = 0
	}
}

func (s *runStore) read(k int) []byte {
	m := s.meta.get(k)
	s.buf = s.sp.appendTo(s.buf[:0], m.at())
	return s.buf
}

func (s *runStore) decode(k int, r *Run) {
	d := decoder{b: s.read(k)}
	d.run(r)
	if d.bad && s.sp.err == nil {
		s.sp.err = errRunSpool
	}
}

// hashID is the 32-bit FNV-1a hash of a run id: the index (runindex.go)
// keeps 32 bits a run, and finds the one run of the few with the same
// hash (one or two in 100,000) by its id.
func hashID(id string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(id); i++ {
		h ^= uint32(id[i])
		h *= 16777619
	}
	return h
}

// appendRun encodes r (all but Conns, which the end of the pass derives).
func appendRun(b []byte, r *Run) []byte {
	b = appendStr(b, r.ID)
	for _, v := range [...]int64{int64(r.Lane), int64(r.Track), r.Start, r.End, r.Last, int64(r.FirstI), int64(r.LastI), int64(r.TermI)} {
		b = binary.AppendVarint(b, v)
	}
	b = appendStr(b, r.Terminal)
	for _, v := range [...]int32{r.Terminals, r.Frames, r.AgentDeltas, r.ChatDeltas, r.Tools, r.Approvals, r.Late, r.TranscriptElided} {
		b = binary.AppendVarint(b, int64(v))
	}
	var flags byte
	for bit, on := range [...]bool{r.hasOutput, r.hasChat, r.hasLife, r.laneFixed} {
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

// decoder reads what appendRun wrote; bad is set, and zeros read, once
// the bytes run out or do not fit.
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

func (d *decoder) str() string {
	n := d.count()
	if n > len(d.b) {
		d.bad, d.b = true, nil
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *decoder) text() spooledText {
	return spooledText{at: span{off: d.int(), n: int32(d.int())}, n: int(d.int())}
}

func (d *decoder) run(r *Run) {
	*r = Run{ID: d.str()}
	var ints [8]int64
	for k := range ints {
		ints[k] = d.int()
	}
	r.Lane, r.Track, r.Start, r.End, r.Last = int(ints[0]), int(ints[1]), ints[2], ints[3], ints[4]
	r.FirstI, r.LastI, r.TermI = int(ints[5]), int(ints[6]), int(ints[7])
	r.Terminal = d.str()
	for _, p := range [...]*int32{&r.Terminals, &r.Frames, &r.AgentDeltas, &r.ChatDeltas, &r.Tools, &r.Approvals, &r.Late, &r.TranscriptElided} {
		*p = int32(d.int())
	}
	var flags byte
	if len(d.b) > 0 {
		flags, d.b = d.b[0], d.b[1:]
	} else {
		d.bad = true
	}
	r.hasOutput, r.hasChat, r.hasLife, r.laneFixed = flags&1 != 0, flags&2 != 0, flags&4 != 0, flags&8 != 0
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

// place is run k's lane and track, once the pass has ended.
func (s *runStore) place(k int) (lane, track int) {
	return int(s.lanes[k]), int(s.tracks[k])
}
