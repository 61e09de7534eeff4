package claw3d

import (
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/jsonx"
)

func TestIsReasoningRuntimeAgentStream(t *testing.T) {
	for _, tc := range []struct {
		stream string
		want   bool
	}{
		{"", false},
		{"   ", false},
		{"assistant", false},
		{"tool", false},
		{"lifecycle", false},
		{" Assistant ", false}, // trimmed and lower-cased, then exact
		{"LIFECYCLE", false},
		{"thinking", true},
		{"reasoning", true},
		{"analysis", true},
		{"trace", true},
		{"Thinking", true},
		{" reasoning\n", true},
		{"assistant.reasoning", true}, // exact deny-list: clawboo says false here
		{"assistant-thinking", true},
		{"tool_trace", true},
		{"lifecycle-analysis", true},
		{"item", false},
		{"usage", false},
		{"run_status", false},
		{"thin\u212A", true},     // KELVIN SIGN lower-cases to k in JavaScript too
		{"analys\u0130s", false}, // İ lower-cases to "i̇" in JavaScript, not "i"
	} {
		if got := IsReasoningRuntimeAgentStream(tc.stream); got != tc.want {
			t.Errorf("IsReasoningRuntimeAgentStream(%q) = %v, want %v", tc.stream, got, tc.want)
		}
	}
	// The difference from clawboo, on one name.
	if bridge.IsReasoningStream("assistant.reasoning") || !IsReasoningRuntimeAgentStream("assistant.reasoning") {
		t.Fatal("assistant.reasoning: clawboo says no, Claw3D says yes")
	}
}

func TestMergeRuntimeStream(t *testing.T) {
	for _, tc := range []struct {
		name, cur, inc, want string
	}{
		{"1 inc empty", "abc", "", "abc"},
		{"2 cur empty", "", "abc", "abc"},
		{"both empty", "", "", ""},
		{"3 inc extends cur (cumulative frame)", "Hel", "Hello", "Hello"},
		{"3 inc equals cur (repeat)", "Hello", "Hello", "Hello"},
		{"4 cur starts with inc (older cumulative frame)", "Hello", "Hel", "Hello"},
		{"5 cur ends with inc (repeated delta)", "Hello", "llo", "Hello"},
		{"6 inc ends with cur", "llo", "Hello", "Hello"},
		{"7 plain delta appended", "Hel", "lo", "Hello"},
		{"7 partial overlap not detected", "abc", "bcd", "abcbcd"},
		{"4 before 5", "abab", "ab", "abab"},
	} {
		if got := MergeRuntimeStream(tc.cur, tc.inc); got != tc.want {
			t.Errorf("%s: MergeRuntimeStream(%q, %q) = %q, want %q", tc.name, tc.cur, tc.inc, got, tc.want)
		}
	}
}

func TestShouldPublishAssistantStream(t *testing.T) {
	for _, tc := range []struct {
		name                string
		next, dataText, cur string
		chat                bool
		want                bool
	}{
		{"empty visible text never", "  ", "x", "", false, false},
		{"no chat frames: publish", "Hi", "", "Hello there", false, true},
		{"data.text present: publish", "Hi", "Hi", "Hello there", true, true},
		{"blank data.text is not present", "Hi", "  ", "Hello there", true, false},
		{"no current streamText: publish", "Hi", "", "", true, true},
		{"strictly extends: publish", "Hello there", "", "Hello", true, true},
		{"equal: not strictly longer", "Hello", "", "Hello", true, false},
		{"shorter: no", "Hel", "", "Hello", true, false},
		{"diverges: no", "Help me", "", "Hello", true, false},
		{"compared trimmed", " Hello there ", "", "Hello ", true, true},
	} {
		if got := ShouldPublishAssistantStream(tc.next, tc.dataText, tc.chat, tc.cur); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestReasoningPrefixBody(t *testing.T) {
	for _, tc := range []struct {
		in, body string
		ok       bool
	}{
		{"reasoning: weigh it", "weigh it", true},
		{"  Reasoning:\nstep 1", "step 1", true},
		{"REASONING:", "", true},
		{"the reasoning: x", "", false},
		{"reason: x", "", false},
	} {
		body, ok := reasoningPrefixBody(tc.in)
		if body != tc.body || ok != tc.ok {
			t.Errorf("reasoningPrefixBody(%q) = %q, %v; want %q, %v", tc.in, body, ok, tc.body, tc.ok)
		}
	}
}

func FuzzMergeRuntimeStream(f *testing.F) {
	for _, s := range [][2]string{{"abc", "bcd"}, {"Hel", "Hello"}, {"", "x"}, {"ab", ""}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, cur, inc string) {
		got := MergeRuntimeStream(cur, inc)
		// Nothing is lost: the result holds both pieces, and is one of
		// them or their concatenation.
		if !strings.Contains(got, cur) || !strings.Contains(got, inc) {
			t.Fatalf("MergeRuntimeStream(%q, %q) = %q loses a piece", cur, inc, got)
		}
		if got != cur && got != inc && got != cur+inc {
			t.Fatalf("MergeRuntimeStream(%q, %q) = %q is none of cur, inc, cur+inc", cur, inc, got)
		}
		// Feeding the same frame twice changes nothing (repeats are safe).
		if again := MergeRuntimeStream(got, inc); again != got {
			t.Fatalf("repeat of %q changed %q to %q", inc, got, again)
		}
	})
}

// mergeRaw reads data.text as Claw3D does, as truthy or not: an empty
// text (2026.9.5's retraction event {text:"", delta:"", replace:true})
// leaves the run's stream as it was, a missing one (2026.9.7's
// append-only events) merges data.delta into it.
func TestMergeRawEmptyText(t *testing.T) {
	for _, c := range []struct {
		data, prev, want string
	}{
		{`{"text":"Here","delta":"Here"}`, "Sure", "Here"},
		{`{"text":"","delta":"","replace":true}`, "Sure, here is", "Sure, here is"},
		{`{"delta":" is"}`, "Here", "Here is"},
		{`{"delta":"Here"}`, "Sure, here is", "Sure, here isHere"},
	} {
		data := []byte(c.data)
		text, _ := jsonx.Get(data, "text")
		var memo jsonx.StrMemo
		got, _ := mergeRaw(c.prev, &agentFrame{data: data, dataText: text}, &memo)
		if got != c.want {
			t.Errorf("%s after %q: %q, want %q", c.data, c.prev, got, c.want)
		}
	}
}
