package redact

import (
	"bytes"

	"github.com/clawtap/clawtap/pkg/jsonx"
)

// normKey lowercases an object key (ASCII only) and drops '_' and '-', so
// "api_key", "API-KEY" and "apiKey" all read "apikey". Escaped keys are
// decoded first. The result is written into buf.
func normKey(raw []byte, buf []byte) []byte {
	buf = buf[:0]
	for _, c := range raw {
		if c == '\\' {
			s, ok := jsonx.Str(append(append([]byte{'"'}, raw...), '"'))
			if !ok {
				break
			}
			buf = buf[:0]
			for i := 0; i < len(s); i++ {
				buf = appendNormByte(buf, s[i])
			}
			return buf
		}
	}
	for _, c := range raw {
		buf = appendNormByte(buf, c)
	}
	return buf
}

func appendNormByte(buf []byte, c byte) []byte {
	switch {
	case c == '_' || c == '-':
		return buf
	case c >= 'A' && c <= 'Z':
		return append(buf, c+('a'-'A'))
	}
	return append(buf, c)
}

// credExact are normalized key names whose values are credentials.
var credExact = map[string]bool{
	"pass": true, "nonce": true, "jwt": true, "cookie": true, "cookies": true,
	"credential": true, "credentials": true, "authorization": true,
	"secret": true, "secrets": true, "token": true, "signature": true,
	"passphrase": true, "password": true, "passwd": true,
	// OpenClaw specifics (gateway-protocol.md §8).
	"recoveryscope": true, "pathenv": true,
}

// credSuffix are normalized key-name endings that mark credentials.
var credSuffix = [][]byte{
	[]byte("token"), []byte("secret"), []byte("secrets"), []byte("password"),
	[]byte("passwd"), []byte("passphrase"), []byte("apikey"),
	[]byte("privatekey"), []byte("secretkey"), []byte("secretaccesskey"),
	[]byte("credential"), []byte("credentials"), []byte("authorization"),
	[]byte("cookie"), []byte("cookies"), []byte("signature"), []byte("jwt"),
}

// isCredKey is the credential key rule: a normalized key equal to one of
// credExact or ending in one of credSuffix. Keys that merely contain the
// words (tokenCount, maxTokens, sessionKey, idempotencyKey, authMode) do not
// match.
func isCredKey(n []byte) bool {
	if credExact[string(n)] {
		return true
	}
	for _, s := range credSuffix {
		if bytes.HasSuffix(n, s) {
			return true
		}
	}
	return false
}

// isCredListKey matches keys whose string values, and the string elements of
// whose arrays, are credentials but whose objects are not wholly secret:
// "auth" (hello-ok auth is an object with role and scopes) and names ending
// in "tokens" (deviceTokens is an array of objects; outputTokens a number).
func isCredListKey(n []byte) bool {
	return string(n) == "auth" || bytes.HasSuffix(n, []byte("tokens"))
}

// isCapKey matches hello-ok's capability-URL fields.
func isCapKey(n []byte) bool {
	return string(n) == "canvashosturl" || bytes.HasSuffix(n, []byte("surfaceurls")) || bytes.HasSuffix(n, []byte("surfaceurl"))
}

