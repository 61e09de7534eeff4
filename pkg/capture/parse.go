package capture

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/clawtap/clawtap/pkg/jsonx"
)

// parsed is what reading one line as a record found, before the reader
// counts it: the parts a reader can find on any goroutine, in any order.
type parsed struct {
	n       int    // the line number
	badUTF8 bool   // its invalid UTF-8 was replaced
	why     string // why it is not a record, "" when it is one
	badT    string // the warning for a time out of range, "" for none
}

// validUTF8 reports whether line is valid UTF-8: at once when the walk
// that indexed it (idx, just filled from line) read only ASCII, else by
// checking. A line is parsed first and checked after because all but a
// few are ASCII, which the walk tells for free.
func validUTF8(line []byte, idx *jsonx.Index) bool {
	return idx != nil && idx.ASCII || utf8.Valid(line)
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
