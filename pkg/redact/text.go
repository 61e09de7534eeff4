package redact

import (
	"bytes"
	"sort"
)

// span is a byte range [start, end) of a text to replace with Marker.
type span struct{ start, end int }

const capPath = "/__openclaw__/cap/"

// scanText appends the ranges of s that hold credentials to spans:
//
//   - the token of a capability URL, /__openclaw__/cap/<token>;
//   - the token after "Bearer ";
//   - PEM private-key blocks, BEGIN to END;
//   - NAME=value assignments whose NAME passes the key rule (any case), or
//     is an upper-case environment name ending in KEY/_PASS, or is key or
//     sig after '?' or '&' (URL queries);
//   - NAME: value and "NAME": "value" pairs (JSON, JSON5, YAML, HTTP
//     headers) whose NAME passes the key rule;
//   - the password of URL user info, scheme://user:password@host;
//   - vendor tokens known by their prefix (tokens.go): GitHub, AWS access
//     key ids, Slack, OpenAI-style sk-.
func scanText(s []byte, spans []span) []span {
	spans = scanCap(s, spans)
	spans = scanBearer(s, spans)
	spans = scanPEM(s, spans)
	spans = scanAssign(s, spans)
	spans = scanColon(s, spans)
	spans = scanUserinfo(s, spans)
	spans = scanTokens(s, spans)
	return spans
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// tokenEnd returns the end of a run of bytes that can make up a token in a
// URL path segment or header.
func tokenEnd(s []byte, i int, stop string) int {
	for i < len(s) {
		c := s[i]
		if c <= ' ' || c == 0x7f || bytes.IndexByte([]byte(stop), c) >= 0 {
			break
		}
		i++
	}
	return i
}

func scanCap(s []byte, spans []span) []span {
	for from := 0; ; {
		k := bytes.Index(s[from:], []byte(capPath))
		if k < 0 {
			return spans
		}
		start := from + k + len(capPath)
		end := tokenEnd(s, start, "/?#\"'\\&)<>]`,;")
		if end > start {
			spans = append(spans, span{start, end})
		}
		from = start
	}
}

func scanBearer(s []byte, spans []span) []span {
	for i := 0; i+6 < len(s); i++ {
		if lowerTab[s[i]] != 'b' || !hasFoldExact(s[i:], "bearer") {
			continue
		}
		if i > 0 && isAlnum(s[i-1]) {
			continue
		}
		j := i + 6
		k := j
		for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
			k++
		}
		if k == j {
			continue
		}
		end := k
		for end < len(s) && (isAlnum(s[end]) || bytes.IndexByte([]byte("._~+/=-"), s[end]) >= 0 || s[end] == '_') {
			end++
		}
		if end-k >= 8 {
			spans = append(spans, span{k, end})
		}
		i = end - 1
	}
	return spans
}

// hasFoldExact reports whether b starts with the lowercase t, ignoring
// ASCII case only.
func hasFoldExact(b []byte, t string) bool {
	if len(b) < len(t) {
		return false
	}
	for j := 0; j < len(t); j++ {
		if lowerTab[b[j]] != t[j] {
			return false
		}
	}
	return true
}

func scanPEM(s []byte, spans []span) []span {
	for from := 0; ; {
		k := bytes.Index(s[from:], []byte("-----BEGIN "))
		if k < 0 {
			return spans
		}
		start := from + k
		labelEnd := bytes.Index(s[start+11:], []byte("-----"))
		if labelEnd < 0 {
			// A block cut short (a streamed chunk): the label may be cut too.
			spans = append(spans, span{start, len(s)})
			return spans
		}
		label := s[start+11 : start+11+labelEnd]
		after := start + 11 + labelEnd + 5
		if !bytes.Contains(label, []byte("PRIVATE")) {
			from = after
			continue
		}
		e := bytes.Index(s[after:], []byte("-----END"))
		if e < 0 {
			spans = append(spans, span{start, len(s)})
			return spans
		}
		end := after + e + 8
		if c := bytes.Index(s[end:], []byte("-----")); c >= 0 {
			end += c + 5
		} else {
			end = len(s)
		}
		spans = append(spans, span{start, end})
		from = end
	}
}

