//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clawtap/clawtap/internal/fakemodel"
	"github.com/clawtap/clawtap/pkg/gateway"
	"github.com/clawtap/clawtap/pkg/stats"
)

// TestOTLPExportToCollector records a session with the real gateway
// through the proxy — a tool run whose chat.send carries a traceparent,
// then a plain run — exports it with report --format otlp to a file and,
// over OTLP/HTTP, to a real OpenTelemetry Collector (built from the
// upstream modules: OTLP receiver, file exporter; scripts/otelcol-setup.sh)
// on loopback, and checks that
//
//   - what the collector wrote is the file's spans, read by the
//     collector's own parser (otlpcanon) on both sides;
//   - the request with the traceparent, its run and its tool call are in
//     the caller's trace, under the caller's span;
//   - the run spans are clawtap stats' runs: count, agents, outcomes,
//     durations.
func TestOTLPExportToCollector(t *testing.T) {
	col := otelcolSetup(t)
	path := h.capPath("otlp.jsonl.zst")
	rec, listen := h.proxy(t, "record-otlp", path)
	cl := h.driver(t, "ws://"+listen, "otlp-client")
	waitIdle(t, cl, 2*time.Second, 2*time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	const traceID, callerSpan = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
	run := sendTraced(t, ctx, cl, mainSession, "Traced from the caller: run a TOOL please.", "00-"+traceID+"-"+callerSpan+"-01")
	if p := waitChat(t, ctx, cl, run, "final", "error", "aborted"); p.State != "final" || p.text() != fakemodel.ToolDoneReply {
		t.Fatalf("traced tool run ended %s with %q", p.State, p.text())
	}
	plain := send(t, ctx, cl, mainSession, "And a plain one.")
	waitChat(t, ctx, cl, plain, "final", "error", "aborted")
	time.Sleep(time.Second)
	if err := cl.Close(); err != nil {
		t.Logf("client close: %v", err)
	}
	rec.signal(syscall.SIGTERM)
	if code := waitExit(t, rec, 15*time.Second); code != 0 {
		t.Fatalf("proxy exit %d:\n%s", code, rec.log())
	}

	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	colOut := filepath.Join(h.root, "caps", "collector.jsonl")
	env := append(baseEnv(), "OTLP_HTTP_PORT="+strconv.Itoa(port), "OTLP_OUT="+colOut)
	collector, err := h.start("otelcol", env, col["OTELCOL"], "--config="+col["OTELCOL_CONFIG"])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { collector.stop(10 * time.Second) })
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	eventually(t, 60*time.Second, "the collector to take requests", func() bool {
		if collector.exited() {
			t.Fatalf("the collector exited: %s", tail(collector.log(), 30))
		}
		resp, err := http.Post(base+"/v1/traces", "application/json", strings.NewReader("{}"))
		if err == nil {
			resp.Body.Close()
		}
		return err == nil && resp.StatusCode == 200
	})

	file := filepath.Join(h.root, "caps", "otlp.otlp.jsonl")
	cmd := exec.Command(h.clawtap, "report", "--format", "otlp", "--ui", "all", path, "-o", file, "--otlp-endpoint", base)
	cmd.Env = append(baseEnv(), "OTEL_EXPORTER_OTLP_HEADERS=x-e2e-key=not-a-real-secret", "OTEL_RESOURCE_ATTRIBUTES=deployment.environment.name=e2e")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "sent ") {
		t.Fatalf("report --otlp-endpoint: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "not-a-real-secret") {
		t.Errorf("a header's value on stderr: %s", out)
	}
	t.Logf("%s", bytes.TrimSpace(out))
	collector.signal(syscall.SIGTERM) // the file exporter flushes as it stops
	if code := waitExit(t, collector, 30*time.Second); code != 0 {
		t.Logf("collector exit %d: %s", code, tail(collector.log(), 20))
	}

	mine, theirs := canonical(t, col, file), canonical(t, col, colOut)
	if len(mine) == 0 || !slices.Equal(mine, theirs) {
		t.Fatalf("the collector wrote %d spans, the file has %d; they differ:\n%s", len(theirs), len(mine), firstDiff(mine, theirs))
	}
	t.Logf("the collector wrote the file's %d spans", len(mine))

	spans := readSpans(t, file)
	var send, runSpan, tool *e2eSpan
	for k := range spans {
		s := &spans[k]
		switch {
		case s.Name == "chat.send" && s.attr("clawtap.run.id") == run:
			send = s
		case s.Name == "openclaw.run" && s.attr("clawtap.run.id") == run:
			runSpan = s
		case s.Name == "openclaw.tool.execution" && s.attr("clawtap.run.id") == run:
			tool = s
		}
	}
	if send == nil || runSpan == nil || tool == nil {
		t.Fatalf("traced run's spans: send %v run %v tool %v", send != nil, runSpan != nil, tool != nil)
	}
	if send.TraceID != traceID || send.ParentSpanID != callerSpan || runSpan.TraceID != traceID || runSpan.ParentSpanID != send.SpanID ||
		tool.TraceID != traceID || tool.ParentSpanID != runSpan.SpanID {
		t.Errorf("the traced run is not in the caller's trace: send %s/%s, run %s/%s, tool %s/%s",
			send.TraceID, send.ParentSpanID, runSpan.TraceID, runSpan.ParentSpanID, tool.TraceID, tool.ParentSpanID)
	}

	so, _, code := h.clawtapRun(t, "stats", "--format", "json", path)
	var st stats.Stats
	if code != 0 || json.Unmarshal([]byte(so), &st) != nil {
		t.Fatalf("clawtap stats: exit %d: %s", code, so)
	}
	matchStats(t, spans, &st)
}

