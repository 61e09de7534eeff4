package message

import "testing"

func thinkingOrNull(msg []byte) string {
	s, ok := Thinking(msg)
	if !ok {
		return nullText
	}
	return s
}

func TestThinking(t *testing.T) {
	cases := []struct {
		name, msg, want string
	}{
		{"non-object", `"<think>x</think>"`, nullText},
		{"array", `[{"thinking":"x"}]`, nullText},
		{"malformed", `{"thinking":"x"`, nullText},
		{"nothing", `{"role":"assistant","content":"plain"}`, nullText},
		{"no text at all", `{}`, nullText},

		// Rule 1: content blocks.
		{"thinking block", `{"content":[{"type":"thinking","thinking":" deep "},{"type":"text","text":"x"}]}`, "deep"},
		{"typed block falls back to text", `{"content":[{"type":"reasoning","text":" r "}]}`, "r"},
		{"typed block key order", `{"content":[{"type":"analysis","analysis":"A","thinking":"  "}]}`, "A"},
		{"typed block later key", `{"content":[{"type":"thinking","reasoningDelta":"rd","text":"t"}]}`, "rd"},
		{"typed block snake_case ignored", `{"content":[{"type":"thinking","thinking_text":"x","text":"fallback"}]}`, "fallback"},
		{"typed block object value ignored", `{"content":[{"type":"thinking","thinking":{"text":"x"},"text":"fallback"}]}`, "fallback"},
		{"untyped block thinking", `{"content":[{"type":"text","text":"t","thinking":"th"}]}`, "th"},
		{"untyped block only thinking key counts", `{"content":[{"type":"text","analysis":"an"}],"reasoning":"msg"}`, "msg"},
		{"blocks joined", `{"content":[{"type":"thinking","thinking":"a"},{"thinking":" b "},{"type":"thinking","thinking":" "},{"type":"analysis"},null,7,{"type":"reasoning","text":"c"}]}`, "a\nb\nc"},
		{"block type case matters", `{"content":[{"type":"Thinking","text":"t"}]}`, nullText},
		{"rule 1 beats rule 2", `{"content":[{"type":"thinking","thinking":"b"}],"thinking":"m"}`, "b"},
		{"empty rule 1 falls to rule 2", `{"content":[{"type":"thinking","thinking":"  "}],"thinking":"m"}`, "m"},
		{"rule 1 beats tags", `{"content":[{"type":"thinking","thinking":"b"},{"type":"text","text":"<think>t</think>"}]}`, "b"},

		// Rule 2: direct keys.
		{"direct thinking", `{"thinking":" t "}`, "t"},
		{"direct skips blank", `{"thinking":"  ","analysis":"an"}`, "an"},
		{"direct key order not member order", `{"reasoningDelta":"d","thinkingText":"t"}`, "t"},
		{"every key: analysisDelta", `{"analysisDelta":"ad"}`, "ad"},
		{"every key: reasoningText", `{"reasoningText":"rt"}`, "rt"},
		{"every key: thinkingDelta", `{"thinkingDelta":"td"}`, "td"},
		{"every key: analysisText", `{"analysisText":"at"}`, "at"},
		{"every key: reasoning", `{"reasoning":"r"}`, "r"},
		{"snake_case not read", `{"thinking_text":"x","reasoning_delta":"y"}`, nullText},
		{"object value not read", `{"thinking":{"text":"x"}}`, nullText},
		{"direct beats tags", `{"thinking":"d","content":"<think>t</think>"}`, "d"},

		// Rule 3: closed tag blocks in the raw text.
		{"closed blocks joined", `{"content":"<think> a </think>x<analysis>b</analysis>"}`, "a\nb"},
		{"nested opener stays in body", `{"content":"<think>a<think>b</think>c</think>"}`, "a<think>b"},
		{"any closer closes", `{"content":"<think>a</analysis>"}`, "a"},
		{"empty body dropped", `{"content":"<think> </think><think>b</think>"}`, "b"},
		{"closed beats unclosed tail", `{"content":"<think>a</think>answer<think>b"}`, "a"},
		{"tags from message.text", `{"text":"<thinking>t</thinking>"}`, "t"},
		{"tags from text blocks", `{"content":[{"type":"text","text":"<think>"},{"type":"text","text":"t</think>"}]}`, "t"},
		{"role does not matter", `{"role":"user","content":"<think>u</think>"}`, "u"},
		{"tag spacing and case", `{"content":"< THINK >x</ think >"}`, "x"},
		{"all empty", `{"content":"<think></think>"}`, nullText},

		// Rule 4: tagged stream.
		{"unclosed tail", `{"content":"<think>still planning"}`, "still planning"},
		{"unclosed tail trimmed", `{"content":"<thinking>\n  x  \n"}`, "x"},
		{"thought closed", `{"content":"<thought>t</thought>"}`, "t"},
		{"antthinking closed", `{"content":"<antthinking> a </antthinking>b"}`, "a"},
		{"thought unclosed", `{"content":"<Thought>t"}`, "t"},
		{"thought ignored by rule 3", `{"content":"<thought>t</thought><think>x"}`, "x"},
		{"tail after last opener", `{"content":"<think>x<think>y"}`, "y"},
		{"stream pairs when last opener closed", `{"content":"<thought>a</thought>b<antthinking>c</think>"}`, "a\nc"},
		{"empty tail gives null", `{"content":"<thought>a</thought><think>  "}`, nullText},
		{"closer only", `{"content":"plan</think>answer"}`, nullText},
		{"not tags", `{"content":"<thinker>x"}`, nullText},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := thinkingOrNull([]byte(c.msg)); got != c.want {
				t.Errorf("Thinking(%s) = %q, want %q", c.msg, got, c.want)
			}
		})
	}
}

