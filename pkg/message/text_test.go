package message

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/jsonx"
)

func asst(content string) string {
	b, _ := json.Marshal(map[string]any{"role": "assistant", "content": content})
	return string(b)
}

func user(content string) string {
	b, _ := json.Marshal(map[string]any{"role": "user", "content": content})
	return string(b)
}

const nullText = "\x00<null>"

func textOrNull(msg []byte) string {
	s, ok := Text(msg)
	if !ok {
		return nullText
	}
	return s
}

const policy = "\n\nExecution approval policy:\n" +
	"- If a tool result says approval is required or pending, stop.\n" +
	"- Do not call other tools.\n" +
	`Then reply exactly: "Waiting for approved command result."`

func TestTextSources(t *testing.T) {
	cases := []struct {
		name, msg, want string
	}{
		{"string message", `"hi"`, nullText},
		{"array message", `[{"role":"assistant","content":"x"}]`, nullText},
		{"null", `null`, nullText},
		{"number", `42`, nullText},
		{"empty input", ``, nullText},
		{"malformed", `{"content":"x"`, nullText},
		{"no source", `{}`, nullText},
		{"content number", `{"content":5}`, nullText},
		{"content null text string", `{"content":null,"text":"t"}`, "t"},
		{"empty content array", `{"content":[]}`, nullText},
		{"array without text blocks falls to text", `{"content":[{"type":"image"}],"text":"fallback"}`, "fallback"},
		{"content string", `{"content":"hello"}`, "hello"},
		{"whitespace around object", " \n{\"content\":\"hello\"}\t", "hello"},
		{"empty content string", `{"content":"","text":"t"}`, ""},
		{"content string beats text", `{"content":"c","text":"t"}`, "c"},
		{"blocks beat text", `{"content":[{"type":"text","text":"b"}],"text":"t"}`, "b"},
		{"blocks joined", `{"content":[{"type":"text","text":"a"},{"type":"image","text":"no"},null,3,"s",[],{"type":"text","text":5},{"text":"untyped"},{"type":"text","text":"b"},{"type":"text","text":""}]}`, "a\nb\n"},
		{"escaped type", `{"content":[{"type":"t\u0065xt","text":"esc"}]}`, "esc"},
		{"duplicate key last wins", `{"content":"a","content":"b"}`, "b"},
		{"duplicate block type", `{"content":[{"type":"text","text":"x","type":"image"}]}`, nullText},
		{"escapes decoded", `{"content":"a\nb\u00e9\ud83d\ude00"}`, "a\nbé😀"},
		{"lone surrogate kept (WTF-8)", `{"content":"a\ud800b"}`, "a\xed\xa0\x80b"},
		{"role not a string", `{"role":1,"content":"[WebChat x] hi"}`, "hi"},
		{"text field non-string", `{"text":{"a":1}}`, nullText},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := textOrNull([]byte(c.msg)); got != c.want {
				t.Errorf("Text(%s) = %q, want %q", c.msg, got, c.want)
			}
		})
	}
}

