package redact

import "bytes"

// The pre-scan's judgements of names (prescan.go finds the anchors): at a
// ':' or '=', is the name before it one a rule looks at, and could its
// value be what that rule replaces? Most names are turned down by their
// last four letters (nameMayMatch) before anything else is read.

// rawName returns the name before b[j] (bare, or what a quote or escaped
// quote ends), without a JSON escape's letter in front ("\npass" is a
// newline and pass), and where it starts.
func rawName(b []byte, j int) (name []byte, ns int, quoted bool) {
	k := j
	for k > 0 && j-k < 4 && (b[k-1] == '"' || b[k-1] == '\'' || b[k-1] == '\\') {
		k--
	}
	quoted = k < j
	if k > 0 && b[k-1] == ']' {
		if o := bytes.LastIndexByte(b[max(0, k-33):k], '['); o >= 0 {
			k = max(0, k-33) + o
			for k > 0 && b[k-1] == ' ' {
				k--
			}
		}
	}
	ns = nameBefore(b, k)
	return b[ns:k], ns, quoted
}

// unescapedName returns name (that starts at b[ns]) without the letters of
// a JSON escape right before it ("\npass" is a newline and pass), or nil
// when no escape is there. The backslash may be an escaped one ("\\pass"),
// so both readings are tried.
func unescapedName(b []byte, ns int, name []byte) []byte {
	if ns == 0 || b[ns-1] != '\\' || len(name) == 0 {
		return nil
	}
	if name[0] == 'u' && len(name) >= 5 {
		return name[5:]
	}
	return name[1:]
}

// rawClass is the class of a raw name, read as it is and, after an escape,
// without the escape's letters: the first that is a credential name.
func rawClass(b []byte, ns int, name []byte, buf []byte) (keyClass, []byte) {
	n := normBytes(name, buf[:0])
	cls := credClass(n)
	if cls == kcNone {
		if alt := unescapedName(b, ns, name); alt != nil {
			var abuf [128]byte
			an := normBytes(alt, abuf[:0])
			if c := credClass(an); c != kcNone || isCapKey(an) || string(an) == "method" || isCredListKey(an) || hasSuffixStr(an, "key") {
				return c, append(buf[:0], an...)
			}
		}
	}
	return cls, n
}

// nameSigs has a bit for a hash of the last four letters (lower case,
// '_' and '-' dropped) of every name of four letters or more that a rule
// looks at, as a word or as the end of a longer name; nameMayMatch checks
// the shorter ones (key, jwt, sig, pw, pwd) by hand. A name that passes
// neither is turned down at once: most keys of a frame are.
var nameSigs = func() (t [1 << 16 / 64]uint64) {
	for _, w := range []string{
		"token", "tokens", "secret", "secrets", "password", "passwd", "passphrase", "pass", "apikey",
		"privatekey", "secretkey", "secretaccesskey", "credential", "credentials", "authorization",
		"cookie", "cookies", "signature", "nonce", "recoveryscope", "pathenv", "auth",
		"canvashosturl", "surfaceurl", "surfaceurls", "method",
	} {
		var l [4]byte
		for k := 0; k < 4; k++ {
			l[k] = w[len(w)-1-k]
		}
		h := sig4(l)
		t[h>>6] |= 1 << (h & 63)
	}
	return t
}()

func sig4(l [4]byte) uint16 {
	x := uint32(l[0]) | uint32(l[1])<<8 | uint32(l[2])<<16 | uint32(l[3])<<24
	return uint16((x * 0x9E3779B1) >> 16)
}

