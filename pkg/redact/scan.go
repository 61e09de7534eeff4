package redact

import "bytes"

// The text rules, in one pass over a decoded string. Every rule needs one
// of a few bytes, its anchor: ':' (NAME: value, URL user info, Telegram
// bot tokens), '=' (NAME=value), '_', '-', '.' and a few upper-case letters
// (token shapes, capability URLs, PEM blocks), 'b' and 'B' (Bearer). The
// scan stops only at those and looks around them; a value or token it
// found is not searched again by the same rule, so every byte is looked at
// a bounded number of times however the text repeats itself.

// Anchor kinds.
const (
	anNone uint8 = iota
	anColon
	anEq
	anShape // '.', and the upper-case letters that start a prefix
	anUnder // '_': shapes, capability URLs
	anDash  // '-': shapes, PEM blocks
	anB     // 'b', 'B': Bearer
	anEsc   // '\\': raw JSON only (prescan.go)
)

var textAnchors = func() (t [256]uint8) {
	t[':'], t['='], t['.'], t['_'], t['-'] = anColon, anEq, anShape, anUnder, anDash
	t['b'], t['B'] = anB, anB
	for i := range tokenShapes {
		if c := tokenShapes[i].prefix[0]; c >= 'A' && c <= 'Z' && tokenShapes[i].anchor == 0 {
			t[c] = anShape
		}
	}
	return t
}()

// textScan is one scan of a decoded string.
type textScan struct {
	s     []byte
	spans []span
	// Where each rule may look again: past the value or token it found.
	colonFrom, assignFrom, shapeFrom, bearerFrom, urlFrom, pemFrom int
	pemDone                                                        bool
	buf                                                            [128]byte
}

// scanText appends the ranges of s that hold credentials to spans
// (docs/redaction.md, "In any string"):
//
//   - the token of a capability URL, /__openclaw__/cap/<token>;
//   - the token after "Bearer ";
//   - PEM private-key blocks, BEGIN to END;
//   - NAME=value and NAME = value when NAME is a credential name (or an
//     upper-case environment name ending in KEY or PASS, or key or sig in
//     a URL query) and the value could be that credential (credValue);
//   - NAME: value and "NAME": "value" (JSON, JSON5, YAML, HTTP headers),
//     the same way;
//   - an AWS secret access key, 40 base64 bytes after a label that says
//     secret and key;
//   - the password of URL user info, scheme://user:password@host, also
//     with JSON-escaped slashes (https:\/\/…), and the token in a Slack or
//     Discord webhook URL;
//   - vendor tokens by their shape (tokens.go).
func scanText(s []byte, spans []span) []span {
	sc := textScan{s: s, spans: spans}
	for i := 0; i < len(s); i++ {
		switch textAnchors[s[i]] {
		case anNone:
			continue
		case anColon:
			sc.colon(i)
		case anEq:
			sc.assign(i)
		case anUnder:
			if i > 0 && s[i-1] == '/' && hasPrefixAt(s, i-1, capPath) {
				st := i - 1 + len(capPath)
				if e := tokenEnd(s, st, capStop); e > st {
					sc.add(st, e)
				}
			}
			sc.shape(i)
		case anDash:
			sc.pem(i)
			sc.shape(i)
		case anShape:
			sc.shape(i)
		case anB:
			sc.bearer(i)
		}
	}
	return sc.spans
}

func (sc *textScan) add(start, end int) { sc.spans = append(sc.spans, span{start, end}) }

func (sc *textScan) shape(i int) {
	if i < sc.shapeFrom {
		return
	}
	if st, e, ok := shapeAt(sc.s, i, false); ok {
		sc.add(st, e)
		sc.shapeFrom = e
	}
}

func (sc *textScan) bearer(i int) {
	s := sc.s
	if i < sc.bearerFrom || !wordStart(s, i, false) || !(hasPrefixAt(s, i+1, "earer") || hasPrefixAt(s, i+1, "EARER")) {
		return
	}
	j := i + 6
	k := j
	for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
		k++
	}
	if k == j {
		return
	}
	end := runFwd(s, k, isBearerByte)
	if end-k >= 8 {
		sc.add(k, end)
		sc.bearerFrom = end
	}
}

func isBearerByte(c byte) bool {
	return isAlnum(c) || c == '.' || c == '_' || c == '~' || c == '+' || c == '/' || c == '=' || c == '-'
}

