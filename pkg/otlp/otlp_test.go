package otlp_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/models"
	"github.com/clawtap/clawtap/pkg/otlp"
)

func fixtures(t *testing.T) []string {
	t.Helper()
	var paths []string
	for _, pat := range []string{"*.jsonl.zst", "*.jsonl"} {
		m, err := filepath.Glob(filepath.Join("..", "..", "fixtures", pat))
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, m...)
	}
	paths = append(paths, realCapture)
	if len(paths) < 10 {
		t.Fatalf("only %d fixtures found", len(paths))
	}
	return paths
}

// realCapture was recorded from a real OpenClaw 2026.9.6 gateway.
const realCapture = "../models/clawboo/testdata/real-gateway-session.jsonl.zst"

// Every fixture exports spans that keep OTLP's rules (the collector's
// parser checks less: parse does the rest), the same bytes twice, and
// the same spans whatever the batch bound.
func TestExportFixtures(t *testing.T) {
	for _, path := range fixtures(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			out, st := exportFile(t, path, otlp.Options{Name: filepath.Base(path)})
			spans := parse(t, out, otlp.DefaultBatchBytes)
			if len(spans) != st.Spans || st.Batches != bytes.Count(out, []byte{'\n'}) {
				t.Fatalf("stats %+v, %d spans in %d lines", st, len(spans), bytes.Count(out, []byte{'\n'}))
			}
			again, _ := exportFile(t, path, otlp.Options{Name: filepath.Base(path)})
			if !bytes.Equal(out, again) {
				t.Fatal("the same capture exported two ways")
			}
			small, st2 := exportFile(t, path, otlp.Options{Name: filepath.Base(path), BatchBytes: 4096})
			smallSpans := parse(t, small, 0)
			for k, line := range bytes.Split(bytes.TrimSuffix(small, []byte{'\n'}), []byte{'\n'}) {
				var d doc
				if err := jsonUnmarshal(line, &d); err != nil {
					t.Fatal(err)
				}
				if n := len(d.ResourceSpans[0].ScopeSpans[0].Spans); len(line) > 4096 && n > 1 { // a span alone may pass the bound
					t.Fatalf("line %d: %d bytes, %d spans, over the 4 KiB bound", k+1, len(line), n)
				}
			}
			if st2.Spans != st.Spans || !slices.EqualFunc(spans, smallSpans, func(a, b jspan) bool { return a.SpanID == b.SpanID }) {
				t.Fatalf("4 KiB batches: %d spans, want the %d of one batch", st2.Spans, st.Spans)
			}
			if n := byName(spans)["clawtap.capture"]; n != 1 {
				t.Fatalf("%d capture spans", n)
			}
		})
	}
}

// A tool run: the chat.send is the root of the run's trace, the run its
// child, the tool call the run's; the capture's trace holds the
// connections and the connect requests.
func TestExportToolRun(t *testing.T) {
	out, _ := exportFile(t, "../../fixtures/tool-run.jsonl.zst", otlp.Options{Name: "tool-run"})
	spans := parse(t, out, 0)
	got := map[string]*jspan{}
	for k := range spans {
		got[spans[k].Name] = &spans[k]
	}
	send, run, tool, capt := got["chat.send"], got["openclaw.run"], got["openclaw.tool.execution"], got["clawtap.capture"]
	if send == nil || run == nil || tool == nil || capt == nil {
		t.Fatalf("spans: %v", byName(spans))
	}
	if send.ParentSpanID != "" || send.TraceID == capt.TraceID || len(send.Links) != 1 {
		t.Errorf("chat.send: parent %q, trace %s (capture's %s), links %v", send.ParentSpanID, send.TraceID, capt.TraceID, send.Links)
	}
	if run.TraceID != send.TraceID || run.ParentSpanID != send.SpanID || run.Kind != 3 {
		t.Errorf("run: trace %s parent %s kind %d", run.TraceID, run.ParentSpanID, run.Kind)
	}
	if tool.TraceID != run.TraceID || tool.ParentSpanID != run.SpanID {
		t.Errorf("tool: trace %s parent %s", tool.TraceID, tool.ParentSpanID)
	}
	for k, want := range map[string]string{
		"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.id": "main", "gen_ai.conversation.id": "agent:main:main",
		"gen_ai.provider.name": "fake", "gen_ai.request.model": "fake-model", "gen_ai.response.model": "fake-model",
		"gen_ai.usage.input_tokens": "812", "gen_ai.usage.output_tokens": "31", "gen_ai.response.finish_reasons": `[{"stringValue":"stop"}]`,
		"openclaw.outcome": "completed", "clawtap.run.terminal": "final", "server.address": "127.0.0.1", "server.port": "18789",
		"clawtap.run.tool_calls": "1", "clawtap.ui": models.Default().String(), "clawtap.ui.reply_committed": "true",
	} {
		if v := run.attr(k); v != want {
			t.Errorf("run %s = %q, want %q", k, v, want)
		}
	}
	for k, want := range map[string]string{"gen_ai.tool.name": "ls", "gen_ai.operation.name": "execute_tool", "gen_ai.tool.call.id": "call_6b68b8c651b6ca0a273574af", "clawtap.tool.duration_ms": "40"} {
		if v := tool.attr(k); v != want {
			t.Errorf("tool %s = %q, want %q", k, v, want)
		}
	}
	// Both connections see the run: its stream is read once, on the
	// sender's connection, and its deltas are counted, not one event each.
	if n := run.attr("clawtap.run.deltas.chat"); n == "0" || run.attr("clawtap.run.deltas.agent") != n {
		t.Errorf("deltas chat %s agent %s", n, run.attr("clawtap.run.deltas.agent"))
	}
	var stretches, lifecycle int
	for _, e := range run.Events {
		switch e.Name {
		case "clawtap.deltas":
			stretches++
		case "clawtap.lifecycle":
			lifecycle++
		}
	}
	if stretches != 2 || lifecycle != 5 {
		t.Errorf("%d delta stretches (want 2: before and after the tool), %d lifecycle events (want 5)", stretches, lifecycle)
	}
	if got := byName(spans)["clawtap.connection"]; got != 2 {
		t.Errorf("%d connection spans", got)
	}
}

