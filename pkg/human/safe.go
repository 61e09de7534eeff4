package human

import (
	"strings"
	"unicode/utf8"
)

// Everything clawtap prints for a person passes one sanitiser: the rules
// of this file. Text from a capture, a file name or a peer is data; on a
// terminal or in a CI log it must not act. Printable is the rule for a
// value on one line (a finding's message, a run id, a log line), Text for
// text of several lines (a transcript); internal/output's TextWriter
// applies the same rules to everything a text printer writes, and keeps a
// line from starting with a CI log's workflow command (::).

// Unsafe reports whether r must not reach a terminal or a CI log as
// itself: a control character (C0, DEL, C1: ESC starts the sequences that
// set a terminal's title, clear its screen or move its cursor; CR and NUL
// rewrite or hide what is shown; a lone CR starts a line for a CI
// runner), a bidirectional override or isolate (text shown in another
// order than it is: U+061C, U+200E, U+200F, U+202A–U+202E,
// U+2066–U+2069), or a line or paragraph separator (U+2028, U+2029).
func Unsafe(r rune) bool {
	switch {
	case r < 0x20 || r >= 0x7f && r <= 0x9f:
		return true
	case r < 0x61c:
		return false
	}
	switch r {
	case 0x61c, 0x200e, 0x200f, 0x2028, 0x2029:
		return true
	}
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}

// Printable puts text on one line that is safe on a terminal and in a CI
// log: newlines, tabs and line separators become spaces, every other
// unsafe rune (Unsafe) and each byte of invalid UTF-8 (a lone surrogate
// decoded from JSON) becomes �. It is the one sanitiser for a value
// printed on a line; it maps each rune to one rune, so clipping before or
// after it gives the same text.
func Printable(s string) string {
	if isSafe(s, false) {
		return s
	}
	return strings.Map(printableRune, s)
}

// PrintableBytes is Printable on bytes: b itself when it is printable
// already, else a new slice.
func PrintableBytes(b []byte) []byte {
	if isSafe(b, false) {
		return b
	}
	return appendMapped(make([]byte, 0, len(b)+8), b, printableRune)
}

// Text makes text of several lines safe on a terminal and in a CI log:
// newlines and tabs stay, every other unsafe rune (CR too) and each byte
// of invalid UTF-8 becomes �.
func Text(s string) string {
	if isSafe(s, true) {
		return s
	}
	return strings.Map(textRune, s)
}

func printableRune(r rune) rune {
	switch r {
	case '\n', '\r', '\t', 0x2028, 0x2029:
		return ' '
	}
	if Unsafe(r) {
		return utf8.RuneError
	}
	return r
}

func textRune(r rune) rune {
	if r == '\n' || r == '\t' || !Unsafe(r) {
		return r
	}
	return utf8.RuneError
}

// isSafe reports whether s has nothing to change: no unsafe rune (but
// newlines and tabs, with lines), no invalid UTF-8. Printable ASCII is
// skipped eight bytes at a time.
func isSafe[S ~string | ~[]byte](s S, lines bool) bool {
	for i := 0; i < len(s); {
		i += PlainASCII(s[i:])
		if i == len(s) {
			break
		}
		c := s[i]
		if lines && (c == '\n' || c == '\t') {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			return false
		}
		var buf [utf8.UTFMax]byte
		k := copy(buf[:], s[i:min(i+utf8.UTFMax, len(s))])
		r, n := utf8.DecodeRune(buf[:k])
		if r == utf8.RuneError && n == 1 || Unsafe(r) {
			return false
		}
		i += n
	}
	return true
}

// PlainASCII is the length of the printable ASCII (0x20–0x7e) that s
// starts with: text that no sanitiser changes, found eight bytes at a
// time.
func PlainASCII[S ~string | ~[]byte](s S) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		del := x ^ ones*0x7f
		// A byte of 0x80 or more, one below 0x20, one of 0x7f (zero in del).
		if (x|(x-ones*0x20)&^x|(del-ones)&^del)&highs != 0 {
			break
		}
	}
	for ; i < len(s) && s[i] >= 0x20 && s[i] < 0x7f; i++ {
	}
	return i
}

// appendMapped appends b with each rune mapped, each byte of invalid
// UTF-8 as U+FFFD (as strings.Map does).
func appendMapped(dst, b []byte, f func(rune) rune) []byte {
	for i := 0; i < len(b); {
		if c := b[i]; c < utf8.RuneSelf {
			dst = utf8.AppendRune(dst, f(rune(c)))
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		dst = utf8.AppendRune(dst, f(r))
		i += n
	}
	return dst
}
