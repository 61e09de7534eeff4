package redact

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// mask replaces every letter with x (X for an upper-case ASCII letter) and
// every digit with 0, rune by rune, keeping whitespace, punctuation, symbols
// and the rune count. Because it works rune by rune, mask(a+b) ==
// mask(a)+mask(b): streamed deltas still add up to the cumulative text, and
// prefix relations between snapshots survive.
func mask(s []byte, dst []byte) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c >= 'a' && c <= 'z':
				c = 'x'
			case c >= 'A' && c <= 'Z':
				c = 'X'
			case c >= '0' && c <= '9':
				c = '0'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			dst = append(dst, s[i])
		case unicode.IsLetter(r):
			dst = append(dst, 'x')
		case unicode.IsNumber(r):
			dst = append(dst, '0')
		default:
			dst = append(dst, s[i:i+n]...)
		}
		i += n
	}
	return dst
}

// needsMask reports whether mask would change s.
func needsMask(s []byte) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 'a' && c <= 'w' || c >= 'y' && c <= 'z' || c >= 'A' && c <= 'W' || c >= 'Y' && c <= 'Z' || c >= '1' && c <= '9' {
				return true
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(s[i:])
		if r != 'x' && (unicode.IsLetter(r) || unicode.IsNumber(r)) {
			return true
		}
		i += n
	}
	return false
}

const blobPrefix = "«blob:"

// isBase64ish reports whether s looks like a base64 payload: long, and made
// only of base64 or base64url characters (line breaks allowed).
func isBase64ish(s []byte) bool {
	if len(s) < 128 {
		return false
	}
	for _, c := range s {
		if !(isAlnum(c) || c == '+' || c == '/' || c == '=' || c == '-' || c == '_' || c == '\n' || c == '\r') {
			return false
		}
	}
	return true
}

// isDataURL reports whether s is a data: URL carrying base64.
func isDataURL(s []byte) (comma int, ok bool) {
	if !hasFoldExact(s, "data:") {
		return 0, false
	}
	c := bytes.IndexByte(s, ',')
	if c < 0 || c > 256 {
		return 0, false
	}
	return c, true
}

// prf returns HMAC-SHA256(key, tag || counter || s).
func (r *Redactor) prf(tag byte, counter uint32, s []byte) [32]byte {
	r.mac.Reset()
	var hdr [5]byte
	hdr[0] = tag
	binary.BigEndian.PutUint32(hdr[1:], counter)
	r.mac.Write(hdr[:])
	r.mac.Write(s)
	var out [32]byte
	r.mac.Sum(out[:0])
	return out
}

// blob returns the placeholder for an opaque payload: a keyed hash and the
// payload's length in bytes, «blob:<12 hex>:<n>».
func (r *Redactor) blob(s []byte, dst []byte) []byte {
	h := r.prf('b', 0, s)
	dst = append(dst, blobPrefix...)
	dst = hex.AppendEncode(dst, h[:6])
	dst = append(dst, ':')
	dst = strconv.AppendInt(dst, int64(len(s)), 10)
	return append(dst, "»"...)
}

// keystream returns n pseudo-random bytes derived from s.
func (r *Redactor) keystream(s string, n int) []byte {
	out := make([]byte, 0, (n+31)&^31)
	for i := uint32(0); len(out) < n; i++ {
		h := r.prf('p', i, []byte(s))
		out = append(out, h[:]...)
	}
	return out[:n]
}

// pseudo returns a stable pseudonym for s that keeps its shape: digits
// stay digits, letters stay letters of the same case, hex stays hex (so
// device ids and UUIDs keep their format), everything else is kept.
func (r *Redactor) pseudo(s string) string {
	if s == "" || s == Marker {
		return s
	}
	if p, ok := r.cache[s]; ok {
		return p
	}
	hexish, nhex := true, 0
	hasAF := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			nhex++
		case c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F':
			nhex++
			hasAF = true
		case c == '-':
		default:
			hexish = false
		}
	}
	hexish = hexish && hasAF && nhex >= 8
	ks := r.keystream(s, len(s))
	out := make([]byte, 0, len(s))
	for i, ch := range s {
		k := ks[i]
		switch {
		case hexish && (ch >= '0' && ch <= '9' || ch >= 'a' && ch <= 'f'):
			out = append(out, "0123456789abcdef"[k&15])
		case hexish && ch >= 'A' && ch <= 'F':
			out = append(out, "0123456789ABCDEF"[k&15])
		case ch >= '0' && ch <= '9':
			out = append(out, '0'+k%10)
		case ch >= 'a' && ch <= 'z':
			out = append(out, 'a'+k%26)
		case ch >= 'A' && ch <= 'Z':
			out = append(out, 'A'+k%26)
		case unicode.IsLetter(ch):
			out = append(out, 'a'+k%26)
		case unicode.IsNumber(ch):
			out = append(out, '0'+k%10)
		default:
			out = utf8.AppendRune(out, ch)
		}
	}
	p := string(out)
	if len(r.cache) >= maxCache {
		clear(r.cache)
	}
	r.cache[s] = p
	return p
}

