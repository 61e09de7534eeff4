package importer

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
)

// maxLine bounds one JSON Lines line (gateway frames are at most 25 MiB; an
// escaped string can double that).
const maxLine = 128 << 20

// Member names accepted in JSON Lines, in order of preference.
var (
	timeKeys = []string{"t", "ts", "time", "timestamp"}
	dataKeys = []string{"frame", "data", "message", "msg", "text"}
	dirKeys  = []string{"dir", "direction", "type"}
	connKeys = []string{"conn", "connection", "connId", "socket"}
)

// sniffLines is how many lines of JSON Lines may be skipped before the
// first frame before the input is refused as not frames at all.
const sniffLines = 16

// NotFramesError is JSON Lines input of which none of the first sniffLines
// lines (or none at all) is a frame or a capture record: a README, random
// bytes, a log of another kind. It is refused whole, not line by line.
type NotFramesError struct {
	Lines int    // lines skipped
	All   bool   // the input ended: they were all its lines
	First string // why the first was skipped, e.g. "line 1: not a JSON object"
}

func (e *NotFramesError) Error() string { return "not JSON Lines of frames: " + e.Why() }

// Why says why, e.g. "none of its first 16 lines is a gateway frame or a
// capture record (line 1: not a JSON object)".
func (e *NotFramesError) Why() string {
	what := fmt.Sprintf("none of its first %d lines is", e.Lines)
	if e.All {
		what = fmt.Sprintf("none of its %d line(s) is", e.Lines)
	}
	return fmt.Sprintf("%s a gateway frame or a capture record (%s)", what, e.First)
}

