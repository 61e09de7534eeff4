package otlp_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/otlp"
)

func TestParseTraceParent(t *testing.T) {
	const tid, sid = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	for _, c := range []struct {
		in    string
		ok    bool
		flags byte
	}{
		{"00-" + tid + "-" + sid + "-01", true, 1},
		{"00-" + strings.ToUpper(tid) + "-" + sid + "-00", true, 0}, // a gateway lower-cases it
		{"  00-" + tid + "-" + sid + "-01\n", true, 1},              // and trims it
		{"\u00a000-" + tid + "-" + sid + "-03\u2028", true, 3},      // as JavaScript's trim does
		{"01-" + tid + "-" + sid + "-01-future", true, 1},           // a later version may have more fields
		{"00-" + tid + "-" + sid + "-01-extra", false, 0},           // version 00 has four
		{"ff-" + tid + "-" + sid + "-01", false, 0},
		{"0-" + tid + "-" + sid + "-01", false, 0},
		{"00-00000000000000000000000000000000-" + sid + "-01", false, 0},
		{"00-" + tid + "-0000000000000000-01", false, 0},
		{"00-" + tid[:31] + "-" + sid + "-01", false, 0},
		{"00-" + tid + "-" + sid + "-1", false, 0},
		{"00-" + tid + "-" + sid, false, 0},
		{"00_" + tid + "_" + sid + "_01", false, 0},
		{"00-" + tid + "-" + sid + "-0g", false, 0},
		{"01-" + tid + "-" + sid + "-01-" + strings.Repeat("x", 73), false, 0}, // 129 characters
		{"", false, 0},
	} {
		tp, ok := otlp.ParseTraceParent(c.in)
		if ok != c.ok || ok && (tp.Trace.String() != tid || tp.Span.String() != sid || tp.Flags != c.flags) {
			t.Errorf("%q: %v %s, want %v", c.in, ok, tp, c.ok)
		}
	}
}

