package serve

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/clawtap/clawtap/pkg/jsonx"
)

// Small raw-JSON edits. Frames are served byte for byte as recorded, so
// the few values serve must change (a frame's seq, a response's id, the
// hello's connId) are replaced in place rather than by decoding the frame
// into a map and encoding it again, which would reorder keys and respell
// numbers and strings.

// span is a byte range [start, end) inside a JSON text.
type span struct{ start, end int }

// offsetIn returns the offset of sub within obj; sub must be a sub-slice
// of obj (jsonx hands out sub-slices, never copies).
func offsetIn(obj, sub []byte) int { return cap(obj) - cap(sub) }

// member finds the top-level member key of the object obj. Like
// JavaScript's JSON.parse, the last duplicate wins. key is the member's
// span from its opening quote to the end of its value; val is its value.
func member(obj []byte, name string) (key, val span, ok bool) {
	_ = jsonx.ObjectEach(obj, func(k, v []byte) bool {
		if jsonx.KeyIs(k, name) {
			ks := offsetIn(obj, k) - 1
			vs := offsetIn(obj, v)
			key = span{ks, vs + len(v)}
			val = span{vs, vs + len(v)}
			ok = true
		}
		return true
	})
	return key, val, ok
}

// splice returns a new slice: obj with s replaced by with.
func splice(obj []byte, s span, with []byte) []byte {
	out := make([]byte, 0, len(obj)-(s.end-s.start)+len(with))
	out = append(out, obj[:s.start]...)
	out = append(out, with...)
	return append(out, obj[s.end:]...)
}

// setMember returns obj with member name set to the raw JSON value val:
// replaced in place when present, appended at the end otherwise. obj must
// be a JSON object; anything else is returned unchanged.
func setMember(obj []byte, name string, val []byte) []byte {
	obj = jsonx.TrimSpace(obj)
	if jsonx.KindOf(obj) != jsonx.Object {
		return obj
	}
	if _, v, ok := member(obj, name); ok {
		return splice(obj, v, val)
	}
	end := len(obj) - 1 // the closing brace
	i := end - 1
	for i > 0 && isSpace(obj[i]) {
		i--
	}
	add := make([]byte, 0, len(name)+len(val)+4)
	if obj[i] != '{' {
		add = append(add, ',')
	}
	add = jsonx.AppendString(add, name)
	add = append(add, ':')
	add = append(add, val...)
	return splice(obj, span{end, end}, add)
}

// deleteMember returns obj without its top-level member name (every
// duplicate of it), or obj itself when there is none.
func deleteMember(obj []byte, name string) []byte {
	for {
		k, _, ok := member(obj, name)
		if !ok {
			return obj
		}
		// Take the comma before the member, or, for the first member, the
		// comma after it, so the object stays valid.
		i := k.start - 1
		for i >= 0 && isSpace(obj[i]) {
			i--
		}
		if i >= 0 && obj[i] == ',' {
			obj = splice(obj, span{i, k.end}, nil)
			continue
		}
		j := k.end
		for j < len(obj) && isSpace(obj[j]) {
			j++
		}
		if j < len(obj) && obj[j] == ',' {
			j++
			for j < len(obj) && isSpace(obj[j]) {
				j++
			}
		}
		obj = splice(obj, span{k.start, j}, nil)
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// validText returns b as valid UTF-8, every run of invalid bytes replaced
// by U+FFFD, and whether it had to change anything. Text messages must be
// valid UTF-8 (RFC 6455 §8.1); browsers fail the connection otherwise.
func validText(b []byte) ([]byte, bool) {
	if utf8.Valid(b) {
		return b, false
	}
	return bytes.ToValidUTF8(b, []byte("\uFFFD")), true
}

// closeReason fits a close frame's reason in the 123 bytes the frame
// allows, cut between characters and valid UTF-8, as browsers require.
func closeReason(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= 123 {
		return s
	}
	cut := 123
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}
