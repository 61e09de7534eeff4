package otlphttp

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The environment an OTLP exporter reads (opentelemetry-specification,
// protocol/exporter.md): the traces variable wins over the generic one.
const (
	EnvEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	EnvHeaders        = "OTEL_EXPORTER_OTLP_HEADERS"
	EnvTracesHeaders  = "OTEL_EXPORTER_OTLP_TRACES_HEADERS"
	EnvTimeout        = "OTEL_EXPORTER_OTLP_TIMEOUT"
	EnvTracesTimeout  = "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT"
	EnvCompression    = "OTEL_EXPORTER_OTLP_COMPRESSION"
	EnvTracesCompr    = "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION"
	EnvProtocol       = "OTEL_EXPORTER_OTLP_PROTOCOL"
	EnvTracesProtocol = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
)

// tracesPath is where traces go under a base endpoint.
const tracesPath = "v1/traces"

// Endpoint is the traces URL: the flag's (a base URL, as
// OTEL_EXPORTER_OTLP_ENDPOINT is, unless its path already ends in
// /v1/traces), else OTEL_EXPORTER_OTLP_TRACES_ENDPOINT's as it is (an
// empty path is /), else OTEL_EXPORTER_OTLP_ENDPOINT's with v1/traces
// appended. "" when none is set. from names where it came from.
func Endpoint(flag string, getenv func(string) string) (u, from string, err error) {
	switch {
	case flag != "":
		from = "--otlp-endpoint"
		u, err = base(flag)
	case getenv(EnvTracesEndpoint) != "":
		from = EnvTracesEndpoint
		u, err = asIs(getenv(EnvTracesEndpoint))
	case getenv(EnvEndpoint) != "":
		from = EnvEndpoint
		u, err = base(getenv(EnvEndpoint))
	default:
		return "", "", nil
	}
	if err != nil {
		return "", from, fmt.Errorf("%s %s: %w", from, SafeURL(flagOrEnv(flag, from, getenv)), err)
	}
	return u, from, nil
}

func flagOrEnv(flag, from string, getenv func(string) string) string {
	if from == "--otlp-endpoint" {
		return flag
	}
	return getenv(from)
}

func parseHTTP(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("not an http:// or https:// URL")
	}
	return u, nil
}

func asIs(raw string) (string, error) {
	u, err := parseHTTP(raw)
	if err != nil {
		return "", err
	}
	if u.Path == "" {
		u.Path = "/"
	}
	return u.String(), nil
}

func base(raw string) (string, error) {
	u, err := parseHTTP(raw)
	if err != nil {
		return "", err
	}
	if !strings.HasSuffix(u.Path, "/"+tracesPath) {
		if !strings.HasSuffix(u.Path, "/") {
			u.Path += "/"
		}
		u.Path += tracesPath
		if u.RawPath != "" {
			if !strings.HasSuffix(u.RawPath, "/") {
				u.RawPath += "/"
			}
			u.RawPath += tracesPath
		}
	}
	return u.String(), nil
}

// ParseHeaders reads the headers of OTEL_EXPORTER_OTLP_HEADERS: key=value
// pairs separated by commas (W3C Baggage's form, without properties),
// each value percent-decoded. An error names the pair by its place, and
// by its key when that is a header name: never its value, nor text that
// may be one (a token written without its key).
func ParseHeaders(s string) (http.Header, error) {
	h := http.Header{}
	n := 0
	for _, pair := range strings.Split(s, ",") {
		if strings.TrimSpace(pair) == "" {
			continue
		}
		n++
		k, v, ok := strings.Cut(pair, "=")
		key := strings.TrimSpace(k)
		if !ok {
			return nil, fmt.Errorf("header %d is not key=value", n)
		}
		val, err := url.PathUnescape(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("header %d%s: its value is not percent-encoded text", n, named(key))
		}
		if err := add(h, key, strings.TrimSpace(val)); err != nil {
			return nil, fmt.Errorf("header %d%s: %w", n, named(key), err)
		}
	}
	return h, nil
}

