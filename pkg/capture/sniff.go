package capture

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/clawtap/clawtap/pkg/jsonx"
)

// ErrNotCapture matches (with errors.Is) the error NewReader and Open
// return for an input that is not a capture: no header, and no capture
// record or gateway frame among its first lines.
var ErrNotCapture = errors.New("not a clawtap capture")

// NotCaptureError says why an input is not a capture.
type NotCaptureError struct {
	Why string // one phrase, lower case, e.g. "no header, and ..."
}

func (e *NotCaptureError) Error() string { return ErrNotCapture.Error() + ": " + e.Why }

// Is makes errors.Is(err, ErrNotCapture) true.
func (e *NotCaptureError) Is(target error) bool { return target == ErrNotCapture }

// How far a reader looks into an input without a header for a line that is
// a capture record or a gateway frame before it calls the input garbage.
// The lines it passes on the way are held (copied) until Next returns them
// as invalid records, so both bounds keep that memory small.
const (
	sniffLines = 16      // non-blank lines, oversized ones included
	sniffBytes = 1 << 20 // bytes of lines held
)

// sniffed is a line (or a warning) met while deciding what the input is,
// waiting for Next.
type sniffed struct {
	line []byte
	n    int      // its line number
	warn *Warning // set instead of line for a warning
}

// start reads up to the first line that settles what the input is: a
// header, a record or frame (the input is a capture), or nothing at all
// (an empty input). Lines on the way are queued for Next; warnings on the
// way are queued in their place, so Next reports everything in file order.
func (r *Reader) start() error {
	r.holding = true
	defer func() { r.holding = false }()
	var (
		junk   int    // lines that are neither, oversized ones included
		held   int    // bytes of them held
		first  string // why the first of them is neither
		firstN int
	)
	for {
		over := r.stats.Oversized
		line, err := r.readLine()
		if d := r.stats.Oversized - over; d > 0 {
			if junk == 0 {
				first, firstN = fmt.Sprintf("longer than %d bytes", r.opts.MaxLine), r.line
			}
			junk += d
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				return err
			}
			return r.startEOF(junk, first, firstN)
		}
		if len(jsonx.TrimSpace(line)) == 0 {
			continue
		}
		if junk == 0 && r.isHeader(line) {
			return r.flushHeld()
		}
		if junk == 0 && ClassifiedLine(line) {
			return &NotCaptureError{Why: "no header, and its first line is an event as 'clawtap classify' prints it: give the capture it was made from"}
		}
		var scratch Record
		why, _ := parse(repaired(line, &r.fix), &scratch, nil, nil)
		if why == "" {
			// The input is a capture: this line and those before it are
			// its first records.
			r.queue = append(r.queue, sniffed{line: line, n: r.line})
			return nil
		}
		if junk == 0 {
			first, firstN = why, r.line
			if bytes.IndexByte(line, 0) >= 0 || !utf8.Valid(line) {
				first = "binary data, not text"
			}
		}
		junk++
		held += len(line)
		r.queue = append(r.queue, sniffed{line: bytes.Clone(line), n: r.line})
		if junk >= sniffLines || held >= sniffBytes {
			return &NotCaptureError{Why: fmt.Sprintf("no header, and none of its first %d lines (%d bytes) is a capture record or a gateway frame", junk, held) + lineWhy(firstN, first)}
		}
	}
}

// startEOF decides what an input that ended while start was looking is.
func (r *Reader) startEOF(junk int, first string, firstN int) error {
	cut := jsonx.TrimSpace(r.cut)
	var se *StreamError
	switch {
	case junk == 0 && errors.As(r.streamErr, &se):
		// A zstd stream cut off before its first whole line is truncated,
		// not empty: say so once, instead of the warnings on the way.
		r.queue = nil
		return se
	case junk > 0:
		what := fmt.Sprintf("none of its %d lines is a capture record or a gateway frame", junk)
		if junk == 1 {
			what = "its only line is " + notRecordOrFrame
		}
		return &NotCaptureError{Why: "no header, and " + what + lineWhy(firstN, first)}
	case len(cut) > 0 && !bytes.HasPrefix(cut, []byte(`{"clawtap":`)):
		return &NotCaptureError{Why: fmt.Sprintf("no header, and its only line is cut off (%d bytes, no newline, not valid JSON)", len(cut))}
	}
	// Nothing, or a header cut off before its newline: a recording that
	// ended before it wrote anything whole.
	r.stats.Empty = true
	return r.flushHeld()
}

// ClassifiedLine reports whether line is an event as 'clawtap classify'
// prints it: a JSON object with a "kind" and none of a capture's or a
// frame's keys. A classified marker keeps its "mark"; a capture's records
// never have a "kind".
func ClassifiedLine(line []byte) bool {
	line = jsonx.TrimSpace(line)
	if jsonx.KindOf(line) != jsonx.Object {
		return false
	}
	var kind, other bool
	_ = jsonx.ObjectEach(line, func(k, v []byte) bool {
		switch string(k) {
		case "kind":
			kind = true
		case "clawtap", "frame", "raw", "type":
			other = true
		}
		return true
	})
	return kind && !other
}

// lineWhy says why the first line that was neither a record nor a frame is
// not one, unless that adds nothing.
func lineWhy(n int, why string) string {
	if why == notRecordOrFrame {
		return ""
	}
	return fmt.Sprintf(" (line %d: %s)", n, why)
}

// flushHeld hands the warnings met so far to OnWarning when no line was
// queued before them.
func (r *Reader) flushHeld() error {
	r.holding = false
	for len(r.queue) > 0 && r.queue[0].warn != nil {
		r.emit(*r.queue[0].warn)
		r.queue = r.queue[1:]
	}
	return nil
}

// isHeader reports whether the first non-blank line is a capture header (a
// numeric "clawtap" key), and if so reads it.
func (r *Reader) isHeader(line []byte) bool {
	v, ok := jsonx.Get(line, "clawtap")
	if !ok || jsonx.KindOf(v) != jsonx.Number {
		return false
	}
	if !utf8.Valid(line) {
		line = repaired(line, &r.fix)
		r.warn(r.line, "invalid UTF-8 in the header replaced by U+FFFD")
	}
	var h Header
	if err := json.Unmarshal(line, &h); err != nil {
		r.warn(r.line, "unreadable header ignored: %v", err)
		h = Header{}
		if n, ok := jsonx.Int(v); ok {
			h.Version = int(n)
		}
	}
	if h.Version > Version {
		r.warn(r.line, "capture format version %d is newer than this clawtap understands (%d); reading it anyway", h.Version, Version)
	}
	r.header = &h
	return true
}
