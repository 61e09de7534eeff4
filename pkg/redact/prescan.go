package redact

import (
	"bytes"
	"encoding/binary"
	"math/bits"

	"github.com/clawtap/clawtap/pkg/jsonx"
)

// The pre-scan: does a frame (or one string of it, still JSON-escaped)
// hold anything the rules could replace? It reads the raw bytes once,
// stopping at the same anchors as the text rules (scan.go) plus the
// backslash of JSON escapes, and answers from what it finds around them:
// a credential name whose value could be a credential, a shaped token, a
// URL with user info, … It may say yes where the walk then replaces
// nothing (it cannot see through every escape), never the other way
// round: FuzzPrescan holds it to that. Almost every streamed frame holds
// none of it and is returned untouched after this one read.

var rawAnchors = func() (t [256]uint8) {
	t = textAnchors
	t['\\'] = anEsc
	return t
}()

// rawScan is one pre-scan.
type rawScan struct {
	b     []byte
	frame bool // a whole frame: method names and credential containers count
	// credKey is set when a credential name was met, whatever its value:
	// a request that carries one is walked (its response may hand one out).
	credKey   bool
	checkedTo int  // credential containers are searched up to here
	header    bool // a header name (Authorization:, Cookie:) was met
	// skipFrom, skipTo: bytes known clean (a streamed text seen before,
	// textCache), not read again.
	skipFrom, skipTo int
}

// mayHaveCredentials reports whether the frame b could hold anything the
// credential rules replace.
func mayHaveCredentials(b []byte) bool {
	hit, _ := prescan(b, true)
	return hit
}

// mayHaveText reports whether the raw (JSON-escaped) string content b could
// hold anything the text rules replace once decoded.
func mayHaveText(b []byte) bool {
	hit, _ := prescan(b, false)
	return hit
}

// mayHavePlainText is mayHaveText for text that is not JSON-escaped (a
// message that is not JSON): there a backslash is a backslash, not an
// escape, so text with one is always read by the rules.
func mayHavePlainText(b []byte) bool {
	return bytes.IndexByte(b, '\\') >= 0 || mayHaveText(b)
}

func prescan(b []byte, frame bool) (hit, credKey bool) {
	rs := rawScan{b: b, frame: frame}
	if rs.scan() {
		return true, rs.credKey
	}
	return false, rs.credKey
}

// scan reads the bytes, but those known clean.
func (rs *rawScan) scan() bool {
	if rs.skipTo > rs.skipFrom {
		return rs.scanRange(0, rs.skipFrom) || rs.scanRange(rs.skipTo, len(rs.b))
	}
	return rs.scanRange(0, len(rs.b))
}

func (rs *rawScan) scanRange(from, n int) bool {
	b := rs.b[:n]
	next := from // anchors before next are inside an escape
	i := from
	// Eight bytes at a time: anchorMask flags the anchors among them
	// (and upper-case letters, which at turns down), and only those are
	// looked at.
	// The masks' constants, in registers for the loop.
	const l = 0x0101010101010101
	hi := uint64(0x8080808080808080)
	a1, b1 := uint64((0x80-'-')*l), uint64((0x7F-'.')*l)
	a2, b2 := uint64((0x80-':')*l), uint64((0x7F-'=')*l)
	a3, b3 := uint64((0x80-'A')*l), uint64((0x7F-'_')*l)
	bb, sev := uint64('b'*l), uint64(0x7F*l)
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		x := w &^ hi
		z := x ^ bb
		m := ((x+a1)&^(x+b1) | (x+a2)&^(x+b2) | (x+a3)&^(x+b3) | ^((z + sev) | z)) & hi &^ w
		for m != 0 {
			j := i + bits.TrailingZeros64(m)>>3
			m &= m - 1
			if j < next {
				continue
			}
			hit, nx := rs.at(j)
			if hit {
				return true
			}
			next = nx
		}
	}
	for ; i < len(b); i++ {
		if rawAnchors[b[i]] != anNone && i >= next {
			hit, nx := rs.at(i)
			if hit {
				return true
			}
			next = nx
		}
	}
	return false
}

// anchorMask sets the high bit of each byte of w (eight bytes, little
// endian) that is '-', '.', ':' to '=', 'A' to '_' (the upper-case
// letters, '\\' and '_') or 'b': a superset of the anchors, exact byte by
// byte (no carries cross bytes; bytes from 0x80 up are never flagged).
func anchorMask(w uint64) uint64 {
	const l = 0x0101010101010101
	const h = 0x8080808080808080
	x := w &^ h
	r1 := (x + (0x80-'-')*l) &^ (x + (0x7F-'.')*l)
	r2 := (x + (0x80-':')*l) &^ (x + (0x7F-'=')*l)
	r3 := (x + (0x80-'A')*l) &^ (x + (0x7F-'_')*l)
	z := x ^ ('b' * l)
	eb := ^((z + 0x7F*l) | z)
	return (r1 | r2 | r3 | eb) & h &^ w
}

