package otlp

import (
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// TraceParent is a W3C trace context as a request frame carried it.
type TraceParent struct {
	Trace TraceID
	Span  SpanID
	Flags byte
}

// MaxTraceParent is the longest traceparent a gateway takes, in UTF-16
// code units (its frame schema's maxLength): a longer one makes the whole
// request invalid.
const MaxTraceParent = 128

// ParseTraceParent reads a request frame's traceparent the way an OpenClaw
// gateway (2026.9.6) does, so that a capture's request joins a trace
// exactly when the gateway's own spans did: at most 128 characters,
// trimmed of whitespace, case-insensitive; a version of two hex digits
// other than ff, with exactly four fields for version 00 and at least
// four for later ones; a non-zero 32-digit trace id, a non-zero 16-digit
// span id and two digits of flags. Anything else is not a trace context
// (ok false), and the gateway started a trace of its own.
func ParseTraceParent(s string) (tp TraceParent, ok bool) {
	if !utf8.ValidString(s) || utf16Len(s) > MaxTraceParent {
		return tp, false
	}
	parts := strings.Split(strings.ToLower(strings.TrimFunc(s, jsSpace)), "-")
	if len(parts) < 4 {
		return tp, false
	}
	var ver [1]byte
	if !hexInto(ver[:], parts[0]) || ver[0] == 0xff || ver[0] == 0 && len(parts) != 4 {
		return tp, false
	}
	if !hexInto(tp.Trace[:], parts[1]) || tp.Trace.IsZero() || !hexInto(tp.Span[:], parts[2]) || tp.Span.IsZero() {
		return tp, false
	}
	var fl [1]byte
	if !hexInto(fl[:], parts[3]) {
		return tp, false
	}
	tp.Flags = fl[0]
	return tp, true
}

// String is the trace context as a version-00 traceparent.
func (tp TraceParent) String() string {
	const digits = "0123456789abcdef"
	return "00-" + tp.Trace.String() + "-" + tp.Span.String() + "-" + string([]byte{digits[tp.Flags>>4], digits[tp.Flags&15]})
}

// hexInto decodes exactly len(dst) bytes of lowercase hex.
func hexInto(dst []byte, s string) bool {
	if len(s) != 2*len(dst) {
		return false
	}
	for i := range dst {
		hi, ok1 := nibble(s[2*i])
		lo, ok2 := nibble(s[2*i+1])
		if !ok1 || !ok2 {
			return false
		}
		dst[i] = hi<<4 | lo
	}
	return true
}

func nibble(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

// utf16Len is the length of s in UTF-16 code units, as JavaScript counts
// a string's length.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// jsSpace is what JavaScript's String.prototype.trim removes: white space
// and line terminators.
func jsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0xfeff, 0x2028, 0x2029:
		return true
	}
	return unicode.Is(unicode.Zs, r)
}
