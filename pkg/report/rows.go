package report

import (
	"cmp"
	"encoding/binary"
	"iter"
	"slices"
)

// Rows is the timeline's rows, packed: each row is varints of its fields
// (deltas from the row before for index, time and seq) and a fixed-width
// owner, ~13 bytes instead of Row's 48, in chunks that are never copied
// as they grow. A Builder's full chunks wait in its text spool, as the
// runs do: up to 30% of --max-bytes of rows, off the heap. A row's run is
// patched in place (a chat.send learns its run from the response); its
// lane is derived when read.
type Rows struct {
	chunks [][]byte // nil for a chunk in the spool
	spans  []span   // where each chunk waits in the spool
	sp     *spool   // nil: the chunks stay on the heap
	buf    []byte   // a chunk read back
	n      int
	last   Row // the previous row, which the deltas are from

	runLane []int32 // each run's final lane, set at the end of the pass
	remap   []int   // lanes of rows without a run, once compacted (nil: as is)

	// What the end of the pass asks of the rows, kept as they come so that
	// it need not read megabytes of them back: the length of their text
	// but for lane and run (known only then), how many rows each run and
	// each lane without a run has, where each chunk starts, for reading a
	// row alone, and whether the times only grow.
	fixedLen int
	ofRun    []int32
	ofLane   []int32
	orphans  int // rows with neither run nor lane
	starts   []chunkStart
	unsorted bool
	firstT   int64

	text *rowText // the rows' text, made at the end of the pass (rowtext.go)
}

// chunkStart is what reading a chunk alone needs: the rows before it and
// the fields the first one's deltas are from.
type chunkStart struct {
	k      int
	i      int
	t, seq int64
}

const (
	rowChunk  = 64 << 10
	maxRowLen = 6*binary.MaxVarintLen64 + 2 + 4
)

// Len is the number of rows.
func (rs *Rows) Len() int { return rs.n }

// add appends x and returns where its owner is, for setRun.
func (rs *Rows) add(x *Row) int {
	p := &rs.last
	if len(rs.chunks) == 0 || len(rs.chunks[len(rs.chunks)-1])+maxRowLen > rowChunk {
		rs.chunks = append(rs.chunks, rs.newChunk())
		rs.starts = append(rs.starts, chunkStart{k: rs.n, i: p.I, t: p.T, seq: p.Seq})
	}
	rs.count(x)
	c := len(rs.chunks) - 1
	b := rs.chunks[c]
	b = binary.AppendVarint(b, int64(x.I)-int64(p.I)) // wraps, and back on reading
	b = binary.AppendVarint(b, x.T-p.T)
	b = binary.AppendVarint(b, int64(x.Conn))
	b = append(b, byte(x.Dir), byte(x.Type))
	b = binary.AppendVarint(b, int64(x.Label))
	b = binary.AppendVarint(b, x.Seq-p.Seq)
	pos := c*rowChunk + len(b)
	b = binary.LittleEndian.AppendUint32(b, uint32(owner(x.Run, x.Lane)))
	rs.chunks[c] = b
	rs.last = *x
	rs.n++
	return pos
}

// newChunk returns an empty chunk: the last one's memory, once that is in
// the spool.
func (rs *Rows) newChunk() []byte {
	c := len(rs.chunks) - 1
	if rs.sp == nil || c < 0 {
		return make([]byte, 0, rowChunk)
	}
	full := rs.chunks[c] // every chunk before it is in the spool: spans[c] is next
	rs.spans = append(rs.spans, rs.sp.put(full))
	rs.chunks[c] = nil
	return full[:0]
}

// owner is run when there is one, else -2-lane (-1: neither).
func owner(run, lane int32) int32 {
	if run >= 0 {
		return run
	}
	return -2 - lane
}

// setRun gives the row whose owner is at pos a run.
func (rs *Rows) setRun(pos int, run int32) {
	c, at := pos/rowChunk, pos%rowChunk
	var was [4]byte
	if b := rs.chunks[c]; b != nil {
		copy(was[:], b[at:])
		binary.LittleEndian.PutUint32(b[at:], uint32(run))
	} else {
		if copy(was[:], rs.sp.peek(nil, span{off: rs.spans[c].off + int64(at), n: 4})) < 4 {
			return // the spool failed, and says so
		}
		rs.sp.patch(rs.spans[c], at, binary.LittleEndian.AppendUint32(nil, uint32(run)))
	}
	rs.uncount(int32(binary.LittleEndian.Uint32(was[:])))
	rs.countOwner(run)
}

// count notes a row added.
func (rs *Rows) count(x *Row) {
	if rs.n == 0 {
		rs.firstT = x.T
	} else if x.T < rs.last.T {
		rs.unsorted = true
	}
	rs.fixedLen += rowLen(x) - intLen(int64(x.Lane)) - intLen(int64(x.Run))
	rs.countOwner(owner(x.Run, x.Lane))
}

