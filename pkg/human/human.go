// Package human formats values for people: times as offsets from a
// capture's start, durations, byte counts, and text clipped to fit one
// line of a terminal. Every command and package that prints for people
// uses these, so the same value always reads the same way.
package human

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Secs renders an offset in ms as +1.250s (or -0.005s).
func Secs(ms int64) string { return string(AppendSecs(nil, ms)) }

// AppendSecs appends Secs(ms).
func AppendSecs(dst []byte, ms int64) []byte {
	sign := byte('+')
	if ms < 0 {
		sign, ms = '-', -ms
	}
	dst = append(dst, sign)
	dst = strconv.AppendInt(dst, ms/1000, 10)
	dst = append(dst, '.')
	switch frac := ms % 1000; { // three digits (negative only for MinInt64)
	case frac >= 0 && frac < 10:
		dst = append(dst, "00"...)
	case frac >= 10 && frac < 100:
		dst = append(dst, '0')
	}
	dst = strconv.AppendInt(dst, ms%1000, 10)
	return append(dst, 's')
}

// Offset renders t as an offset from start (+1.250s), or "-" when either
// is unknown (0).
func Offset(t, start int64) string {
	if t == 0 || start == 0 {
		return "-"
	}
	return Secs(t - start)
}

// Duration renders a duration in ms: "850 ms" below a second, else seconds
// with the given number of decimals ("1.5 s", "1.500 s"). A negative
// duration reads as 0 ms.
func Duration(ms int64, decimals int) string {
	if ms < 0 {
		ms = 0
	}
	if ms < 1000 {
		return strconv.FormatInt(ms, 10) + " ms"
	}
	return strconv.FormatFloat(float64(ms)/1000, 'f', decimals, 64) + " s"
}

// Bytes renders a byte count in units of 1024, one decimal: 999 B,
// 1.5 KiB, 20.0 MiB.
func Bytes(n int64) string {
	switch {
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	case n >= 1<<10:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " B"
}

// Clip shortens s to at most n runes, the last one "…" when it cut.
func Clip(s string, n int) string {
	if cut, over := clipAt(s, n); over {
		return s[:cut] + "…"
	}
	return s
}

// ClipBytes is Clip on bytes: b itself, or its first n-1 runes then "…",
// written over what was cut (so it may share b's array).
func ClipBytes(b []byte, n int) []byte {
	if cut, over := clipAt(b, n); over {
		return append(b[:cut], "…"...)
	}
	return b
}

// clipAt reports whether s has more than n runes, and if so the length of
// its first n-1, where Clip cuts it. It allocates nothing, whatever s is.
func clipAt[S ~string | ~[]byte](s S, n int) (cut int, over bool) {
	switch {
	case n < 0:
		return 0, true
	case len(s) <= n: // no more runes than bytes
		return 0, false
	}
	var r [utf8.UTFMax]byte
	for i, c := 0, 0; i < len(s); c++ {
		if c == n-1 {
			cut = i
		}
		if c == n {
			return cut, true
		}
		if s[i] < utf8.RuneSelf { // ASCII, most text: no decoding
			i++
			continue
		}
		_, size := utf8.DecodeRune(r[:copy(r[:], s[i:min(i+utf8.UTFMax, len(s))])])
		i += size
	}
	return 0, false
}

// FlatClip is Clip(Flat(s), n), without flattening more of s than Clip
// keeps: Flat maps rune for rune, so only s's first n+1 runes can change
// what Clip returns (a reply of kilobytes quoted in a sentence).
func FlatClip(s string, n int) string {
	if !strings.ContainsAny(s, "\n\r\t") {
		return Clip(s, n) // Flat(s) is s
	}
	if n >= 0 {
		k := 0
		for i := range s { // runes as strings.Map reads them
			if k == n+1 {
				s = s[:i]
				break
			}
			k++
		}
	}
	return Clip(strings.Map(flatRune, s), n)
}

func flatRune(r rune) rune {
	if r == '\n' || r == '\r' || r == '\t' {
		return ' '
	}
	return r
}

// Pad pads s with spaces to n runes, for aligned columns that stream.
func Pad(s string, n int) string {
	if c := utf8.RuneCountInString(s); c < n {
		return s + strings.Repeat(" ", n-c)
	}
	return s
}

// Flat puts text on one line: newlines and tabs become spaces.
func Flat(s string) string {
	if !strings.ContainsAny(s, "\n\r\t") {
		return s
	}
	return strings.Map(flatRune, s)
}

// Thousands renders n with a comma every three digits: 1,234,567.
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	if n < 0 {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Count renders n with the noun that fits: "1 run", "3 runs".
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
