package otlphttp

import (
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// collector is a fake OTLP/HTTP receiver on loopback: it answers each
// request with the next of its replies (the last one again when they run
// out) and keeps what it got.
type collector struct {
	mu      sync.Mutex
	replies []reply
	got     []received
}

type reply struct {
	status int
	body   string
	header map[string]string
	delay  time.Duration
}

type received struct {
	header http.Header
	body   string
	path   string
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		z, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, "gzip", 400)
			return
		}
		body = z
	}
	b, _ := io.ReadAll(body)
	c.mu.Lock()
	c.got = append(c.got, received{r.Header.Clone(), string(b), r.URL.Path})
	rp := c.replies[min(len(c.got), len(c.replies))-1]
	c.mu.Unlock()
	time.Sleep(rp.delay)
	for k, v := range rp.header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(rp.status)
	io.WriteString(w, rp.body)
}

func serve(t *testing.T, replies ...reply) (*collector, string) {
	c := &collector{replies: replies}
	srv := httptest.NewServer(c)
	t.Cleanup(srv.Close)
	return c, srv.URL
}

func noSleep(context.Context, time.Duration) error { return nil }

const batch = `{"resourceSpans":[]}`

func TestSend(t *testing.T) {
	c, base := serve(t, reply{status: 200, body: `{"partialSuccess":{}}`})
	u, _, _ := Endpoint(base, func(string) string { return "" })
	s, err := New(Config{URL: u, Header: http.Header{"Authorization": {"Bearer s3cret"}}, UserAgent: "clawtap/test", sleep: noSleep})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := s.Batch([]byte(batch)); err != nil {
			t.Fatal(err)
		}
	}
	if n, w := s.Rejected(); s.Requests() != 2 || n != 0 || len(w) != 0 {
		t.Fatalf("requests %d rejected %d %v", s.Requests(), n, w)
	}
	g := c.got[0]
	if g.path != "/v1/traces" || g.body != batch || g.header.Get("Content-Type") != "application/json" ||
		g.header.Get("User-Agent") != "clawtap/test" || g.header.Get("Authorization") != "Bearer s3cret" {
		t.Fatalf("got %+v", g)
	}
}

func TestSendGzip(t *testing.T) {
	c, base := serve(t, reply{status: 200})
	s, _ := New(Config{URL: base + "/v1/traces", Gzip: true, sleep: noSleep})
	for _, b := range []string{batch, `{"resourceSpans":[{}]}`} {
		if err := s.Batch([]byte(b)); err != nil {
			t.Fatal(err)
		}
	}
	if c.got[1].body != `{"resourceSpans":[{}]}` || c.got[1].header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("got %+v", c.got[1])
	}
}

// A busy collector is tried again (after the wait it asks); a partial
// success counts the spans it rejected.
func TestSendRetriesAndPartialSuccess(t *testing.T) {
	c, base := serve(t, reply{status: 503, header: map[string]string{"Retry-After": "2"}}, reply{status: 429},
		reply{status: 200, body: `{"partialSuccess":{"rejectedSpans":"3","errorMessage":"3 spans too old"}}`})
	var waits []time.Duration
	s, _ := New(Config{URL: base + "/", sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }})
	if err := s.Batch([]byte(batch)); err != nil {
		t.Fatal(err)
	}
	n, w := s.Rejected()
	if len(c.got) != 3 || n != 3 || len(w) != 1 || waits[0] != 2*time.Second || waits[1] <= 0 {
		t.Fatalf("%d tries, waits %v, rejected %d %v", len(c.got), waits, n, w)
	}
}

// A collector that refuses the data is not asked again; the message says
// why, names the endpoint without its credentials or query, and never
// shows a header's value.
func TestSendRefused(t *testing.T) {
	c, base := serve(t, reply{status: 400, body: `{"code":3,"message":"http: request body too large"}`})
	u := strings.Replace(base, "http://", "http://user:pw@", 1) + "/v1/traces?token=abc"
	s, _ := New(Config{URL: u, Header: http.Header{"X-Api-Key": {"topsecret"}}, sleep: noSleep})
	err := s.Batch([]byte(batch))
	if err == nil || len(c.got) != 1 {
		t.Fatalf("err %v after %d tries", err, len(c.got))
	}
	msg := err.Error()
	if !strings.Contains(msg, "400 Bad Request: http: request body too large") || !strings.Contains(msg, base+"/v1/traces") {
		t.Errorf("message %q", msg)
	}
	for _, secret := range []string{"topsecret", "pw", "abc"} {
		if strings.Contains(msg, secret) {
			t.Errorf("message %q shows %q", msg, secret)
		}
	}
}

func TestSendTimeoutAndDown(t *testing.T) {
	_, base := serve(t, reply{status: 200, delay: 300 * time.Millisecond})
	s, _ := New(Config{URL: base + "/v1/traces", Timeout: 50 * time.Millisecond, sleep: noSleep})
	if err := s.Batch([]byte(batch)); err == nil || !strings.Contains(err.Error(), "no response within 50ms") || !strings.Contains(err.Error(), "request 1") {
		t.Errorf("slow collector: %v", err)
	}
	srv := httptest.NewServer(http.NotFoundHandler())
	down := srv.URL
	srv.Close()
	s, _ = New(Config{URL: down + "/v1/traces", sleep: noSleep})
	if err := s.Batch([]byte(batch)); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("no collector: %v", err)
	}
	if _, err := New(Config{URL: "ftp://x/v1/traces"}); err == nil {
		t.Error("an ftp endpoint was taken")
	}
}