// nameMayMatch is the fast test: could the name ending at b[k] (after the
// quotes and escapes before a ':' or '=') be one a rule looks at?
func nameMayMatch(b []byte, k int) bool {
	for k > 0 && (b[k-1] == '"' || b[k-1] == '\'' || b[k-1] == '\\') {
		k--
	}
	if k > 0 && b[k-1] == ']' {
		return true // a prompt: AWS Secret Access Key [None]:
	}
	if k > 0 && b[k-1]-'0' < 10 {
		// No name a rule reads ends in a digit (a time's 03:23 is
		// turned down here, without the loop below).
		return false
	}
	var l [4]byte // the last letters, last first
	if k >= 5 {
		// The common case: a name of plain letters.
		l = [4]byte{lowerTab[b[k-1]], lowerTab[b[k-2]], lowerTab[b[k-3]], lowerTab[b[k-4]]}
		if l[0] >= 'a' && l[0] <= 'z' && l[1] >= 'a' && l[1] <= 'z' && l[2] >= 'a' && l[2] <= 'z' && l[3] >= 'a' && l[3] <= 'z' {
			if h := sig4(l); nameSigs[h>>6]&(1<<(h&63)) != 0 {
				return true
			}
			if !(l[0] == 'y' && l[1] == 'e' && l[2] == 'k' || l[0] == 't' && l[1] == 'w' && l[2] == 'j' ||
				l[0] == 'w' && l[1] == 'p' || l[0] == 'd' && l[1] == 'w' && l[2] == 'p' || l[0] == 'g' && l[1] == 'i' && l[2] == 's') {
				return false
			}
		}
	}
	n := 0
	sep3 := false // a '_' or '-' right before the last three letters
	for k > 0 && n < 4 {
		c := b[k-1]
		k--
		if c == '_' || c == '-' {
			if n == 3 {
				sep3 = true
			}
			continue
		}
		if !isAlnum(c) {
			break
		}
		l[n] = lowerTab[c]
		n++
	}
	if n == 4 {
		h := sig4(l)
		if nameSigs[h>>6]&(1<<(h&63)) != 0 {
			return true
		}
	}
	// The short names match only whole, but a JSON escape right before a
	// name lends it letters ("\\u00e9pw" is é and pw): pw, pwd, sig and
	// jwt pass at the end of any name, key at the end of a name cut by an
	// escape, a '_' or a '-'.
	switch {
	case n >= 3 && l[0] == 'y' && l[1] == 'e' && l[2] == 'k': // key, MY_KEY, x-api-key
		if n == 3 || sep3 {
			return true
		}
		for k > 0 && isAlnum(b[k-1]) {
			k--
		}
		return k > 0 && b[k-1] == '\\'
	case n >= 3 && l[0] == 't' && l[1] == 'w' && l[2] == 'j', // jwt
		n >= 3 && l[0] == 'd' && l[1] == 'w' && l[2] == 'p', // pwd
		n >= 3 && l[0] == 'g' && l[1] == 'i' && l[2] == 's', // sig
		n >= 2 && l[0] == 'w' && l[1] == 'p':                // pw
		return true
	}
	return false
}

// nameVerdict is what the name before a ':' or '=' decides, before its
// value is read (colonWith, assignWith read on from it).
type nameVerdict struct {
	reject          bool // no rule reads the value (or the first tests turn the name down)
	judged          bool // the first tests passed it: the scan judged it from more than the bytes next to it
	cls             keyClass
	aws             bool // an AWS secret key's label (awsLabel)
	quoted          bool // a quoted name (':')
	spaced          bool // blanks before the '=' ('=')
	pwd             bool // pw or pwd ('=')
	credKey, header bool // the scan's flags, set once the value is read
	method, capKey  bool // "method", a capability path's name (':', in frames)
}

// colonName is the verdict of the name before the ':' b[i] (colon's name
// part); named says nameMayMatch passed it already.
func colonName(b []byte, i int, named, frame bool) nameVerdict {
	j := skipBlankBack(b, i)
	if j == 0 || !named && !nameMayMatch(b, j) {
		return nameVerdict{reject: true}
	}
	name, ns, quoted := rawName(b, j)
	if len(name) == 0 || len(name) > 128 {
		return nameVerdict{reject: true}
	}
	var buf [128]byte
	cls, n := rawClass(b, ns, name, buf[:0])
	nv := nameVerdict{
		quoted:  quoted,
		credKey: cls != kcNone && cls != kcWeak,
		header:  cls == kcHeader,
	}
	if cls == kcNone && quoted && isCredListKey(n) {
		cls = kcToken // "outputTokens": "12" is a string under a list name
	}
	nv.cls = cls
	if frame {
		nv.method = string(n) == "method"
		nv.capKey = !nv.method && isCapKey(n)
	}
	nv.aws = cls == kcNone && awsLabel(b, ns, n)
	nv.reject = cls == kcNone && !nv.aws && !nv.method && !nv.capKey
	return nv
}

// assignName is the verdict of the name before the '=' b[i] (assign's
// name part).
func assignName(b []byte, i int, named bool) nameVerdict {
	j := skipBlankBack(b, i)
	spaced := j < i
	if j == 0 || !named && !nameMayMatch(b, j) {
		return nameVerdict{reject: true}
	}
	ns := nameBefore(b, j)
	if ns == j {
		return nameVerdict{reject: true}
	}
	name := b[ns:j]
	esc := ns > 0 && b[ns-1] == '\\'
	var buf [128]byte
	n := normBytes(name, buf[:0])
	cls, pwd := assignClass(b, ns, name, n, spaced)
	if alt := unescapedName(b, ns, name); cls == kcNone && alt != nil {
		var abuf [128]byte
		an := normBytes(alt, abuf[:0])
		if c, p := assignClass(b, ns, alt, an, spaced); c != kcNone {
			cls, pwd, n = c, p, append(buf[:0], an...)
		}
	}
	if cls == kcNone && !spaced && (string(n) == "key" || string(n) == "sig") && (esc || escapedBefore(b, ns)) {
		cls = kcToken // after an escaped '?' or '&'
	}
	aws := cls == kcNone && awsLabel(b, ns, n)
	return nameVerdict{reject: cls == kcNone && !aws, cls: cls, aws: aws, spaced: spaced, pwd: pwd}
}