func (sc *textScan) pem(i int) {
	s := sc.s
	if sc.pemDone || i < sc.pemFrom || !hasPrefixAt(s, i, "-----BEGIN ") {
		return
	}
	labelEnd := bytes.Index(s[i+11:], []byte("-----"))
	if labelEnd < 0 {
		// A block cut short (a streamed chunk): the label may be cut too.
		sc.add(i, len(s))
		sc.pemDone = true
		return
	}
	label := s[i+11 : i+11+labelEnd]
	after := i + 11 + labelEnd + 5
	if !bytes.Contains(label, []byte("PRIVATE")) {
		sc.pemFrom = after
		return
	}
	e := bytes.Index(s[after:], []byte("-----END"))
	if e < 0 {
		sc.add(i, len(s))
		sc.pemDone = true
		return
	}
	end := after + e + 8
	if c := bytes.Index(s[end:], []byte("-----")); c >= 0 {
		end += c + 5
	} else {
		end = len(s)
	}
	sc.add(i, end)
	sc.pemFrom = end
}

// colon applies the rules anchored at a ':'.
func (sc *textScan) colon(i int) {
	s := sc.s
	if i >= sc.urlFrom {
		if end, ok := sc.url(i); ok {
			sc.urlFrom = end
		}
	}
	if i >= sc.shapeFrom {
		if st, e, ok := telegramAt(s, i, false); ok {
			sc.add(st, e)
			sc.shapeFrom = e
		}
	}
	if i < sc.colonFrom {
		return
	}
	// The name: quoted ("x", 'x', \"x\") or bare, then optional spaces.
	j := i
	for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
		j--
	}
	if j == 0 {
		return
	}
	var name []byte
	quoted := false
	ns := j
	switch q := s[j-1]; {
	case q == '"' || q == '\'':
		quoted = true
		end := j - 1
		esc := end > 0 && s[end-1] == '\\'
		if esc {
			end--
		}
		st := bytes.LastIndexByte(s[max(0, end-128):end], q)
		if st < 0 {
			return
		}
		st += max(0, end-128)
		name = s[st+1 : end]
		if esc && len(name) > 0 && name[len(name)-1] == '\\' {
			name = name[:len(name)-1]
		}
		ns = st
	case q == ']':
		// A prompt's default, as in "AWS Secret Access Key [None]: ".
		if o := bytes.LastIndexByte(s[max(0, j-33):j], '['); o >= 0 {
			k := max(0, j-33) + o
			for k > 0 && s[k-1] == ' ' {
				k--
			}
			ns = nameBefore(s, k)
			name = s[ns:k]
		}
	default:
		ns = nameBefore(s, j)
		name = s[ns:j]
	}
	if len(name) == 0 || len(name) > 128 {
		return
	}
	n := normBytes(name, sc.buf[:0])
	cls := credClass(n)
	aws := cls == kcNone && awsLabel(s, ns, n)
	if cls == kcNone && !aws {
		return
	}
	v := i + 1
	for v < len(s) && (s[v] == ' ' || s[v] == '\t') {
		v++
	}
	if v >= len(s) {
		return
	}
	ok := func(val []byte) bool {
		if aws {
			return awsSecret(val)
		}
		return credValue(cls, val)
	}
	if qs, qe, isQ := quotedValue(s, v); isQ {
		if qe-qs > maxValue && !hasSpace(s[qs:qs+maxValue]) || qe > qs && qe-qs <= maxValue && ok(s[qs:qe]) {
			sc.add(qs, qe)
			sc.colonFrom = qe
		}
		return
	}
	switch s[v] {
	case '{', '[', '/': // an object, an array, or a URL's "//"
		return
	}
	if bracketed(s, v) > 0 { // <your token>, ${TOKEN}: a placeholder
		return
	}
	var end int
	long := false
	if cls == kcHeader {
		end = v
		for end < len(s) && s[end] != '\n' && s[end] != '\r' && s[end] != '"' && s[end] != '\'' && s[end] != '`' {
			end++
		}
	} else if end, long = valueEndLim(s, v, ",;}]\"'`)"); long {
		end = valueEnd(s, v, ",;}]\"'`)")
		sc.add(v, end)
		sc.colonFrom = end
		return
	}
	w := s[v:end]
	// "name": 12 is JSON: a count, not a secret (and the pre-scan skips
	// such keys too). A bare name: 1234 may be a PIN under a password
	// name, and is a count under any other ("Secrets: 2").
	if isNumber(w) && (quoted || cls != kcPhrase && len(w) < 16) {
		return
	}
	if end > v && ok(w) {
		sc.add(v, end)
		sc.colonFrom = end
	}
}

