package capture

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Writer appends records to a capture. It is safe for concurrent use.
type Writer struct {
	mu      sync.Mutex
	dst     io.Writer
	file    *os.File
	zw      *zstd.Encoder
	bw      *bufio.Writer
	buf     []byte
	records int
	bytes   int64
	err     error
}

// Create creates a new capture file with mode 0600, zstd-compressed when
// the name ends in ".zst"; it refuses a path that exists, so it never
// truncates, replaces or chmods anything. The path "-" writes plain JSON
// Lines to standard output. (clawtap's commands write through their safe
// output writer and NewWriter instead.)
func Create(path string) (*Writer, error) {
	if path == "-" {
		return NewWriter(os.Stdout, false)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	w, err := NewWriter(f, strings.HasSuffix(path, ".zst"))
	if err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	w.file = f
	return w, nil
}

// windowSize is the zstd window of the captures clawtap writes. Every
// reader of a capture holds a window of it in memory; frames repeat
// within far less than the encoder's default 8 MiB, so 1 MiB costs under
// 1% in size and saves 7 MiB per reader (diff reads two).
const windowSize = 1 << 20

// NewWriter writes a capture to dst, compressing it with zstd if asked.
func NewWriter(dst io.Writer, compress bool) (*Writer, error) {
	w := &Writer{dst: dst}
	var out io.Writer = dst
	if compress {
		zw, err := zstd.NewWriter(dst, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(windowSize))
		if err != nil {
			return nil, fmt.Errorf("start zstd: %w", err)
		}
		w.zw = zw
		out = zw
	}
	w.bw = bufio.NewWriterSize(out, 256<<10)
	return w, nil
}

// WriteHeader writes the header line. Call it first.
func (w *Writer) WriteHeader(h Header) error {
	if h.Version == 0 {
		h.Version = Version
	}
	b, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("encode header: %w", err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.write(append(b, '\n'))
}

// bigFrame is the frame length from which Write sends a frame's bytes on
// as they are instead of copying them into its line buffer first: a
// recorder relaying 60 MB messages should not hold each twice.
const bigFrame = 64 << 10

var endFrameLine = []byte("}\n")

// Write appends one record. A Frame that is not valid JSON is written as raw.
func (w *Writer) Write(rec *Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.records++
	if len(rec.Frame) >= bigFrame {
		if v, ok := rec.verbatimFrame(); ok {
			w.buf = append(rec.appendEnvelope(w.buf[:0]), `,"frame":`...)
			if err := w.write(w.buf); err != nil {
				return err
			}
			if err := w.write(v); err != nil {
				return err
			}
			return w.write(endFrameLine)
		}
	}
	w.buf = rec.AppendJSON(w.buf[:0])
	err := w.write(w.buf)
	if cap(w.buf) > bigFrame<<4 {
		w.buf = nil // a huge raw message: do not keep its buffer
	}
	return err
}

// WriteFrame records a message as received or sent: JSON becomes a frame
// record, anything else a raw record.
func (w *Writer) WriteFrame(t int64, conn int, dir string, msg []byte) error {
	return w.Write(&Record{T: t, Conn: conn, Dir: dir, Frame: msg})
}

func (w *Writer) write(b []byte) error {
	if w.err != nil {
		return w.err
	}
	n, err := w.bw.Write(b)
	w.bytes += int64(n)
	if err != nil {
		w.err = fmt.Errorf("write capture: %w", err)
	}
	return w.err
}

// Flush pushes everything written so far to the file, ending the current
// zstd block, so a reader (or a crash) sees every record written before it.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.flush()
}

func (w *Writer) flush() error {
	if w.err != nil {
		return w.err
	}
	if err := w.bw.Flush(); err != nil {
		w.err = fmt.Errorf("write capture: %w", err)
		return w.err
	}
	if w.zw != nil {
		if err := w.zw.Flush(); err != nil {
			w.err = fmt.Errorf("write capture: %w", err)
			return w.err
		}
	}
	return nil
}

// Records returns the number of records written (the header excluded).
func (w *Writer) Records() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.records
}

// Bytes returns the uncompressed bytes written, the header included.
func (w *Writer) Bytes() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.bytes
}

// Close finishes the capture: flushes, ends the zstd stream and closes the
// file it created.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	err := w.flush()
	if w.zw != nil {
		if cerr := w.zw.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("finish zstd stream: %w", cerr)
		}
		w.zw = nil
	}
	if w.file != nil {
		if cerr := w.file.Close(); err == nil && cerr != nil {
			err = cerr
		}
		w.file = nil
	}
	return err
}
