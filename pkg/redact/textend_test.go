package redact

import (
	"encoding/binary"
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

// TestQuietKeys: a JSON key turned down by its last letters is
// remembered and turned down by its tail in the frames after, as the tests
// would; but "text" never is, though a frame's second one is turned down
// so: the next frame's first "text" string is still remembered.
func TestQuietKeys(t *testing.T) {
	var c textCache
	long := strings.Repeat("a clean streamed reply ", 10)
	first := []byte(`{"type":"event","payload":{"data":{"text":"x"},"message":{"text":"y"}}}`)
	if hit, _ := c.frameScan(first); hit {
		t.Fatalf("%s: a hit", first)
	}
	n := 0
	for _, k := range c.quietKeys {
		if k != 0 {
			n++
			if isTextKey(k) {
				t.Errorf("the key %q is remembered", binary.LittleEndian.AppendUint64(nil, k))
			}
		}
	}
	if n < 3 { // "type", "payload", "data", "message"
		t.Errorf("%d keys remembered, want 3 or more", n)
	}
	second := []byte(`{"text":"` + long + `"}`)
	if hit, _ := c.frameScan(second); hit {
		t.Fatalf("%s: a hit", second)
	}
	kept := false
	for _, e := range c.ents {
		kept = kept || string(e.text) == long
	}
	if !kept {
		t.Errorf("the text of %s is not remembered", second)
	}
	// A remembered tail turns its key down, and only its key.
	for _, frame := range []string{`{"type":"event","password":"hunter2xyz"}`, `{"type":"event","x":{"token":"hunter2xyz"}}`} {
		if hit, _ := c.frameScan([]byte(frame)); !hit {
			t.Errorf("%s: no hit after the quiet keys", frame)
		}
	}
}
