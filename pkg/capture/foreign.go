package capture

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Captures from elsewhere, recognised where an input is opened (Decompress),
// never in the per-line reading after it:
//
//   - a gzip-compressed capture (magic 1f 8b), as `gzip` or a web server
//     leaves it, is decompressed like a zstd one;
//   - a JSON array of frames or records, as a browser console's
//     copy(JSON.stringify(frames)) gives it, is read as JSON Lines: one
//     line per element, streamed (one element held at a time). An element
//     that is a string holding a JSON object (a console copy of the
//     messages' data) is that object.

// gzipMagic starts every gzip member.
var gzipMagic = []byte{0x1f, 0x8b}

// gunzip returns src's gzip stream decompressed, its errors marked as
// StreamErrors of a gzip stream.
func gunzip(src io.Reader) (io.Reader, func(), error) {
	zr, err := gzip.NewReader(src)
	if err != nil {
		return nil, nil, &StreamError{Err: fmt.Errorf("open gzip stream: %w", err), Stream: "gzip stream"}
	}
	return gzipStream{zr}, func() { zr.Close() }, nil
}

type gzipStream struct{ z *gzip.Reader }

func (g gzipStream) Read(p []byte) (int, error) {
	n, err := g.z.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		var se *StreamError
		if !errors.As(err, &se) {
			err = &StreamError{Err: err, Stream: "gzip stream"}
		}
	}
	return n, err
}

// maxLeadingSpace bounds the blank bytes looked through for an input's
// first byte: past it the input is read as it is.
const maxLeadingSpace = 64 << 10

// arrayOr returns in read as JSON Lines when its first non-blank byte opens
// a JSON array, else in itself, unchanged and with nothing read from it
// lost. A *bufio.Reader is peeked at; any other reader has its first bytes
// read and put back in front of it.
func arrayOr(in io.Reader) (io.Reader, error) {
	if br, ok := in.(*bufio.Reader); ok {
		for n := 1; n <= min(br.Size(), maxLeadingSpace); n *= 2 {
			head, err := br.Peek(n)
			if i := firstNonSpace(head); i >= 0 {
				if head[i] == '[' {
					return newArrayLines(br), nil
				}
				return br, nil
			}
			if err != nil {
				return br, nil // all blank, or a read error the reader will meet again
			}
		}
		return br, nil
	}
	var head []byte
	buf := make([]byte, 4096)
	for len(head) < maxLeadingSpace {
		n, err := in.Read(buf)
		head = append(head, buf[:n]...)
		if i := firstNonSpace(head); i >= 0 {
			rest := io.MultiReader(bytes.NewReader(head), in)
			if head[i] == '[' {
				return newArrayLines(rest), nil
			}
			return rest, nil
		}
		if err != nil {
			return io.MultiReader(bytes.NewReader(head), errReader{err}), nil
		}
	}
	return io.MultiReader(bytes.NewReader(head), in), nil
}

// errReader returns err on every read.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

func firstNonSpace(b []byte) int {
	for i, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
		default:
			return i
		}
	}
	return -1
}

// arrayLines reads a JSON array (or several, one after the other) as JSON
// Lines: each element compacted onto one line. It holds one element at a
// time.
type arrayLines struct {
	dec  *json.Decoder
	out  bytes.Buffer
	open bool // inside an array
	err  error
}

func newArrayLines(r io.Reader) *arrayLines { return &arrayLines{dec: json.NewDecoder(r)} }

func (a *arrayLines) Read(p []byte) (int, error) {
	for a.out.Len() == 0 && a.err == nil {
		a.err = a.fill()
	}
	if a.out.Len() > 0 {
		return a.out.Read(p)
	}
	return 0, a.err
}

// fill puts the next element's line into out, or returns why there is none.
func (a *arrayLines) fill() error {
	if !a.open {
		tok, err := a.dec.Token()
		if errors.Is(err, io.EOF) {
			return io.EOF
		}
		if err != nil {
			return a.broken(err)
		}
		if d, ok := tok.(json.Delim); !ok || d != '[' {
			return a.broken(fmt.Errorf("after the JSON array comes %v, not another array", tok))
		}
		a.open = true
	}
	if !a.dec.More() {
		if _, err := a.dec.Token(); err != nil { // the closing ]
			return a.broken(err)
		}
		a.open = false
		return nil
	}
	var v json.RawMessage
	if err := a.dec.Decode(&v); err != nil {
		return a.broken(err)
	}
	if v[0] == '"' {
		var s string
		if json.Unmarshal(v, &s) == nil && json.Valid([]byte(s)) && firstNonSpace([]byte(s)) >= 0 && s[firstNonSpace([]byte(s))] == '{' {
			v = json.RawMessage(s)
		}
	}
	if err := json.Compact(&a.out, v); err != nil {
		return a.broken(err)
	}
	a.out.WriteByte('\n')
	return nil
}

// broken marks an array that is cut off or is not valid JSON, as a
// StreamError: the elements before it are read.
func (a *arrayLines) broken(err error) error {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	var se *StreamError
	if errors.As(err, &se) {
		return err // the compressed stream under the array broke
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		err = fmt.Errorf("not valid JSON at byte %d: %w", syn.Offset, err)
	}
	return &StreamError{Err: err, Stream: "JSON array"}
}
