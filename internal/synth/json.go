package synth

import (
	"strconv"

	"github.com/clawtap/clawtap/pkg/jsonx"
)

// jw appends JSON to a byte slice in the order the calls are made, so the
// output is byte-stable. Commas are inserted by looking at the last byte:
// after '{', '[' or ':' none is needed.
type jw struct{ b []byte }

func (w *jw) sep() {
	if n := len(w.b); n > 0 {
		switch w.b[n-1] {
		case '{', '[', ':':
		default:
			w.b = append(w.b, ',')
		}
	}
}

func (w *jw) key(k string) {
	w.sep()
	w.b = append(w.b, '"')
	w.b = append(w.b, k...)
	w.b = append(w.b, '"', ':')
}

func (w *jw) open()     { w.sep(); w.b = append(w.b, '{') }
func (w *jw) close()    { w.b = append(w.b, '}') }
func (w *jw) closeArr() { w.b = append(w.b, ']') }

func (w *jw) obj(k string) { w.key(k); w.b = append(w.b, '{') }
func (w *jw) arr(k string) { w.key(k); w.b = append(w.b, '[') }

func (w *jw) str(k, v string) { w.key(k); w.b = jsonx.AppendString(w.b, v) }
func (w *jw) int(k string, v int64) {
	w.key(k)
	w.b = strconv.AppendInt(w.b, v, 10)
}
func (w *jw) bool(k string, v bool) { w.key(k); w.b = strconv.AppendBool(w.b, v) }
func (w *jw) null(k string)         { w.key(k); w.b = append(w.b, "null"...) }

// raw appends a value that is already JSON.
func (w *jw) raw(k string, v []byte) { w.key(k); w.b = append(w.b, v...) }

// esc appends a string value whose escaped body (without quotes) is given.
func (w *jw) esc(k string, body []byte) {
	w.key(k)
	w.b = append(w.b, '"')
	w.b = append(w.b, body...)
	w.b = append(w.b, '"')
}

func (w *jw) strs(k string, vs ...string) {
	w.arr(k)
	for i, v := range vs {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = jsonx.AppendString(w.b, v)
	}
	w.closeArr()
}

// escBody appends the escaped body of s (a JSON string without its quotes).
func escBody(dst []byte, s string) []byte {
	n := len(dst)
	dst = jsonx.AppendString(dst, s)
	// Drop the quotes AppendString added.
	copy(dst[n:], dst[n+1:len(dst)-1])
	return dst[:len(dst)-2]
}