// Content keys (Options.Content).
var (
	// maskLeafKeys: every string underneath is masked.
	maskLeafKeys = map[string]bool{
		"args": true, "arguments": true, "partialresult": true, "result": true,
		"input": true, "commandargv": true, "argv": true, "envkeys": true,
		"lines": true, "mediaurls": true, "commandspans": true,
		"commandanalysis": true, "steps": true, "parameters": true,
	}
	// maskKeys: a string value is masked; containers are walked as usual.
	maskKeys = map[string]bool{
		"text": true, "delta": true, "deltatext": true, "thinking": true,
		"errormessage": true, "providererrormessagepreview": true,
		"output": true, "preview": true, "commandpreview": true,
		"commandtext": true, "command": true, "cwd": true, "question": true,
		"answer": true, "summary": true, "progresstext": true,
		"explanation": true, "warningtext": true, "title": true,
		"derivedtitle": true, "prompt": true, "toolerrorsummary": true,
		"content": true, "message": true, "body": true, "filename": true,
		"lastmessagepreview": true, "caption": true, "snippet": true,
		"transcript": true, "data": true, "buffer": true,
	}
	// blobKeys may hold base64 (attachments, image sources, send buffers).
	blobKeys = map[string]bool{"content": true, "data": true, "buffer": true}
	// thinkingLevels are values of chat.send's "thinking" option, not text.
	thinkingLevels = map[string]bool{
		"off": true, "minimal": true, "low": true, "medium": true, "high": true,
		"xhigh": true, "on": true, "adaptive": true,
	}
	pseudoKeys = map[string]bool{
		"deviceid": true, "publickey": true, "instanceid": true, "connid": true,
		"requestid": true, "nodeid": true, "displayname": true, "email": true,
		"avatarurl": true, "username": true,
	}
	ipKeys   = map[string]bool{"ip": true, "remoteip": true, "remoteaddress": true, "remoteaddr": true, "clientip": true}
	hostKeys = map[string]bool{"host": true, "hostname": true}
	peerKeys = map[string]bool{
		"to": true, "lastto": true, "turnsourceto": true, "accountid": true,
		"lastaccountid": true, "turnsourceaccountid": true, "threadid": true,
		"lastthreadid": true, "turnsourcethreadid": true, "from": true,
		"peerid": true, "chatid": true, "senderid": true,
	}
	peerLeafKeys = map[string]bool{"deliverycontext": true, "lastdeliverycontext": true, "origin": true}
	// peerKeep are kept inside deliveryContext/origin objects.
	peerKeep = map[string]bool{
		"channel": true, "provider": true, "surface": true, "chattype": true,
		"kind": true, "type": true, "lastchannel": true, "mode": true,
	}
	// hostKeep are values of exec approvals' "host" (an enum, not a machine).
	hostKeep = map[string]bool{"gateway": true, "node": true, "sandbox": true, "local": true, "localhost": true, "": true}
	// credResultKeep are kept in results that hand out credentials.
	credResultKeep = map[string]bool{
		"role": true, "scopes": true, "scope": true, "deviceid": true,
		"type": true, "kind": true, "status": true, "provider": true,
		"model": true, "mode": true, "voice": true, "voiceid": true,
		"name": true, "id": true, "method": true,
	}
)

func isSessionKeyKey(n []byte) bool {
	return string(n) == "key" || string(n) == "spawnedby" || bytes.HasSuffix(n, []byte("sessionkey")) || bytes.HasSuffix(n, []byte("sessionkeys"))
}

// ---- fast pre-scan ----

// triggers are lowercase byte strings; a frame that contains none of them
// (ignoring ASCII case, and ignoring '_' and '-' before a letter, as the key
// rule does) has nothing that the credential rules could touch. Every
// key-rule name, text pattern and context method is covered by one.
var triggers = []string{
	"token", "secret", "passw", "passphrase", "pass\"", "pass:", "pass=",
	"credential", "authoriz", "auth\"", "auth:", "auth=", "cookie", "jwt",
	"signature", "nonce", "apikey", "private",
	"pathenv", "canvashost", "surfaceurl", "recoveryscope", "bearer",
	"-----begin", "__openclaw__", "key=", "sig=", "connect\"", "talk.",
	"config.", "\\u", "pw=", "pwd=",
	// The prefixes of tokenShapes are triggers too, in their own case only.
}

var (
	lowerTab [256]byte // ASCII lowercase
	// trigPairs has a bit for every byte pair a trigger can start with, in
	// any case; trigByPair lists the triggers for each such pair. The
	// pre-scan looks at pairs first, which skips almost every position of
	// ordinary text.
	trigPairs  [1 << 16 / 64]uint64
	trigByPair = map[uint16][]string{}
	trigGroups [][]string
	trigGroup  [1 << 16]uint8 // index+1 into trigGroups
	// trigShape marks the pairs that start a token shape's prefix; their
	// groups hold those prefixes only, checked by shapeAt.
	trigShape [1 << 16]bool
)

