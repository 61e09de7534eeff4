package serve

import (
	"bufio"
	"fmt"
	"os"
	"sync"
)

// spool keeps the recorded bytes serve must hand out out of capture order
// (the responses that answer clients' requests, each connection's hello-ok)
// in a private temporary file, so that memory holds only where they are.
// The pre-pass appends; clients read back with ReadAt.
type spool struct {
	mu  sync.Mutex // guards w, off and err; ReadAt needs no lock
	f   *os.File
	w   *bufio.Writer
	off int64
	err error
}

// ref is where a spooled value is.
type ref struct {
	off int64
	n   int32
}

func newSpool() (*spool, error) {
	f, err := anonymousFile("clawtap-serve-spool-*")
	if err != nil {
		return nil, fmt.Errorf("temporary file for the recorded responses: %w", err)
	}
	return &spool{f: f, w: bufio.NewWriterSize(f, 64<<10)}, nil
}

// put appends b and says where it is. After a write error nothing more is
// kept, and the error is reported by flush.
func (s *spool) put(b []byte) (ref, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return ref{}, false
	}
	if _, err := s.w.Write(b); err != nil {
		s.err = err
		return ref{}, false
	}
	r := ref{s.off, int32(len(b))}
	s.off += int64(len(b))
	return r, true
}

// flush makes everything put so far readable.
func (s *spool) flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = s.w.Flush()
	}
	return s.err
}

// get reads a value back; it must have been flushed.
func (s *spool) get(r ref) ([]byte, error) {
	b := make([]byte, r.n)
	if _, err := s.f.ReadAt(b, r.off); err != nil {
		return nil, fmt.Errorf("read back a recorded response: %w", err)
	}
	return b, nil
}

func (s *spool) close() error { return s.f.Close() }
