package claw3d

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/clawtap/clawtap/pkg/message"
)

func userMsg(text string) string { return js(obj{"role": "user", "content": text}) }

func TestTextEnvelopeChannels(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		clawboo  bool // clawboo strips it too
	}{
		{"[Zalo Alice] hi", "hi", false},
		{"[Zalo Personal Bob] hi", "hi", false},
		{"[BlueBubbles +1555] hi", "hi", false},
		{"[Telegram Ann] hi", "hi", true},
		{"[WebChat 2026-01-02 10:00] hi", "hi", true},
		{"[Zalo 2026-01-02 10:00] hi", "hi", true}, // the stamp makes it an envelope for both
		{"[Zalo] hi", "[Zalo] hi", true},           // a channel needs a space after it
		{"[ZaloX y] hi", "[ZaloX y] hi", true},
		{"[Unknown y] hi", "[Unknown y] hi", true},
	} {
		got, ok := Text([]byte(userMsg(tc.in)))
		if !ok || got != tc.want {
			t.Errorf("Text(user %q) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
		boo, _ := message.Text([]byte(userMsg(tc.in)))
		if (boo == got) != tc.clawboo {
			t.Errorf("%q: clawboo gives %q, Claw3D %q; expected them to agree: %v", tc.in, boo, got, tc.clawboo)
		}
	}
}

func TestTextSources(t *testing.T) {
	for _, tc := range []struct {
		name, msg, want string
		ok              bool
	}{
		{"not an object", `"hi"`, "", false},
		{"no source", `{"role":"assistant"}`, "", false},
		{"string content", `{"role":"assistant","content":"hi"}`, "hi", true},
		{"text blocks joined", `{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"image"},{"type":"text","text":"b"}]}`, "a\nb", true},
		{"message.text fallback", `{"role":"assistant","content":[{"type":"image"}],"text":"t"}`, "t", true},
		{"assistant tags and reply marker", `{"role":"assistant","content":"<think>plan</think>[[reply_to_current]] | Answer"}`, "Answer", true},
		{"assistant lone opener leaks", `{"role":"assistant","content":"<think>planning"}`, "planning", true},
		{"user approval policy", `{"role":"user","content":"run ls\n\nExecution approval policy:\na\nb\nWaiting for approved command result.\""}`, "run ls", true},
	} {
		got, ok := Text([]byte(tc.msg))
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: Text = %q, %v; want %q, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

func TestThinkingC3D(t *testing.T) {
	for _, tc := range []struct {
		name, msg, want string
		ok              bool
	}{
		{"camelCase key", `{"thinkingText":" plan "}`, "plan", true},
		{"snake_case key [C3D]", `{"thinking_text":"plan"}`, "plan", true},
		{"snake delta [C3D]", `{"reasoning_delta":"step"}`, "step", true},
		{"camelCase before snake_case", `{"analysis_text":"snake","analysisText":"camel"}`, "camel", true},
		{"nested object [C3D]", `{"thinking":{"summary":"sum","text":"txt"}}`, "txt", true},
		{"nested object, later member", `{"reasoning":{"content":" c "}}`, "c", true},
		{"nested object, nothing usable", `{"reasoning":{"x":"y"}}`, "", false},
		{"empty key skipped", `{"thinking":"  ","analysis":"a"}`, "a", true},
		{"block rule first", `{"content":[{"type":"thinking","thinking_text":"blk"}],"thinking":"key"}`, "blk", true},
		{"block own text", `{"content":[{"type":"reasoning","text":" r "},{"type":"text","text":"x","thinking":"t2"}]}`, "r\nt2", true},
		{"same-name lazy pair", `{"role":"assistant","content":"<think>a<think>b</think>c</think>"}`, "a<think>b", true},
		{"names must match [C3D]: falls to the tagged stream", `{"role":"assistant","content":"<think>a</analysis>rest"}`, "a", true},
		{"case-insensitive backreference", `{"role":"assistant","content":"<THINK> x </think> y <analysis>z</ANALYSIS>"}`, "x\nz", true},
		{"thinking vs think are different names", `{"role":"assistant","content":"<thinking>a</think>b</thinking>"}`, "a</think>b", true},
		{"unclosed tail (tagged stream)", `{"role":"assistant","content":"<think>still planning"}`, "still planning", true},
		{"thought is stream-only", `{"role":"assistant","content":"<thought>t</thought>"}`, "t", true},
		{"no thinking", `{"role":"assistant","content":"plain"}`, "", false},
		{"not an object", `[1]`, "", false},
	} {
		got, ok := Thinking([]byte(tc.msg))
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: Thinking = %q, %v; want %q, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

func TestClosedBlocksSameNameVsClawboo(t *testing.T) {
	// Where pairing any closer (clawboo) and same-name pairing (Claw3D)
	// part ways.
	msg := `{"role":"assistant","content":"<think>a</analysis>b</think>"}`
	c3d, _ := Thinking([]byte(msg))
	boo, _ := message.Thinking([]byte(msg))
	if c3d != "a</analysis>b" || boo != "a" {
		t.Fatalf("Claw3D %q (want a</analysis>b), clawboo %q (want a)", c3d, boo)
	}
}

func TestToolLinesC3D(t *testing.T) {
	call := `{"role":"assistant","content":[{"type":"toolCall","name":" ls ","id":"c1","arguments":{"path":"."}}]}`
	got := ToolLines([]byte(call))
	want := message.ToolLines([]byte(call))
	if !slices.Equal(got, want) || len(got) != 1 || !strings.HasPrefix(got[0], "[[tool]] ls (c1)\n```json\n") {
		t.Fatalf("call lines %q, clawboo %q", got, want)
	}
	// A tool result whose output starts with a Zalo envelope: Claw3D strips it.
	res := `{"role":"toolResult","toolName":"read","toolCallId":"c2","details":{"status":"ok"},"content":"[Zalo Ann] file body"}`
	got = ToolLines([]byte(res))
	if len(got) != 1 || got[0] != "[[tool-result]] read (c2)\nok\n```text\nfile body\n```" {
		t.Fatalf("result line %q", got)
	}
	boo := message.ToolLines([]byte(res))
	if boo[0] != "[[tool-result]] read (c2)\nok\n```text\n[Zalo Ann] file body\n```" {
		t.Fatalf("clawboo result line %q", boo)
	}
	// An output that is only the envelope: no text block at all.
	got = ToolLines([]byte(`{"role":"tool","toolName":"x","content":"[BlueBubbles Bo]   "}`))
	if len(got) != 1 || got[0] != "[[tool-result]] x" {
		t.Fatalf("envelope-only result %q", got)
	}
	if ToolLines([]byte(`{"role":"assistant","content":"no tools"}`)) != nil {
		t.Fatal("lines for a message without tools")
	}
}

func TestAssistantText(t *testing.T) {
	if got := AssistantText("<think>p</think>  [reply_to_current] hi"); got != "hi" {
		t.Fatalf("AssistantText = %q", got)
	}
}

func FuzzExtract(f *testing.F) {
	for _, s := range []string{
		`{"role":"assistant","content":"<think>a<think>b</think>c</think>"}`,
		`{"thinking_text":"x","content":[{"type":"thinking","reasoning":{"text":"y"}}]}`,
		`{"role":"toolResult","toolName":"t","content":"[Zalo A] b"}`,
		"<think>plan</think>Answer", "[BlueBubbles x] hi", "reasoning: x",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		text, ok := Text(data)
		th, okTh := Thinking(data)
		for _, s := range []string{text, th} {
			if !utf8.ValidString(s) {
				t.Fatalf("invalid UTF-8 %q", s)
			}
		}
		if (!ok && text != "") || (!okTh && th != "") || (okTh && th == "") {
			t.Fatalf("null with a value: %q %v %q %v", text, ok, th, okTh)
		}
		_ = ToolLines(data)
		// The input as assistant text: Claw3D's extractText is clawboo's
		// for the assistant, and so is its thinking when no tag pairing
		// or snake_case key can differ.
		s := string([]rune(string(data)))
		for _, role := range []string{"assistant", "user"} {
			m := []byte(js(obj{"role": role, "content": s}))
			got, _ := Text(m)
			want, _ := message.Text(m)
			if role == "assistant" || !(strings.HasPrefix(s, "[Zalo ") || strings.HasPrefix(s, "[BlueBubbles ")) {
				if got != want {
					t.Fatalf("%s text %q: Claw3D %q, clawboo %q", role, s, got, want)
				}
			}
			if !strings.Contains(s, "<") {
				gt, gok := Thinking(m)
				wt, wok := message.Thinking(m)
				if gt != wt || gok != wok {
					t.Fatalf("thinking of %q: Claw3D %q, clawboo %q", s, gt, wt)
				}
			}
		}
		_ = StripUIMetadata(s)
		n := NormalizeAssistantDisplayText(s)
		if n != NormalizeAssistantDisplayText(n) {
			t.Fatalf("normalize is not idempotent on %q", s)
		}
	})
}
