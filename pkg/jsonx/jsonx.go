// Package jsonx scans raw JSON without building a tree.
//
// clawtap classifies millions of frames; decoding each one into maps would
// cost far more than the classification itself. jsonx instead walks the raw
// bytes, hands out sub-slices of the input (never copies), and validates the
// structure it skips, so a malformed frame is still detected.
package jsonx

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/bits"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/clawtap/clawtap/pkg/jsstr"
)

// Kind is the type of a JSON value, read from its first byte.
type Kind uint8

const (
	Invalid Kind = iota
	Null
	Bool
	Number
	String
	Array
	Object
)

var kindNames = [...]string{"invalid", "null", "bool", "number", "string", "array", "object"}

func (k Kind) String() string { return kindNames[k] }

// ErrSyntax is returned for any malformed input.
var ErrSyntax = errors.New("invalid JSON")

// KindOf reports the kind of the value v (which must start at its first byte).
func KindOf(v []byte) Kind {
	if len(v) == 0 {
		return Invalid
	}
	switch v[0] {
	case '{':
		return Object
	case '[':
		return Array
	case '"':
		return String
	case 't', 'f':
		return Bool
	case 'n':
		return Null
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return Number
	}
	return Invalid
}

// isSpace tests the byte against the space first, and then only the
// bytes below it: compact JSON, what captures hold, has a byte above the
// space at almost every place the walks ask.
func isSpace(c byte) bool { return c <= ' ' && (c == ' ' || c == '\t' || c == '\n' || c == '\r') }

func skipSpace(data []byte, i int) int {
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	return i
}

// TrimSpace returns v without surrounding JSON whitespace.
func TrimSpace(v []byte) []byte {
	i, j := 0, len(v)
	for i < j && isSpace(v[i]) {
		i++
	}
	for j > i && isSpace(v[j-1]) {
		j--
	}
	return v[i:j]
}

// maxDepth bounds nesting so hostile input cannot exhaust the stack.
const maxDepth = 10000

// Valid reports whether data is exactly one well-formed JSON value
// (surrounding whitespace allowed).
func Valid(data []byte) bool {
	i := skipSpace(data, 0)
	end, err := skip(data, i, 0)
	if err != nil {
		return false
	}
	return skipSpace(data, end) == len(data)
}

// Value returns the first JSON value in data and the offset just past it.
func Value(data []byte) (v []byte, end int, err error) {
	i := skipSpace(data, 0)
	end, err = skip(data, i, 0)
	if err != nil {
		return nil, 0, err
	}
	return data[i:end], end, nil
}

// skip returns the offset just past the value starting at data[i].
func skip(data []byte, i, depth int) (int, error) {
	if i >= len(data) {
		return 0, ErrSyntax
	}
	switch c := data[i]; c {
	case '"':
		return skipString(data, i)
	case '{':
		if depth >= maxDepth {
			return 0, ErrSyntax
		}
		i = skipSpace(data, i+1)
		if i < len(data) && data[i] == '}' {
			return i + 1, nil
		}
		for {
			if i >= len(data) || data[i] != '"' {
				return 0, ErrSyntax
			}
			end, err := skipString(data, i)
			if err != nil {
				return 0, err
			}
			i = skipSpace(data, end)
			if i >= len(data) || data[i] != ':' {
				return 0, ErrSyntax
			}
			i = skipSpace(data, i+1)
			if i, err = skip(data, i, depth+1); err != nil {
				return 0, err
			}
			i = skipSpace(data, i)
			if i >= len(data) {
				return 0, ErrSyntax
			}
			if data[i] == '}' {
				return i + 1, nil
			}
			if data[i] != ',' {
				return 0, ErrSyntax
			}
			i = skipSpace(data, i+1)
		}
	case '[':
		if depth >= maxDepth {
			return 0, ErrSyntax
		}
		i = skipSpace(data, i+1)
		if i < len(data) && data[i] == ']' {
			return i + 1, nil
		}
		for {
			var err error
			if i, err = skip(data, i, depth+1); err != nil {
				return 0, err
			}
			i = skipSpace(data, i)
			if i >= len(data) {
				return 0, ErrSyntax
			}
			if data[i] == ']' {
				return i + 1, nil
			}
			if data[i] != ',' {
				return 0, ErrSyntax
			}
			i = skipSpace(data, i+1)
		}
	case 't':
		return literal(data, i, "true")
	case 'f':
		return literal(data, i, "false")
	case 'n':
		return literal(data, i, "null")
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			return skipNumber(data, i)
		}
		return 0, ErrSyntax
	}
}

