package capture

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/clawtap/clawtap/pkg/jsonx"
)

// DefaultMaxLine bounds one line. The gateway allows 25 MiB frames; a raw
// message escaped into a JSON string can double in size, so leave room.
const DefaultMaxLine = 128 << 20

// Warning is a problem the reader stepped over. Reading goes on after it.
type Warning struct {
	Line int    // 1-based line number, 0 when it concerns the stream
	Msg  string // one sentence, lower case
}

func (w Warning) String() string {
	if w.Line > 0 {
		return fmt.Sprintf("line %d: %s", w.Line, w.Msg)
	}
	return w.Msg
}

// Stats counts what a reader saw.
type Stats struct {
	Records     int  // records returned
	Frames      int  // records holding a JSON frame
	Raw         int  // non-JSON messages
	Marks       int  // marker records
	Bare        int  // bare gateway frames (no envelope)
	Malformed   int  // lines that could not be read as records (returned with Malformed set)
	Oversized   int  // lines over MaxLine, skipped
	InvalidUTF8 int  // records whose invalid UTF-8 bytes were replaced by U+FFFD
	BadTime     int  // records whose time was out of range (clamped)
	Truncated   bool // the capture ended mid-line or mid-stream
	Corrupt     bool // ... because its zstd stream could not be decoded (not merely cut off)
	Empty       bool // the input held no line at all (0 bytes, blank lines, or a zstd stream of nothing)
	Bytes       int64
}

