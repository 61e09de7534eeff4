// Package pdatacheck reads clawtap's OTLP/JSON export with the
// OpenTelemetry Collector's own parser, pdata (ptrace.JSONUnmarshaler,
// strict). It lives in e2e/otelcol's module so that pdata never reaches
// clawtap's go.mod; make test runs it (scripts/test.sh, stage otlp).
package pdatacheck

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/clawtap/clawtap/e2e/otelcol/canon"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/check"
	"github.com/clawtap/clawtap/pkg/models"
	"github.com/clawtap/clawtap/pkg/otlp"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

var root = filepath.Join("..", "..", "..")

func captures(t *testing.T) []string {
	t.Helper()
	var paths []string
	for _, pat := range []string{"fixtures/*.jsonl.zst", "fixtures/*.jsonl", "pkg/models/clawboo/testdata/*.jsonl.zst"} {
		m, err := filepath.Glob(filepath.Join(root, pat))
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, m...)
	}
	if len(paths) < 15 {
		t.Fatalf("only %d captures", len(paths))
	}
	return paths
}

// export is report --format otlp --ui all's pass, in process.
func export(t *testing.T, path string, batch int) []byte {
	t.Helper()
	r, err := capture.Open(path, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var buf bytes.Buffer
	e := otlp.New(otlp.Options{Sink: otlp.Lines(&buf), Name: filepath.Base(path), Version: "pdatacheck", BatchBytes: batch})
	m, err := check.NewMulti(check.Options{}, models.All())
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Pass(pipeline.Options{}, e).Run(pipeline.Records(r)); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Every batch of every capture's export parses with the collector's
// parser, unknown fields refused, with as many spans as clawtap wrote;
// what pdata writes back parses to the same; and the spans are the same
// whatever the batching.
func TestExportParsesWithPdata(t *testing.T) {
	for _, path := range captures(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			out := export(t, path, 0)
			n := 0
			for _, line := range bytes.Split(bytes.TrimSuffix(out, []byte{'\n'}), []byte{'\n'}) {
				td, err := (&ptrace.JSONUnmarshaler{DisallowUnknownFields: true}).UnmarshalTraces(line)
				if err != nil {
					t.Fatalf("pdata: %v", err)
				}
				var raw struct {
					ResourceSpans []struct {
						ScopeSpans []struct {
							Spans []json.RawMessage `json:"spans"`
						} `json:"scopeSpans"`
					} `json:"resourceSpans"`
				}
				if err := json.Unmarshal(line, &raw); err != nil {
					t.Fatal(err)
				}
				if want := len(raw.ResourceSpans[0].ScopeSpans[0].Spans); td.SpanCount() != want {
					t.Fatalf("pdata read %d spans, the batch has %d", td.SpanCount(), want)
				}
				n += td.SpanCount()
				back, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
				if err != nil {
					t.Fatal(err)
				}
				a, _ := canon.Batch(line)
				b, err := canon.Batch(back)
				if err != nil || !slices.Equal(a, b) {
					t.Fatalf("pdata's own form reads differently (%v)", err)
				}
			}
			whole, err := canon.Read(bytes.NewReader(out))
			if err != nil {
				t.Fatal(err)
			}
			small, err := canon.Read(bytes.NewReader(export(t, path, 2048)))
			if err != nil {
				t.Fatal(err)
			}
			if len(whole) != n || !slices.Equal(whole, small) {
				t.Fatalf("%d spans in one batch and %d in 2 KiB batches differ", len(whole), len(small))
			}
		})
	}
}

// What pdata reads is what clawtap meant: kinds, status, times, parents,
// typed attributes, events, links.
func TestExportValuesAsPdataReadsThem(t *testing.T) {
	out := export(t, filepath.Join(root, "fixtures", "tool-run.jsonl.zst"), 0)
	td, err := (&ptrace.JSONUnmarshaler{DisallowUnknownFields: true}).UnmarshalTraces(out)
	if err != nil {
		t.Fatal(err)
	}
	rs := td.ResourceSpans().At(0)
	if v, _ := rs.Resource().Attributes().Get("service.name"); v.Str() != "clawtap" || rs.SchemaUrl() != otlp.SchemaURL {
		t.Errorf("resource %v schema %s", rs.Resource().Attributes().AsRaw(), rs.SchemaUrl())
	}
	byName := map[string]ptrace.Span{}
	spans := rs.ScopeSpans().At(0).Spans()
	for i := 0; i < spans.Len(); i++ {
		byName[spans.At(i).Name()] = spans.At(i)
	}
	run, send, tool := byName["openclaw.run"], byName["chat.send"], byName["openclaw.tool.execution"]
	if run.Kind() != ptrace.SpanKindClient || send.Kind() != ptrace.SpanKindClient || tool.Kind() != ptrace.SpanKindInternal {
		t.Errorf("kinds %v %v %v", run.Kind(), send.Kind(), tool.Kind())
	}
	if run.ParentSpanID() != send.SpanID() || tool.ParentSpanID() != run.SpanID() || !send.ParentSpanID().IsEmpty() || run.TraceID() != send.TraceID() {
		t.Error("parents")
	}
	if run.Status().Code() != ptrace.StatusCodeUnset {
		t.Errorf("status %v", run.Status().Code())
	}
	if d := run.EndTimestamp().AsTime().Sub(run.StartTimestamp().AsTime()); d != 1223*time.Millisecond {
		t.Errorf("run lasted %v", d)
	}
	attrs := run.Attributes()
	if v, ok := attrs.Get("gen_ai.usage.input_tokens"); !ok || v.Type() != pcommon.ValueTypeInt || v.Int() != 812 {
		t.Errorf("input tokens %v", v.AsRaw())
	}
	if v, ok := attrs.Get("gen_ai.response.finish_reasons"); !ok || v.Type() != pcommon.ValueTypeSlice || v.Slice().At(0).Str() != "stop" {
		t.Errorf("finish reasons %v", v.AsRaw())
	}
	// Under every UI, the run's clawtap.ui.* are the first UI's: the
	// oldest clawboo, whose closed-run guard loses this reply.
	ui, _ := attrs.Get("clawtap.ui")
	if v, ok := attrs.Get("clawtap.ui.reply_committed"); !ok || v.Type() != pcommon.ValueTypeBool || v.Bool() || ui.Str() != models.All()[0].String() {
		t.Errorf("%s: reply committed %v", ui.Str(), v.AsRaw())
	}
	if run.Events().Len() == 0 || send.Links().Len() != 1 || run.Flags() != 0x101 {
		t.Errorf("events %d links %d flags %#x", run.Events().Len(), send.Links().Len(), run.Flags())
	}
}