func literal(data []byte, i int, lit string) (int, error) {
	if len(data)-i < len(lit) || string(data[i:i+len(lit)]) != lit {
		return 0, ErrSyntax
	}
	return i + len(lit), nil
}

func skipNumber(data []byte, i int) (int, error) {
	if data[i] == '-' {
		i++
	}
	if i >= len(data) {
		return 0, ErrSyntax
	}
	if data[i] == '0' {
		i++
	} else if data[i] >= '1' && data[i] <= '9' {
		i = skipDigits(data, i+1)
	} else {
		return 0, ErrSyntax
	}
	if i < len(data) && data[i] == '.' {
		i++
		start := i
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
		if i == start {
			return 0, ErrSyntax
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		start := i
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
		if i == start {
			return 0, ErrSyntax
		}
	}
	return i, nil
}

// skipDigits returns the offset of the first byte at or after i that is
// not a decimal digit, eight bytes at a time: times in milliseconds, the
// numbers every frame has, have thirteen.
func skipDigits(data []byte, i int) int {
	for ; i+8 <= len(data); i += 8 {
		w := binary.LittleEndian.Uint64(data[i:])
		// A digit is 0x3_ and stays 0x3_ when 6 is added (no carry
		// leaves a digit, so the lowest byte marked is exact).
		m := (w&(0xF0*lsb) ^ 0x30*lsb) | ((w+6*lsb)&(0xF0*lsb) ^ 0x30*lsb)
		if m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for i < len(data) && data[i] >= '0' && data[i] <= '9' {
		i++
	}
	return i
}

// stringSafe marks bytes that need no attention inside a string.
var stringSafe = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = false, false
	return
}()

// SWAR constants: test eight bytes at once for a backslash or a control
// character, the bytes a string scan must look at before its closing quote.
const (
	lsb    = 0x0101010101010101
	msb    = 0x8080808080808080
	bslash = '\\' * lsb
	quote  = '"' * lsb
)

// plainSpan reports whether none of the eight bytes of w is a backslash or
// a control character (the caller knows there is no quote among them).
func plainSpan(w uint64) bool {
	b := w ^ bslash
	zb := (b - lsb) &^ b
	ctl := (w - 0x20*lsb) &^ w
	return (zb|ctl)&msb == 0
}

func skipString(data []byte, i int) (int, error) {
	i++ // opening quote
	for {
		// Eight bytes at a time: stop at the first that needs attention
		// (the closing quote, an escape, a control character).
		for i+8 <= len(data) {
			if m := stringStops(binary.LittleEndian.Uint64(data[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		for i+8 > len(data) && i < len(data) && stringSafe[data[i]] {
			i++ // the last few bytes
		}
		if i >= len(data) {
			return 0, ErrSyntax
		}
		switch data[i] {
		case '"':
			return i + 1, nil
		case '\\':
			n := escapeLen(data, i)
			if n == 0 {
				return 0, ErrSyntax
			}
			i += n
		default: // a control character
			return 0, ErrSyntax
		}
	}
}

// stringStops sets the high bit of the first byte of w (eight bytes, little
// endian) that is a quote, a backslash or a control character, and maybe
// of bytes after it (a borrow), never of one before: the lowest set bit is
// exact.
func stringStops(w uint64) uint64 {
	// Each test is (x-lsb)&^x&msb, a zero byte of x; the quote and the
	// backslash have no high bit, so ^x&msb is ^w&msb for all three.
	return (((w ^ quote) - lsb) | ((w ^ bslash) - lsb) | (w - 0x20*lsb)) &^ w & msb
}

// escapeLen is the length of the escape whose backslash is data[i], or 0
// when it is none; small enough to be inlined where strings are read.
func escapeLen(data []byte, i int) int {
	if i+1 < len(data) && shortEscape[data[i+1]] {
		return 2
	}
	return unicodeEscapeLen(data, i)
}

// shortEscape marks the bytes that make an escape of two bytes.
var shortEscape = func() (t [256]bool) {
	for _, c := range []byte(`"\/bfnrt`) {
		t[c] = true
	}
	return
}()

// unicodeEscapeLen is escapeLen for \uXXXX: 6, or 0 when it is not one.
// Kept out of line, so that escapeLen is inlined.
//
//go:noinline
func unicodeEscapeLen(data []byte, i int) int {
	if i+6 <= len(data) && data[i+1] == 'u' && isHex4(data[i+2:i+6]) {
		return 6
	}
	return 0
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// ObjectEach calls fn for each member of the object obj, in order, with the
// raw key (without quotes, escapes untouched) and the raw value. It stops
// early when fn returns false. Duplicate keys are reported as they come.
//
// ObjectEach, ArrayEach and the Get family do not validate what they skip:
// they are for values inside something already validated (by Valid or
// ObjectEachEnd). On invalid input they give unspecified results but never
// panic.
func ObjectEach(obj []byte, fn func(key, value []byte) bool) error {
	return objectEachFast(obj, fn)
}

// ObjectEachEnd is ObjectEach that validates everything it reads and returns
// the offset just past the object, so a caller can check what follows it.
// When fn stops early the offset is -1.
func ObjectEachEnd(obj []byte, fn func(key, value []byte) bool) (int, error) {
	return objectEachEnd(obj, fn)
}

func objectEachEnd(obj []byte, fn func(key, value []byte) bool) (int, error) {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return 0, ErrSyntax
	}
	i = skipSpace(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(obj) || obj[i] != '"' {
			return 0, ErrSyntax
		}
		kend, err := skipString(obj, i)
		if err != nil {
			return 0, err
		}
		key := obj[i+1 : kend-1]
		i = skipSpace(obj, kend)
		if i >= len(obj) || obj[i] != ':' {
			return 0, ErrSyntax
		}
		i = skipSpace(obj, i+1)
		vstart := i
		if i, err = skip(obj, i, 1); err != nil {
			return 0, err
		}
		if !fn(key, obj[vstart:i]) {
			return -1, nil
		}
		i = skipSpace(obj, i)
		if i >= len(obj) {
			return 0, ErrSyntax
		}
		if obj[i] == '}' {
			return i + 1, nil
		}
		if obj[i] != ',' {
			return 0, ErrSyntax
		}
		i = skipSpace(obj, i+1)
	}
}

// ArrayEach calls fn for each element of the array arr, stopping early
// when fn returns false. It does not validate; see ObjectEach.
func ArrayEach(arr []byte, fn func(value []byte) bool) error {
	return arrayEachFast(arr, fn)
}

// KeyIs reports whether the raw key (as given by ObjectEach) equals name,
// decoding escapes when the key has any.
func KeyIs(raw []byte, name string) bool {
	if len(raw) <= len(name) {
		// An escape makes the raw key longer than what it decodes to, so
		// a key no longer than name matches only byte for byte.
		return string(raw) == name
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return false
	}
	s, ok := unquoteBody(raw)
	return ok && s == name
}

// Get returns the value of the member key of obj. Like JavaScript, the last
// duplicate wins. ok is false when obj is not an object or has no such key.
func Get(obj []byte, key string) (v []byte, ok bool) {
	if len(obj) == 0 || obj[0] != '{' {
		obj = TrimSpace(obj)
		if len(obj) == 0 || obj[0] != '{' {
			return nil, false
		}
	}
	_ = ObjectEach(obj, func(k, val []byte) bool {
		if KeyIs(k, key) {
			v, ok = val, true
		}
		return true
	})
	return v, ok
}

// Members walks the object obj once and stores in out[i] the raw value of
// the last member named names[i] (JSON.parse keeps the last duplicate);
// out[i] is left alone when there is none. It reports false when obj is
// not an object. One walk for several names is what the extraction rules
// need on every frame; like Get, it does not validate.
func Members(obj []byte, names []string, out [][]byte) bool {
	obj = TrimSpace(obj)
	if len(obj) == 0 || obj[0] != '{' {
		return false
	}
	err := ObjectEach(obj, func(k, v []byte) bool {
		if i := nameIndex(k, names); i >= 0 {
			out[i] = v
		}
		return true
	})
	return err == nil
}

// nameIndex returns the index in names of the raw key k, or -1.
func nameIndex(k []byte, names []string) int {
	for i, n := range names {
		if string(k) == n {
			return i
		}
	}
	// Rarely, a key is spelt with escapes: decode it once.
	if bytes.IndexByte(k, '\\') < 0 {
		return -1
	}
	for i, n := range names {
		if KeyIs(k, n) {
			return i
		}
	}
	return -1
}

// GetPath follows nested object members.
func GetPath(obj []byte, keys ...string) ([]byte, bool) {
	v := obj
	for _, k := range keys {
		var ok bool
		if v, ok = Get(v, k); !ok {
			return nil, false
		}
	}
	return v, true
}

// Str returns the decoded string when v is a JSON string.
func Str(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	return unquoteBody(v[1 : len(v)-1])
}

// StrIs reports whether the raw JSON value v is the string s, without
// decoding it unless it holds an escape.
func StrIs(v []byte, s string) bool {
	return len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' && KeyIs(v[1:len(v)-1], s)
}

// GetStr returns obj[key] when it is a string.
func GetStr(obj []byte, key string) (string, bool) {
	v, ok := Get(obj, key)
	if !ok {
		return "", false
	}
	return Str(v)
}

// Num returns v as a float64 when it is a JSON number.
func Num(v []byte) (float64, bool) {
	if KindOf(v) != Number {
		return 0, false
	}
	// Fast path: a plain integer of up to 15 digits (a seq, a time) is
	// exact in a float64.
	if n, ok := plainInt(v, 15); ok {
		return float64(n), true
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil {
		// A number too large for float64 still parses to ±Inf with an error.
		return f, true
	}
	return f, true
}

// plainInt reads v when it is a non-negative integer in plain digits, no
// longer than digits (at most 18, so it cannot overflow) and without a
// leading zero.
func plainInt(v []byte, digits int) (int64, bool) {
	if len(v) == 0 || len(v) > digits || v[0] == '0' && len(v) > 1 {
		return 0, false
	}
	var n int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// Int returns v as an int64 when it is a JSON number with an integral value
// that fits.
func Int(v []byte) (int64, bool) {
	if KindOf(v) != Number {
		return 0, false
	}
	// Fast path: plain integers, the common case (seq, t, conn).
	if n, ok := plainInt(v, 18); ok {
		return n, true
	}
	if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
		return n, true
	}
	f, ok := Num(v)
	if !ok || f != float64(int64(f)) || f > 9.2e18 || f < -9.2e18 {
		return 0, false
	}
	return int64(f), true
}

// GetInt returns obj[key] when it is an integral number.
func GetInt(obj []byte, key string) (int64, bool) {
	v, ok := Get(obj, key)
	if !ok {
		return 0, false
	}
	return Int(v)
}

// Truthy mirrors JavaScript truthiness for a raw JSON value.
func Truthy(v []byte) bool {
	switch KindOf(v) {
	case Object, Array:
		return true
	case Bool:
		return v[0] == 't'
	case String:
		return len(v) > 2
	case Number:
		f, _ := Num(v)
		return f != 0 && f == f
	}
	return false
}

// unquoteBody decodes the inside of a JSON string. Invalid UTF-8 becomes
// U+FFFD, as a browser's decoder makes it; a lone surrogate escape
// (\ud800) is kept as JavaScript keeps it, in WTF-8 (see pkg/jsstr), and
// AppendString writes it back as the same escape.
func unquoteBody(b []byte) (string, bool) {
	// Fast path: no escapes and valid UTF-8 is the string itself. (A raw
	// control character cannot occur in a validated string; in one that was
	// not validated it is kept rather than checked for, on this hot path.)
	if bytes.IndexByte(b, '\\') < 0 && utf8.Valid(b) {
		return string(b), true
	}
	out, ok := appendUnquoted(make([]byte, 0, len(b)), b)
	if !ok {
		return "", false
	}
	// out is never written again: hand its bytes over instead of copying.
	return unsafe.String(unsafe.SliceData(out), len(out)), true
}

// appendUnquoted appends the decoded inside of a JSON string to out.
func appendUnquoted(out, b []byte) ([]byte, bool) {
	esc := bytes.IndexByte(b, '\\')
	for len(b) > 0 {
		// Copy the run up to the next escape whole: streamed text is mostly
		// plain runs between a few \n escapes.
		if esc < 0 {
			esc = len(b)
		}
		out = appendValidUTF8(out, b[:esc])
		b = b[esc:]
		if len(b) == 0 {
			break
		}
		var ok bool
		if out, b, ok = appendEscape(out, b); !ok {
			return out, false
		}
		esc = bytes.IndexByte(b, '\\')
	}
	return out, true
}

// appendValidUTF8 appends run, with each invalid UTF-8 byte as U+FFFD.
func appendValidUTF8(out, run []byte) []byte {
	if utf8.Valid(run) {
		return append(out, run...)
	}
	for i := 0; i < len(run); {
		r, size := utf8.DecodeRune(run[i:])
		if r == utf8.RuneError && size == 1 {
			out = append(out, "\uFFFD"...)
		} else {
			out = append(out, run[i:i+size]...)
		}
		i += size
	}
	return out
}

// appendEscape decodes the escape sequence b starts with (b[0] is '\\'),
// appends it to out and returns the rest of b. ok is false for a malformed
// escape.
func appendEscape(out, b []byte) (_ []byte, rest []byte, ok bool) {
	if len(b) < 2 {
		return out, nil, false
	}
	switch b[1] {
	case '"', '\\', '/':
		return append(out, b[1]), b[2:], true
	case 'b':
		return append(out, '\b'), b[2:], true
	case 'f':
		return append(out, '\f'), b[2:], true
	case 'n':
		return append(out, '\n'), b[2:], true
	case 'r':
		return append(out, '\r'), b[2:], true
	case 't':
		return append(out, '\t'), b[2:], true
	case 'u':
		r, ok := hex4(b, 2)
		if !ok {
			return out, nil, false
		}
		i := 6
		if r >= 0xD800 && r < 0xDC00 {
			if i+6 <= len(b) && b[i] == '\\' && b[i+1] == 'u' {
				if lo, ok := hex4(b, i+2); ok && lo >= 0xDC00 && lo < 0xE000 {
					r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
					return utf8.AppendRune(out, r), b[i+6:], true
				}
			}
		}
		if r >= 0xD800 && r < 0xE000 {
			// A lone surrogate: kept, in WTF-8, as JavaScript keeps it.
			return jsstr.AppendSurrogate(out, uint16(r)), b[i:], true
		}
		return utf8.AppendRune(out, r), b[i:], true
	}
	return out, nil, false
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}
