package bridge

import (
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
)

// maxPending bounds the request ids remembered for matching responses, so
// memory stays bounded by live state whatever the capture's length.
const maxPending = 4096

type reqKey struct {
	conn int
	id   string
}

// Classifier classifies capture records. Classify itself is pure; the
// Classifier adds the one piece of memory classification needs: the method
// of each request, so a response can name it. One id may get two responses
// (an "accepted" ack, then the result), so an id is remembered until it is
// evicted by newer ones, not forgotten at its first response.
type Classifier struct {
	methods map[reqKey]string
	strs    interner
	scratch members  // the last frame's payload members (Event.Chat)
	gen     uint64   // Records classified: tells a reused Scratch's events apart
	order   []reqKey // FIFO ring of remembered ids
	next    int
}

// NewClassifier returns a Classifier with no requests remembered.
func NewClassifier() *Classifier {
	return &Classifier{methods: make(map[reqKey]string), strs: interner{m: make(map[string]string)}}
}

// Scratch is where a classified event keeps the payload members it
// captured on the way (Event.Chat and Event.Agent read them), for a
// caller that holds several events at once (RecordInto). The zero value is
// ready.
type Scratch struct{ m members }

// Record classifies one capture record. The event's payload members live
// in the Classifier until its next Record.
func (c *Classifier) Record(rec *capture.Record) Event { return c.record(rec, nil, &c.scratch) }

// RecordIndexed is Record from the index the capture reader made of the
// record's frame by Schema (capture.Reader.IndexMembers: Reader.Index,
// Batch.Index): the frame's members are looked up, not walked again. A
// nil idx, or one not Exact, has the frame walked as Record does.
func (c *Classifier) RecordIndexed(rec *capture.Record, idx *jsonx.Index) Event {
	return c.record(rec, idx, &c.scratch)
}

// RecordInto is RecordIndexed with the event's payload members kept in s,
// so the event stays whole while s is not reused (a pipeline classifying a
// batch of records ahead of their use).
func (c *Classifier) RecordInto(rec *capture.Record, idx *jsonx.Index, s *Scratch) Event {
	return c.record(rec, idx, &s.m)
}

func (c *Classifier) record(rec *capture.Record, idx *jsonx.Index, m *members) Event {
	switch {
	case rec.Mark != "":
		return Event{Kind: Marker, Mark: rec.Mark, Timestamp: rec.T}
	case rec.Malformed:
		return Event{Kind: Invalid, Timestamp: rec.T, Reason: "line is not a capture record"}
	case rec.IsRaw || rec.Frame == nil:
		return Event{Kind: Invalid, Timestamp: rec.T, Reason: "message is not JSON"}
	}
	// A capture reader (Line > 0) has validated every frame it returns;
	// records built by hand are validated here.
	c.gen++
	m.gen = c.gen
	if idx != nil && !idx.Exact {
		idx = nil
	}
	ev := classify(rec.Frame, idx, rec.T, rec.Line > 0, &c.strs, m)
	switch ev.Kind {
	case Request:
		if ev.ID != "" && ev.Method != "" {
			c.remember(reqKey{rec.Conn, ev.ID}, ev.Method)
		}
	case Response:
		ev.Method = c.methods[reqKey{rec.Conn, ev.ID}]
	}
	return ev
}

func (c *Classifier) remember(k reqKey, method string) {
	if _, ok := c.methods[k]; !ok {
		if len(c.order) < maxPending {
			c.order = append(c.order, k)
		} else {
			delete(c.methods, c.order[c.next])
			c.order[c.next] = k
			c.next = (c.next + 1) % maxPending
		}
	}
	c.methods[k] = method
}
