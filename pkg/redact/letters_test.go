package redact

import (
	"math/rand/v2"
	"testing"
)

// lettersBefore reads eight bytes at a time; it must count what a byte at
// a time does, whatever bytes come before and after the letters.
func TestLettersBefore(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for range 20000 {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			if rng.IntN(4) == 0 {
				b[i] = byte(rng.IntN(256))
			} else {
				b[i] = "aZqDm@[`{_"[rng.IntN(10)]
			}
		}
		k := 0
		if len(b) > 0 {
			k = rng.IntN(len(b) + 1)
		}
		want := 0
		for k-want > 0 && letter(b[k-want-1]) {
			want++
		}
		if got := lettersBefore(b, k); got != want {
			t.Fatalf("lettersBefore(%q, %d) = %d, want %d", b, k, got, want)
		}
	}
}