func isNameByte(c byte) bool { return isAlnum(c) || c == '_' || c == '-' || c == '.' }

// nameBefore returns the start of the NAME that ends at i.
func nameBefore(s []byte, i int) int {
	j := i
	for j > 0 && i-j < 128 && isNameByte(s[j-1]) {
		j--
	}
	return j
}

func normBytes(b []byte, buf []byte) []byte {
	buf = buf[:0]
	for _, c := range b {
		buf = appendNormByte(buf, c)
	}
	return buf
}

func isUpperName(b []byte) bool {
	letter := false
	for _, c := range b {
		switch {
		case c >= 'A' && c <= 'Z':
			letter = true
		case c >= '0' && c <= '9' || c == '_':
		default:
			return false
		}
	}
	return letter
}

// isTextCredName is the key rule as used inside text.
func isTextCredName(n []byte) bool { return isCredKey(n) || string(n) == "auth" }

// valueEnd returns the end of an unquoted value starting at i.
func valueEnd(s []byte, i int, stop string) int {
	for i < len(s) && !isSpaceByte(s[i]) && bytes.IndexByte([]byte(stop), s[i]) < 0 {
		i++
	}
	return i
}

// quotedValue reads a value in quotes starting at i (double, single, or an
// escaped double quote). It returns the inside of the quotes.
func quotedValue(s []byte, i int) (start, end int, ok bool) {
	if i >= len(s) {
		return 0, 0, false
	}
	if s[i] == '\\' && i+1 < len(s) && s[i+1] == '"' {
		start = i + 2
		k := bytes.Index(s[start:], []byte(`\"`))
		if k < 0 {
			return start, len(s), true
		}
		return start, start + k, true
	}
	q := s[i]
	if q != '"' && q != '\'' {
		return 0, 0, false
	}
	start = i + 1
	for k := start; k < len(s); k++ {
		if s[k] == '\\' {
			k++
			continue
		}
		if s[k] == q {
			return start, k, true
		}
	}
	return start, len(s), true
}

func scanAssign(s []byte, spans []span) []span {
	var buf [128]byte
	for from := 0; ; {
		k := bytes.IndexByte(s[from:], '=')
		if k < 0 {
			return spans
		}
		i := from + k
		from = i + 1
		if i+1 >= len(s) || s[i+1] == '=' || s[i+1] == '>' || (i > 0 && (s[i-1] == '=' || s[i-1] == '!' || s[i-1] == '<' || s[i-1] == '>')) {
			continue
		}
		ns := nameBefore(s, i)
		if ns == i {
			continue
		}
		name := s[ns:i]
		n := normBytes(name, buf[:0])
		ok := isTextCredName(n)
		if !ok && isUpperName(name) {
			ok = string(n) == "key" || string(n) == "pass" || bytes.HasSuffix(name, []byte("_KEY")) || bytes.HasSuffix(name, []byte("_PASS"))
		}
		if !ok && ns > 0 && (s[ns-1] == '?' || s[ns-1] == '&') {
			ok = string(n) == "key" || string(n) == "sig"
		}
		if !ok && (string(n) == "pw" || string(n) == "pwd") {
			// Short password names; but PWD=/home/… is the shell's
			// working directory.
			v := i + 1
			if v < len(s) && (s[v] == '"' || s[v] == '\'') {
				v++
			}
			ok = v < len(s) && s[v] != '/' && s[v] != '~'
		}
		if !ok {
			continue
		}
		// A value found is not searched again for names: each byte is
		// looked at a bounded number of times (token=token=… stays linear).
		if qs, qe, isQ := quotedValue(s, i+1); isQ {
			if qe > qs {
				spans = append(spans, span{qs, qe})
				from = qe
			}
			continue
		}
		end := valueEnd(s, i+1, "&\"'`;,)<>")
		if end > i+1 {
			spans = append(spans, span{i + 1, end})
			from = end
		}
	}
}