// otelcolSetup builds (once per source, cached) the collector and
// otlpcanon and returns their paths.
func otelcolSetup(t *testing.T) map[string]string {
	t.Helper()
	t0 := time.Now()
	setup := exec.Command("bash", filepath.Join(repoRoot(), "scripts", "otelcol-setup.sh"))
	setup.Env = append(os.Environ(), "CLAWTAP_E2E_CACHE="+h.cache)
	setup.Stderr = os.Stderr
	if out, err := setup.Output(); err != nil {
		t.Fatalf("scripts/otelcol-setup.sh: %v\n%s", err, out)
	}
	t.Logf("collector ready in %v", time.Since(t0).Round(time.Millisecond))
	env, err := readEnvFile(filepath.Join(h.cache, "otelcol.env"))
	if err != nil || env["OTELCOL"] == "" || env["OTLPCANON"] == "" {
		t.Fatalf("otelcol.env: %v %v", env, err)
	}
	return env
}

// sendTraced sends a chat.send that carries a traceparent (a top-level
// member of the req frame, which pkg/gateway's Call does not write) and
// returns its run id.
func sendTraced(t *testing.T, ctx context.Context, cl *gateway.Client, session, message, traceparent string) string {
	t.Helper()
	id := "otlp-" + randHex(4)
	frame, _ := json.Marshal(map[string]any{"type": "req", "id": id, "method": "chat.send", "traceparent": traceparent,
		"params": map[string]any{"sessionKey": session, "message": message, "idempotencyKey": "e2e-" + randHex(8)}})
	if err := cl.Conn().Send(frame); err != nil {
		t.Fatal(err)
	}
	m, err := cl.Wait(ctx, func(m gateway.Message) bool { return m.Type == "res" && m.ID == id })
	if err != nil || !m.OK {
		t.Fatalf("traced chat.send: %v %s", err, m.Raw)
	}
	var p struct {
		RunID string `json:"runId"`
	}
	if json.Unmarshal(m.Payload, &p); p.RunID == "" {
		t.Fatalf("traced chat.send: no runId in %s", m.Payload)
	}
	return p.RunID
}