func TestEndpoint(t *testing.T) {
	for _, c := range []struct {
		flag  string
		env   map[string]string
		want  string
		from  string
		fails bool
	}{
		{flag: "http://c:4318", want: "http://c:4318/v1/traces", from: "--otlp-endpoint"},
		{flag: "http://c:4318/", want: "http://c:4318/v1/traces", from: "--otlp-endpoint"},
		{flag: "https://c/mycollector", want: "https://c/mycollector/v1/traces", from: "--otlp-endpoint"},
		{flag: "http://c:4318/v1/traces", want: "http://c:4318/v1/traces", from: "--otlp-endpoint"},
		{flag: "http://c:1", env: map[string]string{EnvTracesEndpoint: "http://t:2"}, want: "http://c:1/v1/traces", from: "--otlp-endpoint"},
		{env: map[string]string{EnvTracesEndpoint: "http://t:4318", EnvEndpoint: "http://e:4318"}, want: "http://t:4318/", from: EnvTracesEndpoint},
		{env: map[string]string{EnvTracesEndpoint: "http://t:4318/custom"}, want: "http://t:4318/custom", from: EnvTracesEndpoint},
		{env: map[string]string{EnvEndpoint: "http://e:4318/base/"}, want: "http://e:4318/base/v1/traces", from: EnvEndpoint},
		{env: map[string]string{}, want: ""},
		{flag: "localhost:4318", fails: true},
		{env: map[string]string{EnvEndpoint: "grpc://x"}, fails: true},
	} {
		got, from, err := Endpoint(c.flag, func(k string) string { return c.env[k] })
		if (err != nil) != c.fails || !c.fails && (got != c.want || from != c.from) {
			t.Errorf("%q %v: %q from %q (%v), want %q from %q", c.flag, c.env, got, from, err, c.want, c.from)
		}
	}
}

func TestFromEnv(t *testing.T) {
	env := map[string]string{
		EnvHeaders:       "x-generic=1",
		EnvTracesHeaders: "Authorization=Bearer%20abc%3D%3D , x-team = ui",
		EnvTimeout:       "2500",
		EnvCompression:   "gzip",
		EnvProtocol:      "http/protobuf",
	}
	cfg, warns, err := FromEnv("http://c/v1/traces", "# keys\nx-team: clients\nx-extra=a=b\n", func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	h := cfg.Header
	if h.Get("Authorization") != "Bearer abc==" || h.Get("X-Team") != "clients" || h.Get("X-Extra") != "a=b" || h.Get("X-Generic") != "" {
		t.Errorf("headers %v", h)
	}
	if cfg.Timeout != 2500*time.Millisecond || !cfg.Gzip || len(warns) != 1 || !strings.Contains(warns[0], "http/json") {
		t.Errorf("timeout %v gzip %v warnings %v", cfg.Timeout, cfg.Gzip, warns)
	}
	env = map[string]string{EnvTracesTimeout: "soon", EnvCompression: "zstd"}
	cfg, warns, _ = FromEnv("http://c/", "", func(k string) string { return env[k] })
	if cfg.Timeout != 0 || cfg.Gzip || len(warns) != 2 {
		t.Errorf("bad timeout and compression: %v %v %v", cfg.Timeout, cfg.Gzip, warns)
	}
	for _, bad := range []string{"novalue", "bad key=1", "k=%zz", "k=a%0Ab"} {
		_, _, err := FromEnv("http://c/", "", func(k string) string {
			if k == EnvHeaders {
				return bad + ",secret=hunter2"
			}
			return ""
		})
		if err == nil || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), EnvHeaders) {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if _, _, err := FromEnv("http://c/", "just text\n", func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("headers file: %v", err)
	}
}

// FuzzParseHeaders: headers come from the environment and from files:
// they parse or not, never panic, and an error never shows a value.
func FuzzParseHeaders(f *testing.F) {
	f.Add("a=b,c=d%20e")
	f.Add("Authorization: Bearer x\n# c\nk=v")
	f.Fuzz(func(t *testing.T, s string) {
		for _, parse := range []func(string) (http.Header, error){ParseHeaders, ParseHeadersFile} {
			h, err := parse(s + ",k=SECRET VALUE\nk: SECRET VALUE\n,SECRET VALUE")
			if err != nil {
				if strings.Contains(err.Error(), "SECRET VALUE") {
					t.Fatalf("%q: error shows a value: %v", s, err)
				}
				continue
			}
			for k, vs := range h {
				if !token(k) {
					t.Fatalf("%q: header name %q", s, k)
				}
				for _, v := range vs {
					if strings.ContainsAny(v, "\r\n\x00") {
						t.Fatalf("%q: header %s value %q", s, k, v)
					}
				}
			}
		}
	})
}
