package capture

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/klauspost/compress/zstd"
)

// zstdMagic starts every zstd frame. Readers detect compression by it, never
// by the file name. A stream may also begin with skippable frames (magic
// 0x184D2A50 to 0x184D2A5F, as pzstd writes), which are zstd too.
var zstdMagic = []byte{0x28, 0xB5, 0x2F, 0xFD}

// isSkippable reports whether b starts with a skippable frame's magic.
func isSkippable(b []byte) bool {
	return len(b) >= 4 && b[0]&0xF0 == 0x50 && b[1] == 0x2A && b[2] == 0x4D && b[3] == 0x18
}

// MaxWindow is the largest zstd window a reader decodes: 2 GiB, what
// `zstd --long=31` asks for, the largest the zstd tool writes. The decoder
// holds one window: up to this much address space, of which only what the
// stream has filled is resident (a 100 MB capture compressed with
// --long=31 takes about 100 MB, not 2 GiB).
const MaxWindow = 1 << 31

// WindowError is a zstd stream whose first frame asks for a window larger
// than MaxWindow: clawtap will not hold that much to read it.
type WindowError struct {
	Window uint64 // the window the frame asks for, in bytes
}

func (e *WindowError) Error() string {
	return fmt.Sprintf("the zstd stream asks for a %s window, more than the %s clawtap reads (zstd -d --memory=%dMB decompresses it; recompress it with zstd --long=31 or less)",
		binarySize(e.Window), binarySize(MaxWindow), (e.Window+1<<20-1)>>20)
}

// binarySize writes n in the largest binary unit that divides it
// (window sizes are 2^n times 1 to 1.875), or with one decimal.
func binarySize(n uint64) string {
	for _, u := range []struct {
		size uint64
		name string
	}{{1 << 40, "TiB"}, {1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.size {
			if n%u.size == 0 {
				return fmt.Sprintf("%d %s", n/u.size, u.name)
			}
			return fmt.Sprintf("%.1f %s", float64(n)/float64(u.size), u.name)
		}
	}
	return fmt.Sprintf("%d B", n)
}

// firstWindow reads the window the first zstd frame in b asks for, after
// any skippable frames; ok is false when b does not hold its header.
func firstWindow(b []byte) (window uint64, ok bool) {
	for isSkippable(b) {
		if len(b) < 8 {
			return 0, false
		}
		n := uint64(binary.LittleEndian.Uint32(b[4:8]))
		if uint64(len(b)) < 8+n {
			return 0, false
		}
		b = b[8+n:]
	}
	if len(b) < 6 || !bytes.Equal(b[:4], zstdMagic) {
		return 0, false
	}
	fhd := b[4]
	if fhd&0x20 != 0 { // single segment: the window is the content size
		fcsSize := []int{0, 2, 4, 8}[fhd>>6]
		if fcsSize == 0 {
			fcsSize = 1
		}
		did := []int{0, 1, 2, 4}[fhd&3]
		at := 5 + did
		if len(b) < at+fcsSize {
			return 0, false
		}
		var fcs uint64
		for k := fcsSize - 1; k >= 0; k-- {
			fcs = fcs<<8 | uint64(b[at+k])
		}
		if fcsSize == 2 {
			fcs += 256
		}
		return fcs, true
	}
	wd := b[5]
	log := 10 + uint(wd>>3)
	base := uint64(1) << log
	return base + base/8*uint64(wd&7), true
}

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

// Decompress returns src decompressed when it starts with the zstd or the
// gzip magic bytes, else src itself (buffered either way), and a function
// that releases the decoder; a JSON array of frames (a browser console's
// copy) comes out as JSON Lines, one element a line (foreign.go). Readers
// detect compression and arrays this way, never by the file name.
func Decompress(src io.Reader) (io.Reader, func(), error) {
	peek := bufio.NewReaderSize(src, 1<<16)
	magic, err := peek.Peek(4)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, nil, fmt.Errorf("read capture: %w", err)
	}
	if bytes.HasPrefix(magic, gzipMagic) {
		plain, release, err := gunzip(peek)
		if err != nil {
			return nil, nil, err
		}
		in, err := arrayOr(plain)
		return in, release, err
	}
	if !bytes.Equal(magic, zstdMagic) && !isSkippable(magic) {
		in, err := arrayOr(peek)
		return in, func() {}, err
	}
	// A window too large is said as such up front, not found by the
	// decoder as a damaged stream.
	head, _ := peek.Peek(peek.Size())
	if w, ok := firstWindow(head); ok && w > MaxWindow {
		return nil, nil, &WindowError{Window: w}
	}
	zr, err := zstd.NewReader(peek, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(MaxWindow), zstd.WithDecoderMaxMemory(MaxWindow))
	if err != nil {
		return nil, nil, fmt.Errorf("open zstd stream: %w", err)
	}
	in, err := arrayOr(zstdStream{zr})
	if err != nil {
		zr.Close()
		return nil, nil, err
	}
	return in, zr.Close, nil
}

