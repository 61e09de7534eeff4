package reshape

import (
	"github.com/clawtap/clawtap/pkg/jsonx"
)

// Frames are rewritten by splicing bytes out of them, never by decoding
// and encoding them again: every byte reshape does not remove (escapes,
// key order, numbers) stays as the gateway wrote it, as the real gateway's
// JSON.stringify of the projected payload keeps them.

// offsetIn returns where inner starts in outer, when inner is a slice of
// outer's bytes (what the jsonx getters return); ok is false otherwise.
func offsetIn(outer, inner []byte) (int, bool) {
	if len(inner) == 0 || len(outer) == 0 || cap(inner) > cap(outer) {
		return 0, false
	}
	off := cap(outer) - cap(inner)
	if off < 0 || off+len(inner) > len(outer) || &outer[off] != &inner[0] {
		return 0, false
	}
	return off, true
}

// memberSpan finds the one member of the object obj named key and returns
// the bytes to cut, [a, b), so that obj[:a]+obj[b:] is obj without it: the
// comma before it with the member, or for the first member the member and
// the comma after it. n is how many members have the name: the span is
// only valid when n is 1 (JSON.parse keeps the last of duplicates, and
// reshape does not guess which to remove).
func memberSpan(obj []byte, key string) (a, b, n int) {
	var it jsonx.Iter
	it.Reset(obj)
	if !it.Object() {
		return 0, 0, 0
	}
	afterPrev := it.Pos() // past '{', or past the previous member's value
	first := true
	pendingFirst := false // the match is the first member: its end is the next key's start
	for {
		k, more := it.Key()
		if !more {
			break
		}
		ks, ok := offsetIn(obj, k)
		if !ok {
			return 0, 0, 0
		}
		keyStart := ks - 1 // the opening quote
		if pendingFirst {
			b, pendingFirst = keyStart, false
		}
		it.Skip()
		if it.Err() != nil {
			return 0, 0, 0
		}
		end := it.Pos()
		if jsonx.KeyIs(k, key) {
			n++
			if first {
				a, b, pendingFirst = keyStart, end, true
			} else {
				a, b = afterPrev, end
			}
		}
		afterPrev, first = end, false
	}
	if it.Err() != nil {
		return 0, 0, 0
	}
	return a, b, n
}

// cut returns data without [a, b), in a new slice.
func cut(data []byte, a, b int) []byte {
	out := make([]byte, 0, len(data)-(b-a))
	out = append(out, data[:a]...)
	return append(out, data[b:]...)
}

// removeMember returns frame without the one member named key of the
// object obj (a slice of frame); ok is false when obj has no such member,
// more than one, or is not a slice of frame.
func removeMember(frame, obj []byte, key string) ([]byte, bool) {
	base, ok := offsetIn(frame, obj)
	if !ok {
		return nil, false
	}
	a, b, n := memberSpan(obj, key)
	if n != 1 {
		return nil, false
	}
	return cut(frame, base+a, base+b), true
}

// replaceValue returns frame with the value v (a slice of frame) replaced
// by repl.
func replaceValue(frame, v, repl []byte) ([]byte, bool) {
	off, ok := offsetIn(frame, v)
	if !ok {
		return nil, false
	}
	out := make([]byte, 0, len(frame)-len(v)+len(repl))
	out = append(out, frame[:off]...)
	out = append(out, repl...)
	return append(out, frame[off+len(v):]...), true
}

// filterStrings returns the array arr (a slice of frame) without the
// string elements drop says to drop, and how many it dropped. The kept
// elements are copied byte for byte, joined by commas (JSON.stringify
// writes no space between them).
func filterStrings(frame, arr []byte, drop func(string) bool) ([]byte, int, bool) {
	if jsonx.KindOf(arr) != jsonx.Array {
		return nil, 0, false
	}
	var kept [][]byte
	n := 0
	err := jsonx.ArrayEach(arr, func(v []byte) bool {
		if s, ok := jsonx.Str(v); ok && drop(s) {
			n++
			return true
		}
		kept = append(kept, v)
		return true
	})
	if err != nil || n == 0 {
		return nil, 0, err == nil
	}
	repl := []byte{'['}
	for i, v := range kept {
		if i > 0 {
			repl = append(repl, ',')
		}
		repl = append(repl, v...)
	}
	repl = append(repl, ']')
	out, ok := replaceValue(frame, arr, repl)
	return out, n, ok
}