// assign applies the NAME=value rule at the '=' s[i].
func (sc *textScan) assign(i int) {
	s := sc.s
	if i < sc.assignFrom || i+1 >= len(s) || s[i+1] == '=' || s[i+1] == '>' || (i > 0 && (s[i-1] == '=' || s[i-1] == '!' || s[i-1] == '<' || s[i-1] == '>')) {
		return
	}
	j := i
	for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
		j--
	}
	spaced := j < i
	ns := nameBefore(s, j)
	if ns == j {
		return
	}
	name := s[ns:j]
	n := normBytes(name, sc.buf[:0])
	cls, pwd := assignClass(s, ns, name, n, spaced)
	aws := cls == kcNone && awsLabel(s, ns, n)
	if cls == kcNone && !aws {
		return
	}
	v := i + 1
	if spaced {
		for v < len(s) && (s[v] == ' ' || s[v] == '\t') {
			v++
		}
	}
	if pwd {
		// Short password names; but PWD=/home/… is the shell's working
		// directory.
		w := v
		if w < len(s) && (s[w] == '"' || s[w] == '\'') {
			w++
		}
		if w >= len(s) || s[w] == '/' || s[w] == '~' {
			return
		}
	}
	// A value found is not searched again for names: each byte is looked
	// at a bounded number of times (token=token=… stays linear).
	if qs, qe, isQ := quotedValue(s, v); isQ {
		if qe-qs > maxValue && !hasSpace(s[qs:qs+maxValue]) || qe > qs && qe-qs <= maxValue && (aws && awsSecret(s[qs:qe]) || !aws && credValue(cls, s[qs:qe])) {
			sc.add(qs, qe)
			sc.assignFrom = qe
		}
		return
	}
	if bracketed(s, v) > 0 {
		return
	}
	end, long := valueEndLim(s, v, "&\"'`;,)<>")
	if long {
		end = valueEnd(s, v, "&\"'`;,)<>")
		sc.add(v, end)
		sc.assignFrom = end
		return
	}
	if end == v {
		return
	}
	w := s[v:end]
	if cls != kcPhrase && isNumber(w) && len(w) < 16 {
		return // retries=3 is a count
	}
	var ok bool
	switch {
	case aws:
		ok = awsSecret(w)
	case spaced:
		ok = spacedValue(cls, w)
	default:
		ok = credValue(cls, w)
	}
	if ok {
		sc.add(v, end)
		sc.assignFrom = end
	}
}

// assignClass is the class of a NAME before '=': a credential name, or an
// upper-case environment name KEY, *_KEY (a token), PASS, *_PASS (a
// password), or key or sig right after '?' or '&' (a URL query), or pw or
// pwd (a password, pwd reported so that PWD=/path is kept).
func assignClass(s []byte, ns int, name, n []byte, spaced bool) (cls keyClass, pwd bool) {
	if cls = credClass(n); cls != kcNone {
		return cls, false
	}
	if isUpperName(name) {
		switch {
		case string(n) == "key" || bytes.HasSuffix(name, []byte("_KEY")):
			return kcToken, false
		case string(n) == "pass" || bytes.HasSuffix(name, []byte("_PASS")):
			return kcPhrase, false
		}
	}
	if !spaced && ns > 0 && (s[ns-1] == '?' || s[ns-1] == '&') && (string(n) == "key" || string(n) == "sig") {
		return kcToken, false
	}
	if string(n) == "pw" || string(n) == "pwd" {
		return kcPhrase, true
	}
	return kcNone, false
}

// spacedValue judges an unquoted value after "NAME = ", which is as often
// code (token = getToken(), secret = cfg.secret) as a config file: a
// password-type name takes a word that is not code, any other name only a
// value that looks generated.
func spacedValue(cls keyClass, w []byte) bool {
	if cls != kcPhrase && cls != kcHeader {
		return generatedLike(w) && credValue(cls, w)
	}
	if !credValue(cls, w) || bytes.ContainsAny(w, "()[]{}") {
		return false
	}
	// os.environ, cfg.password: an attribute, not a value.
	if d := bytes.IndexByte(w, '.'); d > 0 && d+1 < len(w) && (w[d+1] >= 'a' && w[d+1] <= 'z' || w[d+1] >= 'A' && w[d+1] <= 'Z') {
		return false
	}
	return true
}

// awsLabel reports whether the name n (normalized, starting at s[ns]) ends
// a label of an AWS secret access key: it ends in "key" and "secret"
// comes shortly before it ("AWS Secret Access Key", "aws_secret_key").
func awsLabel(s []byte, ns int, n []byte) bool {
	if !bytes.HasSuffix(n, []byte("key")) {
		return false
	}
	from := max(0, ns-32)
	for k := from; k+6 <= ns+len(n) && k+6 <= len(s); k++ {
		if lowerTab[s[k]] == 's' && hasFoldExact(s[k:], "secret") {
			return true
		}
	}
	return false
}