func (rs *rawScan) colon(i int) bool { return rs.colonWith(i, nil) }

// colonWith is colon with the verdict of the name before b[i] given (from
// the memo, namememo.go), or found here when nv is nil.
func (rs *rawScan) colonWith(i int, nv *nameVerdict) bool {
	b := rs.b
	if i+1 < len(b) && (b[i+1] == '/' || b[i+1] == '\\') {
		if a, ok := slashesAfter(b, i); ok {
			// The authority, \u escapes included (they decode to what
			// may go on).
			end := tokenEnd(b, a, urlStop)
			for end+6 <= len(b) && b[end] == '\\' && b[end+1] == 'u' {
				end = tokenEnd(b, end+6, urlStop)
			}
			if bytes.IndexByte(b[a:end], '@') >= 0 || webhookHost(b[a:end]) {
				return true
			}
		}
	}
	if i > 0 && b[i-1] >= '0' && b[i-1] <= '9' {
		if _, _, ok := telegramAt(b, i, true); ok {
			return true
		}
	}
	var own nameVerdict
	if nv == nil {
		own = colonName(b, i, rs.named == i, rs.frame)
		nv = &own
	}
	if nv.reject {
		return false
	}
	rs.credKey = rs.credKey || nv.credKey
	rs.header = rs.header || nv.header
	cls, aws := nv.cls, nv.aws
	v := skipBlankFwd(b, i+1)
	if v >= len(b) {
		return false
	}
	if rs.frame {
		switch {
		case nv.method:
			m, ok := rawQuoted(b, v)
			return !ok || string(m) == "connect" || methodKind(string(m)) != mkNone
		case nv.capKey:
			return true
		}
	}
	if cls == kcNone && !aws {
		return false
	}
	switch b[v] {
	case '{':
		// (isCredKey of the name is credKey: rawClass's class is the
		// name's credClass.)
		if rs.frame && cls != kcWeak && nv.credKey {
			return rs.container(v)
		}
		return false
	case '[':
		return rs.frame
	case '/':
		return false
	}
	if val, ok := rawQuoted(b, v); ok {
		return aws && awsSecret(val) || !aws && credValue(cls, val)
	} else if val == nil {
		return true // an escape in the value: the walk decides
	}
	if bracketed(b, v) > 0 {
		return false
	}
	var end int
	if cls == kcHeader {
		end = v
		for end < len(b) && b[end] != '\n' && b[end] != '\r' && b[end] != '"' && b[end] != '\'' && b[end] != '`' && b[end] != '\\' {
			end++
		}
	} else {
		var long bool
		if end, long = valueEndLim(b, v, ",;}]\"'`)\\"); long {
			return true
		}
	}
	if escapeGoesOn(b, end) {
		return true // an escape in the value: the walk decides
	}
	w := b[v:end]
	if nv.quoted && isNumber(w) || end == v || cls != kcPhrase && isNumber(w) && len(w) < 16 {
		return false
	}
	return aws && awsSecret(w) || !aws && credValue(cls, w)
}

// skipBlankFwd skips spaces and tabs from b[v], raw tabs (\t) included.
func skipBlankFwd(b []byte, v int) int {
	for v < len(b) {
		switch {
		case b[v] == ' ' || b[v] == '\t':
			v++
		case b[v] == '\\' && v+1 < len(b) && b[v+1] == 't':
			v += 2
		default:
			return v
		}
	}
	return v
}

// skipBlankBack skips spaces and tabs before b[j], raw tabs included.
func skipBlankBack(b []byte, j int) int {
	for j > 0 {
		switch {
		case b[j-1] == ' ' || b[j-1] == '\t':
			j--
		case j >= 2 && b[j-1] == 't' && b[j-2] == '\\':
			j -= 2
		default:
			return j
		}
	}
	return j
}

// escapeGoesOn reports whether a raw value that stopped at b[end] stopped
// at a JSON escape other than \n, \r or \t (which end a value once
// decoded, as white space does): the value may go on past it.
func escapeGoesOn(b []byte, end int) bool {
	if end >= len(b) || b[end] != '\\' {
		return false
	}
	return end+1 >= len(b) || b[end+1] != 'n' && b[end+1] != 'r' && b[end+1] != 't'
}

