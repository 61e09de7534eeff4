package claw3d

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/clawtap/clawtap/pkg/jsonx"
)

// This file holds the pieces of JavaScript semantics Claw3D's rules rest
// on: the whitespace set of \s and String#trim, Number#toString for the
// numbers that end up in strings, and member scans of raw JSON objects.
// pkg/message has the same helpers unexported; they are candidates to
// share once the two packages are folded together.

// isJSSpace reports whether r is in JavaScript's WhiteSpace or
// LineTerminator sets: what \s matches and String#trim removes.
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// spaceAt returns the byte length of the JS whitespace character at s[i],
// or 0 when there is none.
func spaceAt(s string, i int) int {
	c := s[i]
	if c < utf8.RuneSelf {
		switch c {
		case '\t', '\n', '\v', '\f', '\r', ' ':
			return 1
		}
		return 0
	}
	// Every non-ASCII JS space starts with one of these lead bytes.
	if c != 0xC2 && c != 0xE1 && c != 0xE2 && c != 0xE3 && c != 0xEF {
		return 0
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	if isJSSpace(r) {
		return size
	}
	return 0
}

// skipSpace returns the offset of the first non-whitespace byte at or
// after i.
func skipSpace(s string, i int) int {
	for i < len(s) {
		n := spaceAt(s, i)
		if n == 0 {
			break
		}
		i += n
	}
	return i
}

// trimStart is String#trimStart.
func trimStart(s string) string { return s[skipSpace(s, 0):] }

// trimEnd is String#trimEnd.
func trimEnd(s string) string { return strings.TrimRightFunc(s, isJSSpace) }

// trim is String#trim.
func trim(s string) string { return trimEnd(trimStart(s)) }

// collapseSpace replaces every run of JS whitespace with one space and
// trims: the "whitespace-normalized" text Claw3D compares and fingerprints.
func collapseSpace(s string) string {
	s = trim(s)
	var b []byte
	for i := 0; i < len(s); {
		if n := spaceAt(s, i); n > 0 {
			j := skipSpace(s, i)
			if b == nil {
				if j-i == 1 && s[i] == ' ' {
					i = j
					continue // a single plain space stays as it is
				}
				b = append(make([]byte, 0, len(s)), s[:i]...)
			}
			b = append(b, ' ')
			i = j
			continue
		}
		if b != nil {
			b = append(b, s[i])
		}
		i++
	}
	if b == nil {
		return s
	}
	return string(b)
}

// hasPrefixFold reports whether s starts with prefix, ignoring ASCII
// case; prefix must be lower-case ASCII (a non-unicode /i regexp folds
// only ASCII letters for these patterns).
func hasPrefixFold(s, prefix string) bool {
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

// indexFold returns the index of the first occurrence of the lower-case
// ASCII needle in s, ignoring ASCII case, or -1. It looks for the
// needle's rarest letter with IndexByte (in both cases) and checks around
// each hit, so a text without that letter costs two vectorized scans.
func indexFold(s, needle string) int {
	if needle == "" {
		return 0
	}
	k := rarestLetter(needle)
	lo := needle[k]
	up := lo
	if lo >= 'a' && lo <= 'z' {
		up = lo - 'a' + 'A'
	}
	nextLo, nextUp := -2, -2 // next hit of each case at or after i; -2: not looked up
	for i := k; i < len(s); {
		if nextLo != -1 && nextLo < i {
			if nextLo = strings.IndexByte(s[i:], lo); nextLo >= 0 {
				nextLo += i
			}
		}
		if nextUp != -1 && nextUp < i {
			if nextUp = strings.IndexByte(s[i:], up); nextUp >= 0 {
				nextUp += i
			}
		}
		j := nextLo
		if j < 0 || (nextUp >= 0 && nextUp < j) {
			j = nextUp
		}
		if j < 0 {
			return -1
		}
		if start := j - k; start >= 0 && hasPrefixFold(s[start:], needle) {
			return start
		}
		i = j + 1
	}
	return -1
}

// rarestLetter picks the needle byte least common in English text.
func rarestLetter(needle string) int {
	const order = "zqjxkvbpygfwmucldrhsnioate" // rarest first
	best, rank := 0, len(order)
	for i := 0; i < len(needle); i++ {
		if r := strings.IndexByte(order, needle[i]); r >= 0 && r < rank {
			best, rank = i, r
		}
	}
	return best
}

// appendJSNumber appends f as JavaScript's String(f) writes it: integers
// in the safe range exactly, other finite numbers with the shortest
// round-trip digits, plain from 1e-6 up to 1e21 and in exponent form
// ("1e+21") outside.
func appendJSNumber(dst []byte, f float64) []byte {
	switch {
	case f != f:
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	case f == 0:
		return append(dst, '0')
	case f == math.Trunc(f) && math.Abs(f) < 1e21:
		if math.Abs(f) < 1<<53 {
			return strconv.AppendInt(dst, int64(f), 10)
		}
		return strconv.AppendFloat(dst, f, 'f', -1, 64)
	}
	if a := math.Abs(f); a >= 1e-6 && a < 1e21 {
		return strconv.AppendFloat(dst, f, 'f', -1, 64)
	}
	b := strconv.AppendFloat(nil, f, 'e', -1, 64) // d.ddde-XX
	i := bytes.IndexByte(b, 'e')
	dst = append(dst, b[:i+1]...)
	exp := b[i+1:]
	if exp[0] == '+' {
		dst = append(dst, '+')
	} else {
		dst = append(dst, '-')
	}
	exp = bytes.TrimLeft(exp[1:], "0")
	return append(dst, exp...)
}

// jsNumber is String(f).
func jsNumber(f float64) string { return string(appendJSNumber(nil, f)) }

// strIs reports whether the raw JSON value v is the string s.
func strIs(v []byte, s string) bool {
	return len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' && jsonx.KeyIs(v[1:len(v)-1], s)
}

// str decodes v when it is a JSON string.
func str(v []byte) (string, bool) {
	if jsonx.KindOf(v) != jsonx.String {
		return "", false
	}
	return jsonx.Str(v)
}

// nonEmptyStr decodes v when it is a non-empty JSON string: JavaScript's
// `typeof v === "string" && v` test.
func nonEmptyStr(v []byte) (string, bool) {
	s, ok := str(v)
	return s, ok && s != ""
}

// num reads v when it is a finite JSON number.
func num(v []byte) (float64, bool) {
	f, ok := jsonx.Num(v)
	if !ok || math.IsInf(f, 0) || f != f {
		return 0, false
	}
	return f, true
}

// isObject reports whether v is a JSON object (JavaScript's
// `v && typeof v === "object" && !Array.isArray(v)`).
func isObject(v []byte) bool { return jsonx.KindOf(v) == jsonx.Object }

// scan walks the object obj once and stores in out[i] the raw value of the
// last member named names[i] (JSON.parse keeps the last duplicate). It
// reports false when obj is not an object. Keys spelt with escapes are
// decoded before they are compared.
func scan(obj []byte, names []string, out [][]byte) bool {
	obj = jsonx.TrimSpace(obj)
	if len(obj) == 0 || obj[0] != '{' {
		return false
	}
	err := jsonx.ObjectEach(obj, func(k, v []byte) bool {
		for i, n := range names {
			if string(k) == n {
				out[i] = v
				return true
			}
		}
		if bytes.IndexByte(k, '\\') >= 0 {
			for i, n := range names {
				if jsonx.KeyIs(k, n) {
					out[i] = v
					return true
				}
			}
		}
		return true
	})
	return err == nil
}
