package pipeline

import (
	"io"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
)

// Records is a capture reader as a Source: every record is classified by
// the pass.
func Records(r *capture.Reader) Source { return records{r} }

type records struct{ r *capture.Reader }

func (s records) Next() (*capture.Record, *bridge.Event, error) {
	rec, err := s.r.Next()
	return rec, nil, err
}

func (s records) Header() *capture.Header { return s.r.Header() }
func (s records) Stats() capture.Stats    { return s.r.Stats() }

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
