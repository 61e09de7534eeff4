package bench

import (
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/check"
	"github.com/clawtap/clawtap/pkg/otlp"
	"github.com/clawtap/clawtap/pkg/pipeline"
)

// countSink counts the batches and bytes an export writes, keeping none.
type countSink struct {
	batches int
	bytes   int64
}

func (c *countSink) Batch(b []byte) error { c.batches++; c.bytes += int64(len(b)); return nil }

// otlpPass is report --format otlp's pass: check and the exporter.
func otlpPass(t *testing.T, sink otlp.Sink) (*pipeline.Pass, *otlp.Exporter) {
	an, err := check.New(check.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := otlp.New(otlp.Options{Sink: sink, Name: "bench", Version: "bench"})
	return pipeline.New(pipeline.Options{}, e, an), e
}

// TestOTLPMemoryOverManyRuns: the export writes each run's spans as the
// pass's run table lets the run go, so its heap stays flat over 60,000
// short runs (and their findings).
func TestOTLPMemoryOverManyRuns(t *testing.T) {
	sink := &countSink{}
	p, e := otlpPass(t, sink)
	h := memoryRunFile(t, manyRunsCapture(t, 60_000, 5), 240_000, func(rec *capture.Record) {
		if _, err := p.Push(rec, nil); err != nil {
			t.Fatal(err)
		}
	}, func() {
		if err := p.Close(capture.Stats{}); err != nil {
			t.Fatal(err)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
	})
	if st := e.Stats(); st.Runs < 60_000 || st.Findings < 60_000 {
		t.Fatalf("%+v, want 60,000 runs and findings: the capture no longer has what this test needs", st)
	}
	if h.end > h.third+2<<20 {
		t.Fatalf("heap in use grew from %.1f MiB at 20,000 runs to %.1f MiB at 60,000: the export must not keep what it wrote", h.mib(h.third), h.mib(h.end))
	}
	t.Logf("heap in use: %.1f MiB at 20,000 runs, %.1f MiB at 60,000, peak %.1f MiB; %d batches, %.1f MB", h.mib(h.third), h.mib(h.end), h.mib(h.peak), sink.batches, float64(sink.bytes)/1e6)
}

// TestOTLPMemoryFlat: on the bench's kind of capture (long streamed runs,
// tools, approvals, restarts) the heap a third in is the heap at the end.
func TestOTLPMemoryFlat(t *testing.T) {
	sink := &countSink{}
	p, e := otlpPass(t, sink)
	h := memoryRun(t, 300_000, 1, func(rec *capture.Record) {
		if _, err := p.Push(rec, nil); err != nil {
			t.Fatal(err)
		}
	}, func() {
		if err := p.Close(capture.Stats{}); err != nil {
			t.Fatal(err)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
	})
	if h.end > h.third+2<<20 {
		t.Fatalf("heap in use grew from %.1f MiB a third in to %.1f MiB at the end", h.mib(h.third), h.mib(h.end))
	}
	t.Logf("heap in use: %.1f MiB a third in, %.1f MiB at the end, peak %.1f MiB; %+v, %d batches, %.1f MB", h.mib(h.third), h.mib(h.end), h.mib(h.peak), e.Stats(), sink.batches, float64(sink.bytes)/1e6)
}
