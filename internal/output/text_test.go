package output

import (
	"bytes"
	"testing"
)

// TestTextWriter: what the sanitiser makes of hostile text, the same
// whether it comes in one write or a byte at a time.
func TestTextWriter(t *testing.T) {
	cases := []struct {
		in, want string
		colour   bool
	}{
		{"plain text\n\tindented\n", "plain text\n\tindented\n", false},
		{"::warning::x\n  ::error::y\n: z\nnot ::here\n", "\\::warning::x\n  \\::error::y\n: z\nnot ::here\n", false},
		{"\u00a0::add-mask::s\n", "\u00a0\\::add-mask::s\n", false}, // a runner trims Unicode spaces too
		{"ends with :", "ends with :", false},
		{":", ":", false},
		{"::", "\\::", false},
		{"a\x1b[31mred\x1b[0m\n", "a\uFFFD[31mred\uFFFD[0m\n", false},
		{"a\x1b[31mred\x1b[0m\n", "a\x1b[31mred\x1b[0m\n", true},
		{"\x1b[1m::x\n", "\x1b[1m\\::x\n", true}, // the style's SGR does not hide a line's start
		{"\x1b]0;title\x07\x1b[2J\x1b[H", "\uFFFD]0;title\uFFFD\uFFFD[2J\uFFFD[H", true},
		{"\x1b[31", "\uFFFD[31", true}, // an SGR cut short at the end
		{"cr\r\nnul\x00del\x7f", "cr\uFFFD\nnul\uFFFDdel\uFFFD", false},
		{"c1\u009b31m bidi\u202e\u2066 sep\u2028", "c1\uFFFD31m bidi\uFFFD\uFFFD sep\uFFFD", false},
		{"bad\xff lone\xed\xa0\x80 cut\xe2\x82", "bad\uFFFD lone\uFFFD\uFFFD\uFFFD cut\uFFFD\uFFFD", false},
		{"é ✓ 日本 🦞\n", "é ✓ 日本 🦞\n", false},
	}
	for _, c := range cases {
		var whole bytes.Buffer
		w := NewTextWriter(&whole, c.colour)
		if n, err := w.Write([]byte(c.in)); n != len(c.in) || err != nil {
			t.Fatalf("%q: wrote %d, %v", c.in, n, err)
		}
		w.Flush()
		if whole.String() != c.want {
			t.Errorf("%q (colour %v):\n got %q\nwant %q", c.in, c.colour, whole.String(), c.want)
		}
		var bytewise bytes.Buffer
		w = NewTextWriter(&bytewise, c.colour)
		for i := range len(c.in) {
			w.Write([]byte{c.in[i]})
		}
		w.Flush()
		if bytewise.String() != c.want {
			t.Errorf("%q a byte at a time (colour %v):\n got %q\nwant %q", c.in, c.colour, bytewise.String(), c.want)
		}
	}
}
