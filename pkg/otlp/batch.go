package otlp

import (
	"io"

	"github.com/clawtap/clawtap/pkg/jsonx"
)

// SchemaURL is the semantic conventions the spans follow: the GenAI,
// RPC and general attributes of semantic-conventions v1.41.1, the last
// release that holds the GenAI conventions (docs/otlp.md).
const SchemaURL = "https://opentelemetry.io/schemas/1.41.1"

// ScopeName is the instrumentation scope of every span.
const ScopeName = "github.com/clawtap/clawtap/pkg/otlp"

// DefaultBatchBytes bounds one batch: a collector's default request limit
// is 20 MiB (decompressed), and a batch is held whole while it is built.
const DefaultBatchBytes = 1 << 20

// A Sink takes each batch of spans as it fills: a whole
// ExportTraceServiceRequest in OTLP/JSON, which is both a line of the
// OTLP file format and the body of an OTLP/HTTP request. b is valid only
// during the call.
type Sink interface {
	Batch(b []byte) error
}

// Lines is a Sink that writes each batch to w as one line: the OTLP JSON
// Lines file format (opentelemetry-specification,
// specification/protocol/file-exporter.md).
func Lines(w io.Writer) Sink { return lineSink{w} }

type lineSink struct{ w io.Writer }

func (l lineSink) Batch(b []byte) error {
	if _, err := l.w.Write(b); err != nil {
		return err
	}
	_, err := l.w.Write([]byte{'\n'})
	return err
}

// Tee is a Sink that hands each batch to every sink in turn; the first
// error stops it.
func Tee(sinks ...Sink) Sink { return tee(sinks) }

type tee []Sink

func (t tee) Batch(b []byte) error {
	for _, s := range t {
		if s == nil {
			continue
		}
		if err := s.Batch(b); err != nil {
			return err
		}
	}
	return nil
}

// batcher gathers encoded spans into batches under a byte bound.
type batcher struct {
	sink  Sink
	max   int
	head  []byte // the request up to the first span: resource and scope
	tail  []byte
	buf   []byte
	n     int // spans in buf
	spans int // spans written, in every batch
	count int // batches handed to the sink
	err   error
}

// KeyValue is a resource attribute, a string.
type KeyValue struct{ Key, Value string }

func newBatcher(sink Sink, max int, resource []KeyValue, version string) *batcher {
	b := &batcher{sink: sink, max: max}
	h := []byte(`{"resourceSpans":[{"resource":{"attributes":[`)
	for k, kv := range resource {
		if k > 0 {
			h = append(h, ',')
		}
		h = append(h, `{"key":`...)
		h = jsonx.AppendString(h, kv.Key)
		h = append(h, `,"value":{"stringValue":`...)
		h = jsonx.AppendString(h, clip(kv.Value, maxValue))
		h = append(h, `}}`...)
	}
	h = append(h, `]},"scopeSpans":[{"scope":{"name":`...)
	h = jsonx.AppendString(h, ScopeName)
	if version != "" {
		h = append(h, `,"version":`...)
		h = jsonx.AppendString(h, version)
	}
	h = append(h, `},"spans":[`...)
	b.head = h
	b.tail = []byte(`],"schemaUrl":"` + SchemaURL + `"}],"schemaUrl":"` + SchemaURL + `"}]}`)
	b.buf = append(make([]byte, 0, 64<<10), h...)
	return b
}

// add appends one encoded span, handing the batch to the sink first when
// the span would take it past the bound.
func (b *batcher) add(sp []byte) {
	if b.err != nil {
		return
	}
	if b.n > 0 && len(b.buf)+1+len(sp)+len(b.tail) > b.max {
		b.flush()
		if b.err != nil {
			return
		}
	}
	if b.n > 0 {
		b.buf = append(b.buf, ',')
	}
	b.buf = append(b.buf, sp...)
	b.n++
	b.spans++
}

// flush hands the batch in hand, if any, to the sink.
func (b *batcher) flush() {
	if b.n == 0 || b.err != nil {
		return
	}
	b.buf = append(b.buf, b.tail...)
	b.err = b.sink.Batch(b.buf)
	b.count++
	b.buf, b.n = append(b.buf[:0], b.head...), 0
}