// FuzzTraceParent: any string parses or not, never panics; what parses
// writes back as a traceparent that parses to the same.
func FuzzTraceParent(f *testing.F) {
	f.Add("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	f.Add(" 00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-ff ")
	f.Add("cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x-y")
	f.Add("\xed\xa0\x80")
	f.Fuzz(func(t *testing.T, s string) {
		tp, ok := otlp.ParseTraceParent(s)
		if !ok {
			return
		}
		if tp.Trace.IsZero() || tp.Span.IsZero() {
			t.Fatalf("%q parsed to zero ids", s)
		}
		back, ok := otlp.ParseTraceParent(tp.String())
		if !ok || back != tp {
			t.Fatalf("%q → %s → %v %v", s, tp, back, ok)
		}
	})
}

const joinCapture = `{"clawtap":1,"createdAt":"2026-11-28T00:00:00Z","source":{"mode":"record","url":"ws://127.0.0.1:18789"}}
{"t":1000,"conn":1,"mark":"open","url":"ws://127.0.0.1:18789"}
{"t":1001,"conn":1,"dir":"out","frame":{"type":"req","id":"c1","method":"connect","params":{"client":{"id":"cli","mode":"cli","version":"1"}},"traceparent":"00-11111111111111111111111111111111-2222222222222222-01"}}
{"t":1002,"conn":1,"dir":"in","frame":{"type":"res","id":"c1","ok":true,"payload":{"type":"hello-ok","protocol":4,"server":{"version":"2026.9.6"}}}}
{"t":1010,"conn":1,"dir":"out","frame":{"type":"req","id":"s1","method":"chat.send","params":{"sessionKey":"agent:main:main","message":"hi","idempotencyKey":"run-1"},"traceparent":"00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01"}}
{"t":1012,"conn":1,"dir":"in","frame":{"type":"event","event":"agent","seq":1,"payload":{"runId":"run-1","sessionKey":"agent:main:main","stream":"lifecycle","data":{"phase":"start"}}}}
{"t":1013,"conn":1,"dir":"in","frame":{"type":"res","id":"s1","ok":true,"payload":{"runId":"run-1","status":"started"}}}
{"t":1020,"conn":1,"dir":"in","frame":{"type":"event","event":"agent","seq":2,"payload":{"runId":"run-1","sessionKey":"agent:main:main","stream":"tool","data":{"phase":"start","name":"ls","toolCallId":"t1"}}}}
{"t":1030,"conn":1,"dir":"in","frame":{"type":"event","event":"agent","seq":3,"payload":{"runId":"run-1","sessionKey":"agent:main:main","stream":"tool","data":{"phase":"result","name":"ls","toolCallId":"t1","isError":true}}}}
{"t":1040,"conn":1,"dir":"in","frame":{"type":"event","event":"chat","seq":4,"payload":{"runId":"run-1","sessionKey":"agent:main:main","state":"final","message":{"role":"assistant","content":[{"type":"text","text":"done"}]}}}}
{"t":1050,"conn":1,"dir":"out","frame":{"type":"req","id":"s2","method":"sessions.list","params":{},"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00000000000000000-01"}}
{"t":1051,"conn":1,"dir":"in","frame":{"type":"res","id":"s2","ok":false,"error":{"code":"INVALID_REQUEST","message":"bad"}}}
{"t":1060,"conn":1,"mark":"close","code":1000}
`

// A request that carried a traceparent the gateway takes joins the
// caller's trace, under the caller's span (a remote parent), and the run
// it started, with its tool call, joins with it; connect's is ignored, as
// the gateway ignores it, and a malformed one leaves its request in the
// capture's trace.
func TestTraceParentJoins(t *testing.T) {
	r, err := capture.NewReader(strings.NewReader(joinCapture), capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := export(t, r, otlp.Options{})
	spans := parse(t, out, 0)
	got := map[string]*jspan{}
	for k := range spans {
		got[spans[k].Name] = &spans[k]
	}
	const upstream, caller = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	send, run, tool, capt := got["chat.send"], got["openclaw.run"], got["openclaw.tool.execution"], got["clawtap.capture"]
	if send == nil || run == nil || tool == nil || capt == nil {
		t.Fatalf("spans %v", byName(spans))
	}
	if send.TraceID != upstream || send.ParentSpanID != caller || send.Flags != 0x301 || send.attr("clawtap.rpc.trace_joined") != "true" {
		t.Errorf("chat.send: trace %s parent %s flags %#x", send.TraceID, send.ParentSpanID, send.Flags)
	}
	if run.TraceID != upstream || run.ParentSpanID != send.SpanID || tool.TraceID != upstream || tool.ParentSpanID != run.SpanID {
		t.Errorf("run in %s under %s, tool in %s under %s", run.TraceID, run.ParentSpanID, tool.TraceID, tool.ParentSpanID)
	}
	if tool.Status == nil || tool.Status.Code != 2 {
		t.Errorf("tool status %+v", tool.Status)
	}
	if c := got["connect"]; c.TraceID != capt.TraceID || c.attr("clawtap.rpc.trace_joined") != "false" {
		t.Errorf("connect in %s (joined %s)", c.TraceID, c.attr("clawtap.rpc.trace_joined"))
	}
	if l := got["sessions.list"]; l.TraceID != capt.TraceID || l.attr("clawtap.rpc.trace_joined") != "false" ||
		l.Status == nil || l.attr("error.type") != "INVALID_REQUEST" || l.attr("rpc.response.status_code") != "INVALID_REQUEST" {
		t.Errorf("sessions.list: trace %s, %+v", l.TraceID, l.Attributes)
	}
	// The run was born before the response named it: the request's
	// idempotency key had already.
	if run.attr("clawtap.run.time_to_first_delta_ms") != "" || run.attr("clawtap.run.id") != "run-1" || send.attr("clawtap.run.id") != "run-1" {
		t.Errorf("run attributes %+v", run.Attributes)
	}
	again, _ := export(t, mustReader(t, joinCapture), otlp.Options{})
	if !bytes.Equal(out, again) {
		t.Error("two exports differ")
	}
}

func mustReader(t *testing.T, s string) *capture.Reader {
	t.Helper()
	r, err := capture.NewReader(strings.NewReader(s), capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}
