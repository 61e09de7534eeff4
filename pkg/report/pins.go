package report

import (
	"encoding/binary"
	"slices"
)

// A capture of many short runs has a finding for each, and the findings'
// pins (what the end of the pass sorts and places them by) made the
// builder's memory grow by 32 bytes a finding. The pins fill blocks: the
// block being filled is on the heap, each full one waits in the findings'
// spool. The end of the pass walks the blocks, sorts each, and merges them
// in their final order into the spool, where they are read back a few at a
// time. A report whose findings fit in one block never touches the spool
// for them.

// pinsPerBlock is how many pins a block holds: 1 MiB of them (a variable
// for tests).
var pinsPerBlock = 1 << 15

const (
	pinSize = 32 // a pin, encoded
	// pinsRead is how many pins a read of a spooled block takes at once.
	pinsRead = 128
)

// pinList is the findings' pins: in the order they were made until sort,
// then in their final order.
type pinList struct {
	sp     *spool
	blocks []int64  // where each full block lies in the spool, in order
	cur    []pinned // the block being filled, or the whole list if it is the only one
	n      int      // pins in all
	merged bool     // sorted into the spool, at at0, rather than into cur
	at0    int64    // where the merged list lies
	got    []pinned // once merged, the pins read last, from gotAt on
	gotAt  int
	none   pinned // what at gives for a pin the spool could not give
	buf    []byte
	tmp    []pinned
}

func (l *pinList) len() int { return l.n }

func (l *pinList) add(p pinned) {
	if len(l.cur) == pinsPerBlock {
		l.blocks = append(l.blocks, l.spill(l.cur))
		l.cur = l.cur[:0]
	}
	l.cur = append(l.cur, p)
	l.n++
}

// spill puts a block in the spool, pinsRead at a time (one after the
// other, they lie end to end), and returns where it lies.
func (l *pinList) spill(block []pinned) (at int64) {
	for c := 0; c < len(block); c += pinsRead {
		l.buf = appendPins(l.buf[:0], block[c:min(c+pinsRead, len(block))])
		if sp := l.sp.put(l.buf); c == 0 {
			at = sp.off
		}
	}
	return at
}

// chunk reads pins [c, c+n) of the block at off into tmp.
func (l *pinList) chunk(off int64, c, n int) []pinned {
	l.buf = l.sp.appendTo(l.buf[:0], span{off: off + int64(c*pinSize), n: int32(n * pinSize)})
	l.tmp = decodePins(l.tmp[:0], l.buf)
	return l.tmp
}

// rewrite writes pins back over those from the c-th of the block at off.
func (l *pinList) rewrite(off int64, c int, ps []pinned) {
	l.buf = appendPins(l.buf[:0], ps)
	l.sp.patch(span{off: off + int64(c*pinSize), n: int32(len(l.buf))}, 0, l.buf)
}

// each calls fn with every pin in the order they were made (before sort);
// a pin fn changed is kept changed when fn returns true.
func (l *pinList) each(fn func(p *pinned) bool) {
	for _, off := range l.blocks {
		for c := 0; c < pinsPerBlock; c += pinsRead {
			n := min(pinsRead, pinsPerBlock-c)
			ps, changed := l.chunk(off, c, n), false
			for k := range ps {
				changed = fn(&ps[k]) || changed
			}
			if changed {
				l.rewrite(off, c, ps)
			}
		}
	}
	for k := range l.cur {
		fn(&l.cur[k])
	}
}

