package redact

import "testing"

// credClass compares a name with the suffixes that end as it does; these
// are the rules as written once, every suffix tried in turn, and the two
// must agree on every name built from the words and their pieces.

func specIsCredKey(n []byte) bool {
	switch string(n) {
	case "pass", "nonce", "jwt", "cookie", "cookies", "credential", "credentials", "authorization",
		"secret", "secrets", "token", "signature", "passphrase", "password", "passwd",
		"recoveryscope", "pathenv":
		return true
	}
	if len(n) < 3 {
		return false
	}
	switch n[len(n)-1] {
	case 'n', 't', 's', 'd', 'e', 'y', 'l':
	default:
		return false
	}
	for _, s := range credSuffix {
		if hasSuffixStr(n, s) {
			return true
		}
	}
	return false
}

func specCredClass(n []byte) keyClass {
	if string(n) == "auth" {
		return kcWeak
	}
	if !specIsCredKey(n) {
		return kcNone
	}
	switch {
	case hasSuffixStr(n, "password"), hasSuffixStr(n, "passwd"), hasSuffixStr(n, "passphrase"),
		string(n) == "pass", hasSuffixStr(n, "privatekey"):
		return kcPhrase
	case hasSuffixStr(n, "authorization"), hasSuffixStr(n, "cookie"), hasSuffixStr(n, "cookies"):
		return kcHeader
	}
	return kcToken
}

func TestCredClassAsSpec(t *testing.T) {
	words := []string{"", "a", "au", "auth", "pass", "nonce", "jwt", "cookie", "cookies", "credential", "credentials", "authorization",
		"secret", "secrets", "token", "signature", "passphrase", "password", "passwd", "recoveryscope", "pathenv", "tokens", "key", "apikey",
		"privatekey", "secretkey", "secretaccesskey", "method", "x", "ab", "pas", "non", "e", "n", "\xff", "~"}
	for _, a := range words {
		for _, b := range words {
			for _, c := range []string{"", "x", "my", "\x00", "Z", "_"} {
				n := []byte(c + a + b)
				if credClass(n) != specCredClass(n) || isCredKey(n) != specIsCredKey(n) {
					t.Fatalf("%q: %d %d", n, credClass(n), specCredClass(n))
				}
			}
		}
	}
}
