package redact

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// The pre-scan finds the end of a frame's first "text" string from its
// masks (rawScan.te); it must be the quote stringEnd finds, whatever the
// escapes, backslash runs and block boundaries, or the texts remembered
// would be cut wrong.
func TestTextEndFromMasks(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	pieces := []string{`a`, `word `, `\"`, `\\`, `\\\"`, `\\\\`, `\n`, `\u00e9`, `"`, `:`, `x\\"`, `-`, `.`, ` `}
	checked := 0
	for i := range 3000 {
		var b strings.Builder
		b.WriteString(`{"type":"event","event":"agent","payload":{"data":{"text":"`)
		pre := b.Len()
		n := rng.IntN(400)
		for range n {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		b.WriteString(`","delta":"x"},"seq":1}}`)
		f := []byte(b.String())
		// Shift the text across block boundaries.
		pad := strings.Repeat(" ", i%64)
		f = append([]byte(`{"pad":"`+pad+`",`), f[1:]...)
		ts := pre + len(`{"pad":"`+pad+`",`) - 1
		rs := rawScan{b: f, frame: true, cache: &textCache{}, local: len(f), ent: -1}
		if rs.scan() {
			continue // a hit stops the scan: te is not used
		}
		if rs.ts != ts {
			t.Fatalf("%d: ts %d, want %d", i, rs.ts, ts)
		}
		if want := stringEnd(f, ts); rs.te != want && !(want < 0 && rs.te == 0) {
			t.Fatalf("%d: te %d, want %d in %q", i, rs.te, want, f)
		}
		checked++
	}
	if checked < 1000 {
		t.Fatalf("only %d frames scanned to their end", checked)
	}
}
