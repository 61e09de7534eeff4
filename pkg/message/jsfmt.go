package message

import (
	"math"
	"slices"
	"unicode/utf8"

	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/jsstr"
)

// This file holds the small pieces of JavaScript semantics the extraction
// rules depend on: the whitespace set of \s / trim(), Number#toString, and
// JSON.stringify(v, null, 2) over raw JSON bytes.

// The JavaScript string rules live in pkg/jsstr; these names keep the
// extraction code short.
func isJSSpace(r rune) bool                       { return jsstr.IsSpace(r) }
func skipSpace(s string, i int) int               { return jsstr.SkipSpace(s, i) }
func trimStart(s string) string                   { return jsstr.TrimStart(s) }
func trim(s string) string                        { return jsstr.Trim(s) }
func appendJSNumber(dst []byte, f float64) []byte { return jsstr.AppendNumber(dst, f) }
func hasPrefixFold(s, prefix string) bool         { return jsstr.HasPrefixFold(s, prefix) }

// str decodes v when it is a JSON string.
func str(v []byte) (string, bool) { return strVia(nil, v) }

// strVia is str decoding through memo (may be nil).
func strVia(memo *jsonx.StrMemo, v []byte) (string, bool) {
	if jsonx.KindOf(v) != jsonx.String {
		return "", false
	}
	return memo.Str(v)
}

// jsNumberString is String(v) for a raw JSON number.
func jsNumberString(v []byte) string {
	f, _ := jsonx.Num(v)
	var buf [32]byte
	return string(appendJSNumber(buf[:0], f))
}

// decodeKey decodes a raw object key as given by jsonx.ObjectEach.
func decodeKey(raw []byte) string {
	plain := true
	for _, c := range raw {
		if c == '\\' || c >= utf8.RuneSelf {
			plain = false
			break
		}
	}
	if plain {
		return string(raw)
	}
	q := make([]byte, 0, len(raw)+2)
	q = append(append(append(q, '"'), raw...), '"')
	s, _ := jsonx.Str(q)
	return s
}

// arrayIndex reports whether key is a canonical array index (0 ..
// 2^32-2): such keys are enumerated first, in ascending order, by every JS
// object, and so by JSON.stringify.
func arrayIndex(key string) (uint32, bool) {
	if len(key) == 0 || len(key) > 10 || (key[0] == '0' && len(key) > 1) {
		return 0, false
	}
	var n uint64
	for i := 0; i < len(key); i++ {
		c := key[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	if n > math.MaxUint32-1 {
		return 0, false
	}
	return uint32(n), true
}

type member struct {
	key   string
	val   []byte
	index uint32
	isIdx bool
}

// objectMembers returns the members of obj in JavaScript enumeration
// order after JSON.parse: array-index keys ascending, then the other keys
// in first-appearance order; a duplicate key keeps its first position and
// takes its last value.
func objectMembers(obj []byte) []member {
	var ms []member
	var pos map[string]int // built only for large objects
	hasIdx := false
	_ = jsonx.ObjectEach(obj, func(k, v []byte) bool {
		key := decodeKey(k)
		if pos == nil && len(ms) >= 16 {
			pos = make(map[string]int, len(ms)*2)
			for i, m := range ms {
				pos[m.key] = i
			}
		}
		if pos != nil {
			if i, ok := pos[key]; ok {
				ms[i].val = v
				return true
			}
			pos[key] = len(ms)
		} else {
			for i := range ms {
				if ms[i].key == key {
					ms[i].val = v
					return true
				}
			}
		}
		idx, isIdx := arrayIndex(key)
		hasIdx = hasIdx || isIdx
		ms = append(ms, member{key: key, val: v, index: idx, isIdx: isIdx})
		return true
	})
	if hasIdx {
		slices.SortStableFunc(ms, func(a, b member) int {
			switch {
			case a.isIdx && b.isIdx:
				if a.index < b.index {
					return -1
				}
				if a.index > b.index {
					return 1
				}
				return 0
			case a.isIdx:
				return -1
			case b.isIdx:
				return 1
			}
			return 0
		})
	}
	return ms
}

func appendIndent(dst []byte, depth int) []byte {
	dst = append(dst, '\n')
	for i := 0; i < depth; i++ {
		dst = append(dst, ' ', ' ')
	}
	return dst
}

// appendStringify appends JSON.stringify(v, null, 2) for the raw JSON
// value v, nested depth levels deep. Numbers that overflow float64 become
// null, as non-finite numbers do in JavaScript.
func appendStringify(dst []byte, v []byte, depth int) []byte {
	switch jsonx.KindOf(v) {
	case jsonx.Object:
		ms := objectMembers(v)
		if len(ms) == 0 {
			return append(dst, '{', '}')
		}
		dst = append(dst, '{')
		for i, m := range ms {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendIndent(dst, depth+1)
			dst = jsonx.AppendStringMinimal(dst, m.key)
			dst = append(dst, ':', ' ')
			dst = appendStringify(dst, m.val, depth+1)
		}
		dst = appendIndent(dst, depth)
		return append(dst, '}')
	case jsonx.Array:
		n := 0
		dst = append(dst, '[')
		_ = jsonx.ArrayEach(v, func(e []byte) bool {
			if n > 0 {
				dst = append(dst, ',')
			}
			n++
			dst = appendIndent(dst, depth+1)
			dst = appendStringify(dst, e, depth+1)
			return true
		})
		if n == 0 {
			return append(dst, ']')
		}
		dst = appendIndent(dst, depth)
		return append(dst, ']')
	case jsonx.String:
		s, _ := jsonx.Str(v)
		return jsonx.AppendStringMinimal(dst, s)
	case jsonx.Number:
		f, _ := jsonx.Num(v)
		if math.IsInf(f, 0) || f != f {
			return append(dst, "null"...)
		}
		return appendJSNumber(dst, f)
	case jsonx.Bool, jsonx.Null:
		return append(dst, v...)
	}
	return dst
}

// JSString is JavaScript's String(v) for a raw JSON value, as a template
// literal writes a value into a reason: a string as it is, a number as
// Number#toString, true, false and null by name, an object as
// "[object Object]", an array as its elements joined with "," (null
// elements empty), and a missing value (nil) as "undefined".
func JSString(v []byte) string {
	if len(v) == 0 {
		return "undefined"
	}
	return string(appendJSString(nil, v))
}

func appendJSString(dst, v []byte) []byte {
	switch jsonx.KindOf(v) {
	case jsonx.String:
		s, _ := jsonx.Str(v)
		return append(dst, s...)
	case jsonx.Number:
		f, _ := jsonx.Num(v)
		return appendJSNumber(dst, f)
	case jsonx.Bool, jsonx.Null:
		return append(dst, v...)
	case jsonx.Object:
		return append(dst, "[object Object]"...)
	case jsonx.Array:
		n := 0
		_ = jsonx.ArrayEach(v, func(e []byte) bool {
			if n > 0 {
				dst = append(dst, ',')
			}
			n++
			if jsonx.KindOf(e) != jsonx.Null {
				dst = appendJSString(dst, e)
			}
			return true
		})
		return dst
	}
	return dst
}
