package otlp

import (
	"strconv"
	"unicode/utf8"

	"github.com/clawtap/clawtap/pkg/jsonx"
)

// The OTLP/JSON encoding (opentelemetry-proto, docs/specification.md,
// "JSON Protobuf Encoding"): ids are lowercase hex, 64-bit integers
// (times, intValue) decimal strings, enums integers, keys lowerCamelCase.

// Span kinds and status codes, as OTLP numbers them.
const (
	kindInternal = 1
	kindServer   = 2
	kindClient   = 3

	statusUnset = 0
	statusError = 2
)

// Span flags (trace.proto, SpanFlags): the W3C trace flags in the low
// byte; bit 8 says whether the parent is remote is known, bit 9 that it
// is.
const (
	flagSampled      = 0x01
	flagHasIsRemote  = 0x100
	flagParentRemote = 0x200
)

// Limits on what one span carries: capture text is untrusted, and a span
// must stay far below a collector's request limit.
const (
	// maxEvents bounds a span's events; more are counted in
	// droppedEventsCount.
	maxEvents = 128
	// maxValue clips a string attribute (bytes, on a rune boundary).
	maxValue = 1024
	// maxLinks bounds a span's links.
	maxLinks = 8
)

type valueType uint8

const (
	vString valueType = iota
	vInt
	vBool
	vStrings
)

// attr is one attribute: a key and a typed value.
type attr struct {
	key string
	typ valueType
	s   string
	i   int64
	ss  []string
}

func str(k, v string) attr           { return attr{key: k, s: v} }
func num(k string, v int64) attr     { return attr{key: k, typ: vInt, i: v} }
func flag(k string, v bool) attr     { return attr{key: k, typ: vBool, i: b2i(v)} }
func strs(k string, v []string) attr { return attr{key: k, typ: vStrings, ss: v} }

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// event is a span event at a record's time.
type event struct {
	t     int64 // unix ms
	name  string
	attrs []attr
}

// link points at a span of another trace (or of the same one).
type link struct {
	trace TraceID
	span  SpanID
	flags uint32
	attrs []attr
}

// span is one span as it is encoded; the exporter fills one in place
// and encodes it at once.
type span struct {
	trace   TraceID
	id      SpanID
	parent  SpanID // zero for a root
	flags   uint32
	name    string
	kind    int
	start   int64 // unix ms
	end     int64
	attrs   []attr
	events  []event
	dropped int // events left out
	links   []link
	status  int
	message string
}

func (s *span) reset() {
	attrs, events, links := s.attrs[:0], s.events[:0], s.links[:0]
	*s = span{attrs: attrs, events: events, links: links}
}

func (s *span) add(a ...attr) { s.attrs = append(s.attrs, a...) }

// addStr adds a string attribute unless v is empty.
func (s *span) addStr(k, v string) {
	if v != "" {
		s.attrs = append(s.attrs, str(k, v))
	}
}

// maxMs is the latest time in unix ms whose nanoseconds fit an int64.
const maxMs = (1<<63 - 1) / 1_000_000

// appendNanos appends unix ms as the decimal string of its nanoseconds
// (a fixed64 in OTLP/JSON), clamped to what OTLP can hold.
func appendNanos(b []byte, ms int64) []byte {
	ms = min(max(ms, 0), maxMs)
	b = append(b, '"')
	b = strconv.AppendInt(b, ms, 10)
	if ms != 0 {
		b = append(b, "000000"...)
	}
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

func appendHex(b []byte, id []byte) []byte {
	b = append(b, '"')
	for _, c := range id {
		b = append(b, hexDigits[c>>4], hexDigits[c&15])
	}
	return append(b, '"')
}

// clip cuts s to at most n bytes on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func appendValue(b []byte, a *attr) []byte {
	switch a.typ {
	case vInt:
		b = append(b, `{"intValue":"`...)
		b = strconv.AppendInt(b, a.i, 10)
		return append(b, `"}`...)
	case vBool:
		if a.i != 0 {
			return append(b, `{"boolValue":true}`...)
		}
		return append(b, `{"boolValue":false}`...)
	case vStrings:
		b = append(b, `{"arrayValue":{"values":[`...)
		for k, v := range a.ss {
			if k > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"stringValue":`...)
			b = jsonx.AppendString(b, clip(v, maxValue))
			b = append(b, '}')
		}
		return append(b, `]}}`...)
	}
	b = append(b, `{"stringValue":`...)
	b = jsonx.AppendString(b, clip(a.s, maxValue))
	return append(b, '}')
}

func appendAttrs(b []byte, attrs []attr) []byte {
	b = append(b, `"attributes":[`...)
	for k := range attrs {
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"key":`...)
		b = jsonx.AppendString(b, attrs[k].key)
		b = append(b, `,"value":`...)
		b = appendValue(b, &attrs[k])
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendSpan appends s as an OTLP/JSON Span object.
func appendSpan(b []byte, s *span) []byte {
	b = append(b, `{"traceId":`...)
	b = appendHex(b, s.trace[:])
	b = append(b, `,"spanId":`...)
	b = appendHex(b, s.id[:])
	if !s.parent.IsZero() {
		b = append(b, `,"parentSpanId":`...)
		b = appendHex(b, s.parent[:])
	}
	if s.flags != 0 {
		b = append(b, `,"flags":`...)
		b = strconv.AppendUint(b, uint64(s.flags), 10)
	}
	b = append(b, `,"name":`...)
	b = jsonx.AppendString(b, clip(s.name, maxValue))
	b = append(b, `,"kind":`...)
	b = strconv.AppendInt(b, int64(s.kind), 10)
	start, end := s.start, max(s.end, s.start)
	b = append(b, `,"startTimeUnixNano":`...)
	b = appendNanos(b, start)
	b = append(b, `,"endTimeUnixNano":`...)
	b = appendNanos(b, end)
	b = append(b, ',')
	b = appendAttrs(b, s.attrs)
	if len(s.events) > 0 {
		b = append(b, `,"events":[`...)
		for k := range s.events {
			e := &s.events[k]
			if k > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"timeUnixNano":`...)
			b = appendNanos(b, e.t)
			b = append(b, `,"name":`...)
			b = jsonx.AppendString(b, e.name)
			if len(e.attrs) > 0 {
				b = append(b, ',')
				b = appendAttrs(b, e.attrs)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if s.dropped > 0 {
		b = append(b, `,"droppedEventsCount":`...)
		b = strconv.AppendInt(b, int64(s.dropped), 10)
	}
	if len(s.links) > 0 {
		b = append(b, `,"links":[`...)
		for k := range s.links {
			l := &s.links[k]
			if k > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"traceId":`...)
			b = appendHex(b, l.trace[:])
			b = append(b, `,"spanId":`...)
			b = appendHex(b, l.span[:])
			if len(l.attrs) > 0 {
				b = append(b, ',')
				b = appendAttrs(b, l.attrs)
			}
			if l.flags != 0 {
				b = append(b, `,"flags":`...)
				b = strconv.AppendUint(b, uint64(l.flags), 10)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if s.status != statusUnset {
		b = append(b, `,"status":{"code":`...)
		b = strconv.AppendInt(b, int64(s.status), 10)
		if s.message != "" {
			b = append(b, `,"message":`...)
			b = jsonx.AppendString(b, clip(s.message, maxValue))
		}
		b = append(b, '}')
	}
	return append(b, '}')
}
