package jsonx

import (
	"strings"
	"testing"
	"unsafe"
)

func TestStrMemo(t *testing.T) {
	long := `"` + strings.Repeat(`streamed\ntext `, 10) + `"`
	other := `"` + strings.Repeat(`other\ttext `, 10) + `"`
	var m StrMemo
	a, ok := m.Str([]byte(long))
	want, _ := Str([]byte(long))
	if !ok || a != want {
		t.Fatalf("first decode = %q, %v; want %q", a, ok, want)
	}
	buf := []byte(long) // a fresh copy: the memo must compare bytes, not slices
	b, _ := m.Str(buf)
	if b != a || unsafe.StringData(b) != unsafe.StringData(a) {
		t.Error("the same raw string again must give back the remembered string")
	}
	buf[5] = 'X' // the caller's buffer changes: the memo kept its own copy
	if c, _ := m.Str([]byte(long)); unsafe.StringData(c) != unsafe.StringData(a) {
		t.Error("the memo must not alias the caller's buffer")
	}
	if c, _ := m.Str([]byte(other)); c == a || !strings.HasPrefix(c, "other\t") {
		t.Errorf("a different string decoded to %q", c)
	}
	if _, ok := m.Str([]byte(`"` + strings.Repeat("unterminated ", 8))); ok {
		t.Error("invalid input must fail through the memo too")
	}
	var nilMemo *StrMemo
	if s, ok := nilMemo.Str([]byte(`"x\n"`)); !ok || s != "x\n" {
		t.Errorf("nil memo = %q, %v", s, ok)
	}
}

// A text that grows is decoded as its new part, sharing the bytes before
// it with the text before; what was handed out never changes.
func TestStrMemoExtends(t *testing.T) {
	var m StrMemo
	text := strings.Repeat("streamed \\\"reply\\\" ", 4)
	var got, want []string
	for i := range 50 {
		text += "part " + string(rune('a'+i%26)) + "\\n"
		raw := []byte(`"` + text + `"`)
		s, ok := m.Str(raw)
		w, _ := Str(raw)
		if !ok || s != w {
			t.Fatalf("step %d: %q, %v; want %q", i, s, ok, w)
		}
		got, want = append(got, s), append(want, w)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("string %d changed after later decodes: %q", i, got[i])
		}
	}
	if unsafe.StringData(got[10]) != unsafe.StringData(got[11]) && unsafe.StringData(got[11]) != unsafe.StringData(got[12]) {
		t.Error("a text that extends the last one should share its bytes")
	}
}

// FuzzStrMemo: through the memo, a run of strings that mostly extend the
// one before (escapes, surrogate halves and broken UTF-8 cut anywhere
// included) decodes exactly as Str decodes each alone, and every string
// handed out stays as it was.
func FuzzStrMemo(f *testing.F) {
	f.Add([]byte(strings.Repeat("x", 70)), []byte(`\ud83d`), []byte(`\ude00 more`), uint8(3))
	f.Add([]byte(strings.Repeat("é", 40)), []byte("\xe2\x82"), []byte("\xac tail"), uint8(1))
	f.Add([]byte(strings.Repeat("a\\n", 30)), []byte(`\\`), []byte(`ud83d\ude00`), uint8(7))
	f.Fuzz(func(t *testing.T, base, add1, add2 []byte, seed uint8) {
		parts := [][]byte{add1, add2, add1}
		var m StrMemo
		var got, want []string
		body := append([]byte(nil), base...)
		for i := 0; i < 12; i++ {
			p := parts[(int(seed)+i)%len(parts)]
			if (int(seed)>>uint(i%8))&1 == 1 && len(p) > 0 {
				body = append(body, p[:1+(i*7)%len(p)]...) // a cut anywhere
			} else {
				body = append(body, p...)
			}
			raw := append(append([]byte{'"'}, body...), '"')
			s, ok := m.Str(raw)
			w, wok := Str(raw)
			if ok != wok || s != w {
				t.Fatalf("%q: memo %q, %v; Str %q, %v", raw, s, ok, w, wok)
			}
			got, want = append(got, s), append(want, w)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("string %d changed: %q, want %q", i, got[i], want[i])
			}
		}
	})
}