// With GenAINames the spans are named as the GenAI conventions do.
func TestExportGenAINames(t *testing.T) {
	out, _ := exportFile(t, "../../fixtures/tool-run.jsonl.zst", otlp.Options{GenAINames: true})
	names := byName(parse(t, out, 0))
	if names["invoke_agent main"] != 1 || names["execute_tool ls"] != 1 || names["openclaw.run"] != 0 {
		t.Fatalf("names %v", names)
	}
}

// A failed run is an ERROR span with the gateway's error kind; an
// aborted one is not an error.
func TestExportOutcomes(t *testing.T) {
	for _, c := range []struct{ fixture, outcome, errType string }{
		{"error-run", "error", "rate_limit"},
		{"abort", "aborted", ""},
	} {
		out, _ := exportFile(t, "../../fixtures/"+c.fixture+".jsonl.zst", otlp.Options{})
		for _, s := range parse(t, out, 0) {
			if s.Name != "openclaw.run" {
				continue
			}
			if s.attr("openclaw.outcome") != c.outcome || s.attr("error.type") != c.errType || (s.Status != nil) != (c.errType != "") {
				t.Errorf("%s: outcome %q error.type %q status %+v", c.fixture, s.attr("openclaw.outcome"), s.attr("error.type"), s.Status)
			}
			if c.errType != "" && !strings.Contains(s.Status.Message, "429") {
				t.Errorf("%s: status message %q", c.fixture, s.Status.Message)
			}
		}
	}
}

// An approval is a span under the tool call it held up; its decision
// and wait are the span's.
func TestExportApprovals(t *testing.T) {
	out, _ := exportFile(t, "../../fixtures/exec-approval.jsonl.zst", otlp.Options{})
	spans := parse(t, out, 0)
	tools := map[string]*jspan{}
	for k := range spans {
		if spans[k].Name == "openclaw.tool.execution" {
			tools[spans[k].SpanID] = &spans[k]
		}
	}
	var decisions []string
	for _, s := range spans {
		if s.Name != "clawtap.approval" {
			continue
		}
		tl := tools[s.ParentSpanID]
		if tl == nil || tl.attr("gen_ai.tool.call.id") != s.attr("gen_ai.tool.call.id") || s.attr("clawtap.approval.resolved") != "true" {
			t.Errorf("approval %s: parent %s, tool %v", s.attr("clawtap.approval.id"), s.ParentSpanID, tl)
		}
		decisions = append(decisions, s.attr("clawtap.approval.decision"))
	}
	if strings.Join(decisions, ",") != "allow-once,deny" {
		t.Errorf("decisions %v", decisions)
	}
	// The run's span shows them too: an event at each request and
	// resolution.
	var evs []string
	for _, s := range spans {
		if s.Name != "openclaw.run" {
			continue
		}
		for _, e := range s.Events {
			if strings.HasPrefix(e.Name, "clawtap.approval.") {
				evs = append(evs, strings.TrimPrefix(e.Name, "clawtap.approval.")+" "+attrOf(e.Attributes, "clawtap.approval.decision"))
			}
		}
	}
	if got := strings.Join(evs, ","); got != "requested ,resolved allow-once,requested ,resolved deny" {
		t.Errorf("approval events on the runs: %s", got)
	}
}

