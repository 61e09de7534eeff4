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

// credSuffix are normalized key-name endings that mark credentials.
var credSuffix = [...]string{
	"token", "secret", "secrets", "password", "passwd", "passphrase", "apikey",
	"privatekey", "secretkey", "secretaccesskey", "credential", "credentials",
	"authorization", "cookie", "cookies", "signature", "jwt",
}

func hasSuffixStr(n []byte, s string) bool {
	return len(n) >= len(s) && string(n[len(n)-len(s):]) == s
}

// isCredKey is the credential key rule: a normalized key equal to one of
// the words pass, nonce, jwt, cookie, credential, token, secret, signature,
// password, OpenClaw's recoveryScope and pathEnv, …, or ending in one of
// credSuffix (credClass). Keys that merely contain the words (tokenCount,
// maxTokens, sessionKey, idempotencyKey, authMode) do not match.
func isCredKey(n []byte) bool {
	c := credClass(n)
	return c != kcNone && c != kcWeak
}

// credSuffixes are credSuffix by their last letter, each with the class
// its names get (credClass): a name is compared with the two or three
// that end as it does, not all seventeen (a tool result repeats
// inputTokens and tokens= thousands of times). No suffix ends another, so
// at most one matches.
var credSuffixes = func() (t [26][]struct {
	s   string
	cls keyClass
}) {
	for _, s := range credSuffix {
		cls := kcToken
		switch s {
		case "password", "passwd", "passphrase", "privatekey":
			cls = kcPhrase
		case "authorization", "cookie", "cookies":
			cls = kcHeader
		}
		t[s[len(s)-1]-'a'] = append(t[s[len(s)-1]-'a'], struct {
			s   string
			cls keyClass
		}{s, cls})
	}
	return t
}()

// isCredListKey matches keys whose string values, and the string elements of
// whose arrays, are credentials but whose objects are not wholly secret:
// "auth" (hello-ok auth is an object with role and scopes) and names ending
// in "tokens" (deviceTokens is an array of objects; outputTokens a number).
func isCredListKey(n []byte) bool {
	return string(n) == "auth" || hasSuffixStr(n, "tokens")
}

// isCapKey matches hello-ok's capability-URL fields.
func isCapKey(n []byte) bool {
	return string(n) == "canvashosturl" || hasSuffixStr(n, "surfaceurls") || hasSuffixStr(n, "surfaceurl")
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

// lowerTab maps ASCII letters to lower case, every other byte to itself.
var lowerTab = func() (t [256]byte) {
	for i := range t {
		c := byte(i)
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		t[i] = c
	}
	return t
}()
