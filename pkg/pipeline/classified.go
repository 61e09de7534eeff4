package pipeline

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
)

// IsClassified peeks at the first non-blank line of br, consuming nothing,
// and reports whether it is an event as 'clawtap classify' prints it
// (capture.ClassifiedLine).
func IsClassified(br *bufio.Reader) bool {
	for n := 4096; ; n *= 4 {
		peek, err := br.Peek(n)
		line := peek
		if i := bytes.IndexByte(peek, '\n'); i >= 0 {
			line = peek[:i]
		} else if err == nil && n < 1<<24 {
			continue // the first line is longer than the peek; look further
		}
		line = jsonx.TrimSpace(line)
		if len(line) == 0 && len(peek) > 0 {
			// Skip leading blank lines by looking past them.
			trimmed := jsonx.TrimSpace(peek)
			if i := bytes.IndexByte(trimmed, '\n'); i >= 0 {
				line = trimmed[:i]
			} else {
				line = trimmed
			}
		}
		return capture.ClassifiedLine(line)
	}
}

// Classified is a Source of classified events, one JSON line each, as
// 'clawtap classify' prints them or a person writes them (only "kind" is
// required; see bridge.ParseJSON). A line that is not a classified event
// becomes an invalid event with the reason, and is counted in Bad.
type Classified struct {
	br      *bufio.Reader
	line    int
	n       int
	bad     int
	scratch []byte
	ev      bridge.Event
	rec     capture.Record
}

// NewClassified reads classified lines from br.
func NewClassified(br *bufio.Reader) *Classified { return &Classified{br: br} }

// Header is nil: classified lines have none.
func (s *Classified) Header() *capture.Header { return nil }

// Stats counts the events read.
func (s *Classified) Stats() capture.Stats { return capture.Stats{Records: s.n} }

// Bad is the number of lines that were not classified events.
func (s *Classified) Bad() int { return s.bad }

// Next reads the next classified line as a record that carries its event.
func (s *Classified) Next() (*capture.Record, *bridge.Event, error) {
	ev, m, err := s.next()
	if err != nil {
		return nil, nil, err
	}
	s.ev = ev
	s.rec = capture.Record{Index: m.I, T: m.T, Conn: m.Conn, Dir: m.Dir}
	return &s.rec, &s.ev, nil
}

func (s *Classified) next() (bridge.Event, bridge.Meta, error) {
	for {
		line, err := s.br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			s.scratch = append(s.scratch[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = s.br.ReadSlice('\n')
				s.scratch = append(s.scratch, line...)
			}
			line = s.scratch
		}
		if len(line) == 0 && err != nil {
			return bridge.Event{}, bridge.Meta{}, io.EOF
		}
		s.line++
		line = jsonx.TrimSpace(line)
		if len(line) == 0 {
			if err != nil {
				return bridge.Event{}, bridge.Meta{}, io.EOF
			}
			continue
		}
		ev, m, hasI, _, perr := bridge.ParseJSON(line)
		if perr != nil {
			s.bad++
			ev = bridge.Event{Kind: bridge.Invalid, Reason: fmt.Sprintf("line %d: %v", s.line, perr)}
			m = bridge.Meta{I: s.n}
		} else if !hasI {
			m.I = s.n
		}
		s.n++
		return ev, m, nil
	}
}
