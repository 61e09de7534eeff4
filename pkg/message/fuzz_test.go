package message

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/jsstr"
)

// The committed corpus lives in testdata/fuzz/<FuzzName>/. Each target
// treats its input both as a raw message and as the content string of
// assistant and user messages, so plain text inputs exercise the tag,
// prefix, envelope and policy rules.

func wrap(role, content string) []byte {
	b, _ := json.Marshal(map[string]string{"role": role, "content": content})
	return b
}

// decoded is what a JSON round trip makes of s: every invalid byte
// becomes U+FFFD.
func decoded(s string) string { return string([]rune(s)) }

func FuzzText(f *testing.F) {
	for _, s := range []string{
		asst("<think>planning"), asst("planning</think>Answer"), user("[WebChat 2026-01-02 10:00] hi" + policy),
		"<think>a</think>[[reply_to_current]] | b", `{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, ok := Text(data)
		if !ok && out != "" {
			t.Fatalf("null with text %q", out)
		}
		if !jsstr.ValidWTF8(out) {
			t.Fatalf("invalid UTF-8 %q", out)
		}
		if len(out) > 3*len(data) {
			t.Fatalf("output longer than any decoding of the input: %d > 3*%d", len(out), len(data))
		}
		th, okTh := Thinking(data)
		if bt, bok, bth, bokTh := TextAndThinking(data, nil); bt != out || bok != ok || bth != th || bokTh != okTh {
			t.Fatalf("TextAndThinking disagrees with Text and Thinking on %q", data)
		}
		// A memo carried over from earlier inputs never changes the result.
		if bt, bok, bth, bokTh := TextAndThinking(data, &fuzzMemo); bt != out || bok != ok || bth != th || bokTh != okTh {
			t.Fatalf("TextAndThinking with a memo disagrees with Text and Thinking on %q", data)
		}

		s := decoded(string(data))
		u, ok := Text(wrap("user", s))
		// Envelope stripping cuts a prefix (only of text starting with
		// '['), policy stripping a suffix: what is left is a substring.
		if !ok || !strings.Contains(s, u) || (!strings.HasPrefix(s, "[") && !strings.HasPrefix(s, u)) {
			t.Fatalf("user text %q is not a piece of %q (ok=%v)", u, s, ok)
		}
		a, ok := Text(wrap("assistant", s))
		if !ok || !jsstr.ValidWTF8(a) || len(a) > len(s) {
			t.Fatalf("assistant text %q from %q (ok=%v)", a, s, ok)
		}
		if !strings.Contains(s, "<") && a != stripReplyPrefix(s) {
			t.Fatalf("tag-free %q changed beyond the prefix: %q", s, a)
		}
		if a2, _ := Text(wrap("assistant", s)); a2 != a {
			t.Fatal("not deterministic")
		}
	})
}

func FuzzThinking(f *testing.F) {
	for _, s := range []string{
		`{"content":"<think>a<think>b</think>c</think>"}`, `{"content":"<think>still planning"}`,
		`{"content":[{"type":"thinking","thinking":" x "},{"thinking":"y"}]}`, `{"reasoningDelta":"r"}`,
		"<thought>a</thought><think>b",
	} {
		f.Add([]byte(s))
	}
	check := func(t *testing.T, in []byte) {
		out, ok := Thinking(in)
		if !ok {
			if out != "" {
				t.Fatalf("null with text %q", out)
			}
			return
		}
		if out == "" || trim(out) != out || !jsstr.ValidWTF8(out) {
			t.Fatalf("thinking %q from %q: empty, untrimmed or invalid UTF-8", out, in)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		check(t, data)
		s := decoded(string(data))
		check(t, wrap("assistant", s))
		if out, ok := Thinking(wrap("assistant", s)); ok && !strings.Contains(s, "<") {
			t.Fatalf("thinking %q from tag-free content %q", out, s)
		}
	})
}

func FuzzToolLines(f *testing.F) {
	for _, s := range []string{
		`{"role":"toolResult","toolName":"exec","toolCallId":"c1","isError":true,"details":{"status":"ok","exitCode":0,"durationMs":1.5,"cwd":"/"},"content":[{"type":"toolCall","name":"x","arguments":{"a":[1,{}]}},{"type":"text","text":"out"}]}`,
		`{"content":[{"type":"toolCall","arguments":{"b":1,"2":2,"b":3,"1":-0}}]}`,
		`{"2":1e400,"k\u0000":["\u2028",[],{}]}`,
		`[1.0,1e21,-1e-7,"<&>"]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := ToolLines(data)
		for _, l := range lines {
			if !strings.HasPrefix(l, "[[tool]] ") && !strings.HasPrefix(l, "[[tool-result]] ") {
				t.Fatalf("line %q lacks a tool marker", l)
			}
			if !jsstr.ValidWTF8(l) {
				t.Fatalf("invalid UTF-8 %q", l)
			}
		}
		// The pretty printer must produce JSON that means the same thing.
		v := jsonx.TrimSpace(data)
		if k := jsonx.KindOf(v); (k != jsonx.Object && k != jsonx.Array) || !jsonx.Valid(v) {
			return
		}
		var want any
		if json.Unmarshal(v, &want) != nil {
			return // e.g. a number out of float64 range
		}
		pretty := formatArgs(v)
		var got any
		if err := json.Unmarshal([]byte(pretty), &got); err != nil {
			t.Fatalf("stringify of %q is not JSON: %v\n%s", v, err, pretty)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("stringify changed the value of %q:\n%s", v, pretty)
		}
		// And it is a fixed point.
		if again := formatArgs([]byte(pretty)); again != pretty {
			t.Fatalf("stringify is not idempotent:\n%s\n%s", pretty, again)
		}
	})
}

// fuzzMemo lives across fuzz inputs, so a stale memo meets every input.
var fuzzMemo jsonx.StrMemo
