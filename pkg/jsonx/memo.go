package jsonx

import "bytes"

// StrMemo decodes JSON strings like Str, handing back the previous result
// when the same raw string comes again. Streamed replies repeat: the
// gateway sends each cumulative text on the agent stream and again on the
// chat stream, so with a memo the second decode is one comparison and the
// two share one string. The zero value is ready to use; a nil *StrMemo
// decodes without remembering.
type StrMemo struct {
	raw []byte
	s   string
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
	if bytes.Equal(v, m.raw) {
		return m.s, true
	}
	s, ok := Str(v)
	if ok {
		m.raw = append(m.raw[:0], v...)
		m.s = s
	}
	return s, ok
}