func TestTextAssistant(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		// Spec examples: a lone tag is removed and its body leaks.
		{"lone opener leaks body", "<think>planning", "planning"},
		{"lone closer leaks body", "planning</think>Answer", "planningAnswer"},
		{"pair removed", "<think>plan</think>Answer", "Answer"},
		{"pair trimStart", "<think>plan</think>\n\n  Answer", "Answer"},
		{"inner text kept", "Hi <think>x</think> there", "Hi  there"},
		{"thinking name", "<thinking>x</thinking>Ok", "Ok"},
		{"analysis name", "<analysis>x</analysis>Ok", "Ok"},
		{"case and spaces", "< THINKING >x</ Thinking  >Ok", "Ok"},
		{"space between < and /", "<think>x< / think>Ok", "Ok"},
		{"tab newline in tag", "<\tthink\n>x</think>Ok", "Ok"},
		{"unicode spaces in tag", "<\u00a0think\u3000>x</think\ufeff>Ok", "Ok"},
		{"NEL is not JS space", "<\u0085think>x", "<\u0085think>x"},
		{"mismatched names pair", "<think>x</analysis>Ok", "Ok"},
		{"thought left alone", "<thought>a</thought>b", "<thought>a</thought>b"},
		{"antthinking left alone", "<antthinking>a</antthinking>b", "<antthinking>a</antthinking>b"},
		{"attributes are not tags", "<think x>y</think >z", "<think x>yz"},
		{"thinker is not a tag", "<thinker>y", "<thinker>y"},
		{"no tags no trim", "  hi", "  hi"},
		{"non-tag angle no trim", "  a < b", "  a < b"},
		{"lone opener trimStart", "  <think>  body", "body"},
		{"two openers only first removed", "<think>a<think>b", "a<think>b"},
		{"two closers only first removed", "a</think>b</think>c", "ab</think>c"},
		{"walk: trailing unclosed opener dropped", "<think>a</think>b<think>c", "b"},
		{"walk: stray closer dropped, text before kept", "a</think>b<think>c</think>d", "abd"},
		{"walk: nested opener", "<think>a<think>b</think>c</think>d", "cd"},
		{"walk: multiple blocks", "x<think>1</think>y<analysis>2</analysis>z", "xyz"},
		{"empty", "", ""},
		// Reply prefix.
		{"reply double", "[[reply_to_current]] Hello", "Hello"},
		{"reply single with bar", "[reply_to_current] | Hello", "Hello"},
		{"reply upper no space bar", "[[REPLY_TO_CURRENT]]|  x", "x"},
		{"reply only one bar", "[[reply_to_current]]||x", "|x"},
		{"reply alone", "[[reply_to_current]]", ""},
		{"reply newline", "[[reply_to_current]]\n\nHi", "Hi"},
		{"reply not at start", "Hi [[reply_to_current]]", "Hi [[reply_to_current]]"},
		{"reply after leading space untouched", " [[reply_to_current]] Hi", " [[reply_to_current]] Hi"},
		{"reply after thinking", "<think>p</think>  [[reply_to_current]] Hi", "Hi"},
		{"reply half bracket", "[reply_to_current]] x", "] x"},
		{"assistant keeps envelope", "[WebChat 2026-01-02 10:00] hi", "[WebChat 2026-01-02 10:00] hi"},
		{"assistant keeps policy", "do" + policy, "do" + policy},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := textOrNull([]byte(asst(c.in))); got != c.want {
				t.Errorf("Text(assistant %q) = %q, want %q", c.in, got, c.want)
			}
			if got := AssistantText(c.in); got != c.want {
				t.Errorf("AssistantText(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func TestTextAssistantSources(t *testing.T) {
	// Post-processing applies whatever the source.
	msg := `{"role":"assistant","content":[{"type":"text","text":"<think>a"},{"type":"text","text":"b</think>[[reply_to_current]] c"}]}`
	if got := textOrNull([]byte(msg)); got != "c" {
		t.Errorf("joined blocks: got %q", got)
	}
	msg = `{"role":"assistant","text":"<think>x</think>y"}`
	if got := textOrNull([]byte(msg)); got != "y" {
		t.Errorf("message.text: got %q", got)
	}
}

func TestTextOtherRoles(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"webchat stamp", "[WebChat 2026-01-02 10:00 UTC] hello", "hello"},
		{"channel and name", "[Telegram Alice] hi", "hi"},
		{"every channel", "[iMessage +1555] a", "a"},
		{"teams", "[Teams x] a", "a"},
		{"matrix", "[Matrix @u:m] a", "a"},
		{"whatsapp", "[WhatsApp +44] a", "a"},
		{"signal", "[Signal x] a", "a"},
		{"slack", "[Slack #c] a", "a"},
		{"discord", "[Discord g] a", "a"},
		{"channel without space", "[TelegramAlice] hi", "[TelegramAlice] hi"},
		{"channel alone", "[Telegram] hi", "[Telegram] hi"},
		{"channel wrong case", "[telegram Alice] hi", "[telegram Alice] hi"},
		{"C3D-only channel", "[Zalo Bob] hi", "[Zalo Bob] hi"},
		{"C3D-only channel 2", "[BlueBubbles Bob] hi", "[BlueBubbles Bob] hi"},
		{"iso stamp", "[2026-01-02T10:00Z] hi", "hi"},
		{"iso stamp inside", "[sent 2026-01-02T10:00Z by x] hi", "hi"},
		{"iso stamp without Z", "[2026-01-02T10:00] hi", "[2026-01-02T10:00] hi"},
		{"iso stamp with seconds", "[2026-01-02T10:00:05Z] hi", "[2026-01-02T10:00:05Z] hi"},
		{"space stamp with seconds", "[2026-01-02 10:00:05] hi", "hi"},
		{"short year", "[26-01-02 10:00] hi", "[26-01-02 10:00] hi"},
		{"no separator whitespace", "[WebChat x]hi", "hi"},
		{"newlines after header", "[Mon 2026-01-02 10:00 GMT+1]\n\nhi", "hi"},
		{"header spans lines", "[WebChat a\nb] hi", "hi"},
		{"plain brackets", "[note] hi", "[note] hi"},
		{"empty header", "[] hi", "[] hi"},
		{"leading space", " [WebChat x] hi", " [WebChat x] hi"},
		{"only one envelope", "[WebChat x] [WebChat y] hi", "[WebChat y] hi"},
		{"envelope alone", "[WebChat x]", ""},
		{"no close bracket", "[WebChat x hi", "[WebChat x hi"},
		{"tags kept for users", "<think>x</think>y", "<think>x</think>y"},
		{"reply prefix kept for users", "[[reply_to_current]] x", "[[reply_to_current]] x"},
		{"no trim for users", "  hi  ", "  hi  "},
		// Exec approval policy block.
		{"policy stripped", "run ls" + policy, "run ls"},
		{"policy only", policy, ""},
		{"envelope and policy", "[WebChat x] run ls" + policy, "run ls"},
		{"policy trailing newline kept", "run ls" + policy + "\n", "run ls" + policy + "\n"},
		{"policy single blank", "run ls" + policy[1:], "run ls" + policy[1:]},
		{"policy extra line", "run ls\n\nExecution approval policy:\n- a\n- b\n- c\n" + `Then reply exactly: "Waiting for approved command result."`,
			"run ls\n\nExecution approval policy:\n- a\n- b\n- c\n" + `Then reply exactly: "Waiting for approved command result."`},
		{"policy missing line", "run ls\n\nExecution approval policy:\n- a\n" + `Then reply exactly: "Waiting for approved command result."`,
			"run ls\n\nExecution approval policy:\n- a\n" + `Then reply exactly: "Waiting for approved command result."`},
		{"policy without closing quote", "run ls" + policy[:len(policy)-1], "run ls" + policy[:len(policy)-1]},
		{"policy header case", "x\n\nexecution approval policy:\n- a\n- b\n" + `"Waiting for approved command result."`,
			"x\n\nexecution approval policy:\n- a\n- b\n" + `"Waiting for approved command result."`},
		{"policy not trailing", "run ls" + policy + " ok", "run ls" + policy + " ok"},
		{"policy twice only last", "a" + policy + policy, "a" + policy},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := textOrNull([]byte(user(c.in))); got != c.want {
				t.Errorf("Text(user %q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
	// Roles other than user take the same path, including no role.
	for _, msg := range []string{
		`{"role":"toolResult","content":"[WebChat x] out"}`,
		`{"role":"tool","content":"[WebChat x] out"}`,
		`{"role":"system","content":"[WebChat x] out"}`,
		`{"role":"Assistant","content":"[WebChat x] out"}`,
		`{"content":"[WebChat x] out"}`,
	} {
		if got := textOrNull([]byte(msg)); got != "out" {
			t.Errorf("Text(%s) = %q, want %q", msg, got, "out")
		}
	}
}

func TestStripThinkingTagsLinear(t *testing.T) {
	// Many near-tags and long whitespace runs must not blow up.
	var b []byte
	for i := 0; i < 20000; i++ {
		b = append(b, "<   / thin"...)
	}
	s := string(b)
	if got := stripThinkingTags(s); got != s {
		t.Fatal("near-tags changed the text")
	}
	if HasThinkingTagLeak(s) {
		t.Fatal("near-tags reported as leak")
	}
}

func TestHasThinkingTagLeak(t *testing.T) {
	cases := []struct {
		in   string
		want bool
	}{
		{"", false},
		{"plain < text >", false},
		{"<think>a</think>b", false},
		{"<think>a<think>b</think>c", false},
		{"<think>planning", true},
		{"planning</think>Answer", true},
		{"a<think>b", true},
		{"<think>a</think>b<think>c", true},
		{"a</think>b<think>c</think>", true},
		{"<think>a<think>b</think>c</think>", true},
		{"< Analysis >x", true},
		{"<thought>x", false},
		{"<thinking>x</thinking>", false},
	}
	for _, c := range cases {
		if got := HasThinkingTagLeak(c.in); got != c.want {
			t.Errorf("HasThinkingTagLeak(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestTextAndThinkingAgreesWithSeparateCalls(t *testing.T) {
	long := strings.Repeat(`streamed \u00e9 text\n`, 8)
	var memo jsonx.StrMemo
	for _, m := range []string{
		`{"role":"assistant","content":[{"type":"text","text":"Hello"}]}`,
		`{"role":"assistant","content":"<think>plan</think>Answer"}`,
		`{"role":"assistant","content":[{"type":"thinking","thinking":"why"},{"type":"text","text":"ok"}]}`,
		`{"role":"user","content":"[WebChat 2026-11-22 03:13] hi","thinking":"  t  "}`,
		`{"role":"assistant","text":"<thinking>still going"}`,
		`{"content":[]}`, `[]`, `null`, `{"role":"assistant"`, `{}`,
		// The same long text twice, then in another shape: the memo's hit
		// and its miss.
		`{"role":"assistant","content":[{"type":"text","text":"` + long + `"}]}`,
		`{"role":"assistant","content":[{"type":"text","text":"` + long + `"}]}`,
		`{"role":"assistant","content":"<think>a</think>` + long + `"}`,
		`{"role":"user","text":"` + long + `"}`,
	} {
		wt, wokT := Text([]byte(m))
		wth, wokTh := Thinking([]byte(m))
		for _, memo := range []*jsonx.StrMemo{nil, &memo} {
			text, okT, th, okTh := TextAndThinking([]byte(m), memo)
			if text != wt || okT != wokT || th != wth || okTh != wokTh {
				t.Errorf("%s (memo %v): TextAndThinking = %q %v %q %v; separately %q %v %q %v", m, memo != nil, text, okT, th, okTh, wt, wokT, wth, wokTh)
			}
		}
	}
}

// Keys spelt with escapes name the same members as JSON.parse reads them.
func TestEscapedKeys(t *testing.T) {
	for msg, want := range map[string]string{
		`{"role":"assistant","\u0063ontent":"hi"}`:                              "hi",
		`{"r\u006fle":"user","content":"[WebChat 2026-11-22 03:13] hello"}`:     "hello",
		`{"role":"assistant","content":[{"\u0074ype":"text","te\u0078t":"a"}]}`: "a",
		`{"role":"assistant","content":"x","c\u006fntent":"last wins"}`:         "last wins",
	} {
		if got, ok := Text([]byte(msg)); !ok || got != want {
			t.Errorf("Text(%s) = %q, %v; want %q", msg, got, ok, want)
		}
	}
}

// RawText is the text before stripping: string content, else text blocks
// joined with "\n", else message.text.
func TestRawText(t *testing.T) {
	for _, c := range []struct {
		msg, want string
		ok        bool
	}{
		{`{"role":"assistant","content":"<think>x</think>Hi"}`, "<think>x</think>Hi", true},
		{`{"content":[{"type":"text","text":"a"},{"type":"image"},{"type":"text","text":"b"}]}`, "a\nb", true},
		{`{"content":[{"type":"image"}],"text":"fallback"}`, "fallback", true},
		{`{"role":"user"}`, "", false},
		{`"not an object"`, "", false},
	} {
		if got, ok := RawText([]byte(c.msg)); got != c.want || ok != c.ok {
			t.Errorf("RawText(%s) = %q, %v; want %q, %v", c.msg, got, ok, c.want, c.ok)
		}
	}
}

func TestStripEnvelopeChannels(t *testing.T) {
	more := append(EnvelopeChannels(), "Zalo")
	if len(EnvelopeChannels()) != 9 || len(envelopeChannels) != 9 {
		t.Fatal("EnvelopeChannels must hand out a copy of clawboo's nine")
	}
	for _, tc := range []struct{ in, boo, more string }{
		{"[Zalo A] hi", "[Zalo A] hi", "hi"},
		{"[Slack A]\n hi", "hi", "hi"},
		{"[Zalo 2026-01-02 10:00] hi", "hi", "hi"},
		{"[Zalo]hi", "[Zalo]hi", "[Zalo]hi"},
	} {
		if got := StripEnvelope(tc.in, envelopeChannels); got != tc.boo {
			t.Errorf("StripEnvelope(%q, clawboo) = %q, want %q", tc.in, got, tc.boo)
		}
		if got := StripEnvelope(tc.in, more); got != tc.more {
			t.Errorf("StripEnvelope(%q, +Zalo) = %q, want %q", tc.in, got, tc.more)
		}
	}
	policy := "run\n\nExecution approval policy:\na\nb\nWaiting for approved command result.\""
	if got := StripApprovalPolicy(policy); got != "run" {
		t.Errorf("StripApprovalPolicy = %q", got)
	}
}
