package shrink

import (
	"errors"
	"io"
	"slices"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/check"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/replay"
)

// A large capture is not searched whole. Shrink holds what it searches
// in memory, and a long session's frames run to hundreds of megabytes;
// but a finding mostly needs only the records shortly before it. So a
// capture is read as a stream first (Locate: check's pass, in bounded
// memory, finds the target's first finding), then windows of it that end
// at that finding's record (Window: every connection's handshake and the
// records of the window), each a few times longer than the last, are
// tested as they are read, until one still shows the finding. The search
// then holds that window only.

// Opener opens the capture from its start, each time it is called: a
// file opened again, for the passes a large capture is streamed through.
type Opener func() (src pipeline.Source, close func(), err error)

// Located is the target's first finding in a capture read as a stream.
type Located struct {
	Finding check.Finding // its I is the record's index in the capture
	Records int           // the capture's records
	Bytes   int64         // their frames' (or raw lines') bytes

	last capture.Record // the capture's last record, where it ends
}

// Locate reads the capture once through check, with the target's rule
// alone, as Shrink's first pass does over records in memory: it returns
// the target's first finding and the capture's size, or a NotShownError.
func Locate(open Opener, t Target) (*Located, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	an, err := check.New(t.options())
	if err != nil {
		return nil, err
	}
	first := firstOf{pr: newPredicate(nil, nil, t)}
	an.OnFinding = first.see
	src, done, err := open()
	if err != nil {
		return nil, err
	}
	defer done()
	size := &sized{Source: src}
	if err := pipeline.New(pipeline.Options{Replay: replay.Options{UI: t.UI}}, an).Run(size); err != nil {
		return nil, err
	}
	if first.hit == nil {
		return nil, &NotShownError{Target: t, Runs: first.sortedRuns()}
	}
	return &Located{Finding: *first.hit, Records: size.n, Bytes: size.bytes, last: size.last}, nil
}

// sized counts the records a source yields and their bytes, and keeps
// the last.
type sized struct {
	pipeline.Source
	n     int
	bytes int64
	last  capture.Record
	lastB []byte // last's frame or raw line, copied
}

func (s *sized) Next() (*capture.Record, *bridge.Event, error) {
	rec, ev, err := s.Source.Next()
	if err == nil {
		s.n++
		s.bytes += frameBytes(rec)
		s.keepLast(rec)
	}
	return rec, ev, err
}

// keepLast copies rec over the last record kept, reusing one buffer.
func (s *sized) keepLast(rec *capture.Record) {
	s.last = *rec
	switch {
	case rec.Frame != nil:
		s.lastB = append(s.lastB[:0], rec.Frame...)
		s.last.Frame = s.lastB
	case rec.Raw != nil:
		s.lastB = append(s.lastB[:0], rec.Raw...)
		s.last.Raw = s.lastB
	}
}

// frameBytes is what a record counts toward a window's bound: its frame's (or
// raw line's) bytes.
func frameBytes(rec *capture.Record) int64 { return int64(len(rec.Frame) + len(rec.Raw)) }

// FirstWindow is the records the first window holds before its finding;
// each next window holds WindowGrowth times as many.
const (
	FirstWindow  = 4096
	WindowGrowth = 8
)

// Window returns the records of the shortest window of the capture that
// still shows the located finding, and the finding's index among them:
// the handshake of every connection still open where the window starts
// (kept with the connection, as a shrunk capture keeps it; one that closed
// before would look open to the replay, which follows one connection at a
// time), every record from the window's start to the finding's record,
// and the capture's last record when it is on one of those connections,
// so that the window ends when the capture does (a run's silence before
// the end is what run-unterminated measures). A window holds FirstWindow
// records before the finding, then WindowGrowth times as many as the
// last, and is given up once its frames would take more than maxBytes:
// recs is then nil. tests counts the check passes run.
func Window(open Opener, t Target, at *Located, maxBytes int64) (h *capture.Header, recs []capture.Record, anchorI, tests int, err error) {
	return window(open, t, at, maxBytes, FirstWindow)
}

// window is Window with a first window of first records (the fuzz test's
// captures are short).
func window(open Opener, t Target, at *Located, maxBytes int64, first int) (h *capture.Header, recs []capture.Record, anchorI, tests int, err error) {
	last := at.Finding.I
	for span := first; ; span *= WindowGrowth {
		from := max(last-span, 0)
		h, recs, anchorI, err = readWindow(open, from, last, maxBytes)
		if recs != nil && at.Records-1 > last {
			recs = withTail(recs, &at.last, maxBytes)
		}
		if err != nil || recs == nil {
			return nil, nil, 0, tests, err
		}
		pr := newPredicate(h, recs, t)
		pr.anchor, pr.anchorI = at.Finding, anchorI
		tests++
		shown, _, err := pr.test(indices(len(recs)))
		if err != nil {
			return nil, nil, 0, tests, err
		}
		if shown {
			return h, recs, anchorI, tests, nil
		}
		if from == 0 {
			return nil, nil, 0, tests, nil // even all that came before does not show it
		}
	}
}

// errTooBig ends reading a window that outgrew its bound.
var errTooBig = errors.New("window too big")

// readWindow reads the handshakes of the connections open at record from
// and the records from..last of the capture, and where record last is
// among them; recs is nil when their frames would take more than maxBytes.
func readWindow(open Opener, from, last int, maxBytes int64) (*capture.Header, []capture.Record, int, error) {
	src, done, err := open()
	if err != nil {
		return nil, nil, 0, err
	}
	defer done()
	cls := bridge.NewClassifier() // in capture order, so a response knows its request
	var recs []capture.Record
	var bytes int64
	anchorI := -1
	keep := func(rec *capture.Record) error {
		if bytes += frameBytes(rec); bytes > maxBytes {
			return errTooBig
		}
		recs = append(recs, *rec.Clone())
		return nil
	}
	err = func() error {
		for i := 0; i <= last; i++ {
			rec, _, err := src.Next()
			if err != nil {
				if errors.Is(err, io.EOF) {
					return io.ErrUnexpectedEOF // the capture is shorter than when it was located
				}
				return err
			}
			ev := cls.Record(rec)
			if i < from {
				switch {
				case rec.Mark == capture.MarkClose:
					recs = slices.DeleteFunc(recs, func(r capture.Record) bool {
						if r.Conn == rec.Conn {
							bytes -= frameBytes(&r)
						}
						return r.Conn == rec.Conn
					})
				case roleOf(rec, &ev) == rolePinned:
					if err := keep(rec); err != nil {
						return err
					}
				}
				continue
			}
			if i == last {
				anchorI = len(recs)
			}
			if err := keep(rec); err != nil {
				return err
			}
		}
		return nil
	}()
	switch {
	case errors.Is(err, errTooBig):
		return nil, nil, 0, nil
	case err != nil:
		return nil, nil, 0, err
	}
	return src.Header(), recs, anchorI, nil
}

// withTail appends the capture's last record to a window that has a
// record of its connection (so it needs no handshake of its own), unless
// it would take the window past maxBytes.
func withTail(recs []capture.Record, tail *capture.Record, maxBytes int64) []capture.Record {
	var bytes int64
	onConn := false
	for i := range recs {
		bytes += frameBytes(&recs[i])
		onConn = onConn || recs[i].Conn == tail.Conn
	}
	if !onConn || bytes+frameBytes(tail) > maxBytes {
		return recs
	}
	return append(recs, *tail.Clone())
}

func indices(n int) []int {
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	return all
}
