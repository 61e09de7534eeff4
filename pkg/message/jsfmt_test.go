package message

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestAppendJSNumber(t *testing.T) {
	cases := []struct {
		in   float64
		want string
	}{
		{0, "0"},
		{math.Copysign(0, -1), "0"},
		{1, "1"},
		{-1.5, "-1.5"},
		{100, "100"},
		{0.1, "0.1"},
		{123.456, "123.456"},
		{0.000001, "0.000001"},
		{0.0000012, "0.0000012"},
		{1e-7, "1e-7"},
		{-1.5e-10, "-1.5e-10"},
		{1e20, "100000000000000000000"},
		{1e21, "1e+21"},
		{1.5e21, "1.5e+21"},
		{123456789012345678901234, "1.2345678901234569e+23"},
		{12345678901234567890, "12345678901234567000"},
		{9007199254740993, "9007199254740992"},
		{5e-324, "5e-324"},
		{math.MaxFloat64, "1.7976931348623157e+308"},
		{math.Inf(1), "Infinity"},
		{math.Inf(-1), "-Infinity"},
		{math.NaN(), "NaN"},
	}
	for _, c := range cases {
		if got := string(appendJSNumber(nil, c.in)); got != c.want {
			t.Errorf("appendJSNumber(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestFormatArgsScalars(t *testing.T) {
	cases := []struct{ in, want string }{
		{`"plain"`, "plain"},
		{`"a\"b\\c"`, `a"b\c`},
		{`2.5E+3`, "2500"},
		{`-0.0`, "0"},
		{`1e-400`, "0"},
		{`1e400`, "Infinity"},
		{`true`, "true"},
		{`null`, ""}, // formatJson(null) renders nothing
		{``, ""},
		{`{}`, "{}"},
		{`[]`, "[]"},
		{`[1e400,-1e400,1e-7,0.5]`, "[\n  null,\n  null,\n  1e-7,\n  0.5\n]"},
		{`[[[]]]`, "[\n  [\n    []\n  ]\n]"},
		{`[{}]`, "[\n  {}\n]"},
	}
	for _, c := range cases {
		if got := formatArgs([]byte(c.in)); got != c.want {
			t.Errorf("formatArgs(%s) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestStringifyStrings(t *testing.T) {
	// JSON.stringify escapes only '"', '\\' and control characters; the
	// short forms are \b \f \n \r \t; other controls are lower-case \u00xx.
	in := `["<a&b>", "é😀", "\u2028\u2029", "\u007f", "\u0000\u0001\u001f", "\b\f\n\r\t", "\"\\\/", "\ud800"]`
	want := "[\n" +
		`  "<a&b>",` + "\n" +
		`  "é😀",` + "\n" +
		"  \"\u2028\u2029\",\n" +
		"  \"\u007f\",\n" +
		`  "\u0000\u0001\u001f",` + "\n" +
		`  "\b\f\n\r\t",` + "\n" +
		`  "\"\\/",` + "\n" +
		"  \"\\ud800\"\n" +
		"]"
	if got := formatArgs([]byte(in)); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestStringifyKeyOrder(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"array indices first ascending", `{"b":1,"2":2,"1":3,"01":4,"a":5,"0":6}`,
			`{"0":6,"1":3,"2":2,"b":1,"01":4,"a":5}`},
		{"index bound", `{"x":0,"4294967295":1,"4294967294":2,"-1":3,"1.5":4}`,
			`{"4294967294":2,"x":0,"4294967295":1,"-1":3,"1.5":4}`},
		{"duplicate keeps first position, last value", `{"a":1,"b":2,"a":3}`, `{"a":3,"b":2}`},
		{"duplicate via escape", `{"a":1,"\u0061":2}`, `{"a":2}`},
		{"escaped keys re-escaped", `{"k\"\u0041\n":1,"\u00e9":2}`, `{"k\"A\n":1,"é":2}`},
		{"__proto__ is a plain key", `{"__proto__":1,"z":2}`, `{"__proto__":1,"z":2}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := compact(formatArgs([]byte(c.in)))
			if got != c.want {
				t.Errorf("got %s, want %s", got, c.want)
			}
		})
	}
	// Large objects take the map path for duplicates.
	var b strings.Builder
	b.WriteString(`{`)
	for i := 0; i < 40; i++ {
		b.WriteString(`"k` + strconv.Itoa(i) + `":0,`)
	}
	b.WriteString(`"k0":1,"k39":2,"7":3}`)
	got := compact(formatArgs([]byte(b.String())))
	if !strings.HasPrefix(got, `{"7":3,"k0":1,"k1":0,`) || !strings.HasSuffix(got, `"k38":0,"k39":2}`) || strings.Count(got, `"k0"`) != 1 {
		t.Errorf("large object: %s", got)
	}
}

// compact undoes the two-space layout for short assertions (the test
// inputs have no spaces or newlines inside strings).
func compact(s string) string {
	s = strings.ReplaceAll(s, "\n", "")
	s = strings.ReplaceAll(s, "  ", "")
	return strings.ReplaceAll(s, `": `, `":`)
}

func TestJSWhitespace(t *testing.T) {
	for _, r := range "\t\n\v\f\r \u00a0\u1680\u2000\u2005\u200a\u2028\u2029\u202f\u205f\u3000\ufeff" {
		if !isJSSpace(r) {
			t.Errorf("%U should be JS whitespace", r)
		}
		if s := string(r) + "x"; trimStart(s) != "x" {
			t.Errorf("trimStart(%q) kept the space", s)
		}
	}
	for _, r := range "\u0085\u200b\u180ex\u0000" {
		if isJSSpace(r) {
			t.Errorf("%U should not be JS whitespace", r)
		}
	}
	if got := trim("\ufeff a \u3000"); got != "a" {
		t.Errorf("trim = %q", got)
	}
}