// Summary says, in one line, what the reader stepped over: "N records
// read; …", or "" when it read every line as it was.
func (st Stats) Summary() string {
	var parts []string
	if st.Malformed > 0 {
		parts = append(parts, fmt.Sprintf("%d unreadable line(s) kept as invalid records", st.Malformed))
	}
	if st.Oversized > 0 {
		parts = append(parts, fmt.Sprintf("%d oversized line(s) skipped", st.Oversized))
	}
	if st.InvalidUTF8 > 0 {
		parts = append(parts, fmt.Sprintf("%d record(s) with invalid UTF-8, replaced by U+FFFD", st.InvalidUTF8))
	}
	if st.BadTime > 0 {
		parts = append(parts, fmt.Sprintf("%d record(s) with a time out of range, clamped", st.BadTime))
	}
	if st.Truncated {
		parts = append(parts, "the capture is truncated")
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("%d records read; %s", st.Records, strings.Join(parts, "; "))
}

// Options tune a Reader.
type Options struct {
	MaxLine   int           // 0 means DefaultMaxLine
	OnWarning func(Warning) // called for every warning, on the caller's goroutine; may be nil
	// Serial reads on the caller's goroutine, in Next, instead of a few
	// batches ahead on a goroutine of its own (see readahead.go). The
	// records, warnings and counts are the same either way.
	Serial bool
	// Parsers is how many goroutines parse the lines the read-ahead reads
	// (parallel.go): 0 means one for each core (GOMAXPROCS, up to four),
	// 1 has the reading goroutine parse them. The records, warnings and
	// counts are the same either way.
	Parsers int
	// Release, if set, is called once the reader no longer reads its
	// input: at Close, or, when a read ahead was in flight on an input the
	// caller gave, once that read returned. A caller frees what the input
	// reads from there (a decoder), not after Close.
	Release func()
}

// Reader streams records from a capture.
type Reader struct {
	opts    Options
	closer  io.Closer
	release func() // the zstd decoder, if any
	br      *bufio.Reader
	header  *Header
	queue   []sniffed // lines and warnings met while deciding what the input is
	holding bool      // warnings go to queue, not out
	line    int
	rec     Record
	schema  *jsonx.Schema // IndexMembers: what the walk indexes of each frame
	idx     jsonx.Index   // rec's frame's members (IndexMembers); not Exact for anything else
	long    []byte
	cut     []byte // the unfinished last line, when the input ends mid-line
	// streamErr is the read error that ended the input early, if any.
	streamErr error
	fix       []byte // a line with its invalid UTF-8 replaced
	stats     Stats
	warns     []Warning
	done      bool

	ahead      *ahead // the read-ahead, once Next started it
	depth      int    // batches it may hold for Next (SetAhead); 0 means batchesAhead
	stage      func(*Batch)
	transform  func(*Record) *Record
	xformAhead bool      // the transform runs on a goroutine of its own (readahead.go)
	collecting bool      // on the read-ahead's goroutine: warnings go to pending
	pending    []Warning // warnings met since the last record
	released   bool
	closed     bool
}

// Open opens a capture file, or standard input when path is "-".
func Open(path string, opts Options) (*Reader, error) {
	if path == "-" {
		return NewReader(os.Stdin, opts)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r, err := NewReader(f, opts)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.closer = f
	return r, nil
}

// ReadBuffer is the size of the buffer a Reader reads lines from. A
// *bufio.Reader at least this large given to NewReader is read directly.
const ReadBuffer = 256 << 10

// NewReader reads a capture from src, detecting zstd by its magic bytes.
// It reads the first line to find the header; without one it reads on
// until a line is a capture record or a gateway frame, and returns an
// error that matches ErrNotCapture when none is within the first
// sniffLines lines (see sniff.go). An input with no line at all is not an
// error: the reader has no records and Stats().Empty is set.
func NewReader(src io.Reader, opts Options) (*Reader, error) {
	if opts.MaxLine <= 0 {
		opts.MaxLine = DefaultMaxLine
	}
	in, release, err := Decompress(src)
	if err != nil {
		if opts.Release != nil {
			opts.Release()
		}
		return nil, err
	}
	r := &Reader{opts: opts, release: release}
	r.br = bufio.NewReaderSize(in, ReadBuffer)
	if err := r.start(); err != nil {
		r.releaseDecoder()
		return nil, err
	}
	return r, nil
}

// Header returns the capture's header, or nil for a file of bare frames.
func (r *Reader) Header() *Header { return r.header }

// Stats returns the counts so far: of the records Next has returned.
func (r *Reader) Stats() Stats {
	if r.ahead != nil {
		return r.ahead.stats
	}
	return r.stats
}

// Warnings returns every warning so far.
func (r *Reader) Warnings() []Warning { return r.warns }

// Close releases the reader and the file it opened.
func (r *Reader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	if r.ahead != nil {
		return r.stopAhead()
	}
	r.releaseDecoder()
	if r.closer != nil {
		return r.closer.Close()
	}
	return nil
}

// releaseDecoder releases the zstd decoder and the caller's input, once.
func (r *Reader) releaseDecoder() {
	if !r.released {
		r.released = true
		r.release()
		if r.opts.Release != nil {
			r.opts.Release()
		}
	}
}

func (r *Reader) warn(line int, format string, args ...any) {
	w := Warning{Line: line, Msg: fmt.Sprintf(format, args...)}
	if r.holding {
		r.queue = append(r.queue, sniffed{warn: &w})
		return
	}
	r.emit(w)
}

// emit hands a warning on: to the caller (deliver), or, on the
// read-ahead's goroutine, to the record it comes with.
func (r *Reader) emit(w Warning) {
	if r.collecting {
		r.pending = append(r.pending, w)
		return
	}
	r.deliver(w)
}

// deliver records a warning and hands it to OnWarning.
func (r *Reader) deliver(w Warning) {
	if len(r.warns) < 1000 { // keep memory bounded on a hostile file
		r.warns = append(r.warns, w)
	}
	if r.opts.OnWarning != nil {
		r.opts.OnWarning(w)
	}
}

// readLine returns the next line without its newline. The slice is valid
// until the next call. At the end of a stream with a final line that has no
// newline, that line is returned with a nil error if it is valid JSON, else
// it is reported as truncated.
func (r *Reader) readLine() ([]byte, error) {
	if r.done {
		return nil, io.EOF
	}
	r.long = r.long[:0]
	oversized := false
	for {
		chunk, err := r.br.ReadSlice('\n')
		r.stats.Bytes += int64(len(chunk))
		if err == nil {
			r.line++
			if oversized {
				r.stats.Oversized++
				r.warn(r.line, "line longer than %d bytes skipped", r.opts.MaxLine)
				oversized = false
				r.long = r.long[:0]
				continue
			}
			if len(r.long) > 0 {
				r.long = append(r.long, chunk...)
				chunk = r.long
			}
			if len(chunk) > r.opts.MaxLine+2 {
				r.stats.Oversized++
				r.warn(r.line, "line longer than %d bytes skipped", r.opts.MaxLine)
				r.long = r.long[:0]
				continue
			}
			return trimEOL(chunk), nil
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			if !oversized {
				if len(r.long)+len(chunk) > r.opts.MaxLine {
					oversized = true
					r.long = r.long[:0]
				} else {
					r.long = append(r.long, chunk...)
				}
			}
			continue
		}
		// End of stream, clean or not.
		r.done = true
		rest := chunk
		if len(r.long) > 0 {
			rest = append(r.long, chunk...)
		}
		if !errors.Is(err, io.EOF) {
			r.stats.Truncated = true
			r.streamErr = err
			var se *StreamError
			corrupt := errors.As(err, &se) && !se.CutOff()
			r.stats.Corrupt = corrupt
			switch {
			case len(jsonx.TrimSpace(rest)) > 0 && corrupt:
				r.cut = rest
				r.warn(r.line+1, "%s is corrupt mid-line (%d bytes): %v; the records before it are read", se.What(), len(rest), err)
			case len(jsonx.TrimSpace(rest)) > 0:
				r.cut = rest
				r.warn(r.line+1, "capture ends mid-line (%d bytes): %v; records before it are complete", len(rest), err)
			case corrupt:
				r.warn(0, "%s is corrupt: %v; the records before it are read", se.What(), err)
			case se != nil && se.Stream != "":
				r.warn(0, "%s ends early: %v; records before it are complete", se.What(), err)
			default:
				r.warn(0, "capture stream ends early: %v; records before it are complete", err)
			}
			return nil, io.EOF
		}
		if oversized {
			r.line++
			r.stats.Oversized++
			r.warn(r.line, "line longer than %d bytes skipped", r.opts.MaxLine)
			return nil, io.EOF
		}
		if len(jsonx.TrimSpace(rest)) == 0 {
			return nil, io.EOF
		}
		r.line++
		rest = trimEOL(rest)
		if !jsonx.Valid(rest) {
			r.stats.Truncated = true
			r.cut = rest
			r.warn(r.line, "last line is truncated (%d bytes, no newline): ignored; records before it are complete", len(rest))
			return nil, io.EOF
		}
		return rest, nil
	}
}

// sameBytes reports whether a and b are the same memory.
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
		}
	}
	return b
}