// awsSecret reports whether v has the shape of an AWS secret access key:
// 40 base64 bytes with a letter and a digit.
func awsSecret(v []byte) bool {
	if len(v) != 40 {
		return false
	}
	var letter, digit bool
	for _, c := range v {
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letter = true
		case c == '+' || c == '/':
		default:
			return false
		}
	}
	return letter && digit
}

// slashesAfter returns the index just past "//" after the ':' at s[i],
// each '/' possibly escaped by backslashes (https:\/\/, and escaped again
// inside JSON text inside a string: https:\\\/\\\/).
func slashesAfter(s []byte, i int) (int, bool) {
	j := i + 1
	for n := 0; n < 2; n++ {
		for j < len(s) && s[j] == '\\' {
			j++
		}
		if j >= len(s) || s[j] != '/' {
			return 0, false
		}
		j++
	}
	return j, true
}

// url applies the URL rules at the ':' s[i] of scheme://: the password of
// user info (or a user name of 20 or more bytes with no password, a token
// used as the user), and the token of a Slack or Discord webhook URL. It
// returns where the URL's authority ends.
func (sc *textScan) url(i int) (int, bool) {
	s := sc.s
	a, ok := slashesAfter(s, i)
	if !ok {
		return 0, false
	}
	end := tokenEnd(s, a, urlStop)
	host := a
	if at := bytes.LastIndexByte(s[a:end], '@'); at >= 0 {
		at += a
		host = at + 1
		if c := bytes.IndexByte(s[a:at], ':'); c >= 0 {
			if a+c+1 < at {
				sc.add(a+c+1, at)
			}
		} else if at-a >= 20 {
			sc.add(a, at) // a token used as the user name
		}
	}
	if st, e, ok := webhookToken(s, host, end); ok {
		sc.add(st, e)
		return e, true
	}
	return end, true
}

// webhookToken finds the secret part of a Slack (hooks.slack.com/services/
// T…/B…/SECRET, /workflows/…, /triggers/…) or Discord
// (discord.com/api/webhooks/ID/SECRET) webhook URL whose host is
// s[host:end]; path slashes may be JSON-escaped.
func webhookToken(s []byte, host, end int) (int, int, bool) {
	h := bytes.ToLower(s[host:end])
	if c := bytes.IndexByte(h, ':'); c >= 0 {
		h = h[:c]
	}
	var segs []string
	switch string(h) {
	case "hooks.slack.com":
		segs = []string{"services", "workflows", "triggers"}
	case "discord.com", "discordapp.com", "ptb.discord.com", "canary.discord.com":
		segs = []string{"api"}
	default:
		return 0, 0, false
	}
	// Path segments after the host.
	p := end
	var starts []int
	for len(starts) < 6 {
		q := p
		for q < len(s) && s[q] == '\\' {
			q++
		}
		if q >= len(s) || s[q] != '/' {
			break
		}
		q++
		starts = append(starts, q)
		p = tokenEnd(s, q, urlStop)
	}
	if len(starts) == 0 {
		return 0, 0, false
	}
	first := string(s[starts[0]:min(len(s), starts[0]+len("workflows"))])
	match := false
	for _, sg := range segs {
		if len(first) >= len(sg) && first[:len(sg)] == sg {
			match = true
		}
	}
	if !match || len(starts) < 2 {
		return 0, 0, false
	}
	if string(h) == "hooks.slack.com" {
		// Everything after the first segment identifies and authorises.
		return starts[1], p, p > starts[1]
	}
	// discord: /api/webhooks/ID/TOKEN
	if len(starts) < 4 {
		return 0, 0, false
	}
	return starts[3], p, p > starts[3]
}

// bracketed returns the length of a placeholder written in brackets at
// s[v] on one line — <your token>, ${TOKEN}, {{token}}, [REDACTED] — or 0.
func bracketed(s []byte, v int) int {
	if v >= len(s) {
		return 0
	}
	var closer byte
	switch s[v] {
	case '<':
		closer = '>'
	case '[':
		closer = ']'
	case '{':
		closer = '}'
	case '$':
		if v+1 < len(s) && s[v+1] == '{' {
			closer = '}'
		}
	}
	if closer == 0 {
		return 0
	}
	for k := v + 1; k < len(s) && k-v <= 64; k++ {
		switch s[k] {
		case closer:
			return k + 1 - v
		case '\n', '\r', '"', '\'', '\\':
			return 0
		}
	}
	return 0
}
