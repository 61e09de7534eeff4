package importer

import (
	"container/heap"

	"github.com/clawtap/clawtap/pkg/capture"
)

// A browser's HAR lists each WebSocket connection as one entry with all its
// messages, entries in the order they were opened. Connections that were
// open at the same time (two tabs, a reconnect before the old socket
// closed) must have their records interleaved by time, or a replay would
// take the second for a reconnect after the first. So the records of each
// entry are held, and written merged by time once no later entry can hold
// anything earlier: an entry that opens at S means everything up to S is
// final (a record at S itself goes before the new entry's, as ties go to
// the connection opened first). The held entries wait in a heap ordered by
// their next record, so each record costs a logarithm of the entries held,
// not a look at every one. Memory is bounded by the connections open at
// once, and by maxHeld: past it the earliest held records are written
// before their time is final, and the importer says so once.

// maxHeld bounds the bytes of records held for the merge (a variable for
// the tests).
var maxHeld = 64 << 20

// recordCost is what a held record costs besides its bytes.
const recordCost = 256

// entryQueue is one HAR entry's records, in its own order, each with a
// merge key: the running maximum of its times, so the connection's own
// order survives a message stamped earlier than the one before it.
type entryQueue struct {
	recs  []capture.Record
	keys  []int64
	next  int
	high  int64
	order int // entries are merged ties first-opened first
	bytes int
}

func (q *entryQueue) add(rec *capture.Record) {
	if len(q.recs) == 0 || rec.T > q.high {
		q.high = rec.T
	}
	q.recs = append(q.recs, *rec)
	q.keys = append(q.keys, q.high)
	q.bytes += recSize(rec)
}

func recSize(rec *capture.Record) int { return len(rec.Frame) + len(rec.Raw) + recordCost }

func (q *entryQueue) done() bool { return q.next >= len(q.recs) }

// queueHeap orders the held entries by their next record's key, then by
// when they were opened.
type queueHeap []*entryQueue

func (h queueHeap) Len() int { return len(h) }
func (h queueHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
	if ka, kb := a.keys[a.next], b.keys[b.next]; ka != kb {
		return ka < kb
	}
	return a.order < b.order
}
func (h queueHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *queueHeap) Push(x any)   { *h = append(*h, x.(*entryQueue)) }
func (h *queueHeap) Pop() any {
	old := *h
	q := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return q
}

// holdEntry starts holding the records of a new entry that opens at start,
// after writing what the held entries have up to start.
func (im *importer) holdEntry(start int64) error {
	if err := im.writeHeld(start, false); err != nil {
		return err
	}
	im.opened++
	im.hold = &entryQueue{order: im.opened}
	return nil
}

// releaseEntry ends the entry being held; its records wait in the merge.
func (im *importer) releaseEntry() {
	if q := im.hold; q != nil && len(q.recs) > 0 {
		heap.Push(&im.held, q)
		im.heldBytes += q.bytes
	}
	im.hold = nil
}

// writeHeld writes the held records in time order, ties to the entry
// opened first: those keyed up to until, or all of them when all is set.
// Past maxHeld it writes the earliest down to half of it, whatever until
// says.
func (im *importer) writeHeld(until int64, all bool) error {
	hold := im.hold
	im.hold = nil // write for real
	defer func() { im.hold = hold }()
	over := im.heldBytes > maxHeld
	if over && !im.heldWarned {
		im.heldWarned = true
		im.warn("HAR: the WebSocket connections open at once hold more than %d MiB of messages; the earliest were written before the later connections' were read, so these may come after them out of time order", maxHeld>>20)
	}
	for im.held.Len() > 0 {
		q := im.held[0]
		if !all && q.keys[q.next] > until && !(over && im.heldBytes > maxHeld/2) {
			break
		}
		rec := &q.recs[q.next]
		q.next++
		im.heldBytes -= recSize(rec)
		if err := im.write(rec); err != nil {
			return err
		}
		*rec = capture.Record{} // let the frame go
		if q.done() {
			heap.Pop(&im.held)
			q.recs, q.keys = nil, nil
		} else {
			heap.Fix(&im.held, 0)
		}
	}
	return nil
}
