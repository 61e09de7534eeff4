package message

import "testing"

func TestLineMarkers(t *testing.T) {
	cases := []struct {
		line              string
		tool, trace, meta bool
	}{
		{"[[tool]] exec", true, false, false},
		{"[[tool-result]] exec", true, false, false},
		{"[[tool]]", true, false, false},
		{" [[tool]] exec", false, false, false},
		{"[[Tool]] exec", false, false, false},
		{"[[trace]]\n_x_", false, true, false},
		{"[[meta]]{}", false, false, true},
		{"> hi", false, false, false},
		{"", false, false, false},
	}
	for _, c := range cases {
		if IsToolLine(c.line) != c.tool || IsTraceLine(c.line) != c.trace || IsMetaLine(c.line) != c.meta {
			t.Errorf("%q: tool=%v trace=%v meta=%v", c.line, IsToolLine(c.line), IsTraceLine(c.line), IsMetaLine(c.line))
		}
	}
	// Every line ToolLines makes is a tool line.
	for _, l := range ToolLines([]byte(`{"role":"tool","content":[{"type":"toolCall"}]}`)) {
		if !IsToolLine(l) {
			t.Errorf("ToolLines line %q is not a tool line", l)
		}
	}
}

func TestFormatTrace(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", ""},
		{" \n\t\n", ""},
		{"one", "[[trace]]\n_one_"},
		{" a \r\n\r\n b\n\nc ", "[[trace]]\n_a_\n\n_b_\n\n_c_"},
		{"\u00a0x\u3000", "[[trace]]\n_x_"},
	}
	for _, c := range cases {
		got := FormatTrace(c.in)
		if got != c.want {
			t.Errorf("FormatTrace(%q) = %q, want %q", c.in, got, c.want)
		}
		if got != "" && !IsTraceLine(got) {
			t.Errorf("FormatTrace(%q) is not a trace line", c.in)
		}
	}
}

func TestFormatMeta(t *testing.T) {
	d := int64(1234)
	zero := int64(0)
	cases := []struct {
		role string
		ts   int64
		dur  *int64
		want string
	}{
		{"assistant", 1700000000000, &d, `[[meta]]{"role":"assistant","timestamp":1700000000000,"thinkingDurationMs":1234}`},
		{"user", 1700000000001, nil, `[[meta]]{"role":"user","timestamp":1700000000001}`},
		{"assistant", 5, &zero, `[[meta]]{"role":"assistant","timestamp":5,"thinkingDurationMs":0}`},
		{"a\"<b>\n", -1, nil, `[[meta]]{"role":"a\"<b>\n","timestamp":-1}`},
		// Above 2^53 JavaScript numbers lose precision; so does the line.
		{"user", 9007199254740993, nil, `[[meta]]{"role":"user","timestamp":9007199254740992}`},
	}
	for _, c := range cases {
		got := FormatMeta(c.role, c.ts, c.dur)
		if got != c.want {
			t.Errorf("FormatMeta(%q, %d) = %s, want %s", c.role, c.ts, got, c.want)
		}
		if !IsMetaLine(got) {
			t.Errorf("%s is not a meta line", got)
		}
	}
}
