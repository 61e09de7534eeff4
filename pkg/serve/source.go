package serve

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"

	"github.com/clawtap/clawtap/pkg/capture"
)

// Source is a capture that can be read from the start again and again: once
// by the pre-pass, and once per client and pass of the stream. Nothing of it
// is held in memory; every reader decompresses its own copy as it goes.
type Source struct {
	ra      io.ReaderAt
	size    int64
	closeMu sync.Mutex
	closer  io.Closer    // the file, when the Source opened one
	opened  atomic.Int64 // readers started, for tests
}

// OpenSource opens the capture at path. A regular file is read in place; a
// pipe, FIFO or device (e.g. a process substitution) cannot be read twice,
// so it is first copied to a private temporary file (see SpoolSource).
// The file stays open until Close, so renaming or deleting the path while
// serving does not disturb the clients.
func OpenSource(path string) (*Source, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		defer f.Close()
		return SpoolSource(f)
	}
	return &Source{ra: f, size: fi.Size(), closer: f}, nil
}

// BytesSource serves a capture held in memory (tests, small captures).
func BytesSource(b []byte) *Source { return &Source{ra: bytes.NewReader(b), size: int64(len(b))} }

// SpoolSource copies r (standard input, a pipe) to a temporary file that only
// this process can reach: created 0600 and removed from its directory at once,
// so it disappears with the process whatever happens. The copy keeps r's bytes
// as they are (a compressed capture stays compressed).
func SpoolSource(r io.Reader) (*Source, error) {
	f, err := anonymousFile("clawtap-serve-capture-*")
	if err != nil {
		return nil, fmt.Errorf("keep the capture for re-reading: %w", err)
	}
	n, err := io.Copy(f, r)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("copy the capture to a temporary file: %w", err)
	}
	return &Source{ra: f, size: n, closer: f}, nil
}

// anonymousFile creates a 0600 temporary file and unlinks it, so nothing is
// left on disk when the process ends, cleanly or not.
func anonymousFile(pattern string) (*os.File, error) {
	f, err := os.CreateTemp("", pattern)
	if err != nil {
		return nil, err
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// reader opens a new capture reader at the start of the source. Warnings go
// to warn (nil: kept quiet; the pre-pass has reported them already).
func (s *Source) reader(warn func(capture.Warning)) (*capture.Reader, error) {
	if s == nil || s.ra == nil {
		return nil, errors.New("no capture to read")
	}
	s.opened.Add(1)
	return capture.NewReader(io.NewSectionReader(s.ra, 0, s.size), capture.Options{OnWarning: warn})
}

// Close closes the file the source opened. Readers still open fail after it.
func (s *Source) Close() error {
	if s == nil {
		return nil
	}
	s.closeMu.Lock()
	defer s.closeMu.Unlock()
	if s.closer == nil {
		return nil
	}
	err := s.closer.Close()
	s.closer = nil
	return err
}