func init() {
	for i := range lowerTab {
		c := byte(i)
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		lowerTab[i] = c
	}
	cases := func(c byte) []byte {
		if c >= 'a' && c <= 'z' {
			return []byte{c, c - ('a' - 'A')}
		}
		return []byte{c}
	}
	add := func(a, b byte, t string) {
		trigByPair[uint16(a)<<8|uint16(b)] = append(trigByPair[uint16(a)<<8|uint16(b)], t)
	}
	for _, t := range triggers {
		add(t[0], t[1], t)
		if t[1] >= 'a' && t[1] <= 'z' { // "t_oken" reads "token"
			add(t[0], '_', t)
			add(t[0], '-', t)
		}
	}
	add('/', '/', "//") // "://" (URL user info), checked by hand
	for _, sh := range tokenShapes {
		p := uint16(sh.prefix[0])<<8 | uint16(sh.prefix[1])
		if !trigShape[p] && len(trigByPair[p]) > 0 {
			panic("redact: a token prefix shares its first two bytes with a trigger: " + sh.prefix)
		}
		add(sh.prefix[0], sh.prefix[1], sh.prefix)
		trigShape[p] = true
	}
	for p, ts := range trigByPair {
		trigGroups = append(trigGroups, ts)
		g := uint8(len(trigGroups))
		if trigShape[p] { // case-sensitive: only the pair itself
			trigPairs[p>>6] |= 1 << (p & 63)
			trigGroup[p] = g
			continue
		}
		for _, x := range cases(byte(p >> 8)) {
			for _, y := range cases(byte(p)) {
				q := uint(x)<<8 | uint(y)
				trigPairs[q>>6] |= 1 << (q & 63)
				trigGroup[q] = g
			}
		}
	}
}

// mayHaveCredentials reports whether b could contain anything the
// credential rules replace. False negatives are not allowed; false
// positives only cost a full walk.
func mayHaveCredentials(b []byte) bool {
	for i := 0; i+1 < len(b); i++ {
		p := uint(b[i])<<8 | uint(b[i+1])
		if trigPairs[p>>6]&(1<<(p&63)) == 0 {
			continue
		}
		if b[i] == '/' {
			if i > 0 && b[i-1] == ':' {
				return true
			}
			continue
		}
		if trigShape[p] {
			if shapeAt(b, i) {
				return true
			}
			continue
		}
		rest := b[i:]
		for _, t := range trigGroups[trigGroup[p]-1] {
			n, ok := hasPrefixFold(rest, t)
			if !ok {
				continue
			}
			// "outputTokens": 12 and the like: a word inside a key whose
			// value is a number, boolean or null cannot lead to a redaction.
			if isWord(t) && scalarKeyAfter(b, i+n) {
				continue
			}
			return true
		}
	}
	return false
}

// shapeAt reports whether a token shape's prefix starts a word at b[i],
// as scanTokens would find it. The byte before counts as a boundary after
// a backslash too, since the walk reads decoded strings ("\nsk-…" in JSON
// is a newline before sk-).
func shapeAt(b []byte, i int) bool {
	for _, sh := range shapesByFirst[b[i]] {
		if !hasPrefixAt(b, i, sh.prefix) {
			continue
		}
		if i == 0 || i >= 2 && b[i-2] == '\\' {
			return true
		}
		c := b[i-1]
		if !isAlnum(c) && !(sh.strictLeft && (c == '-' || c == '_')) {
			return true
		}
	}
	return false
}

func isWord(t string) bool {
	for i := 0; i < len(t); i++ {
		if t[i] < 'a' || t[i] > 'z' {
			return false
		}
	}
	return true
}

// scalarKeyAfter reports whether b[j:] finishes a JSON object key and its
// value is a number, true, false or null.
func scalarKeyAfter(b []byte, j int) bool {
	for j < len(b) && (isAlnum(b[j]) || b[j] == '_' || b[j] == '-') {
		j++
	}
	if j >= len(b) || b[j] != '"' {
		return false
	}
	j = skipWS(b, j+1)
	if j >= len(b) || b[j] != ':' {
		return false
	}
	j = skipWS(b, j+1)
	if j >= len(b) {
		return false
	}
	c := b[j]
	return c == '-' || c >= '0' && c <= '9' || c == 't' || c == 'f' || c == 'n'
}

// hasPrefixFold reports whether b starts with the lowercase string t,
// ignoring ASCII case in b and any '_' or '-' in b in front of a letter of
// t (so "to_ken" matches "token", as normKey would read it). The caller has
// matched the first byte. n is the length matched in b.
func hasPrefixFold(b []byte, t string) (n int, ok bool) {
	i := 1
	for j := 1; j < len(t); j++ {
		tc := t[j]
		if tc >= 'a' && tc <= 'z' {
			for i < len(b) && (b[i] == '_' || b[i] == '-') {
				i++
			}
		}
		if i >= len(b) || lowerTab[b[i]] != tc {
			return 0, false
		}
		i++
	}
	return i, true
}
