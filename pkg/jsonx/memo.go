package jsonx

import (
	"bytes"
	"unicode/utf8"
	"unsafe"
)

// StrMemo decodes JSON strings like Str, remembering the last few. Streamed
// replies repeat and grow: the gateway sends each cumulative text on the
// agent stream and again on the chat stream, then a longer one, for each
// run at once. The same raw string again is handed back as the same string
// (one comparison); a string that extends one remembered is decoded as its
// new part only, appended to a buffer the remembered string shares, so a
// reply of n deltas costs its length to decode, not n times its length,
// and a caller asking whether the new text extends the old compares equal
// pointers. The zero value is ready to use; a nil *StrMemo decodes without
// remembering. It is not safe for concurrent use.
type StrMemo struct {
	slots [memoSlots]memoSlot
	tick  uint64
}

// memoSlots is how many texts a memo follows at once: the runs streaming
// together (a few agents), each on the agent and the chat stream.
const memoSlots = 4

type memoSlot struct {
	raw  []byte
	s    string
	used uint64
	// grow holds s's bytes, with room after them, once s was built by
	// extension. Only bytes past the end of every string handed out are
	// ever written: strings already returned never change.
	grow []byte
}

// Strings shorter than memoMin decode faster than they compare and copy;
// longer than memoMax they are not worth pinning in memory.
const (
	memoMin = 64
	memoMax = 1 << 20
)

// Str returns Str(v).
func (m *StrMemo) Str(v []byte) (string, bool) {
	if m == nil || len(v) < memoMin || len(v) > memoMax {
		return Str(v)
	}
	m.tick++
	for k := range m.slots {
		if sl := &m.slots[k]; bytes.Equal(v, sl.raw) {
			sl.used = m.tick
			return sl.s, true
		}
	}
	for k := range m.slots {
		if sl := &m.slots[k]; sl.extend(v) {
			sl.used = m.tick
			return sl.s, true
		}
	}
	s, ok := Str(v)
	if ok {
		sl := &m.slots[0]
		for k := range m.slots {
			if m.slots[k].used < sl.used {
				sl = &m.slots[k]
			}
		}
		*sl = memoSlot{raw: append(sl.raw[:0], v...), s: s, used: m.tick}
	}
	return s, ok
}

// extend decodes v as the slot's string and what v adds to it, when v's raw
// text starts with the slot's (less its closing quote) and decoding the
// two parts apart gives what decoding v whole gives: not when the slot's
// string ends in a high surrogate's escape (v may pair it) or in bytes
// that are not a whole UTF-8 character (v may complete it).
func (sl *memoSlot) extend(v []byte) bool {
	prev := sl.raw
	if len(prev) < 2 || len(v) <= len(prev) || v[len(v)-1] != '"' ||
		!bytes.Equal(v[:len(prev)-1], prev[:len(prev)-1]) {
		return false
	}
	body := prev[1 : len(prev)-1]
	if r, size := utf8.DecodeLastRune(body); r == utf8.RuneError && size < 2 && len(body) > 0 {
		return false
	}
	if endsInHighSurrogate(body) {
		return false
	}
	grow := sl.grow
	if grow == nil { // room for the text to grow by half before it moves
		grow = append(make([]byte, 0, len(v)+len(v)/2), sl.s...)
	}
	grow, ok := appendUnquoted(grow, v[len(prev)-1:len(v)-1])
	if !ok {
		return false
	}
	sl.raw = append(sl.raw, v[len(prev):]...)
	sl.raw[len(prev)-1] = v[len(prev)-1] // the old closing quote's place
	sl.s, sl.grow = unsafe.String(unsafe.SliceData(grow), len(grow)), grow
	return true
}

// endsInHighSurrogate reports whether a raw string body may end with the
// escape of a high surrogate (\ud800 to \udbff), which the next escape
// could pair. It errs on the side of yes (an escaped backslash before
// "ud800" counts too).
func endsInHighSurrogate(body []byte) bool {
	if len(body) < 6 {
		return false
	}
	e := body[len(body)-6:]
	return e[0] == '\\' && e[1] == 'u' && (e[2] == 'd' || e[2] == 'D') &&
		(e[3] == '8' || e[3] == '9' || e[3] == 'a' || e[3] == 'b' || e[3] == 'A' || e[3] == 'B')
}
