package pipeline

import (
	"io"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
)

// Records is a capture reader as a Source. The reader indexes each frame's
// members as it validates it (capture.Reader.IndexMembers, bridge.Schema),
// and the records are classified from that index, without walking the
// frames again. A pass that replays or derives intents has the records
// classified as they are read, on a goroutine of their own between the
// reader's and the pass's (the reader's stage, capture.Reader.SetStage),
// so that the three share the work, in order; otherwise, or when the
// reader is serial or was read from already, each record is classified
// as Next returns it (classifying is then cheaper than handing records
// over once more). The stage also derives what the Policy and the
// observers read of chat and agent events (bridge.Event.Derive): the pass
// is the one goroutine they all share.
func Records(r *capture.Reader) AheadSource {
	r.IndexMembers(bridge.Schema) // refused once reading began: the frames are walked then
	return &records{r: r, cls: bridge.NewClassifier()}
}

// AheadSource is a Source that can classify its records ahead of the pass
// (Records); a Source wrapping one forwards ClassifyAhead to it. The pass
// calls it once, before its first Next.
type AheadSource interface {
	Source
	ClassifyAhead()
}

type records struct {
	r     *capture.Reader
	cls   *bridge.Classifier // the stage's own, or Next's
	ahead bool
	ev    bridge.Event  // Next's, without a stage
	texts jsonx.StrMemo // the stage's, for Event.Derive
}

// ClassifyAhead classifies the records on the reader's stage.
func (s *records) ClassifyAhead() {
	s.ahead = s.r.SetStage(s.classify)
}

// classified is a batch's note: each record's event, and where the event
// keeps its payload members.
type classified struct {
	events  []bridge.Event
	scratch []bridge.Scratch
}

// classify is the reader's stage: it classifies a batch of records, in
// order, into the batch's note (reused with the batch).
func (s *records) classify(b *capture.Batch) {
	c, _ := b.Note.(*classified)
	if c == nil {
		c = &classified{}
		b.Note = c
	}
	n := b.Len()
	if cap(c.events) < n {
		c.events, c.scratch = make([]bridge.Event, n), make([]bridge.Scratch, n)
	}
	c.events, c.scratch = c.events[:n], c.scratch[:n]
	for i := range n {
		c.events[i] = s.cls.RecordInto(b.Record(i), b.Index(i), &c.scratch[i])
		c.events[i].Derive(&s.texts)
	}
}

func (s *records) Next() (*capture.Record, *bridge.Event, error) {
	rec, err := s.r.Next()
	if err != nil {
		return rec, nil, err
	}
	if !s.ahead {
		s.ev = s.cls.RecordIndexed(rec, s.r.Index())
		return rec, &s.ev, nil
	}
	note, i := s.r.Note()
	c, ok := note.(*classified)
	if !ok || i >= len(c.events) {
		return rec, nil, nil // never: every batch with records went through the stage
	}
	return rec, &c.events[i], nil
}

// Hold keeps the record Next returned last, and its event, valid until
// release (capture.Reader.Hold); nil when the reader cannot.
func (s *records) Hold() (release func()) { return s.r.Hold() }

func (s *records) Header() *capture.Header { return s.r.Header() }
func (s *records) Stats() capture.Stats    { return s.r.Stats() }

// Slice is records held in memory as a Source (tests, shrink): each
// record's Index is its position.
func Slice(h *capture.Header, recs []capture.Record) Source {
	return &slice{h: h, recs: recs}
}

type slice struct {
	h    *capture.Header
	recs []capture.Record
	i    int
	rec  capture.Record
}

func (s *slice) Next() (*capture.Record, *bridge.Event, error) {
	if s.i >= len(s.recs) {
		return nil, nil, io.EOF
	}
	s.rec = s.recs[s.i]
	s.rec.Index = s.i
	s.i++
	return &s.rec, nil, nil
}

func (s *slice) Header() *capture.Header { return s.h }
func (s *slice) Stats() capture.Stats    { return capture.Stats{Records: s.i} }
