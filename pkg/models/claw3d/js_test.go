package claw3d

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/clawtap/clawtap/pkg/jsstr"
)

// collapseSpace is JavaScript's s.replace(/\s+/g, " ").trim(), here
// written out rune by rune, on texts mixing printable ASCII with every kind
// of JS whitespace, other non-ASCII text and bytes that are no UTF-8.
func TestCollapseSpaceAsJS(t *testing.T) {
	ref := func(s string) string {
		var b strings.Builder
		space := false
		for i := 0; i < len(s); {
			r, n := utf8.DecodeRuneInString(s[i:])
			if jsstr.IsSpace(r) {
				space = true
			} else {
				if space && b.Len() > 0 {
					b.WriteByte(' ')
				}
				space = false
				b.WriteString(s[i : i+n])
			}
			i += n
		}
		return b.String()
	}
	parts := []string{"a", "Z", "~", "!", " ", "  ", "\t", "\n", "\r\n", "\v", "\f", "\u00a0", "\u2028", "\u3000", "\ufeff", "\u1680", "é", "日本", "\x80", "\xc2", "\xe2\x80", "\x7f", "\x00", "word"}
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for k := rng.IntN(12); k >= 0; k-- {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		s := b.String()
		if got, want := collapseSpace(s), ref(s); got != want {
			t.Fatalf("collapseSpace(%q) = %q, want %q", s, got, want)
		}
	}
}

// rarestLetter picks the needle's letter that comes first in letterOrder
// (the first such place when it is there twice), and the first byte of a
// needle without a letter.
func TestRarestLetter(t *testing.T) {
	for _, needle := range []string{"exec approval was granted", "continue where you left off", "", "123", "aaa", "eta", "quiz", "jazz", "a-b_c"} {
		ref := 0
		for i := range needle {
			if a, b := strings.IndexByte(letterOrder, needle[i]), strings.IndexByte(letterOrder, needle[ref]); a >= 0 && (b < 0 || a < b) {
				ref = i
			}
		}
		if got := rarestLetter(needle); got != ref {
			t.Errorf("rarestLetter(%q) = %d, want %d", needle, got, ref)
		}
	}
}
