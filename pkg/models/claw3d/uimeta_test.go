package claw3d

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/clawtap/clawtap/pkg/jsstr"
)

func TestStripUIMetadata(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"plain", "  hello  ", "hello"},
		{"auto-resume marker hides the message", "Go on [[claw3d:auto-resume-exec-approval]] now", ""},
		{"upstream Studio marker is not Claw3D's", "[[openclaw-studio:auto-resume-exec-approval]] x", "[[openclaw-studio:auto-resume-exec-approval]] x"},
		{"legacy auto-resume text", "The EXEC approval was granted.\nPlease continue where you left off.", ""},
		{"legacy needs both parts in order", "continue where you left off; exec approval was granted", "continue where you left off; exec approval was granted"},
		{"new-session preamble", "A new session was started via /new or /reset. Say hi. Do not mention reasoning.\n\nWhat next?", "What next?"},
		{"system block", "System: [2026-01-02 10:00] Node connected\nmore\n\nReal question", "Real question"},
		{"system block needs a blank line", "System: [x] only", "System: [x] only"},
		{"project path inline", "Project path: /w. Use memory_search. Fix the bug", "Fix the bug"},
		{"workspace path block", "Workspace path: /w\nnotes\n\nFix it", "Fix it"},
		{"message ids with their whitespace", "hello [message_id: 42]\n", "hello"},
		{"message id in the middle joins the words", "a [message_id:1] b", "ab"},
		{"several message ids", "[message_id:1] a  [message_id:2]", "a"},
		{"unterminated message id stays", "a [message_id: 1", "a [message_id: 1"},
		{"envelope last", "[Telegram Ann] hi [message_id:9]", "hi"},
		{"Zalo envelope", "[Zalo Personal Ann] hi", "hi"},
	} {
		if got := StripUIMetadata(tc.in); got != tc.want {
			t.Errorf("%s: StripUIMetadata(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
	}
}

func TestIsUIMetadataPrefix(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"Project path: /x", true},
		{"Workspace path: /x", true},
		{"A new session was started via /new or /reset.", true},
		{"project path: /x", false},
		{" Project path: /x", false}, // callers pass trimmed text
		{"Hello", false},
	} {
		if got := IsUIMetadataPrefix(tc.in); got != tc.want {
			t.Errorf("IsUIMetadataPrefix(%q) = %v", tc.in, got)
		}
	}
}

func TestIsHeartbeatPrompt(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"  Read HEARTBEAT.md if it exists (workspace context).", true},
		{"Check things.\nHeartbeat file path: /w/HEARTBEAT.md", true},
		{"read heartbeat.md if it exists", false},
		{"Hello", false},
	} {
		if got := IsHeartbeatPrompt(tc.in); got != tc.want {
			t.Errorf("IsHeartbeatPrompt(%q) = %v", tc.in, got)
		}
	}
}

func TestNormalizeAssistantDisplayText(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"a\r\nb\rc", "a\nb\nc"},
		{"a  \t\nb", "a\nb"},
		{"a\n\n\n\nb", "a\n\nb"},
		{"a\n  \n\t\n b", "a\n\n b"},
		{"\n\n  a  \n\n", "a"},
		{"\u00a0a\u00a0", "a"}, // JavaScript's trim knows NBSP
		{"a\u00a0\nb", "a\u00a0\nb"},
		{"", ""},
	} {
		if got := NormalizeAssistantDisplayText(tc.in); got != tc.want {
			t.Errorf("NormalizeAssistantDisplayText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestFormatThinking(t *testing.T) {
	if got := FormatThinking(" step one \n\n step two\r\n"); got != "[[trace]]\n_step one_\n\n_step two_" {
		t.Fatalf("FormatThinking = %q", got)
	}
	if FormatThinking(" \n ") != "" {
		t.Fatal("blank thinking gives a trace line")
	}
}

func FuzzStripUIMetadata(f *testing.F) {
	for _, s := range []string{
		"hello [message_id: 42]", "System: [x] y\n\nz", "Project path: a memory_search. b",
		"A new session was started via /new or /reset reasoning. x", "[Zalo A] b", "exec approval was granted … continue where you left off",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := StripUIMetadata(s)
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("invalid UTF-8 from %q", s)
		}
		if len(got) > len(s) {
			t.Fatalf("StripUIMetadata grew %q to %q", s, got)
		}
		if got != jsstr.Trim(got) {
			t.Fatalf("not trimmed: %q", got)
		}
		// Without any marker the text is only trimmed and loses its envelope.
		if !strings.ContainsAny(s, "[") && !strings.Contains(s, "System:") && !strings.Contains(s, "path:") &&
			!strings.Contains(s, "/new or /reset") && indexFold(s, "exec approval was granted") < 0 && got != jsstr.Trim(s) {
			t.Fatalf("plain %q became %q", s, got)
		}
	})
}

func TestIndexFold(t *testing.T) {
	for _, tc := range []struct {
		s, needle string
		want      int
	}{
		{"The EXEC approval was granted", "exec approval was granted", 4},
		{"exec approval was grante", "exec approval was granted", -1},
		{"xxexec aPPROVAL", "exec approval", 2},
		{"", "x", -1},
		{"abc", "", 0},
		{"Xx", "x", 0},
		{"continue where you LEFT OFF", "continue where you left off", 0},
	} {
		if got := indexFold(tc.s, tc.needle); got != tc.want {
			t.Errorf("indexFold(%q, %q) = %d, want %d", tc.s, tc.needle, got, tc.want)
		}
	}
}

func FuzzIndexFold(f *testing.F) {
	f.Add("The EXEC approval was granted", "exec approval")
	f.Add("aXbxc", "xc")
	f.Fuzz(func(t *testing.T, s, needle string) {
		needle = strings.ToLower(needle)
		for i := 0; i < len(needle); i++ {
			if needle[i] >= 0x80 {
				return // the needles are ASCII
			}
		}
		want := -1
		for i := 0; i+len(needle) <= len(s); i++ {
			if jsstr.HasPrefixFold(s[i:], needle) {
				want = i
				break
			}
		}
		if got := indexFold(s, needle); got != want {
			t.Fatalf("indexFold(%q, %q) = %d, want %d", s, needle, got, want)
		}
	})
}