// countOwner counts a row of owner o (see owner); uncount takes it back.
func (rs *Rows) countOwner(o int32) {
	switch {
	case o >= 0:
		rs.ofRun = grown(rs.ofRun, int(o))
		rs.ofRun[o]++
	case o < -1:
		rs.ofLane = grown(rs.ofLane, int(-2-o))
		rs.ofLane[-2-o]++
	default:
		rs.orphans++
	}
}

func (rs *Rows) uncount(o int32) {
	switch {
	case o >= 0:
		rs.ofRun[o]--
	case o < -1:
		rs.ofLane[-2-o]--
	default:
		rs.orphans--
	}
}

// grown is s long enough to hold index k.
func grown(s []int32, k int) []int32 {
	if k < len(s) {
		return s
	}
	return append(s, make([]int32, k+1-len(s))...)
}

// textLen is the length of all rows' text as the page writes them
// (appendRow), lanes and runs as they are read now.
func (rs *Rows) textLen() int {
	n := rs.fixedLen + rs.orphans*(intLen(-1)+intLen(-1))
	for o, c := range rs.ofRun {
		if c > 0 {
			n += int(c) * (intLen(int64(o)) + intLen(int64(rs.laneOf(int32(o)))))
		}
	}
	for l, c := range rs.ofLane {
		if c > 0 {
			n += int(c) * (intLen(-1) + intLen(int64(rs.remapped(int32(l)))))
		}
	}
	return n
}

// usesLane reports whether a row without a run is on lane l (as added).
func (rs *Rows) usesLane(l int) bool { return l < len(rs.ofLane) && rs.ofLane[l] > 0 }

// sortedTimes reports whether the rows' times only grow, and if so the
// first and last.
func (rs *Rows) sortedTimes() (first, last int64, ok bool) {
	return rs.firstT, rs.last.T, !rs.unsorted
}

// timeAt returns row k's time, reading its chunk alone.
func (rs *Rows) timeAt(k int) int64 {
	rs.wait()
	c, _ := slices.BinarySearchFunc(rs.starts, k, func(s chunkStart, k int) int { return cmp.Compare(s.k, k) })
	if c == len(rs.starts) || rs.starts[c].k > k {
		c--
	}
	st := rs.starts[c]
	x := Row{I: st.i, T: st.t, Seq: st.seq}
	b := rs.chunk(c)
	for j := st.k; j <= k && len(b) > 0; j++ {
		b = rs.next(b, &x)
	}
	return x.T
}

// chunk returns chunk c, from the spool if it waits there (valid until the
// next call).
func (rs *Rows) chunk(c int) []byte {
	if b := rs.chunks[c]; b != nil {
		return b
	}
	rs.buf = rs.sp.appendTo(rs.buf[:0], rs.spans[c])
	return rs.buf
}

// All yields the rows in order. A row with a run is on its run's lane,
// which is known once the pass has ended (-1 before).
func (rs *Rows) All() iter.Seq[Row] {
	return func(yield func(Row) bool) {
		rs.wait()
		var x Row
		for c := range rs.chunks {
			b := rs.chunk(c)
			for len(b) > 0 {
				b = rs.next(b, &x)
				if !yield(x) {
					return
				}
			}
		}
	}
}

// next reads the row at the start of b into x, which holds the row
// before it, and returns the rest of b.
func (rs *Rows) next(b []byte, x *Row) []byte {
	d, n := binary.Varint(b)
	x.I = int(int64(x.I) + d)
	b = b[n:]
	d, n = binary.Varint(b)
	x.T += d
	b = b[n:]
	d, n = binary.Varint(b)
	x.Conn = int32(d)
	b = b[n:]
	x.Dir, x.Type = int8(b[0]), int8(b[1])
	b = b[2:]
	d, n = binary.Varint(b)
	x.Label = int32(d)
	b = b[n:]
	d, n = binary.Varint(b)
	x.Seq += d
	b = b[n:]
	o := int32(binary.LittleEndian.Uint32(b))
	x.Run, x.Lane = -1, -1
	switch {
	case o >= 0:
		x.Run, x.Lane = o, rs.laneOf(o)
	case o < -1:
		x.Lane = rs.remapped(-2 - o)
	}
	return b[4:]
}

// laneOf is run's final lane (-1 before the end of the pass).
func (rs *Rows) laneOf(run int32) int32 {
	if run < int32(len(rs.runLane)) {
		return rs.runLane[run]
	}
	return -1
}

// remapped is where lane l is once the lanes are compacted.
func (rs *Rows) remapped(l int32) int32 {
	if rs.remap != nil {
		return int32(rs.remap[l])
	}
	return l
}
