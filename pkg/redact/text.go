package redact

import (
	"bytes"
	"sort"
	"strings"
)

// span is a byte range [start, end) of a text to replace with Marker.
type span struct{ start, end int }

const capPath = "/__openclaw__/cap/"

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// tokenEnd returns the end of a run of bytes that can make up a token in a
// URL path segment or header: up to white space, a control byte or one of
// the set (a table: a URL in prose costs a look-up a byte, not a search
// of the set).
func tokenEnd(s []byte, i int, stop *stopSet) int {
	for i < len(s) && !stop[s[i]] {
		i++
	}
	return i
}

// stopSet is the bytes that end a token: those up to ' ', DEL and more.
type stopSet [256]bool

func newStopSet(more string) *stopSet {
	var t stopSet
	for c := 0; c <= ' '; c++ {
		t[c] = true
	}
	t[0x7f] = true
	for i := 0; i < len(more); i++ {
		t[more[i]] = true
	}
	return &t
}

var (
	urlStop = newStopSet("/?#\"'<>\\`") // a URL's authority or path segment
	capStop = newStopSet("/?#\"'\\&)<>]`,;")
)

func scanCap(s []byte, spans []span) []span {
	for from := 0; ; {
		k := bytes.Index(s[from:], []byte(capPath))
		if k < 0 {
			return spans
		}
		start := from + k + len(capPath)
		end := tokenEnd(s, start, capStop)
		if end > start {
			spans = append(spans, span{start, end})
		}
		from = start
	}
}

// hasFoldExact reports whether b starts with the lowercase t, ignoring
// ASCII case only.
func hasFoldExact(b []byte, t string) bool {
	if len(b) < len(t) {
		return false
	}
	for j := 0; j < len(t); j++ {
		if lowerTab[b[j]] != t[j] {
			return false
		}
	}
	return true
}

func isNameByte(c byte) bool { return isAlnum(c) || c == '_' || c == '-' || c == '.' }

// nameBytes is isNameByte as a table: nameBefore walks back over every
// name a rule reads (a config schema's keys are long).
var nameBytes = func() (t [256]bool) {
	for c := range t {
		t[c] = isNameByte(byte(c))
	}
	return t
}()

// nameBefore returns the start of the NAME that ends at i.
func nameBefore(s []byte, i int) int {
	j := i
	for j > 0 && i-j < 128 && nameBytes[s[j-1]] {
		j--
	}
	return j
}

func normBytes(b []byte, buf []byte) []byte {
	buf = buf[:0]
	for _, c := range b {
		buf = appendNormByte(buf, c)
	}
	return buf
}

func isUpperName(b []byte) bool {
	letter := false
	for _, c := range b {
		switch {
		case c >= 'A' && c <= 'Z':
			letter = true
		case c >= '0' && c <= '9' || c == '_':
		default:
			return false
		}
	}
	return letter
}

// maxValue bounds how far a rule reads a value or a token's body to judge
// it: longer than this, it is taken for a credential (a kilobyte with no
// space after a credential name is one) and then read to its end once.
// So a rule that judges a value not to be one never reads more than this
// from one anchor, and no text costs more than its length times it.
const maxValue = 1024

// valueEndLim is valueEnd reading at most maxValue bytes; long says the
// value runs on past them.
func valueEndLim(s []byte, i int, stop string) (end int, long bool) {
	lim := min(len(s), i+maxValue)
	end = valueEnd(s[:lim], i, stop)
	return end, end == lim && lim < len(s) && !isSpaceByte(s[lim]) && strings.IndexByte(stop, s[lim]) < 0
}

// valueEnd returns the end of an unquoted value starting at i.
func valueEnd(s []byte, i int, stop string) int {
	for i < len(s) && !isSpaceByte(s[i]) && strings.IndexByte(stop, s[i]) < 0 {
		i++
	}
	return i
}

// quotedValue reads a value in quotes starting at i (double, single, or an
// escaped double quote). It returns the inside of the quotes.
func quotedValue(s []byte, i int) (start, end int, ok bool) {
	if i >= len(s) {
		return 0, 0, false
	}
	if s[i] == '\\' && i+1 < len(s) && s[i+1] == '"' {
		start = i + 2
		k := bytes.Index(s[start:], []byte(`\"`))
		if k < 0 {
			return start, len(s), true
		}
		return start, start + k, true
	}
	q := s[i]
	if q != '"' && q != '\'' {
		return 0, 0, false
	}
	start = i + 1
	for k := start; k < len(s); k++ {
		if s[k] == '\\' {
			k++
			continue
		}
		if s[k] == q {
			return start, k, true
		}
	}
	return start, len(s), true
}

func isNumber(w []byte) bool {
	if len(w) == 0 {
		return false
	}
	for _, c := range w {
		if !(c >= '0' && c <= '9' || c == '-' || c == '.' || c == 'e' || c == 'E' || c == '+') {
			return false
		}
	}
	return true
}

// applySpans returns s with every span replaced by Marker (overlapping
// spans merged), or nil when there are none.
func applySpans(s []byte, spans []span, dst []byte) []byte {
	// A value that already reads Marker needs nothing: redacting a redacted
	// capture changes nothing.
	n := 0
	for _, sp := range spans {
		if string(s[sp.start:sp.end]) != Marker {
			spans[n] = sp
			n++
		}
	}
	spans = spans[:n]
	if len(spans) == 0 {
		return nil
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	last := 0
	for k := 0; k < len(spans); k++ {
		sp := spans[k]
		for k+1 < len(spans) && spans[k+1].start <= sp.end {
			if spans[k+1].end > sp.end {
				sp.end = spans[k+1].end
			}
			k++
		}
		if sp.start < last {
			sp.start = last
		}
		dst = append(dst, s[last:sp.start]...)
		dst = append(dst, Marker...)
		last = sp.end
	}
	return append(dst, s[last:]...)
}
