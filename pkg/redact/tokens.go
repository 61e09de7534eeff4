package redact

// Credentials recognised by their shape alone, wherever they appear in
// text: vendor tokens whose fixed prefix says what they are. Each is
// replaced whole, prefix included, by Marker.

// tokenShape is a token with a fixed, case-sensitive prefix followed by a
// body of bytes in one class.
type tokenShape struct {
	prefix string
	class  func(c byte) bool // the bytes of the body
	min    int               // shortest body
	exact  bool              // the body is exactly min bytes
	// ok, when set, also judges a body of the right length (sk-: random,
	// not a kebab-case word).
	ok func(body []byte) bool
	// partialDigit: a body cut off by the end of the text must hold a digit
	// to count (the prefix alone is an ordinary word there).
	partialDigit bool
	// strictLeft: the byte before the prefix may not be '-' or '_' either
	// (task-…, disk-…, my-sk-… are words, not keys).
	strictLeft bool
}

func isUpperOrDigit(c byte) bool { return c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' }

func isAlnumOrUnderscore(c byte) bool { return isAlnum(c) || c == '_' }

func isAlnumOrDash(c byte) bool { return isAlnum(c) || c == '-' }

func isKeyByte(c byte) bool { return isAlnum(c) || c == '-' || c == '_' }

// tokenShapes lists the shapes; docs/redaction.md has the same table.
var tokenShapes = []tokenShape{
	{prefix: "ghp_", class: isAlnum, min: 20}, // GitHub personal access token
	{prefix: "gho_", class: isAlnum, min: 20}, // GitHub OAuth token
	{prefix: "ghu_", class: isAlnum, min: 20}, // GitHub user-to-server token
	{prefix: "ghs_", class: isAlnum, min: 20}, // GitHub server-to-server token
	{prefix: "ghr_", class: isAlnum, min: 20}, // GitHub refresh token
	{prefix: "github_pat_", class: isAlnumOrUnderscore, min: 20},
	{prefix: "AKIA", class: isUpperOrDigit, min: 16, exact: true, partialDigit: true}, // AWS access key id
	{prefix: "ASIA", class: isUpperOrDigit, min: 16, exact: true, partialDigit: true}, // AWS temporary access key id
	{prefix: "xoxb-", class: isAlnumOrDash, min: 10},                                  // Slack bot token
	{prefix: "xoxp-", class: isAlnumOrDash, min: 10},                                  // Slack user token
	{prefix: "xoxa-", class: isAlnumOrDash, min: 10},
	{prefix: "xoxr-", class: isAlnumOrDash, min: 10},
	{prefix: "xoxs-", class: isAlnumOrDash, min: 10},
	{prefix: "sk-", class: isKeyByte, min: 20, ok: randomish, partialDigit: true, strictLeft: true}, // OpenAI-style, sk-proj-… too
}

// shapesByFirst lists the shapes by the first byte of their prefix.
var shapesByFirst = func() (m [256][]*tokenShape) {
	for i := range tokenShapes {
		c := tokenShapes[i].prefix[0]
		m[c] = append(m[c], &tokenShapes[i])
	}
	return m
}()

// randomish reports whether a body looks generated rather than written: it
// has a letter and a digit, and its '-' and '_' separate pieces that are 8
// bytes long on average or more (sk-proj-Ab3…, sk-live-4f9a…; not
// sk-this-is-a-slug-2).
func randomish(body []byte) bool {
	var letter, digit bool
	seps := 0
	for _, c := range body {
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c == '-' || c == '_':
			seps++
		default:
			letter = true
		}
	}
	return letter && digit && seps*8 <= len(body)
}

// scanTokens appends the spans of the shaped tokens in s. A token must
// start a word (the byte before it is not a letter or digit) and end one
// (its body runs to the first byte outside its class). A body that runs
// into the end of s and is too short is a token cut off by a streamed
// chunk and is replaced too (with a digit, for the prefixes that are also
// words).
func scanTokens(s []byte, spans []span) []span {
	for i := 0; i < len(s); i++ {
		cands := shapesByFirst[s[i]]
		if cands == nil || i > 0 && isAlnum(s[i-1]) {
			continue
		}
		for _, sh := range cands {
			if !hasPrefixAt(s, i, sh.prefix) || sh.strictLeft && i > 0 && (s[i-1] == '-' || s[i-1] == '_') {
				continue
			}
			b := i + len(sh.prefix)
			e := b
			for e < len(s) && sh.class(s[e]) {
				e++
			}
			if e < len(s) && isAlnum(s[e]) { // a longer word
				continue
			}
			if matchesShape(sh, s[b:e], e == len(s)) {
				spans = append(spans, span{i, e})
				i = e - 1
				break
			}
		}
	}
	return spans
}

func hasPrefixAt(s []byte, i int, p string) bool {
	return len(s)-i >= len(p) && string(s[i:i+len(p)]) == p
}

// matchesShape judges a body; atEnd says the text ends right after it.
func matchesShape(sh *tokenShape, body []byte, atEnd bool) bool {
	n := len(body)
	full := n >= sh.min && (!sh.exact || n == sh.min) && (sh.ok == nil || sh.ok(body))
	if full {
		return true
	}
	if !atEnd || n == 0 || n >= sh.min && (sh.exact || sh.ok == nil) {
		return false
	}
	if !sh.partialDigit {
		return true
	}
	digit, seps := false, 0
	for _, c := range body {
		digit = digit || c >= '0' && c <= '9'
		if c == '-' || c == '_' {
			seps++
		}
	}
	return digit && seps <= 2
}
