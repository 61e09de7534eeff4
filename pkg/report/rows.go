package report

import (
	"encoding/binary"
	"iter"
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
}

const (
	rowChunk  = 64 << 10
	maxRowLen = 6*binary.MaxVarintLen64 + 2 + 4
)

// Len is the number of rows.
func (rs *Rows) Len() int { return rs.n }

// add appends x and returns where its owner is, for setRun.
func (rs *Rows) add(x *Row) int {
	if len(rs.chunks) == 0 || len(rs.chunks[len(rs.chunks)-1])+maxRowLen > rowChunk {
		rs.chunks = append(rs.chunks, rs.newChunk())
	}
	c := len(rs.chunks) - 1
	b := rs.chunks[c]
	p := &rs.last
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
	if b := rs.chunks[c]; b != nil {
		binary.LittleEndian.PutUint32(b[at:], uint32(run))
		return
	}
	rs.sp.patch(rs.spans[c], at, binary.LittleEndian.AppendUint32(nil, uint32(run)))
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
		var x Row
		for c := range rs.chunks {
			b := rs.chunk(c)
			for len(b) > 0 {
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
				b = b[4:]
				x.Run, x.Lane = -1, -1
				switch {
				case o >= 0:
					x.Run = o
					if o < int32(len(rs.runLane)) {
						x.Lane = rs.runLane[o]
					}
				case o < -1:
					x.Lane = -2 - o
					if rs.remap != nil {
						x.Lane = int32(rs.remap[x.Lane])
					}
				}
				if !yield(x) {
					return
				}
			}
		}
	}
}