// canonical is otlpcanon's form of an OTLP JSON Lines file.
func canonical(t *testing.T, col map[string]string, path string) []string {
	t.Helper()
	out, err := exec.Command(col["OTLPCANON"], path).Output()
	if err != nil {
		t.Fatalf("otlpcanon %s: %v", path, err)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
}

func firstDiff(a, b []string) string {
	for k := range min(len(a), len(b)) {
		if a[k] != b[k] {
			return fmt.Sprintf("file:      %.600s\ncollector: %.600s", a[k], b[k])
		}
	}
	return "(one is a prefix of the other)"
}

type e2eSpan struct {
	TraceID      string `json:"traceId"`
	SpanID       string `json:"spanId"`
	ParentSpanID string `json:"parentSpanId"`
	Name         string `json:"name"`
	Start        string `json:"startTimeUnixNano"`
	End          string `json:"endTimeUnixNano"`
	Attributes   []struct {
		Key   string `json:"key"`
		Value struct {
			StringValue *string `json:"stringValue"`
			IntValue    *string `json:"intValue"`
		} `json:"value"`
	} `json:"attributes"`
}

func (s *e2eSpan) attr(k string) string {
	for _, a := range s.Attributes {
		if a.Key == k {
			switch {
			case a.Value.StringValue != nil:
				return *a.Value.StringValue
			case a.Value.IntValue != nil:
				return *a.Value.IntValue
			}
		}
	}
	return ""
}

func readSpans(t *testing.T, path string) []e2eSpan {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var spans []e2eSpan
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte{'\n'}) {
		var d struct {
			ResourceSpans []struct {
				ScopeSpans []struct {
					Spans []e2eSpan `json:"spans"`
				} `json:"scopeSpans"`
			} `json:"resourceSpans"`
		}
		if err := json.Unmarshal(line, &d); err != nil {
			t.Fatal(err)
		}
		spans = append(spans, d.ResourceSpans[0].ScopeSpans[0].Spans...)
	}
	return spans
}

// matchStats: the run spans are stats' runs — as many, by agent and by
// outcome — and their durations have stats' distribution (nearest-rank
// percentiles, max, mean).
func matchStats(t *testing.T, spans []e2eSpan, st *stats.Stats) {
	t.Helper()
	agents, outcomes := map[string]int{}, map[string]int{}
	var durs []int64
	for k := range spans {
		s := &spans[k]
		if s.Name != "openclaw.run" {
			continue
		}
		agents[s.attr("gen_ai.agent.id")]++
		oc := s.attr("openclaw.outcome")
		outcomes[oc]++
		if oc != "" {
			a, _ := strconv.ParseInt(s.Start, 10, 64)
			b, _ := strconv.ParseInt(s.End, 10, 64)
			durs = append(durs, (b-a)/1e6)
		}
	}
	r := st.Runs
	n := 0
	for a, c := range agents {
		n += c
		if r.ByAgent[a] != c {
			t.Errorf("agent %s: %d run spans, stats %d", a, c, r.ByAgent[a])
		}
	}
	if n != r.Count || outcomes["completed"] != r.Completed || outcomes["aborted"] != r.Aborted || outcomes["error"] != r.Failed || outcomes[""] != r.Unterminated {
		t.Errorf("run spans %d %v, stats %+v", n, outcomes, r)
	}
	slices.Sort(durs)
	if len(durs) != r.DurationMs.Count || len(durs) == 0 {
		t.Fatalf("%d timed run spans, stats %d", len(durs), r.DurationMs.Count)
	}
	rank := func(p int) int64 { return durs[max((p*len(durs)+99)/100, 1)-1] }
	var total int64
	for _, d := range durs {
		total += d
	}
	d := stats.Distribution{Count: len(durs), P50: rank(50), P90: rank(90), P99: rank(99), Max: durs[len(durs)-1], Mean: total / int64(len(durs))}
	if d != r.DurationMs {
		t.Errorf("run span durations %v: %+v, stats %+v", durs, d, r.DurationMs)
	}
	t.Logf("%d run spans, durations %v ms: as clawtap stats says", n, durs)
}