const maxCache = 1 << 16

// pseudoIP maps an IP address to one in 10.0.0.0/8 (IPv4) or fd00::/8
// (IPv6). Loopback and unspecified addresses are kept.
func (r *Redactor) pseudoIP(s string) string {
	a, err := netip.ParseAddr(s)
	if err != nil {
		return r.pseudoHost(s)
	}
	if a.IsLoopback() || a.IsUnspecified() {
		return s
	}
	ks := r.keystream("ip\x00"+s, 16)
	if a.Unmap().Is4() {
		return netip.AddrFrom4([4]byte{10, ks[0], ks[1], 1 + ks[2]%254}).String()
	}
	var b [16]byte
	copy(b[:], ks)
	b[0] = 0xfd
	return netip.AddrFrom16(b).String()
}

// pseudoHost pseudonymises a host name, an IP, or host:port.
func (r *Redactor) pseudoHost(s string) string {
	if hostKeep[strings.ToLower(s)] {
		return s
	}
	if _, err := netip.ParseAddr(s); err == nil {
		return r.pseudoIP(s)
	}
	if h, p, err := net.SplitHostPort(s); err == nil {
		return net.JoinHostPort(r.pseudoHost(h), p)
	}
	return r.pseudo(s)
}

var kindWords = map[string]bool{
	"direct": true, "dm": true, "group": true, "channel": true, "thread": true,
	"topic": true, "user": true, "peer": true, "chat": true, "room": true,
	"guild": true, "account": true, "conversation": true, "sender": true,
	"space": true, "contact": true,
}

func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		c := s[i]
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return false
			}
		} else if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// isPeerish reports whether a session-key or address segment looks like a
// channel peer id: it has an '@', starts with '+', or has four or more
// digits without being a UUID (run and job ids are UUIDs).
func isPeerish(seg string) bool {
	if strings.ContainsRune(seg, '@') || strings.HasPrefix(seg, "+") {
		return true
	}
	digits := 0
	for i := 0; i < len(seg); i++ {
		if seg[i] >= '0' && seg[i] <= '9' {
			digits++
		}
	}
	return digits >= 4 && !isUUID(seg)
}

// pseudoSegments pseudonymises the peer-like ':'-separated segments of s
// from index from on: peerish ones and those after a kind word (direct,
// group, channel, thread, ...).
func (r *Redactor) pseudoSegments(s string, from int, always bool) string {
	parts := strings.Split(s, ":")
	changed := false
	for j := from; j < len(parts); j++ {
		seg := parts[j]
		if seg == "" {
			continue
		}
		if isPeerish(seg) || (j > from && kindWords[strings.ToLower(parts[j-1])]) {
			parts[j] = r.pseudo(seg)
			changed = true
		}
	}
	if !changed && always {
		last := len(parts) - 1
		if parts[last] != "" && !kindWords[strings.ToLower(parts[last])] {
			parts[last] = r.pseudo(parts[last])
			changed = true
		}
	}
	if !changed {
		return s
	}
	return strings.Join(parts, ":")
}

// pseudoSessionKey keeps "agent:<id>:" and the channel/kind words of a
// session key, and pseudonymises the peer ids in the rest.
func (r *Redactor) pseudoSessionKey(s string) string {
	if !strings.HasPrefix(s, "agent:") {
		return s
	}
	return r.pseudoSegments(s, 2, false)
}

// pseudoPeer pseudonymises a delivery address ("telegram:123", "+1555…",
// "alice"): its peer-like segments, or else its last segment.
func (r *Redactor) pseudoPeer(s string) string {
	if strings.HasPrefix(s, "agent:") {
		return r.pseudoSessionKey(s)
	}
	return r.pseudoSegments(s, 0, true)
}

var homeDirs = []string{"/home/", "/Users/", `\Users\`}

// pseudoPaths pseudonymises the user name in home-directory paths. It
// returns "" when s has none.
func (r *Redactor) pseudoPaths(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '/' && s[i] != '\\' {
			continue
		}
		var pre string
		for _, h := range homeDirs {
			if strings.HasPrefix(s[i:], h) {
				pre = h
				break
			}
		}
		if pre == "" {
			continue
		}
		st := i + len(pre)
		end := st
		for end < len(s) && (isAlnum(s[end]) || s[end] == '.' || s[end] == '_' || s[end] == '-' || s[end] >= utf8.RuneSelf) {
			end++
		}
		name := s[st:end]
		if name == "" || name == "Shared" {
			continue
		}
		b.WriteString(s[last:st])
		b.WriteString(r.pseudo(name))
		last = end
		i = end - 1
	}
	if last == 0 {
		return ""
	}
	b.WriteString(s[last:])
	return b.String()
}
