package bridge

import (
	"testing"
	"unsafe"
)

// TestInterner: whatever order values come in (one repeated, two taking
// turns, three in a round), each is read as its text and shares the first
// copy made of it; an escaped value is decoded, plain or not.
func TestInterner(t *testing.T) {
	in := &interner{m: make(map[string]string)}
	first := map[string]*byte{}
	read := func(raw string, plain bool) string {
		t.Helper()
		s := in.str([]byte(raw), slotRunID, plain)
		want := raw[1 : len(raw)-1]
		if raw == `"a\u0062"` {
			want = "ab"
		}
		if s != want {
			t.Fatalf("%s read as %q, want %q", raw, s, want)
		}
		if raw != `"a\u0062"` {
			if p, ok := first[s]; ok && p != unsafe.StringData(s) {
				t.Fatalf("%s: a second copy", raw)
			}
			first[s] = unsafe.StringData(s)
		}
		return s
	}
	for _, seq := range [][]string{
		{`"r1"`, `"r1"`, `"r1"`},
		{`"r1"`, `"r2"`, `"r1"`, `"r2"`, `"r2"`, `"r1"`},
		{`"r1"`, `"r2"`, `"r3"`, `"r1"`, `"r2"`, `"r3"`},
	} {
		for _, raw := range seq {
			read(raw, true)
		}
	}
	read(`"a\u0062"`, false)
	read(`"a\u0062"`, false)
	read(`"r2"`, false) // not known to be plain: looked at, and shared
	if len(in.m) != 3 {
		t.Fatalf("%d strings interned, want 3 (r1, r2, r3; an escaped one is decoded, not kept)", len(in.m))
	}
}
