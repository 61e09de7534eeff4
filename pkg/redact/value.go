package redact

import "bytes"

// What a value under a credential name must look like to be replaced.
//
// A name says what its value is meant to be, not what it holds: a
// config.schema response has property names like apiKey, token and
// secrets whose values are JSON Schema objects; a /status reply says
// "Auth: api-key (models.json)"; a ui hint's "label" under
// "gateway.auth.token" reads "Gateway token". Replacing every string under
// such names destroys the text and hides nothing. So the key-name rules
// replace a value only when it could be the credential the name promises
// (credValue), while the shape rules (tokens.go) catch credentials
// wherever they appear, under any name or none.

// keyClass is what a credential name's value is expected to be.
type keyClass uint8

const (
	kcNone   keyClass = iota
	kcWeak            // auth: as often a mode word ("token", "api-key") as a credential
	kcToken           // token, secret, apiKey, signature, nonce, jwt, …: a machine value, one word
	kcPhrase          // password, passphrase, private key: any text, words included
	kcHeader          // Authorization, Cookie: a header value ("Bearer …", "a=b; c=d")
)

// credClass classifies a normalized name (normKey): kcNone when it is not a
// credential name, kcWeak for "auth".
func credClass(n []byte) keyClass {
	if len(n) < 3 {
		return kcNone
	}
	// The words that end no longer credential name; every other one is
	// a suffix as well.
	switch string(n) {
	case "auth":
		return kcWeak
	case "pass":
		return kcPhrase
	case "nonce", "recoveryscope", "pathenv":
		return kcToken
	}
	if c := n[len(n)-1] - 'a'; c < 26 {
		for _, e := range credSuffixes[c] {
			if hasSuffixStr(n, e.s) {
				return e.cls
			}
		}
	}
	return kcNone
}

// credValue reports whether v, the value of a name of class kc, could be
// the credential the name promises:
//
//   - never a placeholder (isPlaceholder): nothing, a marker, "null",
//     "<token>", "${TOKEN}", "****", …;
//   - kcPhrase: any other text (a passphrase may be words);
//   - kcHeader: any other text, but "Bearer <token>" and the like, a scheme
//     word before a placeholder, are placeholders too;
//   - kcToken: one word; a value with white space in it is prose (a
//     description, a label, a help text), not a token;
//   - kcWeak: only a value that looks generated (generatedLike).
func credValue(kc keyClass, v []byte) bool {
	if isPlaceholder(v) {
		return false
	}
	switch kc {
	case kcPhrase:
		return true
	case kcHeader:
		if sp := bytes.IndexAny(v, " \t"); sp > 0 && isAuthScheme(v[:sp]) {
			return !isPlaceholder(bytes.TrimLeft(v[sp:], " \t"))
		}
		return true
	case kcToken:
		return !hasSpace(v)
	case kcWeak:
		return generatedLike(v)
	}
	return false
}

func hasSpace(v []byte) bool {
	for _, c := range v {
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			return true
		}
	}
	return false
}

func isAuthScheme(w []byte) bool {
	for _, s := range [...]string{"bearer", "basic", "token", "digest", "bot", "apikey", "api-key", "key"} {
		if len(w) == len(s) && hasFoldExact(w, s) {
			return true
		}
	}
	return false
}

// placeholderWords are values that stand for a credential without being
// one, and ordinary words that text puts after a credential name to say
// something about it ("Password: not set", "token: required").
var placeholderWords = [...]string{
	"null", "nil", "none", "undefined", "true", "false", "redacted", "__openclaw_redacted__", "n/a",
	"not", "set", "unset", "required", "optional", "hidden", "empty", "missing", "yes", "no",
	"on", "off", "enabled", "disabled", "the", "a", "an", "is", "your", "my", "this", "that",
	"it", "for", "of", "see", "same", "default", "auto",
}

// isPlaceholder reports whether v stands for a credential without being
// one: empty; the marker; a word of placeholderWords (any case); no letter
// or digit at all ("…", "***", "••••", "-"); x repeated ("xxxxxxxx"); or a reference written around a name: <token>, [REDACTED],
// {{token}}, ${TOKEN}, %TOKEN%, $TOKEN. Trailing sentence punctuation
// (".", ",", ";", ":") is ignored, as text puts it after a value.
func isPlaceholder(v []byte) bool {
	for len(v) > 0 && (v[len(v)-1] == '.' || v[len(v)-1] == ',' || v[len(v)-1] == ';' || v[len(v)-1] == ':') {
		v = v[:len(v)-1]
	}
	if len(v) == 0 || string(v) == Marker {
		return true
	}
	if len(v) <= 21 {
		for _, w := range placeholderWords {
			if len(v) == len(w) && hasFoldExact(v, w) {
				return true
			}
		}
	}
	alnum, same := false, true
	for _, c := range v {
		if isAlnum(c) {
			alnum = true
		}
		if c != v[0] {
			same = false
		}
	}
	if !alnum || same && len(v) >= 3 && (v[0] == 'x' || v[0] == 'X') {
		return true
	}
	first, last := v[0], v[len(v)-1]
	switch {
	case first == '<' && last == '>', first == '[' && last == ']', first == '{' && last == '}',
		first == '%' && last == '%' && len(v) > 2:
		return true
	case first == '$' && len(v) > 1 && (v[1] == '{' || v[1] == '(' || isEnvName(v[1:])):
		return true
	}
	return false
}

// isEnvName reports whether b is an upper-case environment variable name.
func isEnvName(b []byte) bool {
	if len(b) == 0 || b[0] >= '0' && b[0] <= '9' {
		return false
	}
	for _, c := range b {
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// generatedLike reports whether v looks like a value a machine generated
// rather than a word a person wrote: 12 or more bytes of the alphabets
// tokens are written in (letters, digits and + / = _ - . ~), with a letter
// and a digit, and separators no more often than every 8 bytes on average.
// So "4f9a8b7c6d5e4f3a2b1c", a UUID and "wJalrXUtnFEMI/K7MDENG/bPxRfi…" are;
// "api-key", "SecretRef", "claude-opus-4-5", "openai/gpt-5.1", "v2026.9.6"
// and a sentence are not.
func generatedLike(v []byte) bool {
	if len(v) < 12 || len(v) > 8192 {
		return false
	}
	var letter, digit bool
	seps := 0
	for i, c := range v {
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letter = true
		case c == '=' && i >= len(v)-2: // base64 padding
		case c == '+' || c == '/' || c == '=' || c == '_' || c == '-' || c == '.' || c == '~':
			seps++
		default:
			return false
		}
	}
	return letter && digit && seps*8 <= len(v)
}
