package report

import (
	"bytes"
	"fmt"
	"io"
	"os"
)

// The details a report keeps (each record's body and timer step, already
// serialised) wait for the page in a spool, not on the heap: they may add
// up to all of --max-bytes, so holding them would make the builder's
// memory grow with the limit rather than with what the pass tracks. The
// spool is a temporary file, unlinked at once where the system allows, so
// nothing is left behind even if clawtap is killed; when no file can be
// made it is a slice, which is what the heap held before.
//
// Eviction leaves holes; once they outweigh both what is live and the
// limit (--max-bytes, or 4 MiB if more), the spool is compacted in place:
// it never holds more than twice the limit, and most reports, whose
// budget fills once, are never compacted.

// span is where one body or timer step lies in the spool; n is 0 once it
// was elided.
type span struct {
	off int64
	n   int32
}

// spoolFile is the spool's store: an *os.File, or memFile.
type spoolFile interface {
	io.ReaderAt
	io.WriterAt
	Truncate(size int64) error
	Close() error
}

// spoolChunk is how much the spool gathers before it writes, and reads at
// once when the page is written.
const spoolChunk = 256 << 10

// minHoles is the least wasted space worth a compaction, whatever the
// limit (a variable for tests).
var minHoles int64 = 4 << 20

type spool struct {
	dir   string
	slack int64 // the holes allowed besides as many as live bytes
	f     spoolFile
	name  string // the file to remove on close, when it could not be unlinked at once
	end   int64  // where the next write goes; pending writes included
	live  int64  // bytes of spans still kept
	pend  []byte // written to f at end-len(pend) when full or read from
	rbuf  []byte // a window of f read ahead, at roff
	roff  int64
	err   error
}

// open makes the spool's file on first use.
func (s *spool) open() {
	if s.f != nil {
		return
	}
	f, err := os.CreateTemp(s.dir, "clawtap-report-*.spool")
	if err != nil {
		s.f = &memFile{}
		return
	}
	s.f = f
	if os.Remove(f.Name()) != nil {
		s.name = f.Name()
	}
}

// put appends p and returns where it lies.
func (s *spool) put(p []byte) span {
	s.open()
	if len(s.pend)+len(p) > spoolChunk {
		s.flush()
	}
	sp := span{off: s.end, n: int32(len(p))}
	if len(p) > spoolChunk {
		s.writeAt(p, s.end)
	} else {
		if s.pend == nil {
			s.pend = make([]byte, 0, spoolChunk)
		}
		s.pend = append(s.pend, p...)
	}
	s.end += int64(len(p))
	s.live += int64(len(p))
	return sp
}

// drop forgets a span's bytes: they are holes until a compaction.
func (s *spool) drop(sp span) { s.live -= int64(sp.n) }

// wantsCompaction reports whether holes outweigh the live bytes.
func (s *spool) wantsCompaction() bool {
	holes := s.end - s.live
	return holes > max(minHoles, s.slack) && holes > s.live
}

func (s *spool) flush() {
	if len(s.pend) > 0 {
		s.writeAt(s.pend, s.end-int64(len(s.pend)))
		s.pend = s.pend[:0]
	}
}

func (s *spool) writeAt(p []byte, off int64) {
	if s.err != nil {
		return
	}
	if _, err := s.f.WriteAt(p, off); err != nil {
		s.err = fmt.Errorf("report: spooling details: %w", err)
	}
}

// appendTo appends a span's bytes to dst. Spans are read in the order
// they were written, so a window read ahead serves most of them.
func (s *spool) appendTo(dst []byte, sp span) []byte {
	if sp.n <= 0 || s.err != nil {
		return dst
	}
	s.flush()
	end := sp.off + int64(sp.n)
	if sp.off < 0 || end > s.end {
		s.err = fmt.Errorf("report: spooled details at %d+%d lie past the spool's %d bytes", sp.off, sp.n, s.end)
		return dst
	}
	if sp.off < s.roff || end > s.roff+int64(len(s.rbuf)) {
		if sp.n > spoolChunk {
			return s.readInto(dst, sp)
		}
		if s.rbuf == nil {
			s.rbuf = make([]byte, spoolChunk)
		}
		s.rbuf = s.rbuf[:min(int64(spoolChunk), s.end-sp.off)]
		s.roff = sp.off
		if _, err := s.f.ReadAt(s.rbuf, sp.off); err != nil {
			s.err = fmt.Errorf("report: reading spooled details: %w", err)
			s.rbuf = s.rbuf[:0]
			return dst
		}
	}
	return append(dst, s.rbuf[sp.off-s.roff:end-s.roff]...)
}

// readInto reads a span larger than the window straight into dst.
func (s *spool) readInto(dst []byte, sp span) []byte {
	at := len(dst)
	dst = append(dst, make([]byte, sp.n)...)
	if _, err := s.f.ReadAt(dst[at:], sp.off); err != nil {
		s.err = fmt.Errorf("report: reading spooled details: %w", err)
		return dst[:at]
	}
	return dst
}

// compact moves the live spans down over the holes, in the order they lie
// (spans must list every live span, sorted by offset), and updates them.
func (s *spool) compact(spans []*span) {
	s.flush()
	s.rbuf, s.roff = s.rbuf[:0], 0
	var at int64
	var buf []byte
	for _, sp := range spans {
		if sp.off != at {
			buf = s.readInto(buf[:0], *sp)
			s.writeAt(buf, at)
			sp.off = at
		}
		at += int64(sp.n)
	}
	s.end = at
	if s.err == nil {
		if err := s.f.Truncate(at); err != nil {
			s.err = fmt.Errorf("report: compacting spooled details: %w", err)
		}
	}
}

// close releases the spool's file.
func (s *spool) close() error {
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	if s.name != "" {
		if rerr := os.Remove(s.name); err == nil {
			err = rerr
		}
	}
	s.f, s.name, s.pend, s.rbuf = nil, "", nil, nil
	return err
}

// memFile is a spool in memory, for when no temporary file can be made.
type memFile struct{ b []byte }

func (m *memFile) WriteAt(p []byte, off int64) (int, error) {
	if end := int(off) + len(p); end > len(m.b) {
		m.b = append(m.b, make([]byte, end-len(m.b))...)
	}
	return copy(m.b[off:], p), nil
}

func (m *memFile) ReadAt(p []byte, off int64) (int, error) {
	return bytes.NewReader(m.b).ReadAt(p, off)
}

func (m *memFile) Truncate(size int64) error {
	m.b = m.b[:size]
	return nil
}

func (m *memFile) Close() error { return nil }
