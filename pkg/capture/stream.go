package capture

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

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
