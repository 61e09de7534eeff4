package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// otlpEnv clears the OTEL_* variables the export reads, so that the
// developer's environment changes no test; set gives some.
func otlpEnv(t *testing.T, set ...string) {
	t.Helper()
	for _, k := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_HEADERS",
		"OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_TIMEOUT", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT",
		"OTEL_EXPORTER_OTLP_COMPRESSION", "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION", "OTEL_EXPORTER_OTLP_PROTOCOL",
		"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES", "OTEL_SEMCONV_STABILITY_OPT_IN"} {
		t.Setenv(k, "")
	}
	for k := 0; k+1 < len(set); k += 2 {
		t.Setenv(set[k], set[k+1])
	}
	old := version
	version = "test"
	t.Cleanup(func() { version = old })
}

// The export of two fixtures, indented for review: ids, names, kinds,
// times and attributes of every span (rewrite with -update).
func TestReportOTLPGolden(t *testing.T) {
	otlpEnv(t)
	dir := t.TempDir()
	for _, name := range []string{"tool-run", "exec-approval"} {
		out := filepath.Join(dir, name+".otlp.jsonl")
		r := run(t, "", "report", "--format", "otlp", fixture(t, name+".jsonl.zst"), "-o", out)
		if r.code != 0 || !strings.Contains(r.stderr, "wrote "+out+": ") {
			t.Fatalf("%s: exit %d: %s", name, r.code, r.stderr)
		}
		raw := readFile(t, out)
		if strings.Count(raw, "\n") != 1 {
			t.Fatalf("%s: %d lines, want one batch", name, strings.Count(raw, "\n"))
		}
		var pretty bytes.Buffer
		if err := json.Indent(&pretty, []byte(raw), "", " "); err != nil {
			t.Fatal(err)
		}
		golden(t, "report-"+name+".otlp.json", pretty.String())
	}
}

// otlpCollector is a fake collector on loopback: it keeps every body and
// its headers, and answers status with body.
type otlpCollector struct {
	mu      sync.Mutex
	bodies  []string
	headers []http.Header
	status  int
	body    string
}

func (c *otlpCollector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	c.mu.Lock()
	c.bodies, c.headers = append(c.bodies, string(b)), append(c.headers, r.Header.Clone())
	c.mu.Unlock()
	if r.URL.Path != "/v1/traces" {
		http.NotFound(w, r)
		return
	}
	w.WriteHeader(c.status)
	io.WriteString(w, c.body)
}

func fakeCollector(t *testing.T, status int, body string) (*otlpCollector, string) {
	c := &otlpCollector{status: status, body: body}
	srv := httptest.NewServer(c)
	t.Cleanup(srv.Close)
	return c, srv.URL
}