// Next returns the next record, or io.EOF at the end of the capture. A
// truncated capture ends with io.EOF too, after a warning. Blank lines are
// skipped; a line that cannot be read is returned as a Malformed record so
// that nothing is dropped silently. Invalid UTF-8 is replaced by U+FFFD,
// byte by byte, so every record holds valid UTF-8.
func (r *Reader) Next() (*Record, error) {
	if r.opts.Serial {
		return r.next()
	}
	if r.closed {
		return nil, io.EOF
	}
	if r.ahead == nil {
		r.startAhead()
	}
	return r.ahead.next(r)
}

// next reads and parses the next record: Next's work, on whichever
// goroutine reads.
func (r *Reader) next() (*Record, error) {
	line, n, err := r.nextLine()
	if err != nil {
		return nil, err
	}
	var idx *jsonx.Index
	if r.schema != nil {
		idx = &r.idx
	}
	var p parsed
	p.parse(line, n, &r.rec, r.schema, idx)
	if !validUTF8(line, idx) {
		line = repaired(line, &r.fix)
		p = parsed{badUTF8: true}
		p.parse(line, n, &r.rec, r.schema, idx)
	}
	r.account(&r.rec, &p, &r.stats, nil)
	if r.transform != nil && !r.xformAhead {
		frame := r.rec.Frame
		if out := r.transform(&r.rec); out != &r.rec {
			r.rec = *out
		}
		if !sameBytes(r.rec.Frame, frame) {
			r.idx.Reset() // it indexes the frame before the change
		}
	}
	return &r.rec, nil
}

// nextLine returns the next line that is not blank and its number, or
// the error that ends the input; the warnings met on the way are emitted.
func (r *Reader) nextLine() ([]byte, int, error) {
	for {
		if len(r.queue) > 0 {
			it := r.queue[0]
			r.queue[0] = sniffed{}
			r.queue = r.queue[1:]
			if it.warn != nil {
				r.emit(*it.warn)
				continue
			}
			if len(jsonx.TrimSpace(it.line)) > 0 {
				return it.line, it.n, nil
			}
			continue
		}
		line, err := r.readLine()
		if err != nil {
			return nil, 0, err
		}
		if len(jsonx.TrimSpace(line)) > 0 {
			return line, r.line, nil
		}
	}
}
