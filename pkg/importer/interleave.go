package importer

import "github.com/clawtap/clawtap/pkg/capture"

// A browser's HAR lists each WebSocket connection as one entry with all its
// messages, entries in the order they were opened. Connections that were
// open at the same time (two tabs, a reconnect before the old socket
// closed) must have their records interleaved by time, or a replay would
// take the second for a reconnect after the first. So the records of each
// entry are held, and written merged by time once no later entry can hold
// anything earlier: an entry that opens at S means everything before S is
// final. Memory is bounded by the connections open at once, not the HAR.

// entryQueue is one HAR entry's records, in its own order, each with a
// merge key: the running maximum of its times, so the connection's own
// order survives a message stamped earlier than the one before it.
type entryQueue struct {
	recs []capture.Record
	keys []int64
	next int
	high int64
}

func (q *entryQueue) add(rec *capture.Record) {
	if len(q.recs) == 0 || rec.T > q.high {
		q.high = rec.T
	}
	q.recs = append(q.recs, *rec)
	q.keys = append(q.keys, q.high)
}

func (q *entryQueue) done() bool { return q.next >= len(q.recs) }

// holdEntry starts holding the records of a new entry that opens at start,
// after writing what the held entries have before start.
func (im *importer) holdEntry(start int64) error {
	if err := im.writeHeld(start, false); err != nil {
		return err
	}
	im.hold = &entryQueue{}
	return nil
}

// releaseEntry ends the entry being held; its records wait in the merge.
func (im *importer) releaseEntry() {
	if im.hold != nil && len(im.hold.recs) > 0 {
		im.held = append(im.held, im.hold)
	}
	im.hold = nil
}

// writeHeld writes the held records in time order, ties to the entry
// opened first: those keyed before until, or all of them when all is set.
func (im *importer) writeHeld(until int64, all bool) error {
	hold := im.hold
	im.hold = nil // write for real
	defer func() { im.hold = hold }()
	for {
		var first *entryQueue
		for _, q := range im.held {
			if !q.done() && (first == nil || q.keys[q.next] < first.keys[first.next]) {
				first = q
			}
		}
		if first == nil || !all && first.keys[first.next] >= until {
			break
		}
		rec := &first.recs[first.next]
		first.next++
		if err := im.write(rec); err != nil {
			return err
		}
		*rec = capture.Record{} // let the frame go
	}
	live := im.held[:0]
	for _, q := range im.held {
		if !q.done() {
			live = append(live, q)
		}
	}
	clear(im.held[len(live):])
	im.held = live
	return nil
}
