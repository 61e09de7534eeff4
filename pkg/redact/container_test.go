package redact

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/jsonx"
)

// containerScan reads a credential container in one pass; it must say
// what parsing it (jsonx.Value) and then searching its strings one by one
// (anyGenerated, below: the search as it was) say, for every JSON value.

// anyGenerated reports whether a JSON value holds a string (a key or a
// value) that looks generated, or one with an escape that could hide one.
func anyGenerated(b []byte) bool {
	if bytes.IndexByte(b, '\\') < 0 {
		// No escape: each string ends at the next quote.
		for i := 0; ; {
			q := bytes.IndexByte(b[i:], '"')
			if q < 0 {
				return false
			}
			st := i + q + 1
			e := bytes.IndexByte(b[st:], '"')
			if e < 0 {
				return generatedLike(b[st:])
			}
			if e >= 12 && generatedLike(b[st:st+e]) {
				return true
			}
			if i = st + e + 1; i >= len(b) {
				return false
			}
		}
	}
	for i := 0; ; {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return false
		}
		st := i + q + 1
		e := st
		for e < len(b) && b[e] != '"' {
			if b[e] == '\\' {
				if e+1 < len(b) && (b[e+1] == '/' || b[e+1] == 'u') {
					return true
				}
				e += 2
				continue
			}
			e++
		}
		if e > len(b) {
			return false
		}
		if generatedLike(b[st:min(e, len(b))]) {
			return true
		}
		i = e + 1
		if i >= len(b) {
			return false
		}
	}
}

func TestContainerScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	strs := []string{`type`, `object`, `4f9a8b7c6d5e4f3a2b1c`, `API key, or a SecretRef`, `sk-...`,
		`a\nb`, `q\"q`, `back\\slash`, `x\/y`, `\u0041bc`, `{[]}`, `wJalrXUtnFEMI/K7MDENG`, ``, `:`, `,`}
	var value func(b *strings.Builder, depth int)
	value = func(b *strings.Builder, depth int) {
		switch k := rng.IntN(7); {
		case depth < 4 && k == 0:
			b.WriteByte('{')
			for i := range rng.IntN(4) {
				if i > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(b, `"%s":`, strs[rng.IntN(len(strs))])
				value(b, depth+1)
			}
			b.WriteByte('}')
		case depth < 4 && k == 1:
			b.WriteString("[ ")
			for i := range rng.IntN(4) {
				if i > 0 {
					b.WriteString(", ")
				}
				value(b, depth+1)
			}
			b.WriteByte(']')
		case k == 2:
			b.WriteString([]string{"true", "null", "-12.5e3", "0"}[rng.IntN(4)])
		default:
			fmt.Fprintf(b, `"%s"`, strs[rng.IntN(len(strs))])
		}
	}
	checked := 0
	for range 20000 {
		var b strings.Builder
		b.WriteByte("{["[rng.IntN(2)])
		if b.String() == "{" {
			b.WriteString(`"k":`)
		}
		value(&b, 1)
		b.WriteByte("}]"[strings.IndexByte("{[", b.String()[0])])
		b.WriteString(`,"after":"4f9a8b7c6d5e4f3a2b1c"}]`)
		src := []byte(b.String())
		_, n, err := jsonx.Value(src)
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		want := anyGenerated(src[:n])
		gotN, gen, ok := containerScan(src)
		if !ok || gen != want || !gen && gotN != n {
			t.Fatalf("containerScan(%q) = %d, %v, %v; want %d, %v", src, gotN, gen, ok, n, want)
		}
		if !want {
			checked++
		}
	}
	if checked < 2000 {
		t.Fatalf("only %d clean containers", checked)
	}
	// Cut short: never a length.
	if _, gen, ok := containerScan([]byte(`{"a":["b"`)); ok && !gen {
		t.Fatal("an unfinished container was read to an end")
	}
}