// --otlp-endpoint sends the file's lines, one request each, with the
// headers of the environment and the file; no secret reaches stderr.
func TestReportOTLPSend(t *testing.T) {
	c, url := fakeCollector(t, 200, `{"partialSuccess":{}}`)
	otlpEnv(t, "OTEL_EXPORTER_OTLP_HEADERS", "authorization=Bearer%20env-secret,x-team=ui", "OTEL_SERVICE_NAME", "ui-tests")
	dir := t.TempDir()
	hf := filepath.Join(dir, "headers")
	if err := os.WriteFile(hf, []byte("x-team: clients\nx-api-key=file-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "x.otlp.jsonl")
	r := run(t, "", "report", "--format", "otlp", fixture(t, "exec-approval.jsonl.zst"), "-o", out, "--otlp-endpoint", url, "--otlp-headers-file", hf)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if len(c.bodies) != 1 || c.bodies[0]+"\n" != readFile(t, out) {
		t.Fatalf("%d bodies; the body is not the file's line", len(c.bodies))
	}
	h := c.headers[0]
	if h.Get("Authorization") != "Bearer env-secret" || h.Get("X-Team") != "clients" || h.Get("X-Api-Key") != "file-secret" ||
		h.Get("Content-Type") != "application/json" || h.Get("User-Agent") != "clawtap/test" {
		t.Errorf("headers %v", h)
	}
	if !strings.Contains(c.bodies[0], `"stringValue":"ui-tests"`) || !strings.Contains(r.stderr, "sent ") || !strings.Contains(r.stderr, url+"/v1/traces") {
		t.Errorf("body or stderr: %s", r.stderr)
	}
	for _, secret := range []string{"env-secret", "file-secret"} {
		if strings.Contains(r.stderr, secret) {
			t.Errorf("stderr shows %s: %s", secret, r.stderr)
		}
	}

	// Without -o the spans go where the environment says.
	c2, url2 := fakeCollector(t, 200, "")
	otlpEnv(t, "OTEL_EXPORTER_OTLP_ENDPOINT", url2)
	if r := run(t, "", "report", "--format", "otlp", fixture(t, "tool-run.jsonl.zst")); r.code != 0 || len(c2.bodies) != 1 || r.stdout != "" {
		t.Fatalf("env endpoint: exit %d, %d bodies: %s", r.code, len(c2.bodies), r.stderr)
	}
	// With -o only the file is written, whatever the environment names.
	if r := run(t, "", "report", "--format", "otlp", fixture(t, "tool-run.jsonl.zst"), "-o", "-"); r.code != 0 || len(c2.bodies) != 1 || !strings.HasPrefix(r.stdout, `{"resourceSpans":`) {
		t.Fatalf("-o -: exit %d, %d bodies", r.code, len(c2.bodies))
	}
}

// A collector that refuses the spans, or rejects some, is exit 2; the
// file, when one was asked for, is written all the same.
func TestReportOTLPRefused(t *testing.T) {
	otlpEnv(t)
	_, url := fakeCollector(t, 400, `{"code":3,"message":"http: request body too large"}`)
	out := filepath.Join(t.TempDir(), "x.jsonl")
	r := run(t, "", "report", "--otlp-endpoint", url+"/?key=s3cret", fixture(t, "tool-run.jsonl.zst"), "-o", out)
	if r.code != 2 || !strings.Contains(r.stderr, "400 Bad Request: http: request body too large") || strings.Contains(r.stderr, "s3cret") {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("the file was not written: %v", err)
	}
	_, url = fakeCollector(t, 200, `{"partialSuccess":{"rejectedSpans":"2","errorMessage":"too old"}}`)
	r = run(t, "", "report", "--format", "otlp", "--otlp-endpoint", url, fixture(t, "tool-run.jsonl.zst"))
	if r.code != 2 || !strings.Contains(r.stderr, "rejected 2 of 8 span(s): too old") {
		t.Fatalf("partial success: exit %d: %s", r.code, r.stderr)
	}
}

// What the command line alone can tell is wrong is a usage error, before
// anything is read or sent.
func TestReportOTLPUsage(t *testing.T) {
	otlpEnv(t)
	fx := fixture(t, "tool-run.jsonl.zst")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "--format", "html", "--otlp-endpoint", "http://localhost:4318", fx, "-o", "x.html"}, "--format html writes no OTLP"},
		{[]string{"report", "--format", "otlp", "--max-bytes", "5MB", fx, "-o", "-"}, "--max-bytes does not apply"},
		{[]string{"report", "--otlp-endpoint", "localhost:4318", fx}, "not an http:// or https:// URL"},
		{[]string{"report", "--format", "otlp", fx}, "no output file or OTLP endpoint given"},
		{[]string{"report", "--format", "otlp", "--otlp-timeout", "-1s", fx, "-o", "-"}, "negative"},
		{[]string{"report", "--format", "otlp", "--otlp-headers-file", "-", "-", "-o", "-"}, "both read stdin"},
		{[]string{"report", "--format", "otlp", "--ui", "nosuchui", fx, "-o", "-"}, "nosuchui"},
	} {
		r := run(t, "", c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d: %s", c.args, r.code, r.stderr)
		}
	}
	otlpEnv(t, "OTEL_EXPORTER_OTLP_HEADERS", "Bearer leaked-token")
	if r := run(t, "", "report", "--format", "otlp", "--otlp-endpoint", "http://127.0.0.1:1", fx); r.code != 2 ||
		!strings.Contains(r.stderr, "OTEL_EXPORTER_OTLP_HEADERS: header 1 is not key=value") || strings.Contains(r.stderr, "leaked-token") {
		t.Errorf("bad headers: exit %d: %s", r.code, r.stderr)
	}
	otlpEnv(t, "OTEL_RESOURCE_ATTRIBUTES", "a=%zz")
	if r := run(t, "", "report", "--format", "otlp", fx, "-o", "-"); r.code != 0 || !strings.Contains(r.stderr, "OTEL_RESOURCE_ATTRIBUTES is left out") {
		t.Errorf("bad resource attributes: exit %d: %s", r.code, r.stderr)
	}
}