// sort puts the pins in order by cmp, keeping the order they were made
// among equals: each block is sorted, then the blocks are merged.
func (l *pinList) sort(cmp func(x, y pinned) int) {
	slices.SortStableFunc(l.cur, cmp)
	if len(l.blocks) == 0 {
		return
	}
	block := make([]pinned, 0, pinsPerBlock)
	for _, off := range l.blocks {
		block = block[:0]
		for c := 0; c < pinsPerBlock; c += pinsRead {
			block = append(block, l.chunk(off, c, min(pinsRead, pinsPerBlock-c))...)
		}
		slices.SortStableFunc(block, cmp)
		for c := 0; c < len(block); c += pinsRead {
			l.rewrite(off, c, block[c:min(c+pinsRead, len(block))])
		}
	}
	// Merge: a cursor a block (the one on the heap last); a tie goes to
	// the block made first, so the whole sort is stable.
	type cursor struct {
		pins []pinned
		off  int64 // where the rest of a spooled block lies
		left int   // pins of it still in the spool
	}
	cs := make([]cursor, 0, len(l.blocks)+1)
	for _, off := range l.blocks {
		cs = append(cs, cursor{off: off, left: pinsPerBlock})
	}
	cs = append(cs, cursor{pins: l.cur})
	fill := func(c *cursor) {
		if len(c.pins) > 0 || c.left == 0 {
			return
		}
		k := min(c.left, pinsRead)
		l.buf = l.sp.peek(l.buf[:0], span{off: c.off, n: int32(k * pinSize)})
		c.pins = decodePins(c.pins[:0], l.buf)
		c.off, c.left = c.off+int64(k*pinSize), c.left-k
	}
	out := make([]byte, 0, pinsRead*pinSize)
	for done := 0; done < l.n; done++ {
		var best *cursor
		for k := range cs {
			c := &cs[k]
			fill(c)
			if len(c.pins) > 0 && (best == nil || cmp(c.pins[0], best.pins[0]) < 0) {
				best = c
			}
		}
		if best == nil {
			break // a block did not read back whole: the spool has the error
		}
		out = appendPins(out, best.pins[:1])
		best.pins = best.pins[1:]
		if len(out) == cap(out) {
			l.put(out)
			out = out[:0]
		}
	}
	l.put(out)
	if !l.merged { // nothing came back: at reads past the spool's end, and gives none
		l.merged, l.at0 = true, l.sp.end
	}
	l.blocks, l.cur = nil, nil
}

// put appends merged pins to the spool: one put after the other, they lie
// end to end from at0.
func (l *pinList) put(out []byte) {
	if len(out) == 0 {
		return
	}
	if at := l.sp.put(out).off; !l.merged {
		l.merged, l.at0 = true, at
	}
}

// at is pin k, once sorted.
func (l *pinList) at(k int) *pinned {
	if !l.merged {
		return &l.cur[k]
	}
	if k < l.gotAt || k >= l.gotAt+len(l.got) {
		n := min(l.n-k, pinsRead)
		l.buf = l.sp.peek(l.buf[:0], span{off: l.at0 + int64(k*pinSize), n: int32(n * pinSize)})
		l.got, l.gotAt = decodePins(l.got[:0], l.buf), k
		if len(l.got) == 0 {
			l.none = pinned{run: -1, lane: -1}
			return &l.none
		}
	}
	return &l.got[k-l.gotAt]
}

func appendPins(b []byte, ps []pinned) []byte {
	for _, p := range ps {
		b = binary.LittleEndian.AppendUint64(b, uint64(p.i))
		b = binary.LittleEndian.AppendUint64(b, uint64(p.off))
		b = binary.LittleEndian.AppendUint32(b, uint32(p.n))
		b = binary.LittleEndian.AppendUint32(b, uint32(p.run))
		b = binary.LittleEndian.AppendUint32(b, uint32(p.lane))
		b = binary.LittleEndian.AppendUint16(b, p.rule)
		var has byte
		if p.hasRunID {
			has = 1
		}
		b = append(b, has, 0)
	}
	return b
}

// decodePins appends the pins b holds (whole pins only: what the spool
// could not give is missing, and the spool has the error).
func decodePins(ps []pinned, b []byte) []pinned {
	for ; len(b) >= pinSize; b = b[pinSize:] {
		le := binary.LittleEndian
		ps = append(ps, pinned{i: int(int64(le.Uint64(b))), off: int64(le.Uint64(b[8:])), n: int32(le.Uint32(b[16:])),
			run: int32(le.Uint32(b[20:])), lane: int32(le.Uint32(b[24:])), rule: le.Uint16(b[28:]), hasRunID: b[30] != 0})
	}
	return ps
}