// A seq gap is an event on its connection's span; check's finding of it
// is another.
func TestExportSeqGap(t *testing.T) {
	out, _ := exportFile(t, "../../fixtures/seq-gap.jsonl.zst", otlp.Options{})
	var gaps, findings int
	for _, s := range parse(t, out, 0) {
		for _, e := range s.Events {
			switch {
			case e.Name == "clawtap.seq_gap" && s.Name == "clawtap.connection" && attrOf(e.Attributes, "clawtap.seq.kind") == "gap":
				gaps++
				if attrOf(e.Attributes, "clawtap.seq.missing") != "5" {
					t.Errorf("gap event %+v", e.Attributes)
				}
			case e.Name == "clawtap.finding" && attrOf(e.Attributes, "clawtap.finding.rule") == "seq-gap":
				findings++
			}
		}
	}
	if gaps != 1 || findings != 1 {
		t.Fatalf("%d gap events, %d seq-gap findings", gaps, findings)
	}
}

// Checked under every UI version, a finding that depends on the UI says
// which versions show it.
func TestExportFindingUIs(t *testing.T) {
	r, err := capture.Open("../../fixtures/streamed-run.jsonl.zst", capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	out := exportMulti(t, r, otlp.Options{}, models.All())
	for _, s := range parse(t, out, 0) {
		for _, e := range s.Events {
			if attrOf(e.Attributes, "clawtap.finding.rule") != "lost-reply" {
				continue
			}
			if s.Name != "openclaw.run" || attrOf(e.Attributes, "clawtap.finding.uis") != `[{"stringValue":"clawboo@1211c16"}]` ||
				!strings.Contains(attrOf(e.Attributes, "clawtap.finding.not_uis"), "claw3d") {
				t.Fatalf("lost-reply on %s: %+v", s.Name, e.Attributes)
			}
			return
		}
	}
	t.Fatal("no lost-reply finding")
}

// The resource: service.name (OTEL_SERVICE_NAME's), the version, the
// attributes from the environment, the capture's name.
func TestExportResource(t *testing.T) {
	out, _ := exportFile(t, "../../fixtures/demo.jsonl.zst", otlp.Options{Name: "demo", ServiceName: "ui-tests",
		Resource: []otlp.KeyValue{{"deployment.environment.name", "ci"}, {"service.version", "ignored"}}})
	var d doc
	line, _, _ := bytes.Cut(out, []byte{'\n'})
	if err := jsonUnmarshal(line, &d); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range d.ResourceSpans[0].Resource.Attributes {
		got = append(got, a.Key+"="+*a.Value.StringValue)
	}
	if want := "service.name=ui-tests service.version=test deployment.environment.name=ci clawtap.capture.name=demo"; strings.Join(got, " ") != want {
		t.Fatalf("resource %v, want %s", got, want)
	}
}

// A capture of many connections (more than the exporter holds) exports
// a span for each, in linear time, ids unique, parents and links whole.
func TestExportManyConnections(t *testing.T) {
	skipLarge(t) // the export runs on one goroutine
	var b strings.Builder
	b.WriteString(`{"clawtap":1,"createdAt":"2026-11-28T00:00:00Z","source":{"mode":"record"}}` + "\n")
	const n = 6_000 // half again the 4096 connections an export holds
	for c := 1; c <= n; c++ {
		t0 := 1000 + c*10
		fmt.Fprintf(&b, `{"t":%d,"conn":%d,"mark":"open","url":"ws://127.0.0.1:18789"}`+"\n", t0, c)
		fmt.Fprintf(&b, `{"t":%d,"conn":%d,"dir":"out","frame":{"type":"req","id":"c","method":"connect","params":{}}}`+"\n", t0+1, c)
		fmt.Fprintf(&b, `{"t":%d,"conn":%d,"dir":"in","frame":{"type":"res","id":"c","ok":true,"payload":{"type":"hello-ok"}}}`+"\n", t0+2, c)
		if c%2 == 0 {
			fmt.Fprintf(&b, `{"t":%d,"conn":%d,"mark":"close","code":1000}`+"\n", t0+3, c)
		}
	}
	fmt.Fprintf(&b, `{"t":999999,"conn":1,"dir":"in","frame":{"type":"event","event":"tick","payload":{}}}`+"\n")
	start := time.Now()
	out, st := export(t, mustReader(t, b.String()), otlp.Options{})
	spans := parse(t, out, 0)
	if names := byName(spans); names["clawtap.connection"] != n+1 || names["connect"] != n || st.Connections != n+1 {
		t.Fatalf("%v, %+v", names, st)
	}
	t.Logf("%d spans in %v", len(spans), time.Since(start).Round(time.Millisecond))
}
