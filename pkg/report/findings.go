package report

import (
	"bytes"
	"cmp"
	"container/heap"
	"encoding/binary"
	"errors"
	"slices"
	"strings"

	"github.com/clawtap/clawtap/pkg/finding"
)

// The findings wait in a spool of their own, with their messages: a long
// capture has about as many as runs. They come in about the order of the
// records they concern, but not quite (a run's findings come when the
// pass lets it go, the capture's at its end), and the page lists them in
// that order. So each block of them (findBlock bytes) is sorted when it
// fills and written to the spool, and the page's writers merge the blocks
// as they read them back: the heap holds one block being filled, and a
// buffer a block while they are read.

// findBlock is how many bytes of findings a block holds (a variable for
// tests).
var findBlock = 1 << 20

var errFindingSpool = errors.New("report: a finding read back from the spool is corrupt")

// pinned is a finding as the report keeps it: what the page shows of it,
// its run's index (-1 none) and, without a run, its lane as it was when
// the finding was made (-1 none); uis and notUIs: the UI versions that
// show it and those that do not, when several were checked (nil when
// not); msg is the message as a JSON string.
type pinned struct {
	i                       int
	rule                    string
	sev                     finding.Severity
	t                       int64
	conn, run, lane         int
	runID, agentID, session string
	uis, notUIs             []string
	msg                     []byte
}

// findingStore holds the findings: sorted blocks in the spool, and the
// block being filled.
type findingStore struct {
	sp     *spool
	cur    []byte    // the block being filled: findings encoded end to end
	keys   []findKey // its findings, to sort
	blocks []span    // the sorted blocks in the spool, in the order written
	n      int
	hdr    []byte
}

// findKey is what a finding of the block being filled sorts by.
type findKey struct {
	i     int
	rule  string
	at, n int32 // where it lies in cur
}

// add encodes a finding into the block being filled.
func (s *findingStore) add(p *pinned) {
	at := len(s.cur)
	s.cur = appendFinding(s.cur, p)
	s.keys = append(s.keys, findKey{i: p.i, rule: p.rule, at: int32(at), n: int32(len(s.cur) - at)})
	s.n++
	if len(s.cur) >= findBlock {
		s.spill()
	}
}

// order is the page's order of findings: by record, those of the whole
// capture (-1) last, then by rule.
func order(i int, rule string, j int, rule2 string) int {
	if c := cmpRecord(i, j); c != 0 {
		return c
	}
	return strings.Compare(rule, rule2)
}

func cmpRecord(i, j int) int {
	if i < 0 {
		i = int(^uint(0) >> 1)
	}
	if j < 0 {
		j = int(^uint(0) >> 1)
	}
	return cmp.Compare(i, j)
}

// spill sorts the block being filled (stably: among equals, in the order
// made) and writes it to the spool.
func (s *findingStore) spill() {
	if len(s.keys) == 0 {
		return
	}
	slices.SortStableFunc(s.keys, func(x, y findKey) int { return order(x.i, x.rule, y.i, y.rule) })
	start := s.sp.end
	for _, k := range s.keys {
		s.hdr = binary.AppendUvarint(s.hdr[:0], uint64(k.n))
		s.sp.put(s.hdr)
		s.sp.put(s.cur[k.at : k.at+k.n])
	}
	s.blocks = append(s.blocks, span{off: start, n: int32(s.sp.end - start)})
	s.cur, s.keys = s.cur[:0], s.keys[:0]
}

// finish writes the last block: the findings are complete.
func (s *findingStore) finish() {
	s.spill()
	s.cur, s.keys = nil, nil
}

// each calls fn with every finding in the page's order, until fn returns
// false, merging the blocks; p is valid during the call. A finding that
// does not read back whole stops the walk and is the spool's error.
func (s *findingStore) each(fn func(p *pinned) bool) {
	h := make(cursors, 0, len(s.blocks))
	for k, b := range s.blocks {
		c := &cursor{block: k, rd: seqReader{sp: s.sp, off: b.off, end: b.off + int64(b.n), chunk: 8 << 10}}
		if c.advance() {
			h = append(h, c)
		}
	}
	heap.Init(&h)
	var p pinned
	for len(h) > 0 {
		c := h[0]
		if !decodeFinding(c.rec, &p) {
			c.fail()
			return
		}
		if !fn(&p) {
			return
		}
		if c.advance() {
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
	}
}

// cursor walks one sorted block.
type cursor struct {
	block int
	rd    seqReader
	rec   []byte // the finding it is at
	i     int
	rule  []byte
}

// advance moves to the block's next finding; false at its end, or at
// bytes that are not a finding (the spool's error).
func (c *cursor) advance() bool {
	if c.rec = c.rd.next(); c.rec == nil {
		if c.rd.off < c.rd.end || c.rd.at < len(c.rd.buf) {
			c.fail()
		}
		return false
	}
	d := decoder{b: c.rec}
	c.i, c.rule = int(d.int()), d.bytes()
	if d.bad {
		c.fail()
	}
	return !d.bad
}

func (c *cursor) fail() {
	if c.rd.sp.err == nil {
		c.rd.sp.err = errFindingSpool
	}
}

// cursors is a heap of the blocks' cursors, by their findings' order; a
// tie goes to the block written first, so the merge is stable.
type cursors []*cursor

func (h cursors) Len() int { return len(h) }
func (h cursors) Less(a, b int) bool {
	x, y := h[a], h[b]
	if c := cmpRecord(x.i, y.i); c != 0 {
		return c < 0
	}
	if c := bytes.Compare(x.rule, y.rule); c != 0 {
		return c < 0
	}
	return x.block < y.block
}
func (h cursors) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *cursors) Push(x any)   { *h = append(*h, x.(*cursor)) }
func (h *cursors) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// appendFinding encodes a finding, what it sorts by first.
func appendFinding(b []byte, p *pinned) []byte {
	b = binary.AppendVarint(b, int64(p.i))
	b = appendStr(b, p.rule)
	b = append(b, byte(p.sev))
	for _, v := range [...]int64{p.t, int64(p.conn), int64(p.run), int64(p.lane)} {
		b = binary.AppendVarint(b, v)
	}
	b = appendStr(b, p.runID)
	b = appendStr(b, p.agentID)
	b = appendStr(b, p.session)
	// The UI lists: 0, or each list's length and names, uis' plus one
	// (shown by none is not the same as no lists).
	if p.uis == nil {
		b = append(b, 0)
	} else {
		b = binary.AppendUvarint(b, uint64(len(p.uis))+1)
		for _, u := range p.uis {
			b = appendStr(b, u)
		}
		b = binary.AppendUvarint(b, uint64(len(p.notUIs)))
		for _, u := range p.notUIs {
			b = appendStr(b, u)
		}
	}
	return append(b, p.msg...) // the rest
}

func decodeFinding(b []byte, p *pinned) bool {
	d := decoder{b: b}
	p.i, p.rule, p.sev = int(d.int()), d.str(), finding.Severity(d.byte())
	p.t, p.conn, p.run, p.lane = d.int(), int(d.int()), int(d.int()), int(d.int())
	p.runID, p.agentID, p.session = d.str(), d.str(), d.str()
	p.uis, p.notUIs = nil, nil // fresh each time: a PinnedFinding keeps them
	if n := d.count(); n > 0 {
		p.uis = d.strs(n - 1)
		p.notUIs = d.strs(d.count())
	}
	p.msg = d.b
	return !d.bad
}

// strs reads n strings.
func (d *decoder) strs(n int) []string {
	out := make([]string, 0, n)
	for range n {
		out = append(out, d.str())
	}
	return out
}
