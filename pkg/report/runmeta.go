package report

import "encoding/binary"

// Every run has a runMeta (where it waits in the spool, or its slot on the
// heap): 16 bytes a run, on a capture of many short runs the largest part
// of the report's heap that still grew with the capture. The metas are
// kept by pages of consecutive runs: the page of the runs added last and a
// few pages used lately stay on the heap, the others wait in the runs'
// spool and come back when one of their runs is used (a late frame of a
// run let go long ago, the end of the pass walking the runs in order).

var (
	metaPerPage  = 1024 // runs a page: 16 KiB (variables for tests)
	maxMetaPages = 8    // pages on the heap besides the last; 1 at least
)

const metaSize = 16 // a runMeta, encoded

type metaTable struct {
	pages [][]runMeta // by page; nil while the page waits in the spool
	at    []int64     // where each page waits in the spool; -1 before it first leaves the heap
	used  []bool      // by page: used since the clock's hand passed it
	dirty []bool      // by page: changed since it was read or written
	held  int         // pages on the heap
	hand  int         // the clock's hand, over the pages
	n     int
	sp    *spool
	buf   []byte
}

func (t *metaTable) len() int { return t.n }

// add appends run k's meta and returns k.
func (t *metaTable) add(m runMeta) int {
	if t.n%metaPerPage == 0 {
		t.pages = append(t.pages, make([]runMeta, 0, metaPerPage))
		t.at, t.used, t.dirty = append(t.at, -1), append(t.used, true), append(t.dirty, true)
		t.held++
		t.evict(len(t.pages) - 1)
	}
	p := len(t.pages) - 1
	t.pages[p] = append(t.pages[p], m)
	t.n++
	return t.n - 1
}

// get is run k's meta.
func (t *metaTable) get(k int) runMeta { return *t.page(k, false) }

// edit is run k's meta, to change: the pointer is valid until the next
// call of the table.
func (t *metaTable) edit(k int) *runMeta { return t.page(k, true) }

func (t *metaTable) page(k int, dirty bool) *runMeta {
	p := k / metaPerPage
	if t.pages[p] == nil {
		t.load(p)
	}
	t.used[p] = true
	if dirty {
		t.dirty[p] = true
	}
	return &t.pages[p][k%metaPerPage]
}

// load brings page p back from the spool (a page that left the heap is
// full: the last never leaves).
func (t *metaTable) load(p int) {
	t.buf = t.sp.appendTo(t.buf[:0], span{off: t.at[p], n: int32(metaPerPage * metaSize)})
	page := make([]runMeta, metaPerPage)
	for k := range page {
		page[k].slot = -1 // what the spool could not give reads as empty, and the spool has the error
	}
	le := binary.LittleEndian
	for k, b := 0, t.buf; len(b) >= metaSize; k, b = k+1, b[metaSize:] {
		page[k] = runMeta{off: int64(le.Uint64(b)), n: int32(le.Uint32(b[8:])), slot: int32(le.Uint32(b[12:]))}
	}
	t.pages[p], t.used[p], t.dirty[p] = page, true, false
	t.held++
	t.evict(p)
}

// evict sends pages used least lately to the spool, past maxMetaPages,
// but not the last nor page keep (the one just needed): a clock, whose
// hand gives a page used since it last passed a second chance.
func (t *metaTable) evict(keep int) {
	last := len(t.pages) - 1
	for t.held > maxMetaPages+1 {
		t.hand = (t.hand + 1) % len(t.pages)
		p := t.hand
		switch {
		case p == last || p == keep || t.pages[p] == nil:
		case t.used[p]:
			t.used[p] = false
		default:
			t.store(p)
			t.pages[p] = nil
			t.held--
		}
	}
}

// store writes page p to the spool, over its last copy if it has one.
func (t *metaTable) store(p int) {
	if !t.dirty[p] {
		return
	}
	t.buf = t.buf[:0]
	le := binary.LittleEndian
	for _, m := range t.pages[p] {
		t.buf = le.AppendUint64(t.buf, uint64(m.off))
		t.buf = le.AppendUint32(t.buf, uint32(m.n))
		t.buf = le.AppendUint32(t.buf, uint32(m.slot))
	}
	if t.at[p] < 0 {
		t.at[p] = t.sp.put(t.buf).off
	} else {
		t.sp.patch(span{off: t.at[p], n: int32(len(t.buf))}, 0, t.buf)
	}
	t.dirty[p] = false
}
