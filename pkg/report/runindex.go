package report

import (
	"encoding/binary"
	"slices"
	"sort"
)

// A frame names its run by id, and a late frame may name a run let go
// long ago, so every id the report has seen must be found again. A map of
// every id's hash grew by 13 bytes a run, the last of the report's heap
// that did. The index keeps the runs added lately in a map; when it fills,
// their hashes go to the spool as a segment, sorted, with a Bloom filter
// (1.25 bytes a run) and every 128th hash on the heap to find them again.
// A new run, the usual miss, seldom reads the spool: each segment's filter
// turns it away (a false positive costs one read of 1 KiB).

// maxRecentIDs is how many runs the map holds before a flush (a variable
// for tests).
var maxRecentIDs = 1 << 16

const (
	fenceEvery  = 128 // entries of a segment between two hashes kept on the heap
	bloomBits   = 10  // a run: about 1% false positives
	bloomProbes = 7
)

// runIndex finds the runs whose id has a given hash.
type runIndex struct {
	recent map[uint32]int32 // the runs added since the last flush: the first of each hash
	// the runs whose hash another run in recent had when they came; they
	// stay here (one or two in 100,000)
	collide map[string]int32
	segs    []idSegment
	sp      *spool
	buf     []byte
}

// idSegment is a flushed map: its entries (hash<<32 | run, ascending, 8
// bytes each) wait in the spool.
type idSegment struct {
	at     int64
	n      int
	fences []uint32 // the hash of every fenceEvery-th entry
	bloom  []uint64
}

func newRunIndex(sp *spool) *runIndex {
	return &runIndex{recent: map[uint32]int32{}, collide: map[string]int32{}, sp: sp}
}

// add indexes run k, whose id is id and hashes to h.
func (x *runIndex) add(h uint32, id string, k int32) {
	if _, taken := x.recent[h]; taken {
		x.collide[id] = k
		return
	}
	x.recent[h] = k
	if len(x.recent) >= maxRecentIDs {
		x.flush()
	}
}

// each calls is with every run whose id may be id (its hash is h), until
// is returns true, and reports whether it did.
func (x *runIndex) each(h uint32, id string, is func(k int32) bool) bool {
	if k, ok := x.recent[h]; ok && is(k) {
		return true
	}
	for s := range x.segs {
		if x.segs[s].mayHold(h) && x.inSegment(&x.segs[s], h, is) {
			return true
		}
	}
	k, ok := x.collide[id]
	return ok && is(k)
}

// flush writes the map to the spool as a segment and empties it.
func (x *runIndex) flush() {
	entries := make([]uint64, 0, len(x.recent))
	for h, k := range x.recent {
		entries = append(entries, uint64(h)<<32|uint64(uint32(k)))
	}
	slices.Sort(entries)
	seg := idSegment{n: len(entries), bloom: make([]uint64, (len(entries)*bloomBits+63)/64)}
	for c := 0; c < len(entries); c += fenceEvery {
		x.buf = x.buf[:0]
		for _, e := range entries[c:min(c+fenceEvery, len(entries))] {
			x.buf = binary.LittleEndian.AppendUint64(x.buf, e)
			seg.setBloom(uint32(e >> 32))
		}
		seg.fences = append(seg.fences, uint32(entries[c]>>32))
		if at := x.sp.put(x.buf).off; c == 0 { // one after the other, they lie end to end
			seg.at = at
		}
	}
	x.segs = append(x.segs, seg)
	x.recent = map[uint32]int32{} // a map does not shrink
}

// inSegment calls is with the runs of seg whose hash is h.
func (x *runIndex) inSegment(seg *idSegment, h uint32, is func(k int32) bool) bool {
	// Entries of hash h lie from the block before the first fence at h
	// or above, to the last block whose fence is h at most.
	first := max(sort.Search(len(seg.fences), func(j int) bool { return seg.fences[j] >= h })-1, 0)
	last := sort.Search(len(seg.fences), func(j int) bool { return seg.fences[j] > h }) - 1
	if last < first {
		return false
	}
	from, to := first*fenceEvery, min((last+1)*fenceEvery, seg.n)
	x.buf = x.sp.peek(x.buf[:0], span{off: seg.at + int64(from*8), n: int32((to - from) * 8)})
	for b := x.buf; len(b) >= 8; b = b[8:] {
		e := binary.LittleEndian.Uint64(b)
		if uint32(e>>32) == h && is(int32(uint32(e))) {
			return true
		}
	}
	return false
}

// probes calls fn with each of the filter's bits for hash h, and reports
// whether fn returned true for all.
func (seg *idSegment) probes(h uint32, fn func(bit uint64) bool) bool {
	x := uint64(h) * 0x9e3779b97f4a7c15 // spread the hash's bits over 64
	x ^= x >> 29
	a, b := x, x>>32|1
	m := uint64(len(seg.bloom) * 64)
	for p := range uint64(bloomProbes) {
		if !fn((a + p*b) % m) {
			return false
		}
	}
	return true
}

func (seg *idSegment) setBloom(h uint32) {
	seg.probes(h, func(bit uint64) bool { seg.bloom[bit/64] |= 1 << (bit % 64); return true })
}

// mayHold reports whether the segment may hold hash h.
func (seg *idSegment) mayHold(h uint32) bool {
	return seg.probes(h, func(bit uint64) bool { return seg.bloom[bit/64]&(1<<(bit%64)) != 0 })
}
