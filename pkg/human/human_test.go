package human

import (
	"math"
	"testing"
	"unicode/utf8"
)

func TestFormats(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Secs(1250), "+1.250s"}, {Secs(-5), "-0.005s"}, {Secs(0), "+0.000s"}, {Secs(61_007), "+61.007s"},
		{Secs(-61_070), "-61.070s"}, {Secs(999), "+0.999s"}, {Secs(math.MaxInt64), "+9223372036854775.807s"},
		{Secs(math.MinInt64), "--9223372036854775.-808s"}, // -ms overflows; pinned so it never panics
		{string(AppendSecs([]byte("at "), 40)), "at +0.040s"},
		{Offset(0, 5), "-"}, {Offset(1500, 1000), "+0.500s"},
		{Duration(850, 1), "850 ms"}, {Duration(1500, 1), "1.5 s"}, {Duration(1500, 3), "1.500 s"}, {Duration(-3, 1), "0 ms"},
		{Bytes(999), "999 B"}, {Bytes(1536), "1.5 KiB"}, {Bytes(20 << 20), "20.0 MiB"},
		{Clip("héllo", 5), "héllo"}, {Clip("héllo!", 5), "héll…"}, {Pad("é", 3), "é  "},
		{Clip("", 0), ""}, {Clip("a", 0), "…"}, {Clip("", -1), "…"}, {Clip("ab", 1), "…"}, {Clip("a", 1), "a"}, {Clip("\xffa\xff", 2), "\xff…"},
		{Flat("a\nb\tc"), "a b c"}, {Printable("a\x01\nb"), "a� b"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func FuzzClip(f *testing.F) {
	f.Add("héllo wörld", 4)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 1 || n > 1000 {
			return
		}
		c := Clip(s, n)
		if len([]rune(c)) > n && len([]rune(s)) > n {
			t.Fatalf("Clip(%q, %d) = %q", s, n, c)
		}
		// ClipBytes clips alike, in place after other text.
		b := append([]byte("x"), s...)
		if got := ClipBytes(b[1:], n); string(got) != c {
			t.Fatalf("ClipBytes(%q, %d) = %q, Clip gives %q", s, n, got, c)
		}
		// clipAt's fast path for ASCII cuts where ranging over the
		// runes would (an invalid byte is a rune of one byte).
		wantCut, wantOver, runes := 0, false, 0
		for i := range s {
			if runes == n-1 {
				wantCut = i
			}
			if runes == n {
				wantOver = true
				break
			}
			runes++
		}
		if !wantOver {
			wantCut = 0
		}
		if cut, over := clipAt(s, n); cut != wantCut || over != wantOver {
			t.Fatalf("clipAt(%q, %d) = %d, %v; want %d, %v", s, n, cut, over, wantCut, wantOver)
		}
		if utf8.ValidString(s) && utf8.RuneCountInString(c) > n {
			t.Fatalf("Clip(%q, %d) = %q: more than %d runes", s, n, c, n)
		}
	})
}

func TestThousandsAndCount(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Thousands(0), "0"}, {Thousands(999), "999"}, {Thousands(1000), "1,000"},
		{Thousands(1234567), "1,234,567"}, {Thousands(-1234), "-1234"},
		{Count(1, "gap", "gaps"), "1 gap"}, {Count(0, "gap", "gaps"), "0 gaps"}, {Count(12, "run", "runs"), "12 runs"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// FlatClip is Clip after Flat, whatever the text: line ends anywhere,
// invalid UTF-8 (which Flat turns into U+FFFD only when it maps), any n.
func FuzzFlatClip(f *testing.F) {
	for _, s := range []string{"héllo\nwörld", "a\tb", "\xffab\ncd", "ab\xed\xa0\x80\n", "no line ends", ""} {
		for _, n := range []int{-1, 0, 1, 2, 3, 5, 60} {
			f.Add(s, n)
		}
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n > 1000 {
			return
		}
		if got, want := FlatClip(s, n), Clip(Flat(s), n); got != want {
			t.Fatalf("FlatClip(%q, %d) = %q, Clip(Flat) %q", s, n, got, want)
		}
	})
}

// TestPlainASCII: the run of printable ASCII, wherever the first other
// byte is in a word of eight.
func TestPlainASCII(t *testing.T) {
	base := "abcdefghijklmnopqrstuvwxyz ~!:0123456789"
	for _, stop := range []string{"\x00", "\x1f", "\n", "\x7f", "\x80", "\xff", "é"} {
		for at := 0; at <= len(base); at++ {
			s := base[:at] + stop + base[at:]
			if got := PlainASCII(s); got != at {
				t.Fatalf("%q: %d, want %d", s, got, at)
			}
			if got := PlainASCII([]byte(s)); got != at {
				t.Fatalf("%q as bytes: %d, want %d", s, got, at)
			}
		}
	}
	if PlainASCII(base) != len(base) {
		t.Fatal("all of it")
	}
}