// jsonl imports one message per line.
func (im *importer) jsonl(src *bufio.Reader) error {
	im.sniffing = true
	defer im.flushWarns() // on the way out without a frame, say why
	conns := make(map[string]int)
	line := 0
	var long []byte
	tooLong := false
	for {
		chunk, err := src.ReadSlice('\n')
		var se *capture.StreamError
		if errors.As(err, &se) {
			return err // the line it cut is not whole: Import says so
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			if !tooLong && len(long)+len(chunk) <= maxLine {
				long = append(long, chunk...)
			} else {
				tooLong, long = true, long[:0]
			}
			continue
		}
		if tooLong {
			line++
			im.warn("line %d: longer than %d bytes; skipped", line, maxLine)
			im.st.Skipped++
			tooLong, chunk = false, nil
		} else if len(long) > 0 {
			chunk = append(long, chunk...)
			long = long[:0]
		}
		if len(chunk) > 0 {
			line++
			if werr := im.jsonlLine(line, jsonx.TrimSpace(chunk), conns); werr != nil {
				return werr
			}
		}
		if !im.headerDone && im.st.Skipped > 0 && (im.st.Skipped >= sniffLines || errors.Is(err, io.EOF)) {
			return im.notFrames(errors.Is(err, io.EOF))
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// notFrames drops the warnings held while sniffing for one error.
func (im *importer) notFrames(all bool) error {
	first := ""
	if len(im.heldWarns) > 0 {
		first, _ = strings.CutSuffix(im.heldWarns[0], "; skipped")
	}
	im.heldWarns = nil
	return &NotFramesError{Lines: im.st.Skipped, All: all, First: first}
}

func firstMember(obj []byte, keys []string) ([]byte, string) {
	for _, k := range keys {
		if v, ok := jsonx.Get(obj, k); ok {
			return v, k
		}
	}
	return nil, ""
}

func (im *importer) jsonlLine(n int, b []byte, conns map[string]int) error {
	if len(b) == 0 {
		return nil
	}
	if jsonx.KindOf(b) != jsonx.Object || !jsonx.Valid(b) {
		im.warn("line %d: not a JSON object; skipped", n)
		im.st.Skipped++
		return nil
	}
	// A clawtap capture's header gives way to the import's own.
	if _, ok := jsonx.Get(b, "clawtap"); ok {
		if _, ok := jsonx.Get(b, "source"); ok {
			im.warn("line %d: a clawtap capture's header; the import writes its own (clawtap redact keeps a capture's header)", n)
			return nil
		}
	}
	// A clawtap record passes through as it is; a bare gateway frame (a
	// "type" of req, res or event and no envelope) becomes a frame.
	_, hasMark := jsonx.Get(b, "mark")
	_, hasRaw := jsonx.Get(b, "raw")
	if hasMark || hasRaw {
		return im.passThrough(n, b)
	}
	data, dataKey := firstMember(b, dataKeys)
	typ, _ := jsonx.GetStr(b, "type")
	if data == nil || (dataKey == "message" && (typ == "req" || typ == "res" || typ == "event")) {
		if typ == "req" || typ == "res" || typ == "event" {
			t := im.lineTime(b, n, true)
			return im.frame(t, 1, guessDir(b), b)
		}
		im.warn("line %d: no frame (looked for %v); skipped", n, dataKeys)
		im.st.Skipped++
		return nil
	}
	var msg []byte
	switch jsonx.KindOf(data) {
	case jsonx.String:
		s, _ := jsonx.Str(data)
		msg = []byte(s)
	case jsonx.Object:
		msg = data
	default:
		im.warn("line %d: %q is neither a JSON object nor a string; skipped", n, dataKey)
		im.st.Skipped++
		return nil
	}
	t := im.lineTime(b, n, false)
	dir := ""
	if v, k := firstMember(b, dirKeys); v != nil {
		s, _ := jsonx.Str(v)
		if d, ok := dirOf(s); ok {
			dir = d
		} else if k != "type" {
			im.warn("line %d: unknown direction %q; guessed from the frame", n, s)
		}
	}
	if dir == "" {
		dir = guessDir(jsonx.TrimSpace(msg))
	}
	// Connections are numbered by first appearance; lines without one
	// share theirs.
	key := ""
	if v, _ := firstMember(b, connKeys); v != nil {
		key = string(v)
	}
	conn, ok := conns[key]
	if !ok {
		conn = len(conns) + 1
		conns[key] = conn
	}
	return im.frame(t, conn, dir, msg)
}

func (im *importer) passThrough(n int, b []byte) error {
	// One line: read on this goroutine, not ahead on another.
	r, err := capture.NewReader(bytesReader(append(append([]byte(nil), b...), '\n')), capture.Options{Serial: true})
	if err != nil && !errors.Is(err, capture.ErrNotCapture) {
		return err
	}
	var rec *capture.Record
	if err == nil { // a lone line that is no record is "not a capture"
		defer r.Close()
		rec, err = r.Next()
	}
	if err != nil || rec.Malformed {
		im.warn("line %d: a marker that is not a clawtap record; skipped", n)
		im.st.Skipped++
		return nil
	}
	return im.write(rec)
}

// lineTime reads the line's time: a number of seconds (below 1e11),
// milliseconds, or microseconds (above 1e14); or an RFC 3339 string. A
// bare frame falls back to its payload's ts.
func (im *importer) lineTime(b []byte, n int, bare bool) int64 {
	v, k := firstMember(b, timeKeys)
	if v == nil && bare {
		if p, ok := jsonx.Get(b, "payload"); ok {
			v, k = firstMember(p, []string{"ts"})
		}
	}
	if v == nil {
		return 0
	}
	switch jsonx.KindOf(v) {
	case jsonx.Number:
		f, ok := jsonx.Num(v)
		if !ok || math.IsNaN(f) || f <= 0 {
			return 0
		}
		switch {
		case f < 1e11:
			return int64(math.Round(f * 1000))
		case f > 1e14:
			return int64(f / 1000)
		}
		return int64(f)
	case jsonx.String:
		s, _ := jsonx.Str(v)
		if ts, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return ts.UnixMilli()
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return im.lineTime([]byte(`{"t":`+strconv.FormatFloat(f, 'f', -1, 64)+`}`), n, false)
		}
	}
	im.warn("line %d: %q is not a time; using 0", n, k)
	return 0
}

func bytesReader(b []byte) io.Reader { return &sliceReader{b: b} }

type sliceReader struct{ b []byte }

func (r *sliceReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	return n, nil
}
