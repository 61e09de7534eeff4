package redact

import (
	"math/rand/v2"
	"testing"
)

// namePieces build text dense with names a rule reads, in the contexts
// that change their verdicts: quotes, escapes, blanks, '?', '&', prompts,
// upper-case and joined names, and values of every kind after them.
var namePieces = []string{`\\`, `\u0041`, `\"`, `\n`, `\t`, `"`, `'`, " ", "  ", ":", "=", ": ", " = ", "?", "&", ",", "{", "}", "[", "]", "-", "_", ".",
	"token", "tokens", "Token", "TOKEN", "password", "pass", "PASS", "pw", "pwd", "key", "KEY", "_KEY", "apiKey", "sig", "secret", "secrets", "auth", "Authorization",
	"cookie", "method", "inputTokens", "outputTokens", "nonce", "jwt", "recoveryScope", "canvasHostUrl", "aws", "Secret Access Key", "description", "id", "ts", "seq",
	"abcdefgh12345678", "hunter2", "123", "1234567890123456", "chat.send", "connect", "node.pair.approve", "<token>", "${TOKEN}", "/usr/bin", "~/x", "Bearer x", `{"a":"b"}`, "[1]",
	"x", "Z", "9", "é"}

func randomNames(rng *rand.Rand) []byte {
	var b []byte
	for n := 8 + rng.IntN(40); n > 0; n-- {
		b = append(b, namePieces[rng.IntN(len(namePieces))]...)
	}
	return b
}

// The memo's premise: what is judged of a name depends on its window
// only. judgeName gives the same verdict, and the same word on whether it
// may be remembered, whatever comes before the window.
func TestNameVerdictFromWindow(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	judged, kept := 0, 0
	for range 20000 {
		b := randomNames(rng)
		for i := range b {
			if b[i] != ':' && b[i] != '=' {
				continue
			}
			h := nameWindow(b, i)
			if h < 0 {
				continue
			}
			v, ok := judgeName(b, i, h)
			judged++
			if ok {
				kept++
			}
			for range 3 {
				pre := randomNames(rng)
				if rng.IntN(2) == 0 {
					pre = randomAnchorBytes(rng, 8+rng.IntN(40))
				}
				b2 := append(pre, b[h:]...)
				i2 := i - h + len(pre)
				if h2 := nameWindow(b2, i2); h2 != len(pre) {
					t.Fatalf("window of %q at %d: %d, after %q: %d", b, i, h, pre, h2)
				}
				v2, ok2 := judgeName(b2, i2, len(pre))
				if ok && (!ok2 || v2 != v) || !ok && ok2 {
					t.Fatalf("%q at %d (window %q): %+v %v\nafter %q: %+v %v", b, i, b[h:i+1], v, ok, pre, v2, ok2)
				}
			}
		}
	}
	if judged < 20000 || kept < judged/4 {
		t.Fatalf("%d windows judged, %d kept: the inputs test too little", judged, kept)
	}
}

// A verdict from the memo, filled by earlier frames, judges a ':' or '='
// as at does: the same answer, the same flags.
func TestNameMemoAsAt(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	var warm textCache
	memo, hits := 0, 0
	for range 60000 {
		b := randomNames(rng)
		for j := 6; j+5 < len(b); j++ {
			if b[j] != ':' && b[j] != '=' || !nameMayMatch(b, skipBlankBack(b, j)) {
				continue
			}
			rs := rawScan{b: b, frame: true, cache: &warm, local: len(b)}
			var next int
			got, known := rs.memoJudge(j, &next)
			if !known {
				continue
			}
			memo++
			fresh := rawScan{b: b, frame: true}
			want, _ := fresh.at(j)
			if got != want || rs.credKey != fresh.credKey || rs.header != fresh.header {
				t.Fatalf("%q at %d: memo %v (credKey %v, header %v), at %v (%v, %v)", b, j, got, rs.credKey, rs.header, want, fresh.credKey, fresh.header)
			}
			if got {
				hits++
			}
		}
	}
	if memo < 10000 || hits < memo/20 {
		t.Fatalf("%d judged from the memo, %d yes: the inputs test too little", memo, hits)
	}
}

// A frame scan with a warm memo says what the pre-scan without any cache
// says.
func TestNameMemoFrames(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	var warm textCache
	diff := 0
	for range 20000 {
		b := randomNames(rng)
		h1, k1 := warm.frameScan(b)
		h2, k2 := prescan(b, true)
		if h1 != h2 || k1 != k2 {
			t.Fatalf("%q: with the memo %v %v, without %v %v", b, h1, k1, h2, k2)
		}
		if h1 {
			diff++
		}
	}
	if diff < 1000 {
		t.Fatalf("%d frames hit: the inputs test too little", diff)
	}
}

// nameMayMatch turns down a name that ends in a digit at once: the name's
// full verdict turns each down too.
func TestNamesEndingInDigits(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	n := 0
	for range 20000 {
		b := randomNames(rng)
		// Names that end in a digit, after each credential word.
		for _, w := range []string{"token", "password", "secret", "key", "sig", "pw", "auth", "method"} {
			b = append(b, " "+w+string(rune('0'+rng.IntN(10)))+[]string{":", "=", `":`, " = "}[rng.IntN(4)]+"abcdefgh12345678"...)
		}
		for i := range b {
			if b[i] != ':' && b[i] != '=' {
				continue
			}
			k := skipBlankBack(b, i)
			for k > 0 && (b[k-1] == '"' || b[k-1] == '\'' || b[k-1] == '\\') {
				k--
			}
			if k == 0 || b[k-1] < '0' || b[k-1] > '9' {
				continue
			}
			n++
			if v := colonName(b, i, true, true); !v.reject {
				t.Fatalf("%q at %d: as a ':', %+v", b, i, v)
			}
			if v := assignName(b, i, true); !v.reject {
				t.Fatalf("%q at %d: as an '=', %+v", b, i, v)
			}
		}
	}
	if n < 5000 {
		t.Fatalf("%d names ending in a digit: the inputs test too little", n)
	}
}