// at looks at the anchor b[i]: hit, or where the next anchor may be.
func (rs *rawScan) at(i int) (hit bool, next int) {
	b := rs.b
	n := len(b)
	switch rawAnchors[b[i]] {
	case anColon:
		// A JSON key of plain letters, "name": — most keys are not a
		// name any rule looks at, and are turned down without a call.
		if i >= 6 && b[i-1] == '"' && i+1 < n && b[i+1] != '/' && b[i+1] != '\\' {
			l := [4]byte{lowerTab[b[i-2]], lowerTab[b[i-3]], lowerTab[b[i-4]], lowerTab[b[i-5]]}
			if l[0]-'a' < 26 && l[1]-'a' < 26 && l[2]-'a' < 26 {
				switch {
				case l[3]-'a' < 26:
					if h := sig4(l); nameSigs[h>>6]&(1<<(h&63)) == 0 && !(l[0] == 'y' && l[1] == 'e' && l[2] == 'k') && !(l[0] == 't' && l[1] == 'w' && l[2] == 'j') &&
						!(l[0] == 'w' && l[1] == 'p') && !(l[0] == 'd' && l[1] == 'w' && l[2] == 'p') && !(l[0] == 'g' && l[1] == 'i' && l[2] == 's') {
						return false, i + 1
					}
				case l[3] == '"' && b[i-6] != '\\':
					// "seq", "key": three letters.
					if !(l[0] == 'y' && l[1] == 'e' && l[2] == 'k' || l[0] == 't' && l[1] == 'w' && l[2] == 'j' || l[0] == 'g' && l[1] == 'i' && l[2] == 's' || l[0] == 'd' && l[1] == 'w' && l[2] == 'p') {
						return false, i + 1
					}
				}
			} else if l[0]-'a' < 26 && l[1]-'a' < 26 && l[2] == '"' && b[i-5] != '\\' && !(l[0] == 'w' && l[1] == 'p') {
				return false, i + 1 // "ts", "id"
			}
		}
		return rs.colon(i), i + 1
	case anB:
		return i+1 < n && b[i+1]|0x20 == 'e' && rs.bearerAt(i), i + 1
	case anDash:
		if i > 0 && i+1 < n && b[i+1] != '-' && b[i+1] != 'u' {
			p := b[i-1]
			if shapePrev['-'][p>>6]&(1<<(p&63)) == 0 && !(p >= 'a' && p <= 'z') {
				return false, i + 1
			}
		}
		if hasPrefixAt(b, i, "-----BEGIN") {
			return true, 0
		}
		_, _, ok := shapeAt(b, i, true)
		return ok, i + 1
	case anShape:
		if b[i] == '.' && i > 0 {
			// JWTs and Discord tokens have 12 or more base64url bytes
			// before their first dot; the other dotted shapes their own
			// letter.
			p := b[i-1]
			if shapePrev['.'][p>>6]&(1<<(p&63)) == 0 && (i < 12 || !isKeyByte(p) || !isKeyByte(b[i-6]) || !isKeyByte(b[i-12])) {
				return false, i + 1
			}
		}
		_, _, ok := shapeAt(b, i, true)
		return ok, i + 1
	case anEsc:
		if i+5 < n && b[i+1] == 'u' {
			if c, ok := hex4(b[i+2 : i+6]); ok && escapeMatters(c) {
				return true, 0
			}
			return false, i + 6
		}
		if i+1 < n && isEscLetter(b[i+1]) {
			return false, i + 2 // an escaped quote or backslash is no anchor
		}
	case anEq:
		return rs.assign(i), i + 1
	case anUnder:
		if i > 0 && b[i-1] == '/' && hasPrefixAt(b, i-1, capPath) {
			return true, 0
		}
		_, _, ok := shapeAt(b, i, true)
		return ok, i + 1
	}
	return false, i + 1
}

func isEscLetter(c byte) bool {
	switch c {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return true
	}
	return false
}

