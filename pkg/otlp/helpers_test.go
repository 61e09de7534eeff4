package otlp_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/check"
	"github.com/clawtap/clawtap/pkg/models"
	"github.com/clawtap/clawtap/pkg/otlp"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/replay"
)

// export runs a capture through check and the exporter in one pass, as
// report --format otlp does, and returns the OTLP JSON Lines.
func export(t testing.TB, r *capture.Reader, opts otlp.Options) ([]byte, otlp.Stats) {
	t.Helper()
	var buf bytes.Buffer
	opts.Sink = otlp.Lines(&buf)
	if opts.Version == "" {
		opts.Version = "test"
	}
	e := otlp.New(opts)
	an, err := check.New(check.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := pipeline.New(pipeline.Options{}, e, an).Run(pipeline.Records(r)); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), e.Stats()
}

// exportMulti is export with check.Multi over uis, the findings that
// depend on the UI saying which show them.
func exportMulti(t testing.TB, r *capture.Reader, opts otlp.Options, uis []replay.UI) []byte {
	t.Helper()
	var buf bytes.Buffer
	opts.Sink = otlp.Lines(&buf)
	e := otlp.New(opts)
	m, err := check.NewMulti(check.Options{}, uis)
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

func exportFile(t testing.TB, path string, opts otlp.Options) ([]byte, otlp.Stats) {
	t.Helper()
	r, err := capture.Open(path, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	return export(t, r, opts)
}

var _ = models.All

// The OTLP/JSON shapes, strictly: an unknown field is a mistake.
type (
	doc struct {
		ResourceSpans []resourceSpans `json:"resourceSpans"`
	}
	resourceSpans struct {
		Resource   resource     `json:"resource"`
		ScopeSpans []scopeSpans `json:"scopeSpans"`
		SchemaURL  string       `json:"schemaUrl"`
	}
	resource struct {
		Attributes []kv `json:"attributes"`
	}
	scopeSpans struct {
		Scope struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"scope"`
		Spans     []jspan `json:"spans"`
		SchemaURL string  `json:"schemaUrl"`
	}
	kv struct {
		Key   string   `json:"key"`
		Value anyValue `json:"value"`
	}
	anyValue struct {
		StringValue *string `json:"stringValue,omitempty"`
		IntValue    *string `json:"intValue,omitempty"`
		BoolValue   *bool   `json:"boolValue,omitempty"`
		ArrayValue  *struct {
			Values []anyValue `json:"values"`
		} `json:"arrayValue,omitempty"`
	}
	jspan struct {
		TraceID            string   `json:"traceId"`
		SpanID             string   `json:"spanId"`
		ParentSpanID       string   `json:"parentSpanId"`
		Flags              uint32   `json:"flags"`
		Name               string   `json:"name"`
		Kind               int      `json:"kind"`
		Start              string   `json:"startTimeUnixNano"`
		End                string   `json:"endTimeUnixNano"`
		Attributes         []kv     `json:"attributes"`
		Events             []jevent `json:"events"`
		DroppedEventsCount int      `json:"droppedEventsCount"`
		Links              []jlink  `json:"links"`
		Status             *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"status"`
	}
	jevent struct {
		Time       string `json:"timeUnixNano"`
		Name       string `json:"name"`
		Attributes []kv   `json:"attributes"`
	}
	jlink struct {
		TraceID    string `json:"traceId"`
		SpanID     string `json:"spanId"`
		Attributes []kv   `json:"attributes"`
		Flags      uint32 `json:"flags"`
	}
)

// attr returns a span's attribute as a string ("" when absent).
func (s *jspan) attr(key string) string { return attrOf(s.Attributes, key) }

func attrOf(attrs []kv, key string) string {
	for _, a := range attrs {
		if a.Key != key {
			continue
		}
		v := a.Value
		switch {
		case v.StringValue != nil:
			return *v.StringValue
		case v.IntValue != nil:
			return *v.IntValue
		case v.BoolValue != nil:
			return strconv.FormatBool(*v.BoolValue)
		case v.ArrayValue != nil:
			b, _ := json.Marshal(v.ArrayValue.Values)
			return string(b)
		}
	}
	return ""
}

func (s *jspan) durMs() int64 {
	a, _ := strconv.ParseInt(s.Start, 10, 64)
	b, _ := strconv.ParseInt(s.End, 10, 64)
	return (b - a) / 1e6
}

var (
	traceRe = regexp.MustCompile(`^[0-9a-f]{32}$`)
	spanRe  = regexp.MustCompile(`^[0-9a-f]{16}$`)
	nanosRe = regexp.MustCompile(`^(0|[1-9][0-9]*)$`)
)

// parse reads an export's lines strictly and checks what OTLP asks of
// every span (what the collector's own parser lets pass too: it does not
// check ids for zero, kinds, times or parents): it returns the spans.
func parse(t testing.TB, out []byte, maxLine int) []jspan {
	t.Helper()
	spans, err := parseErr(out, maxLine)
	if err != nil {
		t.Fatal(err)
	}
	return spans
}

func parseErr(out []byte, maxLine int) ([]jspan, error) {
	var spans []jspan
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 64<<20)
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if maxLine > 0 && len(b) > maxLine {
			return nil, fmt.Errorf("line %d: %d bytes, over the %d bound", line, len(b), maxLine)
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		var d doc
		if err := dec.Decode(&d); err != nil {
			return nil, fmt.Errorf("line %d: %v", line, err)
		}
		if len(d.ResourceSpans) != 1 || len(d.ResourceSpans[0].ScopeSpans) != 1 {
			return nil, fmt.Errorf("line %d: want one resource and one scope", line)
		}
		rs := d.ResourceSpans[0]
		if attrOf(rs.Resource.Attributes, "service.name") == "" || rs.SchemaURL != otlp.SchemaURL || rs.ScopeSpans[0].SchemaURL != otlp.SchemaURL {
			return nil, fmt.Errorf("line %d: resource or schema missing", line)
		}
		if len(rs.ScopeSpans[0].Spans) == 0 {
			return nil, fmt.Errorf("line %d: a batch without spans", line)
		}
		spans = append(spans, rs.ScopeSpans[0].Spans...)
	}
	return spans, checkSpans(spans)
}

func checkSpans(spans []jspan) error {
	ids := map[string]bool{}
	for k := range spans {
		s := &spans[k]
		what := fmt.Sprintf("span %d (%s)", k, s.Name)
		if !traceRe.MatchString(s.TraceID) || s.TraceID == "00000000000000000000000000000000" {
			return fmt.Errorf("%s: trace id %q", what, s.TraceID)
		}
		if !spanRe.MatchString(s.SpanID) || s.SpanID == "0000000000000000" {
			return fmt.Errorf("%s: span id %q", what, s.SpanID)
		}
		if s.ParentSpanID != "" && (!spanRe.MatchString(s.ParentSpanID) || s.ParentSpanID == "0000000000000000") {
			return fmt.Errorf("%s: parent id %q", what, s.ParentSpanID)
		}
		if key := s.TraceID + s.SpanID; ids[key] {
			return fmt.Errorf("%s: span id %s twice in trace %s", what, s.SpanID, s.TraceID)
		} else {
			ids[key] = true
		}
		if s.Kind < 1 || s.Kind > 5 || s.Name == "" {
			return fmt.Errorf("%s: kind %d", what, s.Kind)
		}
		if s.Status != nil && (s.Status.Code < 0 || s.Status.Code > 2) {
			return fmt.Errorf("%s: status %d", what, s.Status.Code)
		}
		if s.Flags&^0x3ff != 0 || s.Flags&0x100 == 0 {
			return fmt.Errorf("%s: flags %#x", what, s.Flags)
		}
		if !nanosRe.MatchString(s.Start) || !nanosRe.MatchString(s.End) {
			return fmt.Errorf("%s: times %q %q", what, s.Start, s.End)
		}
		a, _ := strconv.ParseUint(s.Start, 10, 64)
		b, _ := strconv.ParseUint(s.End, 10, 64)
		if b < a {
			return fmt.Errorf("%s: ends before it starts", what)
		}
		for _, e := range s.Events {
			if !nanosRe.MatchString(e.Time) || e.Name == "" {
				return fmt.Errorf("%s: event %+v", what, e)
			}
			if err := checkAttrs(e.Attributes); err != nil {
				return fmt.Errorf("%s: event %s: %v", what, e.Name, err)
			}
		}
		if len(s.Events) > 128 {
			return fmt.Errorf("%s: %d events", what, len(s.Events))
		}
		for _, l := range s.Links {
			if !traceRe.MatchString(l.TraceID) || !spanRe.MatchString(l.SpanID) {
				return fmt.Errorf("%s: link %+v", what, l)
			}
		}
		if err := checkAttrs(s.Attributes); err != nil {
			return fmt.Errorf("%s: %v", what, err)
		}
	}
	// Every parent is a span of the export in the same trace, or a span of
	// the caller's (a traceparent's: flagged remote).
	for k := range spans {
		s := &spans[k]
		if s.ParentSpanID == "" || ids[s.TraceID+s.ParentSpanID] {
			continue
		}
		if s.Flags&0x200 == 0 {
			return fmt.Errorf("span %d (%s): parent %s is in no span of trace %s", k, s.Name, s.ParentSpanID, s.TraceID)
		}
	}
	for k := range spans {
		for _, l := range spans[k].Links {
			if !ids[l.TraceID+l.SpanID] {
				return fmt.Errorf("span %d (%s): link to %s/%s, which is no span", k, spans[k].Name, l.TraceID, l.SpanID)
			}
		}
	}
	return nil
}

func checkAttrs(attrs []kv) error {
	seen := map[string]bool{}
	for _, a := range attrs {
		if a.Key == "" || seen[a.Key] {
			return fmt.Errorf("attribute key %q empty or repeated", a.Key)
		}
		seen[a.Key] = true
		v := a.Value
		n := 0
		for _, set := range []bool{v.StringValue != nil, v.IntValue != nil, v.BoolValue != nil, v.ArrayValue != nil} {
			if set {
				n++
			}
		}
		if n != 1 {
			return fmt.Errorf("attribute %s: %d values", a.Key, n)
		}
		if v.IntValue != nil {
			if _, err := strconv.ParseInt(*v.IntValue, 10, 64); err != nil {
				return fmt.Errorf("attribute %s: intValue %q", a.Key, *v.IntValue)
			}
		}
	}
	return nil
}

// byName counts the spans of each name.
func byName(spans []jspan) map[string]int {
	m := map[string]int{}
	for _, s := range spans {
		m[s.Name]++
	}
	return m
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
