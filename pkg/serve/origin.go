package serve

import (
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/clawtap/clawtap/pkg/webguard"
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

func isPort(s string) bool { return webguard.IsPort(s) }

// ParseOrigin reads an --allow-origin value as a browser would send it in
// the Origin header: scheme://host[:port], lower case, without a default
// port or a trailing slash (webguard.ParseOrigin).
func ParseOrigin(s string) (string, error) { return webguard.ParseOrigin(s) }

// originAllowed says whether a WebSocket upgrade with this Origin header
// may go on: no Origin, a loopback page, or an allowed origin
// (webguard.OriginAllowed, the check record's proxy makes too).
func originAllowed(origin string, allowed []string) bool {
	return webguard.OriginAllowed(origin, allowed)
}
