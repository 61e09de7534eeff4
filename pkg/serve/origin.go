package serve

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// DefaultPort is the gateway's own port, which serve takes by default.
const DefaultPort = 18789

// ListenAddress reads a --listen value. A bare port ("18789") or ":PORT"
// means loopback, 127.0.0.1:PORT: a capture is not for the network unless
// asked. Any other host is used as given; exposed reports whether it may
// be reached from beyond this machine (0.0.0.0, [::], a LAN address, a
// name other than localhost).
func ListenAddress(s string) (addr string, exposed bool, err error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", false, errors.New("empty address")
	}
	host, port := "", s
	if !isPort(s) {
		if host, port, err = net.SplitHostPort(s); err != nil {
			return "", false, fmt.Errorf("%q is not host:port, :port or a port", s)
		}
	}
	if !isPort(port) {
		return "", false, fmt.Errorf("%q: port %q is not a number from 0 to 65535", s, port)
	}
	switch ip := net.ParseIP(host); {
	case host == "":
		host = "127.0.0.1"
	case ip == nil && !isHostname(host):
		return "", false, fmt.Errorf("%q: %q is not an IP address or a host name", s, host)
	case strings.EqualFold(host, "localhost"):
	case ip != nil && ip.IsLoopback():
	default:
		exposed = true
	}
	return net.JoinHostPort(host, port), exposed, nil
}

// isHostname accepts the letters, digits, dots, hyphens and underscores
// of DNS names.
func isHostname(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for _, c := range []byte(s) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

func isPort(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n >= 0 && n <= 65535 && s[0] != '+' && s[0] != '-'
}

// ParseOrigin reads an --allow-origin value as a browser would send it in
// the Origin header: scheme://host[:port], lower case, without a default
// port or a trailing slash.
func ParseOrigin(s string) (string, error) {
	o, ok := normalizeOrigin(s)
	if !ok {
		return "", fmt.Errorf("%q is not an origin: use scheme://host[:port], e.g. http://localhost:5173", s)
	}
	return o, nil
}

func normalizeOrigin(s string) (string, bool) {
	u, err := url.Parse(strings.TrimSuffix(strings.TrimSpace(s), "/"))
	if err != nil || u.Host == "" || u.User != nil || u.Path != "" || u.RawQuery != "" || u.Fragment != "" {
		return "", false
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", false
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if port != "" && !isPort(port) {
		return "", false
	}
	if scheme == "http" && port == "80" || scheme == "https" && port == "443" {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host, true
}

// originAllowed says whether a WebSocket upgrade with this Origin header
// may go on. No Origin: not a browser, a script or a CLI, which any local
// program could be anyway. A page on a loopback host (localhost,
// 127.0.0.1, [::1], on any port): the user's own tools, such as a UI's
// dev server. Any other page, including "null" (a file, a sandbox), only
// when allowed names it, since otherwise every site open in the browser
// could read the capture (and, by DNS rebinding, even on loopback).
func originAllowed(origin string, allowed []string) bool {
	if origin == "" {
		return true
	}
	o, ok := normalizeOrigin(origin)
	if !ok {
		return false
	}
	u, _ := url.Parse(o)
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return true
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return true
	}
	for _, a := range allowed {
		if a == o {
			return true
		}
	}
	return false
}
