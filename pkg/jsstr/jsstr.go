// Package jsstr gives Go strings the JavaScript semantics the reference
// pipeline's rules depend on: String#toLowerCase, String#trim and its
// whitespace set, a length in UTF-16 code units, and Number#toString.
//
// A JavaScript string is a sequence of UTF-16 code units and may hold a
// lone surrogate (a stream cut inside an emoji sends "a\ud83d"). clawtap
// keeps such strings in Go as WTF-8: valid UTF-8, except that a lone
// surrogate code point is written in the three-byte form UTF-8 forbids
// (ED A0..BF 80..BF). pkg/jsonx decodes a lone \uD800..\uDFFF escape to
// that form and encodes it back as the same escape, so the surrogate
// survives from input to output. Every function here treats those three
// bytes as the one code unit they stand for.
package jsstr

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// SurrogateAt reports whether s[i:] starts with a WTF-8 surrogate (three
// bytes) and returns its code unit.
func SurrogateAt[S ~string | ~[]byte](s S, i int) (uint16, bool) {
	if i+2 >= len(s) || s[i] != 0xED || s[i+1] < 0xA0 || s[i+1] > 0xBF || s[i+2] < 0x80 || s[i+2] > 0xBF {
		return 0, false
	}
	return 0xD000 | uint16(s[i+1]&0x3F)<<6 | uint16(s[i+2]&0x3F), true
}

// AppendSurrogate appends the WTF-8 form of the surrogate code unit u
// (0xD800..0xDFFF).
func AppendSurrogate(dst []byte, u uint16) []byte {
	return append(dst, 0xED, 0x80|byte(u>>6)&0x3F, 0x80|byte(u)&0x3F)
}

// IsSpace reports whether r is in JavaScript's WhiteSpace or
// LineTerminator sets: what \s matches and String#trim removes. It
// differs from unicode.IsSpace: U+FEFF is included, U+0085 (NEL) is not.
// The Zs members are those of Unicode 6.3 onward (U+180E is not one).
func IsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// SpaceAt returns the byte length of the JavaScript whitespace character
// at s[i], or 0 when there is none. Its ASCII half is small enough to be
// inlined where texts are trimmed and collapsed a byte at a time.
func SpaceAt(s string, i int) int {
	if c := s[i]; c < utf8.RuneSelf {
		return int(asciiSpace[c])
	}
	return spaceAtMultibyte(s, i)
}

// asciiSpace marks JavaScript's ASCII whitespace: tab, LF, VT, FF, CR and space.
var asciiSpace = [utf8.RuneSelf]uint8{'\t': 1, '\n': 1, '\v': 1, '\f': 1, '\r': 1, ' ': 1}

// spaceAtMultibyte is SpaceAt for a byte of a multi-byte character.
func spaceAtMultibyte(s string, i int) int {
	c := s[i]
	// Every non-ASCII JS space starts with one of these lead bytes.
	if c != 0xC2 && c != 0xE1 && c != 0xE2 && c != 0xE3 && c != 0xEF {
		return 0
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	if IsSpace(r) {
		return size
	}
	return 0
}

// SkipSpace returns the offset of the first non-whitespace byte at or
// after i.
func SkipSpace(s string, i int) int {
	for i < len(s) {
		n := SpaceAt(s, i)
		if n == 0 {
			break
		}
		i += n
	}
	return i
}

// TrimStart is String#trimStart.
func TrimStart(s string) string { return s[SkipSpace(s, 0):] }

// TrimEnd is String#trimEnd. A text that ends in an ASCII byte that is
// no space (by SpaceAt's table, the one list of them) is returned at once;
// the rest goes a character at a time. (A WTF-8 surrogate decodes as three
// invalid bytes, none of them a space, so it stays.)
func TrimEnd(s string) string {
	if n := len(s); n > 0 {
		if c := s[n-1]; c < utf8.RuneSelf && asciiSpace[c] == 0 {
			return s
		}
	}
	return strings.TrimRightFunc(s, IsSpace)
}

// Trim is String#trim.
func Trim(s string) string { return TrimEnd(TrimStart(s)) }

// UTF16Len is a string's length as JavaScript counts it: a character
// outside the BMP is two code units, a WTF-8 surrogate one, and any other
// invalid byte one (it would have been decoded as U+FFFD).
func UTF16Len(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			n++
			i++
			continue
		}
		if _, ok := SurrogateAt(s, i); ok {
			n++
			i += 3
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		if size == 4 {
			n += 2
		} else {
			n++
		}
		i += size
	}
	return n
}

