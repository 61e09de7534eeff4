// Package canon reads OTLP/JSON trace batches with the OpenTelemetry
// Collector's own parser (pdata's ptrace.JSONUnmarshaler, strict: an
// unknown field is an error) and writes each span back in the collector's
// own form, one span a line with its resource and scope, sorted by trace
// and span id. Two exports hold the same spans exactly when their
// canonical forms are equal, however they were batched, and whoever wrote
// them: clawtap, or a collector's file exporter, which re-marshals what
// it receives.
package canon

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"slices"

	"go.opentelemetry.io/collector/pdata/ptrace"
)

// Span is one span in canonical form: its ids, and the span alone in a
// request with its resource and scope, as pdata marshals it.
type Span struct {
	TraceID, SpanID string
	JSON            string
}

// Read reads OTLP JSON Lines (each line an ExportTraceServiceRequest),
// strictly, and returns their spans in canonical form, sorted.
func Read(r io.Reader) ([]Span, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 64<<20)
	var out []Span
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		spans, err := Batch(b)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		out = append(out, spans...)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b Span) int {
		if c := compare(a.TraceID, b.TraceID); c != 0 {
			return c
		}
		return compare(a.SpanID, b.SpanID)
	})
	return out, nil
}

func compare(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Batch parses one request and splits it into canonical spans.
func Batch(b []byte) ([]Span, error) {
	td, err := (&ptrace.JSONUnmarshaler{DisallowUnknownFields: true}).UnmarshalTraces(b)
	if err != nil {
		return nil, err
	}
	var out []Span
	m := &ptrace.JSONMarshaler{}
	rss := td.ResourceSpans()
	for i := 0; i < rss.Len(); i++ {
		rs := rss.At(i)
		sss := rs.ScopeSpans()
		for j := 0; j < sss.Len(); j++ {
			ss := sss.At(j)
			spans := ss.Spans()
			for k := 0; k < spans.Len(); k++ {
				one := ptrace.NewTraces()
				ors := one.ResourceSpans().AppendEmpty()
				rs.Resource().CopyTo(ors.Resource())
				ors.SetSchemaUrl(rs.SchemaUrl())
				oss := ors.ScopeSpans().AppendEmpty()
				ss.Scope().CopyTo(oss.Scope())
				oss.SetSchemaUrl(ss.SchemaUrl())
				sp := spans.At(k)
				sp.CopyTo(oss.Spans().AppendEmpty())
				j, err := m.MarshalTraces(one)
				if err != nil {
					return nil, err
				}
				out = append(out, Span{TraceID: sp.TraceID().String(), SpanID: sp.SpanID().String(), JSON: string(j)})
			}
		}
	}
	return out, nil
}