func hex4(h []byte) (rune, bool) {
	var r rune
	for _, c := range h {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// escapeMatters reports whether a \u escape could hide part of what a rule
// reads: a letter or digit, or a byte the rules look for. Other escaped
// characters (control characters, <, >, &, non-ASCII) only end words,
// which the pre-scan allows for anyway.
func escapeMatters(c rune) bool {
	switch {
	case c >= '0' && c <= '9', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		return true
	}
	switch c {
	case ':', '=', '_', '-', '.', '/', '\\', '"', '\'', '@', '?':
		return true
	}
	return false
}

func (rs *rawScan) bearerAt(i int) bool {
	b := rs.b
	if !wordStart(b, i, true) || !(hasPrefixAt(b, i+1, "earer") || hasPrefixAt(b, i+1, "EARER")) {
		return false
	}
	k := i + 6
	if k < len(b) && b[k] == '\\' {
		return true // an escaped tab or space
	}
	for k < len(b) && (b[k] == ' ' || b[k] == '\t') {
		k++
	}
	if k == i+6 {
		return false
	}
	end := runFwd(b, k, isBearerByte)
	return end-k >= 8 || end > k && end < len(b) && b[end] == '\\'
}

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

func (rs *rawScan) colon(i int) bool {
	b := rs.b
	if i+1 < len(b) && (b[i+1] == '/' || b[i+1] == '\\') {
		if a, ok := slashesAfter(b, i); ok {
			// The authority, \u escapes included (they decode to what
			// may go on).
			end := tokenEnd(b, a, "/?#\"'<>\\`")
			for end+6 <= len(b) && b[end] == '\\' && b[end+1] == 'u' {
				end = tokenEnd(b, end+6, "/?#\"'<>\\`")
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
	j := skipBlankBack(b, i)
	if j == 0 || !nameMayMatch(b, j) {
		return false
	}
	name, ns, quoted := rawName(b, j)
	if len(name) == 0 || len(name) > 128 {
		return false
	}
	var buf [128]byte
	cls, n := rawClass(b, ns, name, buf[:0])
	if cls != kcNone && cls != kcWeak {
		rs.credKey = true
	}
	if cls == kcHeader {
		rs.header = true
	}
	if cls == kcNone && quoted && isCredListKey(n) {
		cls = kcToken // "outputTokens": "12" is a string under a list name
	}
	v := skipBlankFwd(b, i+1)
	if v >= len(b) {
		return false
	}
	if rs.frame {
		switch {
		case string(n) == "method":
			m, ok := rawQuoted(b, v)
			return !ok || string(m) == "connect" || methodKind(string(m)) != mkNone
		case isCapKey(n):
			return true
		}
	}
	aws := cls == kcNone && awsLabel(b, ns, n)
	if cls == kcNone && !aws {
		return false
	}
	switch b[v] {
	case '{':
		if rs.frame && cls != kcWeak && isCredKey(n) {
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
	if quoted && isNumber(w) || end == v || cls != kcPhrase && isNumber(w) && len(w) < 16 {
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
	_, n, err := jsonx.Value(rs.b[v:])
	if err != nil {
		return true
	}
	rs.checkedTo = v + n
	return anyGenerated(rs.b[v : v+n])
}

// anyGenerated reports whether a JSON value holds a string (a key or a
// value) that looks generated, or one with an escape that could hide one.
func anyGenerated(b []byte) bool {
	for i := 0; ; {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return false
		}
		st := i + q + 1
		e := st
		for e < len(b) && b[e] != '"' {
			if b[e] == '\\' {
				if e+1 < len(b) && (b[e+1] == '/' || b[e+1] == 'u') {
					return true
				}
				e += 2
				continue
			}
			e++
		}
		if e > len(b) {
			return false
		}
		if generatedLike(b[st:min(e, len(b))]) {
			return true
		}
		i = e + 1
		if i >= len(b) {
			return false
		}
	}
}

func webhookHost(auth []byte) bool {
	h := auth
	if at := bytes.LastIndexByte(h, '@'); at >= 0 {
		h = h[at+1:]
	}
	if c := bytes.IndexByte(h, ':'); c >= 0 {
		h = h[:c]
	}
	switch string(bytes.ToLower(h)) {
	case "hooks.slack.com", "discord.com", "discordapp.com", "ptb.discord.com", "canary.discord.com":
		return true
	}
	return false
}

func (rs *rawScan) assign(i int) bool {
	b := rs.b
	if i+1 >= len(b) || b[i+1] == '=' || b[i+1] == '>' || (i > 0 && (b[i-1] == '=' || b[i-1] == '!' || b[i-1] == '<' || b[i-1] == '>')) {
		return false
	}
	j := skipBlankBack(b, i)
	spaced := j < i
	if j == 0 || !nameMayMatch(b, j) {
		return false
	}
	ns := nameBefore(b, j)
	if ns == j {
		return false
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
			cls, pwd, name, n = c, p, alt, append(buf[:0], an...)
		}
	}
	if cls == kcNone && !spaced && (string(n) == "key" || string(n) == "sig") && (esc || escapedBefore(b, ns)) {
		cls = kcToken // after an escaped '?' or '&'
	}
	aws := cls == kcNone && awsLabel(b, ns, n)
	if cls == kcNone && !aws {
		return false
	}
	v := i + 1
	if spaced {
		v = skipBlankFwd(b, v)
	}
	if v >= len(b) {
		return false
	}
	if pwd {
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
	case spaced:
		return spacedValue(cls, w)
	}
	return credValue(cls, w)
}

// textCache remembers the streamed texts the pre-scan found clean lately.
// A streamed frame carries the whole reply so far (agent data.text, chat
// message text), which the next frame repeats and extends, and the chat
// frame repeats the agent frame's: without the cache a long reply would
// be read again in full for every chunk, its cost growing with the square
// of its length. A text that starts with one remembered is read from near
// the remembered one's end: from the start of its last two words, since a
// rule at one of them (a name, its value) may read on into the new text.
type textCache struct {
	ents [textCacheN]struct {
		text []byte // raw, as in the frame
		safe int    // text[:safe] needs no second look
	}
	next int
}

const (
	textCacheN   = 8       // a few runs streaming at once, each on two streams
	textCacheMin = 128     // shorter texts are read again, cheaply
	textCacheMax = 8 << 20 // longer ones are not kept
)

var textKey = []byte(`"text":"`)

// frameScan is the pre-scan of a frame with the cache: the frame's first
// "text" string is skipped as far as a remembered text covers it, and
// remembered in turn when the frame is clean.
func (c *textCache) frameScan(b []byte) (hit, credKey bool) {
	rs := rawScan{b: b, frame: true}
	ts, te := -1, -1
	if k := bytes.Index(b, textKey); k >= 0 {
		ts = k + len(textKey)
		te = stringEnd(b, ts)
	}
	if te-ts >= textCacheMin {
		t := b[ts:te]
		for i := range c.ents {
			e := &c.ents[i]
			if e.safe > 0 && len(t) >= e.safe && string(t[:e.safe]) == string(e.text[:e.safe]) {
				rs.skipFrom, rs.skipTo = ts, ts+e.safe
				break
			}
		}
	}
	if rs.scan() {
		return true, rs.credKey
	}
	if te-ts >= textCacheMin && te-ts <= textCacheMax && !rs.credKey && !rs.header && ts+c.covered(b[ts:te]) < te {
		c.add(b[ts:te])
	}
	return false, rs.credKey
}

// covered is how much of t a remembered text covers already.
func (c *textCache) covered(t []byte) int {
	for i := range c.ents {
		e := &c.ents[i]
		if e.safe > 0 && len(t) <= len(e.text) && string(t) == string(e.text[:len(t)]) {
			return len(t)
		}
	}
	return 0
}

func (c *textCache) add(t []byte) {
	safe := safeCut(t)
	if safe <= 0 {
		return
	}
	e := &c.ents[c.next]
	c.next = (c.next + 1) % textCacheN
	if cap(e.text) > textCacheMax/4 && len(t) < cap(e.text)/4 {
		e.text = nil // let a huge one go
	}
	e.text = append(e.text[:0], t...)
	e.safe = safe
}

// safeCut returns the start of the second-to-last word of the raw text t
// (words end at white space: a space, a tab, or an escaped newline, tab or
// return), or 0 when there is none.
func safeCut(t []byte) int {
	i := len(t)
	for w := 0; w < 2; w++ {
		for i > 0 && rawSpaceBefore(t, i) > 0 {
			i -= rawSpaceBefore(t, i)
		}
		for i > 0 && rawSpaceBefore(t, i) == 0 {
			i--
		}
	}
	return i
}

// rawSpaceBefore returns the length of the white space that ends at t[i]
// (1 for a space or tab, 2 for \n, \t, \r), or 0.
func rawSpaceBefore(t []byte, i int) int {
	switch c := t[i-1]; {
	case c == ' ' || c == '\t':
		return 1
	case (c == 'n' || c == 't' || c == 'r') && i >= 2 && t[i-2] == '\\':
		k := i - 2
		for k > 0 && t[k-1] == '\\' {
			k--
		}
		if (i-1-k)%2 == 1 { // an odd run of backslashes: an escape
			return 2
		}
	}
	return 0
}

// stringEnd returns the index of the quote that ends the JSON string whose
// content starts at b[i], or -1.
func stringEnd(b []byte, i int) int {
	for {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return -1
		}
		e := i + q
		k := e
		for k > i && b[k-1] == '\\' {
			k--
		}
		if (e-k)%2 == 0 {
			return e
		}
		i = e + 1
	}
}