func scanColon(s []byte, spans []span) []span {
	var buf [128]byte
	for from := 0; ; {
		k := bytes.IndexByte(s[from:], ':')
		if k < 0 {
			return spans
		}
		i := from + k
		from = i + 1
		// The name: quoted ("x", 'x', \"x\") or bare, then optional spaces.
		j := i
		for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
			j--
		}
		if j == 0 {
			continue
		}
		var name []byte
		quoted := false
		if q := s[j-1]; q == '"' || q == '\'' {
			quoted = true
			end := j - 1
			esc := end > 0 && s[end-1] == '\\'
			if esc {
				end--
			}
			st := bytes.LastIndexByte(s[max(0, end-128):end], q)
			if st < 0 {
				continue
			}
			st += max(0, end-128)
			name = s[st+1 : end]
			if esc && len(name) > 0 && name[len(name)-1] == '\\' {
				name = name[:len(name)-1]
			}
		} else {
			ns := nameBefore(s, j)
			name = s[ns:j]
		}
		if len(name) == 0 || len(name) > 128 {
			continue
		}
		n := normBytes(name, buf[:0])
		if !isTextCredName(n) {
			continue
		}
		v := i + 1
		for v < len(s) && (s[v] == ' ' || s[v] == '\t') {
			v++
		}
		if v >= len(s) {
			continue
		}
		if qs, qe, isQ := quotedValue(s, v); isQ {
			if qe > qs {
				spans = append(spans, span{qs, qe})
				from = qe
			}
			continue
		}
		switch s[v] {
		case '{', '[', '/': // an object, an array, or a URL's "//"
			continue
		}
		var end int
		if sn := string(n); sn == "authorization" || sn == "proxyauthorization" || sn == "cookie" || sn == "setcookie" {
			end = v
			for end < len(s) && s[end] != '\n' && s[end] != '\r' && s[end] != '"' && s[end] != '\'' && s[end] != '`' {
				end++
			}
		} else {
			end = valueEnd(s, v, ",;}]\"'`)")
		}
		w := s[v:end]
		// "name": 12 is JSON: a count, not a secret (and the pre-scan
		// skips such keys too). A bare name: 1234 may be a PIN.
		if quoted && isNumber(w) {
			continue
		}
		if end > v && string(w) != "null" && string(w) != "true" && string(w) != "false" {
			spans = append(spans, span{v, end})
			from = end
		}
	}
}

func isNumber(w []byte) bool {
	if len(w) == 0 {
		return false
	}
	for _, c := range w {
		if !(c >= '0' && c <= '9' || c == '-' || c == '.' || c == 'e' || c == 'E' || c == '+') {
			return false
		}
	}
	return true
}

func scanUserinfo(s []byte, spans []span) []span {
	for from := 0; ; {
		k := bytes.Index(s[from:], []byte("://"))
		if k < 0 {
			return spans
		}
		a := from + k + 3
		from = a
		end := tokenEnd(s, a, "/?#\"'<>\\`")
		at := bytes.LastIndexByte(s[a:end], '@')
		if at < 0 {
			continue
		}
		at += a
		if c := bytes.IndexByte(s[a:at], ':'); c >= 0 {
			if a+c+1 < at {
				spans = append(spans, span{a + c + 1, at})
			}
		} else if at-a >= 20 {
			spans = append(spans, span{a, at}) // a token used as the user name
		}
	}
}

// applySpans returns s with every span replaced by Marker (overlapping
// spans merged), or nil when there are none.
func applySpans(s []byte, spans []span, dst []byte) []byte {
	// A value that already reads Marker needs nothing: redacting a redacted
	// capture changes nothing.
	n := 0
	for _, sp := range spans {
		if string(s[sp.start:sp.end]) != Marker {
			spans[n] = sp
			n++
		}
	}
	spans = spans[:n]
	if len(spans) == 0 {
		return nil
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	last := 0
	for k := 0; k < len(spans); k++ {
		sp := spans[k]
		for k+1 < len(spans) && spans[k+1].start <= sp.end {
			if spans[k+1].end > sp.end {
				sp.end = spans[k+1].end
			}
			k++
		}
		if sp.start < last {
			sp.start = last
		}
		dst = append(dst, s[last:sp.start]...)
		dst = append(dst, Marker...)
		last = sp.end
	}
	return append(dst, s[last:]...)
}
