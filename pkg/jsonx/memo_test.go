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
