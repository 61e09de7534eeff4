package otlp_test

import (
	"bytes"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/otlp"
	"github.com/clawtap/clawtap/pkg/pipeline"
)

// FuzzExport runs arbitrary capture bytes through the pass with the
// exporter (and check beside it): it never panics, every batch is OTLP
// that keeps the rules parse checks (ids, kinds, times, parents, links),
// the same capture gives the same bytes, and the spans do not depend on
// the batch bound or on how many runs the table holds.
func FuzzExport(f *testing.F) {
	f.Add([]byte(joinCapture))
	f.Add([]byte(`{"t":1,"conn":1,"dir":"in","frame":{"type":"event","event":"exec.approval.requested","payload":{"id":"a1","request":{"agentId":"main","runId":"r2","toolCallId":"t1"}}}}
{"t":2,"conn":1,"dir":"in","frame":{"type":"event","event":"agent","payload":{"runId":"r2","agentId":"main","stream":"tool","data":{"phase":"start","name":"exec","toolCallId":"t1"}}}}
{"t":900,"conn":1,"dir":"in","frame":{"type":"event","event":"exec.approval.resolved","payload":{"id":"a1","decision":"deny"}}}
{"t":3,"conn":2,"dir":"in","raw":"not json"}
not a record
{"t":4,"conn":2,"dir":"in","frame":[1,2]}
{"t":5,"conn":2,"dir":"in","frame":{"type":"event","event":"session.tool","payload":{"runId":"r2","data":{"phase":"result","toolCallId":"t1"}}}}
{"t":6,"conn":1,"dir":"in","frame":{"type":"event","event":"plugin.approval.requested","payload":{"id":"p1","request":{"runId":"r9"}}}}
`))
	f.Add([]byte(`{"type":"event","event":"agent","payload":{"runId":"r1","sessionKey":"agent:main:main","stream":"assistant","data":{"text":"a","delta":"a"}}}
{"type":"req","id":"x","method":"agent","params":{"idempotencyKey":"r1"},"traceparent":"00-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-bbbbbbbbbbbbbbbb-01"}
{"type":"res","id":"x","ok":true,"payload":{"runId":"r1","status":"accepted"}}
{"type":"event","event":"chat","payload":{"runId":"r1","sessionKey":"agent:main:main","state":"aborted"}}
{"type":"event","event":"agent","payload":{"runId":"r1","sessionKey":"agent:main:main","stream":"lifecycle","data":{"phase":"model","provider":"p","model":"m"}}}
{"type":"res","id":"x","ok":true,"payload":{"runId":"r1","status":"ok"}}
`))
	f.Fuzz(func(t *testing.T, data []byte) {
		one, ok := fuzzExport(t, data, otlp.DefaultBatchBytes, 0)
		if !ok {
			return
		}
		spans, err := parseErr(one, otlp.DefaultBatchBytes)
		if err != nil {
			t.Fatalf("%v\n%s", err, one)
		}
		two, _ := fuzzExport(t, data, otlp.DefaultBatchBytes, 0)
		if !bytes.Equal(one, two) {
			t.Fatal("the same capture exported two ways")
		}
		small, _ := fuzzExport(t, data, 512, 0)
		smallSpans, err := parseErr(small, 0)
		if err != nil || len(smallSpans) != len(spans) {
			t.Fatalf("512-byte batches: %d spans (%v), want %d", len(smallSpans), err, len(spans))
		}
		crowded, _ := fuzzExport(t, data, otlp.DefaultBatchBytes, 1)
		if _, err := parseErr(crowded, 0); err != nil {
			t.Fatalf("one run held: %v", err)
		}
	})
}

func fuzzExport(t *testing.T, data []byte, batch, maxRuns int) ([]byte, bool) {
	r, err := capture.NewReader(bytes.NewReader(data), capture.Options{})
	if err != nil {
		return nil, false
	}
	defer r.Close()
	var buf bytes.Buffer
	e := otlp.New(otlp.Options{Sink: otlp.Lines(&buf), BatchBytes: batch, Name: "fuzz"})
	if err := pipeline.New(pipeline.Options{MaxRuns: maxRuns}, e).Run(pipeline.Records(r)); err != nil {
		return nil, false
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), true
}