// StreamError is a zstd or gzip stream that could not be decoded to its
// end, or a JSON array that could not be read to its end: cut off
// (io.ErrUnexpectedEOF) or corrupt. Reads from Decompress's reader return
// it, so that whoever reads the decompressed bytes can tell a damaged file
// from a failing read. Its message is the decoder's.
type StreamError struct {
	Err    error
	Stream string // what broke: "gzip stream", "JSON array"; "" is the zstd stream
}

func (e *StreamError) Error() string { return e.Err.Error() }

// What names what broke: "the zstd stream", "the gzip stream", "the JSON
// array".
func (e *StreamError) What() string {
	if e.Stream == "" {
		return "the zstd stream"
	}
	return "the " + e.Stream
}
func (e *StreamError) Unwrap() error { return e.Err }

// CutOff reports whether the stream ends early rather than being corrupt.
func (e *StreamError) CutOff() bool { return errors.Is(e.Err, io.ErrUnexpectedEOF) }

// zstdStream marks the decoder's errors as StreamErrors.
type zstdStream struct{ d *zstd.Decoder }

func (z zstdStream) Read(p []byte) (int, error) {
	n, err := z.d.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		var se *StreamError
		if !errors.As(err, &se) {
			if errors.Is(err, zstd.ErrWindowSizeExceeded) || errors.Is(err, zstd.ErrDecoderSizeExceeded) {
				// A later frame asks for more than the first did.
				err = fmt.Errorf("a zstd frame asks for a window larger than the %s clawtap reads: %w", binarySize(MaxWindow), err)
			}
			err = &StreamError{Err: err}
		}
	}
	return n, err
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
	r.rec, line = Record{}, r.utf8(line, &p, &r.fix)
	p.parse(line, n, &r.rec, r.schema, idx)
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

// parsed is what reading one line as a record found, before the reader
// counts it: the parts a reader can find on any goroutine, in any order.
type parsed struct {
	n       int    // the line number
	badUTF8 bool   // its invalid UTF-8 was replaced
	why     string // why it is not a record, "" when it is one
	badT    string // the warning for a time out of range, "" for none
}

// utf8 returns line, or a copy in *fix with its invalid UTF-8 replaced.
func (r *Reader) utf8(line []byte, p *parsed, fix *[]byte) []byte {
	if utf8.Valid(line) {
		return line
	}
	p.badUTF8 = true
	return repaired(line, fix)
}

// parse reads line n into rec (its Index is set when it is counted).
func (p *parsed) parse(line []byte, n int, rec *Record, schema *jsonx.Schema, idx *jsonx.Index) {
	p.n = n
	*rec = Record{Line: n}
	why, badT := parse(line, rec, schema, idx)
	p.why = why
	if badT != nil {
		p.badT = fmt.Sprintf("time %s is out of range; the record is kept at %d", badT, rec.T)
	}
}

