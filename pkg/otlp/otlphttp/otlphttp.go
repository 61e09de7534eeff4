// Package otlphttp sends OTLP/JSON batches to a collector over OTLP/HTTP
// (opentelemetry-proto, docs/specification.md, "OTLP/HTTP"): a POST of
// each batch to the traces URL, with the headers and timeout the
// OTEL_EXPORTER_OTLP_* environment gives (opentelemetry-specification,
// protocol/exporter.md), retried when the collector says it is busy.
//
// Headers carry secrets (an API key, a bearer token): they come from the
// environment or a file, never from the command line, and no message
// ever shows a header's value or the URL's credentials.
package otlphttp

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// DefaultTimeout bounds each request, as the specification's default.
const DefaultTimeout = 10 * time.Second

// Retry bounds: how often a request is tried, and the longest wait
// between two tries (a Retry-After asking more is cut to it).
const (
	maxAttempts = 5
	maxBackoff  = 30 * time.Second
)

// maxResponse bounds the response body read.
const maxResponse = 64 << 10

// Config is where and how to send.
type Config struct {
	// URL is the traces URL (see Endpoint).
	URL string
	// Header is sent with every request (Content-Type and User-Agent are
	// set unless it sets them).
	Header http.Header
	// Timeout bounds each try of a request; 0 is DefaultTimeout.
	Timeout time.Duration
	// Gzip compresses the bodies.
	Gzip bool
	// UserAgent, e.g. clawtap/0.2.0.
	UserAgent string
	// Client sends the requests; nil is a client of its own.
	Client *http.Client
	// Context ends the sending early (an interrupt); nil is Background.
	Context context.Context
	// sleep waits between tries (tests shorten it).
	sleep func(context.Context, time.Duration) error
}

// Sender posts batches: an otlp.Sink.
type Sender struct {
	cfg      Config
	safe     string // the URL as messages show it
	requests int
	bytes    int64
	rejected int64
	warnings []string
	zbuf     bytes.Buffer
	zw       *gzip.Writer
}

// New returns a Sender for cfg, whose URL must be an http or https URL.
func New(cfg Config) (*Sender, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("the OTLP endpoint %s is not an http or https URL", SafeURL(cfg.URL))
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{}
	}
	if cfg.Context == nil {
		cfg.Context = context.Background()
	}
	if cfg.sleep == nil {
		cfg.sleep = sleep
	}
	return &Sender{cfg: cfg, safe: SafeURL(cfg.URL)}, nil
}

// Requests is how many batches the collector took; Bytes their size
// (uncompressed).
func (s *Sender) Requests() int { return s.requests }

// Bytes is the size of the batches the collector took.
func (s *Sender) Bytes() int64 { return s.bytes }

// Rejected is how many spans the collector said it rejected (a partial
// success), and the messages it gave with them or with none rejected.
func (s *Sender) Rejected() (int64, []string) { return s.rejected, s.warnings }

// URL is where the batches go, as messages show it.
func (s *Sender) URL() string { return s.safe }

// Batch posts one batch, trying again while the collector is busy.
func (s *Sender) Batch(b []byte) error {
	body := b
	if s.cfg.Gzip {
		if s.zw == nil {
			s.zw = gzip.NewWriter(&s.zbuf)
		}
		s.zbuf.Reset()
		s.zw.Reset(&s.zbuf)
		if _, err := s.zw.Write(b); err != nil {
			return err
		}
		if err := s.zw.Close(); err != nil {
			return err
		}
		body = s.zbuf.Bytes()
	}
	n := s.requests + 1
	var last error
	for attempt := 1; attempt <= maxAttempts; attempt++ {
		wait, err := s.post(body)
		if err == nil {
			s.requests++
			s.bytes += int64(len(b))
			return nil
		}
		last = err
		var perm *permanent
		if errors.As(err, &perm) || s.cfg.Context.Err() != nil || attempt == maxAttempts {
			break
		}
		if wait <= 0 {
			wait = backoff(attempt)
		}
		if err := s.cfg.sleep(s.cfg.Context, wait); err != nil {
			break
		}
	}
	return fmt.Errorf("OTLP export to %s, request %d: %w", s.safe, n, last)
}

// permanent is a failure trying again will not mend.
type permanent struct{ err error }

func (p *permanent) Error() string { return p.err.Error() }
func (p *permanent) Unwrap() error { return p.err }

// post tries a request once. A failure worth another try comes with how
// long the collector asked to wait (0: not said).
func (s *Sender) post(body []byte) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(s.cfg.Context, s.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.cfg.URL, bytes.NewReader(body))
	if err != nil {
		return 0, &permanent{errors.New("the request could not be made")}
	}
	for k, vs := range s.cfg.Header {
		req.Header[k] = vs
	}
	if req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if s.cfg.UserAgent != "" && req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", s.cfg.UserAgent)
	}
	if s.cfg.Gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	resp, err := s.cfg.Client.Do(req)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return 0, fmt.Errorf("no response within %v", s.cfg.Timeout)
		}
		return 0, errors.New(scrub(err))
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		s.partial(msg)
		return 0, nil
	case resp.StatusCode == http.StatusTooManyRequests, resp.StatusCode == http.StatusBadGateway,
		resp.StatusCode == http.StatusServiceUnavailable, resp.StatusCode == http.StatusGatewayTimeout:
		return retryAfter(resp.Header.Get("Retry-After")), fmt.Errorf("%s%s", resp.Status, statusMessage(msg))
	}
	return 0, &permanent{fmt.Errorf("%s%s", resp.Status, statusMessage(msg))}
}

// partial reads a full or partial success: rejected spans and the
// collector's message.
func (s *Sender) partial(body []byte) {
	var r struct {
		PartialSuccess *struct {
			RejectedSpans json.RawMessage `json:"rejectedSpans"`
			ErrorMessage  string          `json:"errorMessage"`
		} `json:"partialSuccess"`
	}
	if json.Unmarshal(body, &r) != nil || r.PartialSuccess == nil {
		return
	}
	p := r.PartialSuccess
	n, _ := strconv.ParseInt(strings.Trim(string(p.RejectedSpans), `"`), 10, 64)
	if n > 0 {
		s.rejected += n
	}
	if p.ErrorMessage != "" && len(s.warnings) < 10 {
		s.warnings = append(s.warnings, clip(p.ErrorMessage, 300))
	}
}

// statusMessage is the message of a google.rpc.Status body, if any.
func statusMessage(body []byte) string {
	var st struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &st) == nil && st.Message != "" {
		return ": " + clip(st.Message, 300)
	}
	if s := strings.TrimSpace(string(body)); s != "" && len(s) < 300 && !strings.ContainsAny(s, "\x00<") {
		return ": " + s
	}
	return ""
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date.
func retryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return min(time.Duration(n)*time.Second, maxBackoff)
	}
	if t, err := http.ParseTime(v); err == nil {
		return min(max(time.Until(t), 0), maxBackoff)
	}
	return 0
}

// backoff is the wait before try attempt+1: exponential from half a
// second, with jitter.
func backoff(attempt int) time.Duration {
	d := min(500*time.Millisecond<<(attempt-1), maxBackoff)
	return d/2 + rand.N(d/2+1)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// scrub is a transport error without the URL net/http puts in its
// messages (with its credentials and query): the message names the
// endpoint safely already.
func scrub(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}

// SafeURL is a URL as messages may show it: without its user
// information, query or fragment.
func SafeURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(an unreadable URL)"
	}
	u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
	return u.String()
}
