// Package webguard decides who may use clawtap's HTTP listeners on this
// machine (serve, and record's proxy): the checks a browser makes
// necessary, shared so that each listener makes them the same way.
//
//   - Host: a request's Host must name the listener as this machine knows
//     it — a loopback address, localhost or a name under .localhost, the
//     address the connection came in on, or a host the user allowed. A
//     page on a foreign name that DNS rebinding points at 127.0.0.1 sends
//     that foreign name, and is refused.
//   - Origin: a browser page's Origin must be a loopback page or an origin
//     the user allowed. Requests without an Origin are not from a page
//     (a script, a CLI), and pass.
package webguard

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Guard holds what the user allowed beyond this machine.
type Guard struct {
	// AllowOrigins are browser origins (as ParseOrigin gives them) whose
	// pages may connect; their hosts may also be named in Host.
	AllowOrigins []string
	// AllowHosts are more host names (or addresses) a request's Host may
	// name, without the port.
	AllowHosts []string
}

// Check reports whether r may go on, and if not why, in words for a log
// line ("Host \"evil.example\" is not this machine's listener").
func (g Guard) Check(r *http.Request) (ok bool, why string) {
	if !g.HostAllowed(r) {
		return false, fmt.Sprintf("Host %q does not name this listener (a page on another name pointed at this machine: DNS rebinding)", r.Host)
	}
	if origin := r.Header.Get("Origin"); !OriginAllowed(origin, g.AllowOrigins) {
		return false, fmt.Sprintf("browser origin %q is not a loopback page (allow it with --allow-origin)", origin)
	}
	return true, ""
}

// HostAllowed reports whether r's Host names this listener: empty (HTTP/1.0
// without one), a loopback address, localhost or a name under .localhost,
// the local address the connection came in on (the listen address, also
// when listening on every interface), or a host of AllowHosts or of
// AllowOrigins.
func (g Guard) HostAllowed(r *http.Request) bool {
	host := hostOnly(r.Host)
	if host == "" || IsLoopbackName(host) {
		return true
	}
	if ip := net.ParseIP(host); ip != nil {
		if ip.IsLoopback() {
			return true
		}
		if la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
			if ta, ok := la.(*net.TCPAddr); ok && ta.IP.Equal(ip) {
				return true
			}
		}
	}
	for _, h := range g.AllowHosts {
		if strings.EqualFold(hostOnly(h), host) {
			return true
		}
	}
	for _, o := range g.AllowOrigins {
		if u, err := url.Parse(o); err == nil && strings.EqualFold(u.Hostname(), host) {
			return true
		}
	}
	return false
}

// hostOnly strips the port and the brackets of an IPv6 address, and a
// final dot, from a Host value.
func hostOnly(h string) string {
	h = strings.TrimSpace(h)
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	} else {
		h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	}
	return strings.TrimSuffix(h, ".")
}

// IsLoopbackName reports whether host (no port) is localhost, a name under
// .localhost (which browsers resolve to loopback themselves, RFC 6761), or
// a loopback address.
func IsLoopbackName(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	return ip != nil && ip.IsLoopback()
}

// ParseOrigin reads an --allow-origin value as a browser would send it in
// the Origin header: scheme://host[:port], lower case, without a default
// port or a trailing slash.
func ParseOrigin(s string) (string, error) {
	o, ok := NormalizeOrigin(s)
	if !ok {
		return "", fmt.Errorf("%q is not an origin: use scheme://host[:port], e.g. http://localhost:5173", s)
	}
	return o, nil
}

// NormalizeOrigin is ParseOrigin without the error.
func NormalizeOrigin(s string) (string, bool) {
	u, err := url.Parse(strings.TrimSuffix(strings.TrimSpace(s), "/"))
	if err != nil || u.Host == "" || u.User != nil || u.Path != "" || u.RawQuery != "" || u.Fragment != "" {
		return "", false
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", false
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if host == "" { // "http://:" has a host part of a colon alone
		return "", false
	}
	if port != "" && !IsPort(port) {
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

// IsPort reports whether s is a port number, 0 to 65535.
func IsPort(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n >= 0 && n <= 65535 && s[0] != '+' && s[0] != '-'
}

// OriginAllowed says whether a request with this Origin header may go on.
// No Origin: not a browser, a script or a CLI, which any local program
// could be anyway. A page on a loopback host (localhost, a name under
// .localhost, 127.0.0.1, [::1], on any port): the user's own tools, such
// as a UI's dev server. Any other page, including "null" (a file, a
// sandbox), only when allowed names it, since otherwise every site open in
// the browser could use the listener (and, by DNS rebinding, even on
// loopback).
func OriginAllowed(origin string, allowed []string) bool {
	if origin == "" {
		return true
	}
	o, ok := NormalizeOrigin(origin)
	if !ok {
		return false
	}
	u, _ := url.Parse(o)
	if IsLoopbackName(u.Hostname()) {
		return true
	}
	for _, a := range allowed {
		if a == o {
			return true
		}
	}
	return false
}