// rawQuoted reads the quoted value at b[v] ("…", '…', or \"…\" in JSON
// text). ok is false when b[v] opens no quote (val is then b[v:v], not
// nil) or when the value holds an escape (val nil): the pre-scan cannot
// judge it without decoding.
func rawQuoted(b []byte, v int) (val []byte, ok bool) {
	esc := false
	if b[v] == '\\' && v+1 < len(b) && (b[v+1] == '"' || b[v+1] == '\'') {
		esc = true
		v++
	}
	if b[v] != '"' && b[v] != '\'' {
		return b[v:v], false
	}
	q := b[v]
	st := v + 1
	e := st
	for e < len(b) && b[e] != q && b[e] != '\\' {
		e++
	}
	if e < len(b) && b[e] == '\\' {
		if esc && e+1 < len(b) && b[e+1] == q {
			return b[st:e], true
		}
		return nil, false
	}
	return b[st:e], true
}

// container searches the value of a credential name, an object at b[v],
// for a string that looks generated: the walk replaces those there.
func (rs *rawScan) container(v int) bool {
	if v < rs.checkedTo {
		return false // within a container searched already
	}
	var cc *contCache
	if rs.cache != nil {
		cc = &rs.cache.conts
		if n := cc.known(rs.b[v:]); n > 0 {
			rs.checkedTo = v + n
			return false
		}
	}
	n, gen, ok := containerScan(rs.b[v:])
	if !ok || gen {
		return true
	}
	rs.checkedTo = v + n
	if cc != nil {
		cc.add(rs.b[v : v+n])
	}
	return false
}

// containerScan reads the JSON object or array at b[0] in one pass, as
// jsonx.Value and then anyGenerated would: n is its length, gen whether a
// string in it (a key or a value) looks generated or has an escape that
// could hide one (then n is not read on). ok is false when it does not
// end. Brackets are counted between the strings, not checked: in a frame
// that is not JSON the walk replaces nothing by this rule (it reads the
// frame as text), so only a JSON value's length matters, and for one this
// is it.
func containerScan(b []byte) (n int, gen, ok bool) {
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			st := i + 1
			e := st
			for e < len(b) && b[e] != '"' {
				if b[e] == '\\' {
					if e+1 < len(b) && (b[e+1] == '/' || b[e+1] == 'u') {
						return 0, true, true
					}
					e += 2
					continue
				}
				e++
			}
			if e >= len(b) {
				return 0, false, false
			}
			if generatedLike(b[st:e]) {
				return 0, true, true
			}
			i = e
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return i + 1, false, true
			}
		}
	}
	return 0, false, false
}

func webhookHost(auth []byte) bool {
	h := auth
	if at := bytes.LastIndexByte(h, '@'); at >= 0 {
		h = h[at+1:]
	}
	if c := bytes.IndexByte(h, ':'); c >= 0 {
		h = h[:c]
	}
	for _, c := range h {
		if c >= 0x80 {
			// Some letters outside ASCII lower to ASCII ones.
			h = bytes.ToLower(h)
			break
		}
	}
	for _, w := range [...]string{"hooks.slack.com", "discord.com", "discordapp.com", "ptb.discord.com", "canary.discord.com"} {
		if len(h) == len(w) && hasFoldExact(h, w) {
			return true
		}
	}
	return false
}

func (rs *rawScan) assign(i int) bool { return rs.assignWith(i, nil) }

// assignWith is assign with the verdict of the name before b[i] given, or
// found here when nv is nil.
func (rs *rawScan) assignWith(i int, nv *nameVerdict) bool {
	b := rs.b
	if i+1 >= len(b) || b[i+1] == '=' || b[i+1] == '>' || (i > 0 && (b[i-1] == '=' || b[i-1] == '!' || b[i-1] == '<' || b[i-1] == '>')) {
		return false
	}
	var own nameVerdict
	if nv == nil {
		own = assignName(b, i, rs.named == i)
		nv = &own
	}
	if nv.reject {
		return false
	}
	cls, aws := nv.cls, nv.aws
	v := i + 1
	if nv.spaced {
		v = skipBlankFwd(b, v)
	}
	if v >= len(b) {
		return false
	}
	if nv.pwd {
		w := v
		if w < len(b) && (b[w] == '"' || b[w] == '\'') {
			w++
		}
		if w < len(b) && (b[w] == '/' || b[w] == '~') {
			return false
		}
	}
	if val, ok := rawQuoted(b, v); ok {
		return aws && awsSecret(val) || !aws && credValue(cls, val)
	} else if val == nil {
		return true
	}
	if bracketed(b, v) > 0 {
		return false
	}
	end, long := valueEndLim(b, v, "&\"'`;,)<>\\")
	if long || escapeGoesOn(b, end) {
		return true
	}
	if end == v {
		return false
	}
	w := b[v:end]
	if cls != kcPhrase && isNumber(w) && len(w) < 16 {
		return false
	}
	switch {
	case aws:
		return awsSecret(w)
	case nv.spaced:
		return spacedValue(cls, w)
	}
	return credValue(cls, w)
}