// account counts a parsed record in st, in capture order, and says what
// it stepped over: added to *warns, or emitted when warns is nil.
func (r *Reader) account(rec *Record, p *parsed, st *Stats, warns *[]Warning) {
	warn := func(w Warning) {
		if warns != nil {
			*warns = append(*warns, w)
		} else {
			r.emit(w)
		}
	}
	if p.badUTF8 {
		st.InvalidUTF8++
		if st.InvalidUTF8 == 1 {
			warn(Warning{Line: p.n, Msg: "invalid UTF-8 replaced by U+FFFD (later lines like it are counted, not listed)"})
		}
	}
	if p.why != "" {
		warn(Warning{Line: p.n, Msg: p.why + "; kept as an invalid record"})
	}
	if p.badT != "" {
		st.BadTime++
		warn(Warning{Line: p.n, Msg: p.badT})
	}
	rec.Index = st.Records
	st.Records++
	switch {
	case rec.Malformed:
		st.Malformed++
	case rec.Mark != "":
		st.Marks++
	case rec.IsRaw:
		st.Raw++
	default:
		st.Frames++
		if rec.Bare {
			st.Bare++
		}
	}
}

// Envelope keys, as bits: a record has each at most once, and only one of
// frame, raw and mark.
const (
	keyT uint8 = 1 << iota
	keyConn
	keyDir
	keyFrame
	keyRaw
	keyMark
)

var keyNames = [...]string{"t", "conn", "dir", "frame", "raw", "mark"}

// notRecordOrFrame is why a JSON object that is neither is not read.
const notRecordOrFrame = "neither a capture record nor a gateway frame"

// parse fills rec from one line. It returns why the line is not a record
// or a frame, or "" when it is one; rec is then Malformed, holding the line.
// With a schema and idx, the members of a record's frame that the schema
// names are indexed into idx by the walk that validates the line; idx is
// left empty for anything else (a marker, an unreadable line; a bare frame
// has no "frame" member to index).
//
// badT is the record's "t" when it is a number out of int64's range
// (1e300, -1e999999, a huge integer): rec.T is then clamped to the nearest
// end of the range.
func parse(line []byte, rec *Record, schema *jsonx.Schema, idx *jsonx.Index) (why string, badT []byte) {
	why = parseLine(line, rec, schema, idx, &badT)
	if idx != nil && (why != "" || rec.Frame == nil || rec.Bare) {
		idx.Reset()
	}
	if why != "" {
		badT = nil
	}
	return why, badT
}

// clampTime reads a time that is a number but no int64: one out of range
// is clamped to the end of the range on its side (ok false), a fraction
// is cut to its integer.
func clampTime(v []byte) (t int64, ok bool) {
	f, isNum := jsonx.Num(v)
	switch {
	case !isNum:
		return 0, false
	case math.IsNaN(f):
		return 0, false
	case f >= math.MaxInt64:
		return math.MaxInt64, false
	case f < math.MinInt64:
		return math.MinInt64, false
	}
	return int64(f), true
}