// Lower is String#toLowerCase: the Unicode default lower-case mapping,
// which differs from strings.ToLower in two places: U+0130 (İ) becomes
// "i̇" (U+0069 U+0307), not "i", and a capital sigma at the end of a word
// becomes final sigma (ς). Lone surrogates and invalid bytes are kept as
// they are. (The case tables are Go's; a character that a newer Unicode
// version gave a lower-case form may differ, but none of those maps to
// ASCII.)
func Lower(s string) string {
	i := 0
	for i < len(s) && s[i] < utf8.RuneSelf && !('A' <= s[i] && s[i] <= 'Z') {
		i++
	}
	if i == len(s) {
		return s
	}
	b := make([]byte, 0, len(s)+4)
	b = append(b, s[:i]...)
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1: // a WTF-8 surrogate or an invalid byte: unchanged
			b = append(b, s[i])
		case r == 0x130:
			b = append(b, "i\u0307"...)
		case r == 0x3A3 && finalSigma(s, i, i+size):
			b = utf8.AppendRune(b, 0x3C2)
		default:
			b = utf8.AppendRune(b, unicode.ToLower(r))
		}
		i += size
	}
	return string(b)
}

// finalSigma is Unicode's Final_Sigma condition for the Σ at s[at:end]: a
// cased letter before it (case-ignorable characters skipped) and none
// after it.
func finalSigma(s string, at, end int) bool {
	before := false
	for j := at; j > 0; {
		r, size := utf8.DecodeLastRuneInString(s[:j])
		j -= size
		if caseIgnorable(r) {
			continue
		}
		before = cased(r)
		break
	}
	if !before {
		return false
	}
	for j := end; j < len(s); {
		r, size := utf8.DecodeRuneInString(s[j:])
		j += size
		if caseIgnorable(r) {
			continue
		}
		return !cased(r)
	}
	return true
}

func cased(r rune) bool {
	return unicode.In(r, unicode.Lu, unicode.Ll, unicode.Lt, unicode.Other_Lowercase, unicode.Other_Uppercase)
}

func caseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', 0xB7, 0x387, 0x55F, 0x5F4, 0x2018, 0x2019, 0x2024, 0x2027, 0xFE13, 0xFE52, 0xFE55, 0xFF07, 0xFF0E, 0xFF1A:
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}

// AppendNumber appends f as JavaScript's Number#toString (radix 10) and
// JSON.stringify write it: the shortest digits that round-trip, plain
// notation for exponents in [-7, 21), exponent notation with an explicit
// sign otherwise ("1e+21", "1e-7"), and -0 as "0". NaN and ±Infinity are
// written as String writes them (JSON.stringify writes null instead).
func AppendNumber(dst []byte, f float64) []byte {
	switch {
	case f != f:
		return append(dst, "NaN"...)
	case f == 0:
		return append(dst, '0')
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	// Integers below 2^53 are the common case (counts, times): their
	// digits are the integer's.
	if f < 1<<53 && f == math.Trunc(f) {
		return strconv.AppendInt(dst, int64(f), 10)
	}
	var buf [40]byte
	b := strconv.AppendFloat(buf[:0], f, 'e', -1, 64) // d[.ddd]e±XX
	e := 0
	for e < len(b) && b[e] != 'e' {
		e++
	}
	var dig [24]byte
	digits := dig[:0]
	for _, c := range b[:e] {
		if c != '.' {
			digits = append(digits, c)
		}
	}
	exp := 0
	neg := b[e+1] == '-'
	for _, c := range b[e+2:] {
		exp = exp*10 + int(c-'0')
	}
	if neg {
		exp = -exp
	}
	k, n := len(digits), exp+1 // value = 0.digits × 10^n
	switch {
	case k <= n && n <= 21:
		dst = append(dst, digits...)
		for i := k; i < n; i++ {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21:
		dst = append(dst, digits[:n]...)
		dst = append(dst, '.')
		dst = append(dst, digits[n:]...)
	case -6 < n && n <= 0:
		dst = append(dst, '0', '.')
		for i := 0; i < -n; i++ {
			dst = append(dst, '0')
		}
		dst = append(dst, digits...)
	default:
		dst = append(dst, digits[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:]...)
		}
		dst = append(dst, 'e')
		if n-1 < 0 {
			dst = append(dst, '-')
			dst = strconv.AppendInt(dst, int64(1-n), 10)
		} else {
			dst = append(dst, '+')
			dst = strconv.AppendInt(dst, int64(n-1), 10)
		}
	}
	return dst
}

// ContainsFold reports whether Lower(s) contains sub, where sub is lower-case
// ASCII. It allocates only for a non-ASCII s.
func ContainsFold(s, sub string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return strings.Contains(Lower(s), sub)
		}
	}
	for i := 0; i+len(sub) <= len(s); i++ {
		j := 0
		for j < len(sub) {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != sub[j] {
				break
			}
			j++
		}
		if j == len(sub) {
			return true
		}
	}
	return false
}

// HasPrefixFold reports whether s starts with prefix, ignoring ASCII case,
// as a non-unicode /i regexp matches it; prefix must be lower-case ASCII.
// Unlike ContainsFold it folds ASCII letters only: such a regexp never
// matches a non-ASCII character against an ASCII one (K is not k).
func HasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != prefix[i] {
			return false
		}
	}
	return true
}

// ValidWTF8 reports whether s is valid UTF-8 apart from WTF-8 surrogates:
// what every string decoded by pkg/jsonx is.
func ValidWTF8(s string) bool {
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		if _, ok := SurrogateAt(s, i); ok {
			i += 3
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return false
		}
		i += size
	}
	return true
}
