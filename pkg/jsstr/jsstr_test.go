package jsstr

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// The expected values below are what Node 24 prints for the same
// expressions (String#toLowerCase, String#trim, String(n)).

func TestLower(t *testing.T) {
	for in, want := range map[string]string{
		"THİNK":          "thi\u0307nk", // not "think"
		"ΑΣ":             "ας",
		"ΑΣ Β":           "ας β",
		"Σ":              "σ",
		"AΣ.":            "aς.",
		"AΣ.b":           "aσ.b",
		"AΣ\u0301":       "aς\u0301",
		"\u212a":         "k",
		"plain":          "plain",
		"MiXeD-Case_1":   "mixed-case_1",
		"A\xed\xa0\x80B": "a\xed\xa0\x80b", // a lone surrogate stays
		"A\xffB":         "a\xffb",
		"ÀÉ\U00010400Z":  "àé\U00010428z",
	} {
		if got := Lower(in); got != want {
			t.Errorf("Lower(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestContainsFold(t *testing.T) {
	for _, c := range []struct {
		s, sub string
		want   bool
	}{
		{"Thinking", "think", true}, {"THİNK", "think", false}, {"THIN\u212a", "think", true},
		{"assistant-THINK", "assistant", true}, {"", "x", false}, {"TRAC", "trace", false}, {"xTRACE", "trace", true},
	} {
		if got := ContainsFold(c.s, c.sub); got != c.want {
			t.Errorf("ContainsFold(%q, %q) = %v", c.s, c.sub, got)
		}
	}
}

func TestHasPrefixFold(t *testing.T) {
	for _, c := range []struct {
		s, prefix string
		want      bool
	}{
		{"THINKING", "think", true}, {"[[Reply_To_Current]] x", "[[reply_to_current]]", true}, {"thin", "think", false},
		{"THIN\u212a", "think", false}, {"", "", true}, {"x", "", true}, {"Think", "think", true}, {"thinl", "think", false},
	} {
		if got := HasPrefixFold(c.s, c.prefix); got != c.want {
			t.Errorf("HasPrefixFold(%q, %q) = %v", c.s, c.prefix, got)
		}
	}
}

func TestTrim(t *testing.T) {
	for in, want := range map[string]string{
		"\ufeff a \u0085":             "a \u0085", // NEL is not JS whitespace; BOM is
		"\u180e":                      "\u180e",   // not Zs since Unicode 6.3
		"\u200b":                      "\u200b",   // zero width space is not whitespace
		"\u3000\u2028x\u00a0\u202f\v": "x",
		"\xed\xa0\x80 ":               "\xed\xa0\x80",
		"a \u3000":                    "a", // a printable ASCII start, a space at the end
		"\u00a0y~":                    "y~",
		"~\t":                         "~",
		"plain":                       "plain",
		"":                            "",
	} {
		if got := Trim(in); got != want {
			t.Errorf("Trim(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAppendNumber(t *testing.T) {
	for f, want := range map[float64]string{
		1e21: "1e+21", math.Copysign(0, -1): "0", 1.5: "1.5", 123456789012345680000: "123456789012345680000",
		5e-7: "5e-7", 0.000001: "0.000001", 1 << 53: "9007199254740992", 9007199254740994: "9007199254740994",
		123e-20: "1.23e-18", -2.5: "-2.5", 100: "100", math.Inf(1): "Infinity", math.NaN(): "NaN",
	} {
		if got := string(AppendNumber(nil, f)); got != want {
			t.Errorf("AppendNumber(%v) = %s, want %s", f, got, want)
		}
	}
}

func TestUTF16Len(t *testing.T) {
	for in, want := range map[string]int{"": 0, "abc": 3, "é": 1, "😀": 2, "a\xed\xa0\x80": 2, "\xff": 1, "日本": 2} {
		if got := UTF16Len(in); got != want {
			t.Errorf("UTF16Len(%q) = %d, want %d", in, got, want)
		}
	}
}

// FuzzAppendNumber holds AppendNumber to encoding/json, which formats a
// float64 as ES6's Number#toString does (apart from the sign of -0).
func FuzzAppendNumber(f *testing.F) {
	for _, v := range []float64{0, 1, 1.5, 1e21, 1e20, 5e-7, 1e-6, 123e-20, 9007199254740993, -3} {
		f.Add(math.Float64bits(v))
	}
	f.Fuzz(func(t *testing.T, bits uint64) {
		v := math.Float64frombits(bits)
		if math.IsInf(v, 0) || v != v {
			return
		}
		want, _ := json.Marshal(v)
		if v == 0 {
			want = []byte("0")
		}
		if got := AppendNumber(nil, v); string(got) != string(want) {
			t.Fatalf("AppendNumber(%v) = %s, want %s", v, got, want)
		}
	})
}

// wtf8Units decodes a WTF-8 string into UTF-16 code units, the rule
// UTF16Len, Trim and Lower keep to.
func wtf8Units(s string) []uint16 {
	var u []uint16
	for i := 0; i < len(s); {
		if c, ok := SurrogateAt(s, i); ok {
			u = append(u, c)
			i += 3
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		u = utf16.AppendRune(u, r)
		i += size
	}
	return u
}

func FuzzStrings(f *testing.F) {
	for _, s := range []string{"THİNK", "ΑΣ Β", "\ufeff a \u0085", "a\xed\xa0\x80b", "\xed\xb0\x80\xed\xa0\x80", "😀", "\xff\xfe", "K\u212a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u := wtf8Units(s)
		if UTF16Len(s) != len(u) {
			t.Fatalf("UTF16Len(%q) = %d, want %d", s, UTF16Len(s), len(u))
		}
		// Trim removes exactly the JS whitespace code units at both ends.
		i, j := 0, len(u)
		isWS := func(c uint16) bool {
			return strings.ContainsRune("\t\n\v\f\r\u2028\u2029\ufeff", rune(c)) || (c < 0xD800 && unicode.Is(unicode.Zs, rune(c)))
		}
		for i < j && isWS(u[i]) {
			i++
		}
		for j > i && isWS(u[j-1]) {
			j--
		}
		if got := wtf8Units(Trim(s)); string(utf16.Decode(got)) != string(utf16.Decode(u[i:j])) || len(got) != j-i {
			t.Fatalf("Trim(%q) = %q", s, Trim(s))
		}
		// Lower maps only letters: ASCII output comes from ASCII input,
		// the Kelvin sign (k) or U+0130 (i + U+0307), never elsewhere.
		low := Lower(s)
		if ValidWTF8(s) != ValidWTF8(low) {
			t.Fatalf("Lower(%q) = %q changes validity", s, low)
		}
		asciiIn := 0
		for _, r := range s {
			if r < utf8.RuneSelf || r == 0x212A || r == 0x130 {
				asciiIn++
			}
		}
		asciiOut := 0
		for _, r := range low {
			if r < utf8.RuneSelf {
				asciiOut++
			}
		}
		if asciiOut != asciiIn {
			t.Fatalf("Lower(%q) = %q: %d ASCII characters from %d", s, low, asciiOut, asciiIn)
		}
		// Away from İ and Σ, the mapping is Go's.
		if !strings.ContainsRune(s, 0x130) && !strings.ContainsRune(s, 0x3A3) && utf8.ValidString(s) && low != strings.ToLower(s) {
			t.Fatalf("Lower(%q) = %q changed a lower-case string", s, low)
		}
	})
}
