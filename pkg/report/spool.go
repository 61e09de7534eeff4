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
	wins  [spoolWindows]window
	tick  uint64 // for the windows' least recent use
	// lastRead is where the last read that filled a window began.
	lastRead int64
	err      error
}

// A spool is read through a few windows of its file: bodies are read in
// the order they were written (one window serves them), findings' messages
// in capture order, which interleaves those written while the pass ran
// with those written at its end (a window each).
const (
	spoolWindows = 4
	windowSize   = spoolChunk / spoolWindows
	// backStep is the farthest a read behind the last is taken for a
	// step of a walk backwards.
	backStep = 2 * windowSize
)

// window is a piece of the spool's file read ahead.
type window struct {
	buf  []byte
	off  int64
	used uint64
}

func (w *window) holds(off, end int64) bool {
	return off >= w.off && end <= w.off+int64(len(w.buf))
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

// patch overwrites part of a span, at offset at in it, with p.
func (s *spool) patch(sp span, at int, p []byte) {
	off := sp.off + int64(at)
	if at < 0 || at+len(p) > int(sp.n) {
		s.err = fmt.Errorf("report: patching %d bytes at %d of a spooled span of %d", len(p), at, sp.n)
		return
	}
	s.forgetWindows()
	inPend := s.end - int64(len(s.pend)) // where what waits in pend goes
	if n := min(max(inPend-off, 0), int64(len(p))); n > 0 {
		s.writeAt(p[:n], off)
		p, off = p[n:], off+n
	}
	if len(p) > 0 {
		copy(s.pend[off-inPend:], p)
	}
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

// appendTo appends a span's bytes to dst, through the window that holds
// them, or the least recently used one read anew at the span.
func (s *spool) appendTo(dst []byte, sp span) []byte { return s.read(dst, sp, true) }

// peek is appendTo for a small read out of order (a run's id): what no
// window holds is read alone, leaving the windows to the reads in order.
func (s *spool) peek(dst []byte, sp span) []byte { return s.read(dst, sp, false) }

func (s *spool) read(dst []byte, sp span, fill bool) []byte {
	if sp.n <= 0 || s.err != nil {
		return dst
	}
	end := sp.off + int64(sp.n)
	if sp.off < 0 || end > s.end {
		s.err = fmt.Errorf("report: spooled details at %d+%d lie past the spool's %d bytes", sp.off, sp.n, s.end)
		return dst
	}
	// What was put lately is read where it waits to be written: a run or
	// finding read back while the pass runs costs no write.
	written := s.end - int64(len(s.pend))
	if sp.off >= written {
		return append(dst, s.pend[sp.off-written:end-written]...)
	}
	if end > written {
		s.flush()
		written = s.end
	}
	if sp.n > windowSize {
		return s.readInto(dst, sp)
	}
	if !fill {
		for k := range s.wins {
			if w := &s.wins[k]; w.holds(sp.off, end) {
				return append(dst, w.buf[sp.off-w.off:end-w.off]...)
			}
		}
		return s.readInto(dst, sp)
	}
	s.tick++
	w := &s.wins[0]
	for k := range s.wins {
		if s.wins[k].holds(sp.off, end) {
			w = &s.wins[k]
			w.used = s.tick
			return append(dst, w.buf[sp.off-w.off:end-w.off]...)
		}
		if s.wins[k].used < w.used {
			w = &s.wins[k]
		}
	}
	if w.buf == nil {
		w.buf = make([]byte, windowSize)
	}
	// A window reads on from the span, or, when the reads go backwards (the
	// end of the pass walks the runs from the last), back from its end. A
	// read far behind the last is another walk forwards (the findings
	// made late, sorted among the others), not a step back.
	off := sp.off
	if sp.off < s.lastRead && s.lastRead-sp.off <= backStep {
		off = max(end-int64(windowSize), 0)
	}
	s.lastRead = sp.off
	w.buf, w.off, w.used = w.buf[:min(int64(windowSize), written-off)], off, s.tick
	if _, err := s.f.ReadAt(w.buf, off); err != nil {
		s.err = fmt.Errorf("report: reading spooled details: %w", err)
		w.buf = w.buf[:0]
		return dst
	}
	return append(dst, w.buf[sp.off-off:end-off]...)
}

// forgetWindows drops what the windows read: the file changed under them.
func (s *spool) forgetWindows() {
	for k := range s.wins {
		s.wins[k].buf, s.wins[k].off = s.wins[k].buf[:0], 0
	}
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
	s.forgetWindows()
	// The spans are read through the windows, in order, and written down
	// a chunk at a time: every byte a write covers lies before the spans
	// still to read, so nothing is overwritten before it is read.
	var at, outAt int64
	out := s.pend[:0] // empty after the flush
	for _, sp := range spans {
		if sp.off == at && len(out) == 0 {
			at += int64(sp.n) // nothing has moved yet
			continue
		}
		if len(out) == 0 {
			outAt = at
		}
		out = s.appendTo(out, *sp)
		sp.off = at
		at += int64(sp.n)
		if len(out) >= spoolChunk {
			s.writeAt(out, outAt)
			out = out[:0]
		}
	}
	if len(out) > 0 {
		s.writeAt(out, outAt)
	}
	s.pend = out[:0]
	s.forgetWindows()
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
	s.f, s.name, s.pend = nil, "", nil
	s.wins = [spoolWindows]window{}
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