// ParseHeadersFile reads a headers file: a header a line, as
// "Name: value" or "name=value" (taken as it is, not percent-decoded);
// blank lines and lines starting with # are skipped.
func ParseHeadersFile(s string) (http.Header, error) {
	h := http.Header{}
	for n, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		colon, eq := strings.IndexByte(line, ':'), strings.IndexByte(line, '=')
		at := colon
		if at < 0 || eq >= 0 && eq < colon {
			at = eq
		}
		if at <= 0 {
			return nil, fmt.Errorf("line %d is not 'Name: value' or 'name=value'", n+1)
		}
		key := strings.TrimSpace(line[:at])
		if err := add(h, key, strings.TrimSpace(line[at+1:])); err != nil {
			return nil, fmt.Errorf("line %d%s: %w", n+1, named(key), err)
		}
	}
	return h, nil
}

func add(h http.Header, key, val string) error {
	if !token(key) {
		return fmt.Errorf("the name is not a valid HTTP header name")
	}
	for i := 0; i < len(val); i++ {
		if c := val[i]; c < 0x20 && c != '\t' || c == 0x7f {
			return fmt.Errorf("its value holds a control character")
		}
	}
	h.Set(key, val)
	return nil
}

// named names a header's key in a message when it is a header name (text
// that is not may be a secret written without its key).
func named(k string) string {
	if !token(k) || len(k) > 64 {
		return ""
	}
	return " (" + k + ")"
}

// token reports an RFC 9110 token: a valid header name.
func token(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// FromEnv is the Config for sending to url: the headers of the
// environment (the traces variable replaces the generic one), then a
// headers file's (each replacing the environment's of its name); the
// timeout and compression of the environment. What the environment
// holds that cannot be used as it is (a timeout that is no number, a
// protocol other than http/json) is a warning, and the default is used,
// as the specification asks; headers that cannot be read are an error.
func FromEnv(u, headersFile string, getenv func(string) string) (cfg Config, warnings []string, err error) {
	cfg.URL = u
	name := EnvTracesHeaders
	raw := getenv(name)
	if raw == "" {
		name, raw = EnvHeaders, getenv(EnvHeaders)
	}
	if cfg.Header, err = ParseHeaders(raw); err != nil {
		return cfg, nil, fmt.Errorf("%s: %w", name, err)
	}
	if headersFile != "" {
		fh, err := ParseHeadersFile(headersFile)
		if err != nil {
			return cfg, nil, fmt.Errorf("--otlp-headers-file: %w", err)
		}
		for k, v := range fh {
			cfg.Header[k] = v
		}
	}
	name, raw = pick(getenv, EnvTracesTimeout, EnvTimeout)
	if raw != "" {
		ms, err := strconv.ParseInt(strings.TrimSpace(raw), 10, 64)
		switch {
		case err != nil || ms < 0:
			warnings = append(warnings, fmt.Sprintf("%s=%q is not a number of milliseconds: the timeout is %v", name, raw, DefaultTimeout))
		case ms == 0:
			cfg.Timeout = time.Hour // no limit, as the specification says, within reason
		default:
			cfg.Timeout = time.Duration(min(ms, int64(time.Hour/time.Millisecond))) * time.Millisecond
		}
	}
	name, raw = pick(getenv, EnvTracesCompr, EnvCompression)
	switch strings.TrimSpace(raw) {
	case "", "none":
	case "gzip":
		cfg.Gzip = true
	default:
		warnings = append(warnings, fmt.Sprintf("%s=%q is not gzip or none: the batches go uncompressed", name, raw))
	}
	name, raw = pick(getenv, EnvTracesProtocol, EnvProtocol)
	if p := strings.TrimSpace(raw); p != "" && p != "http/json" {
		warnings = append(warnings, fmt.Sprintf("%s=%s: clawtap sends OTLP/HTTP with JSON bodies (http/json), which every collector's OTLP receiver takes", name, p))
	}
	return cfg, warnings, nil
}

// pick is the first of the variables that is set.
func pick(getenv func(string) string, names ...string) (string, string) {
	for _, n := range names {
		if v := getenv(n); v != "" {
			return n, v
		}
	}
	return names[len(names)-1], ""
}