func TestNextThinkingTag(t *testing.T) {
	s := "a< / THINKING >b<thought><thinker><analysis \t>"
	var got []ThinkingTag
	for i := 0; ; {
		tg, ok := NextThinkingTag(s, i, TextTags)
		if !ok {
			break
		}
		got = append(got, tg)
		i = tg.End
	}
	want := []ThinkingTag{{Start: 1, End: 15, Closer: true, Name: TagThinking}, {Start: 34, End: 46, Name: TagAnalysis}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("text tags of %q = %+v, want %+v", s, got, want)
	}
	if tg, ok := NextThinkingTag(s, 15, StreamTags); !ok || tg != (ThinkingTag{Start: 16, End: 25, Name: TagThought}) {
		t.Fatalf("stream tag = %+v, %v", tg, ok)
	}
}

func TestTaggedStream(t *testing.T) {
	for in, want := range map[string]string{
		"<think>still planning":                       "still planning",
		"<thought>a</thought><think>b":                "b",
		"<thought>a</think> <antthinking>b</thought>": "a\nb",
		"<think>a</think><think>  ":                   "",
		"plain":                                       "",
	} {
		if got := TaggedStream(in); got != want {
			t.Errorf("TaggedStream(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBlockThinking(t *testing.T) {
	key := func(s string) func() string { return func() string { return s } }
	for _, tc := range []struct {
		typ, text, thinking, key, want string
	}{
		{`"thinking"`, `" t "`, `"th"`, "k", "k"},
		{`"reasoning"`, `" t "`, `"th"`, "", "t"},
		{`"analysis"`, `7`, `"th"`, "", ""},
		{`"text"`, `"t"`, `" th "`, "k", "th"},
		{`"text"`, `"t"`, `{"text":"x"}`, "k", ""},
	} {
		if got := BlockThinking([]byte(tc.typ), []byte(tc.text), []byte(tc.thinking), key(tc.key)); got != tc.want {
			t.Errorf("BlockThinking(%s, %s, %s, %q) = %q, want %q", tc.typ, tc.text, tc.thinking, tc.key, got, tc.want)
		}
	}
	if BlockThinking([]byte(`"text"`), nil, nil, func() string { panic("read for a text block") }) != "" {
		t.Error("a text block without thinking gives nothing")
	}
}
