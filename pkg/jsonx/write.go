package jsonx

import (
	"math/bits"
	"strconv"
	"unicode/utf8"

	"github.com/clawtap/clawtap/pkg/jsstr"
)

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string, escaping like encoding/json
// (including <, >, & and U+2028/U+2029, so output is safe to embed in
// HTML and JavaScript) and replacing invalid UTF-8 with U+FFFD, except
// that a lone surrogate held in WTF-8 (see pkg/jsstr) is written as its
// \udxxx escape, as JSON.stringify writes it.
func AppendString(dst []byte, s string) []byte { return appendString(dst, s, true) }

// AppendBytes is AppendString for a string held in a byte slice, without
// converting it.
func AppendBytes(dst, s []byte) []byte { return appendString(dst, s, true) }

// AppendStringMinimal appends s as a JSON string escaping only what JSON
// requires — the quote, the backslash and control characters — as
// JavaScript's JSON.stringify does; invalid UTF-8 becomes U+FFFD and a
// lone surrogate in WTF-8 its \udxxx escape. Use it
// where output must match JavaScript, or where a rewritten string should
// keep its original spelling.
func AppendStringMinimal[S ~string | ~[]byte](dst []byte, s S) []byte {
	return appendString(dst, s, false)
}

// Plain reports whether s is printable ASCII that AppendString writes as
// it is, between quotes (false for any other text, which it may too).
func Plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if !plainHTML[s[i]] {
			return false
		}
	}
	return true
}

// plain marks the ASCII bytes copied as they are; html adds <, > and &
// to what is escaped.
var plain, plainHTML = func() (t, h [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c], h[c] = true, true
	}
	t['"'], t['\\'] = false, false
	h['"'], h['\\'], h['<'], h['>'], h['&'] = false, false, false, false, false
	return
}()

func appendString[S ~string | ~[]byte](dst []byte, s S, html bool) []byte {
	safe := &plain
	if html {
		safe = &plainHTML
	}
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if len(s)-i >= 32 { // a text, not a name or an id
			i = plainRun(s, i, html)
		}
		for i < len(s) && safe[s[i]] {
			i++ // the last few bytes
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
			switch {
			case r == utf8.RuneError && n == 1 && c == 0xED:
				dst = append(dst, s[start:i]...)
				dst, i = appendSurrogate(dst, s, i)
				start = i
			case r == utf8.RuneError && n == 1:
				dst = append(dst, s[start:i]...)
				dst = append(dst, `\ufffd`...)
				i++
				start = i
			case html && (r == '\u2028' || r == '\u2029'):
				dst = append(dst, s[start:i]...)
				dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
				i += n
				start = i
			default:
				i += n
			}
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default: // other control characters, and <, >, & for HTML
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// plainRun returns the offset of the first byte at or after i, among
// those that begin a whole word of eight, that appendString must look at:
// a quote, a backslash, a control character, a byte of a multi-byte
// character, and with html <, > and &.
func plainRun[S ~string | ~[]byte](s S, i int, html bool) int {
	if html {
		for ; i+8 <= len(s); i += 8 {
			w := word(s[i : i+8])
			// '<' and '>' differ only in bit 1; '&' alone.
			lt := (w | 2*lsb) ^ '>'*lsb
			amp := w ^ '&'*lsb
			if m := stringStops(w) | w&msb | ((lt-lsb)&^lt|(amp-lsb)&^amp)&msb; m != 0 {
				return i + bits.TrailingZeros64(m)>>3
			}
		}
		return i
	}
	for ; i+8 <= len(s); i += 8 {
		w := word(s[i : i+8])
		if m := stringStops(w) | w&msb; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	return i
}

// word reads eight bytes, little endian, in one load.
func word[S ~string | ~[]byte](t S) uint64 {
	_ = t[7]
	return uint64(t[0]) | uint64(t[1])<<8 | uint64(t[2])<<16 | uint64(t[3])<<24 |
		uint64(t[4])<<32 | uint64(t[5])<<40 | uint64(t[6])<<48 | uint64(t[7])<<56
}

// appendSurrogate writes what JSON.stringify writes for the WTF-8 code
// unit at s[i] (see pkg/jsstr): a lone surrogate as its \udxxx escape, a
// high surrogate followed by a low one (two strings joined, each holding
// half of a character) as that character, and an invalid byte as U+FFFD.
// It returns the offset after what it consumed.
func appendSurrogate[S ~string | ~[]byte](dst []byte, s S, i int) ([]byte, int) {
	u, ok := jsstr.SurrogateAt(s, i)
	if !ok {
		return append(dst, `\ufffd`...), i + 1
	}
	if u < 0xDC00 {
		if lo, ok := jsstr.SurrogateAt(s, i+3); ok && lo >= 0xDC00 {
			return utf8.AppendRune(dst, 0x10000+(rune(u)-0xD800)<<10+(rune(lo)-0xDC00)), i + 6
		}
	}
	return append(dst, '\\', 'u', hexDigits[u>>12], hexDigits[u>>8&0xF], hexDigits[u>>4&0xF], hexDigits[u&0xF]), i + 3
}

// AppendInt appends n in decimal, as strconv.AppendInt does.
func AppendInt(dst []byte, n int64) []byte {
	if n < 0 {
		return strconv.AppendInt(dst, n, 10)
	}
	return appendUint(dst, uint64(n))
}

// digitPairs is "00" to "99", the two digits of each number below 100.
const digitPairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839" +
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879" +
	"8081828384858687888990919293949596979899"

// appendUint appends n in decimal: eight digits at a time in 32-bit
// arithmetic, two by two from a table. The numbers every record line
// holds are times in milliseconds (thirteen digits) and small counts;
// strconv divides a 64-bit number for each pair of digits.
func appendUint(dst []byte, n uint64) []byte {
	if n < 100 {
		if n < 10 {
			return append(dst, byte('0'+n))
		}
		return append(dst, digitPairs[2*n], digitPairs[2*n+1])
	}
	var buf [20]byte
	i := len(buf)
	for n >= 1e8 {
		lo := uint32(n % 1e8)
		n /= 1e8
		hi, lo4 := lo/1e4, lo%1e4
		i -= 8
		put4(buf[i+4:], lo4)
		put4(buf[i:], hi)
	}
	m := uint32(n) // below 1e8
	for m >= 100 {
		q := m / 100
		r := m - q*100
		i -= 2
		buf[i], buf[i+1] = digitPairs[2*r], digitPairs[2*r+1]
		m = q
	}
	if m >= 10 {
		i -= 2
		buf[i], buf[i+1] = digitPairs[2*m], digitPairs[2*m+1]
	} else {
		i--
		buf[i] = byte('0' + m)
	}
	return append(dst, buf[i:]...)
}

// put4 writes v (below 10,000) as four digits, leading zeros kept.
func put4(b []byte, v uint32) {
	q := v / 100
	r := v - q*100
	_ = b[3]
	b[0], b[1] = digitPairs[2*q], digitPairs[2*q+1]
	b[2], b[3] = digitPairs[2*r], digitPairs[2*r+1]
}

// AppendOptStr appends the object member ,"key":"v" (v escaped as
// AppendString does), or nothing when v is empty: how the record, event
// and finding lines leave out an unset string. key is written as is, so it
// must need no escaping.
func AppendOptStr(dst []byte, key, v string) []byte {
	if v == "" {
		return dst
	}
	dst = append(dst, ',', '"')
	dst = append(dst, key...)
	dst = append(dst, '"', ':')
	return AppendString(dst, v)
}
