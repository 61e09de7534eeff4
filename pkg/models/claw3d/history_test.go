package claw3d

import (
	"slices"
	"testing"
)

func TestBuildHistoryLines(t *testing.T) {
	msgs := []any{
		obj{"role": "user", "content": "Read HEARTBEAT.md if it exists.", "timestamp": 1},
		obj{"role": "user", "content": `GatewayRestart:{"reason":"x"}`, "timestamp": 2},
		obj{"role": "user", "content": "[Telegram Ann] What is up? [message_id:5]", "timestamp": 10},
		obj{"role": "user", "content": "resume [[claw3d:auto-resume-exec-approval]]", "timestamp": 11},
		obj{"role": "assistant", "timestamp": 20, "content": []any{
			obj{"type": "thinking", "thinking": "consider"},
			obj{"type": "toolCall", "name": "ls", "id": "c1"},
			obj{"type": "text", "text": "All\r\n\n\nfine  "},
		}},
		obj{"role": "toolResult", "toolName": "ls", "toolCallId": "c1", "content": "a.txt"},
		obj{"role": "system", "content": "ignored text"},
		obj{"role": "assistant", "timestamp": 30, "stopReason": "aborted", "content": []any{}},
		obj{"role": "assistant", "stopReason": "error", "errorMessage": "quota"},
		obj{"role": "assistant", "stopReason": "error"},
		obj{"role": "assistant", "errorMessage": "odd"},
		obj{"role": "assistant", "timestamp": 40},
		obj{"role": "custom", "content": "plain"},
		"not an object",
	}
	h := BuildHistoryLines([]byte(js(msgs)))
	want := []string{
		`[[meta]]{"role":"user","timestamp":10}`,
		"> What is up?",
		`[[meta]]{"role":"assistant","timestamp":20}`,
		"[[trace]]\n_consider_",
		"[[tool]] ls (c1)",
		"All\n\nfine",
		"[[tool-result]] ls (c1)\n```text\na.txt\n```",
		`[[meta]]{"role":"assistant","timestamp":30}`,
		"Run aborted.",
		"Error: quota",
		"Run error.",
		"Error: odd",
		"plain",
	}
	if !slices.Equal(h.Lines, want) {
		t.Fatalf("lines\n%q\nwant\n%q", h.Lines, want)
	}
	if h.LastUser != "What is up?" || h.LastUserAt != 10 || h.LastAssistant != "All\n\nfine" || h.LastAssistantAt != 20 || h.LastRole != "custom" {
		t.Fatalf("summary %+v", h)
	}
	if got := BuildHistoryLines([]byte(`{"not":"an array"}`)); len(got.Lines) != 0 {
		t.Fatalf("non-array %+v", got)
	}
}

func FuzzBuildHistoryLines(f *testing.F) {
	f.Add([]byte(`[{"role":"user","content":"hi","timestamp":1},{"role":"assistant","content":[{"type":"thinking","thinking":"t"},{"type":"text","text":"a"}]}]`))
	f.Add([]byte(`[{"role":"assistant","stopReason":"error"},{"role":"toolResult","toolName":"x","content":"[Zalo A] y"},1,null]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		h := BuildHistoryLines(data)
		for _, l := range h.Lines {
			if l == "" {
				t.Fatalf("empty line in %q", h.Lines)
			}
		}
		if h.LastUser != "" && !slices.Contains(h.Lines, "> "+h.LastUser) {
			t.Fatalf("last user %q not among the lines", h.LastUser)
		}
	})
}
