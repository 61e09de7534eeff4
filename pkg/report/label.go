package report

import (
	"math/bits"
	"strconv"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
)

// maxLabelKeys bounds the table of label keys (labelKey): beyond it a
// record's label is named again each time, as it always was.
const maxLabelKeys = 8192

// labelKey is everything labelOf reads of a record: records with equal
// keys get the same label, so the label is named (and its string built)
// once per key rather than once per record.
type labelKey struct {
	kind    bridge.Kind
	a, b    string
	n       int
	flagged bool
}

// labelKeyOf is the key of labelOf(rec, ev).
func labelKeyOf(rec *capture.Record, ev *bridge.Event) labelKey {
	k := labelKey{kind: ev.Kind}
	switch ev.Kind {
	case bridge.Marker:
		k.a, k.n = rec.Mark, rec.Code
	case bridge.Invalid:
		switch {
		case rec.Malformed:
			k.n = 1
		case rec.IsRaw || rec.Frame == nil:
			k.n = 2
		}
	case bridge.RuntimeChat:
		k.a = ev.State
		if ev.State == "status" {
			k.b = ev.Phase
		}
	case bridge.RuntimeAgent:
		k.a, k.b = ev.Stream, ev.Phase
	case bridge.Request:
		k.a = ev.Method
	case bridge.Response:
		k.a = ev.Method
		if ev.OK != nil && !*ev.OK {
			k.flagged, k.b = true, ev.Code
		}
	default:
		k.a = ev.Event
	}
	return k
}

// labelID is b.label(labelOf(rec, ev)), remembered by the record's label
// key: the last key of each tick type first (consecutive deltas repeat
// theirs), then the table of keys.
func (b *Builder) labelID(rec *capture.Record, ev *bridge.Event, typ int8) int32 {
	k := labelKeyOf(rec, ev)
	last := &b.lastLabel[typ]
	if last.ok && last.key == k {
		return last.id
	}
	id, ok := b.labelKeys[k]
	if !ok {
		id = b.label(labelOf(rec, ev))
		if len(b.labelKeys) < maxLabelKeys {
			b.labelKeys[k] = id
		}
	}
	*last = lastLabel{key: k, id: id, ok: true}
	return id
}

type lastLabel struct {
	key labelKey
	id  int32
	ok  bool
}

// labelOf names a record in a few words: "chat delta", "agent lifecycle
// end", "res chat.send", "mark close 1012".
func labelOf(rec *capture.Record, ev *bridge.Event) string {
	switch ev.Kind {
	case bridge.Marker:
		s := "mark " + rec.Mark
		if rec.Code != 0 {
			s += " " + strconv.Itoa(rec.Code)
		}
		return s
	case bridge.Invalid:
		switch {
		case rec.Malformed:
			return "malformed line"
		case rec.IsRaw || rec.Frame == nil:
			return "raw message"
		}
		return "invalid frame"
	case bridge.RuntimeChat:
		s := "chat " + cut(ev.State, 40)
		if ev.State == "status" && ev.Phase != "" {
			s += " " + cut(ev.Phase, 40)
		}
		return s
	case bridge.RuntimeAgent:
		s := "agent " + cut(ev.Stream, 40)
		if ev.Phase != "" {
			s += " " + cut(ev.Phase, 40)
		}
		return s
	case bridge.Request:
		return "req " + cut(ev.Method, 60)
	case bridge.Response:
		m := ev.Method
		if m == "" {
			m = "(unmatched)"
		}
		s := "res " + cut(m, 60)
		if ev.OK != nil && !*ev.OK {
			s += " failed"
			if ev.Code != "" {
				s += " " + cut(ev.Code, 40)
			}
		}
		return s
	}
	if ev.Event == "" {
		return "event"
	}
	return cut(ev.Event, 80)
}

// rowLen is len(appendRow(nil, x)), counted without writing it.
func rowLen(x *Row) int {
	return 10 + intLen(int64(x.I)) + intLen(x.T) + intLen(int64(x.Conn)) + intLen(int64(x.Dir)) + intLen(int64(x.Type)) +
		intLen(int64(x.Label)) + intLen(int64(x.Lane)) + intLen(int64(x.Run)) + intLen(x.Seq)
}

// minRowLen is the least rowLen: every number one digit.
const minRowLen = 10 + 9

// intLen is len(strconv.AppendInt(nil, n, 10)).
func intLen(n int64) int {
	u, sign := uint64(n), 0
	if n < 0 {
		u, sign = uint64(-n), 1 // -MinInt64 wraps to itself, which is right as a uint64
	}
	u |= 1                          // as many digits (0 has one), never a power of ten above 1
	d := bits.Len64(u) * 1233 >> 12 // log10(2) ≈ 1233/4096: u has d or d+1 digits
	if u >= pow10[d] {
		d++
	}
	return sign + d
}

// pow10[d] is 10^d.
var pow10 = func() (p [20]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return
}()