func parseLine(line []byte, rec *Record, schema *jsonx.Schema, idx *jsonx.Index, badT *[]byte) (why string) {
	line = jsonx.TrimSpace(line)
	if jsonx.KindOf(line) != jsonx.Object {
		return malformed(line, rec, "not a JSON object")
	}
	var hasType, hasEnvelope bool
	var badField string
	var seen, twice uint8
	end, err := jsonx.ObjectEachEndIndexed(line, "frame", schema, idx, func(k, v []byte) bool {
		var bit uint8
		switch string(k) {
		case "t":
			bit = keyT
			n, ok := jsonx.Int(v)
			if !ok && jsonx.KindOf(v) == jsonx.Number {
				var inRange bool
				n, inRange = clampTime(v)
				if !inRange {
					*badT = v
				}
				ok = true
			}
			if !ok {
				badField = "t"
			}
			rec.T = n
			hasEnvelope = true
		case "conn":
			bit = keyConn
			n, ok := jsonx.Int(v)
			if !ok || n < 0 || n > 1<<31 {
				badField = "conn"
			}
			rec.Conn = int(n)
		case "dir":
			bit = keyDir
			switch string(v) { // the two values, without allocating
			case `"in"`:
				rec.Dir = DirIn
			case `"out"`:
				rec.Dir = DirOut
			default:
				rec.Dir, _ = jsonx.Str(v)
			}
		case "frame":
			bit = keyFrame
			rec.Frame = v
			hasEnvelope = true
		case "raw":
			bit = keyRaw
			if s, ok := jsonx.Str(v); ok {
				rec.Raw = []byte(s)
				rec.IsRaw = true
			} else {
				badField = "raw"
			}
			hasEnvelope = true
		case "mark":
			bit = keyMark
			rec.Mark, _ = jsonx.Str(v)
			if rec.Mark == "" {
				badField = "mark"
			}
			hasEnvelope = true
		case "url":
			rec.URL, _ = jsonx.Str(v)
		case "peer":
			rec.Peer, _ = jsonx.Str(v)
		case "code":
			n, _ := jsonx.Int(v)
			rec.Code = int(n)
		case "reason":
			rec.Reason, _ = jsonx.Str(v)
		case "protocol":
			n, _ := jsonx.Int(v)
			rec.Protocol = int(n)
		case "server":
			rec.Server, _ = jsonx.Str(v)
		case "connId":
			rec.ConnID, _ = jsonx.Str(v)
		case "bootId":
			rec.BootID, _ = jsonx.Str(v)
		case "error":
			rec.Err, _ = jsonx.Str(v)
		case "size":
			rec.Size, _ = jsonx.Int(v)
		case "type":
			hasType = true
		}
		twice |= seen & bit
		seen |= bit
		return true
	})
	if err != nil || end != len(line) {
		return malformed(line, rec, "not valid JSON")
	}
	switch {
	case hasEnvelope && twice != 0:
		return malformed(line, rec, fmt.Sprintf("record has %s twice", keyList(twice)))
	case hasEnvelope && bits.OnesCount8(seen&(keyFrame|keyRaw|keyMark)) > 1:
		return malformed(line, rec, fmt.Sprintf("record holds %s at once; a record is one of a frame, a raw message or a marker", keyList(seen&(keyFrame|keyRaw|keyMark))))
	case hasEnvelope && badField != "":
		return malformed(line, rec, fmt.Sprintf("record field %q has the wrong type", badField))
	case hasEnvelope && rec.Frame == nil && !rec.IsRaw && rec.Mark == "":
		return malformed(line, rec, "record has no frame, raw or mark")
	case hasEnvelope:
		if rec.Conn == 0 {
			rec.Conn = 1
		}
	case hasType:
		// A bare gateway frame, as a user might pipe from anywhere.
		*rec = Record{Index: rec.Index, Line: rec.Line, Conn: 1, Dir: DirIn, Frame: line, Bare: true}
		if t, ok := jsonx.GetStr(line, "type"); ok && t == "req" {
			rec.Dir = DirOut
		}
		if p, ok := jsonx.Get(line, "payload"); ok {
			if ts, ok := jsonx.Get(p, "ts"); ok {
				if f, ok := jsonx.Num(ts); ok && f > 0 && f < 1e16 {
					rec.T = int64(f)
				}
			}
		}
	default:
		return malformed(line, rec, notRecordOrFrame)
	}
	return ""
}

// keyList names the envelope keys set in mask: "frame", or "frame" and
// "mark", or "frame", "raw" and "mark".
func keyList(mask uint8) string {
	var names []string
	for i, n := range keyNames {
		if mask&(1<<i) != 0 {
			names = append(names, strconv.Quote(n))
		}
	}
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

func malformed(line []byte, rec *Record, why string) string {
	*rec = Record{Index: rec.Index, Line: rec.Line, Conn: rec.Conn, T: rec.T, Malformed: true, Raw: line, Err: why}
	if rec.Conn <= 0 {
		rec.Conn = 1
	}
	return why
}
