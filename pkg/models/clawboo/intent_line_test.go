package clawboo_test

import (
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/human"
	"github.com/clawtap/clawtap/pkg/models/clawboo"
	"github.com/clawtap/clawtap/pkg/replay"
	"github.com/clawtap/clawtap/pkg/ui"
)

// TestClipTextsKeepLines holds an intent's line, which cuts its texts to
// the line's width before escaping them (Intent.ClipTexts), to the line of
// the whole texts clipped: texts of every length around the width, with
// escapes, wide runes and bytes that are not UTF-8.
func TestClipTextsKeepLines(t *testing.T) {
	pieces := []string{"a", "é", "日本", "\n", "\"", "\\", "\x01", "\xff", "\u2028", "😀", " "}
	var texts []string
	for _, p := range pieces {
		for _, n := range []int{0, 1, 38, 39, 40, 59, 60, 61, 79, 80, 81, 119, 120, 121, 159, 160, 161, 400} {
			texts = append(texts, strings.Repeat("x", n%7)+strings.Repeat(p, n))
		}
	}
	for _, width := range []int{0, 40, 80} {
		f := &replay.Formatter{T0: 5, Width: width}
		w := width
		if w == 0 {
			w = 120 // the formatter's default width
		}
		for _, s := range texts {
			p := ui.Patch{StreamText: ui.SetStr(s), RunID: ui.SetStr("run-" + s), ThinkingTrace: ui.SetStr(s + s)}
			in := &clawboo.Intent{Kind: clawboo.CommitChat, Plane: clawboo.PlaneAgent, AgentID: "main", Patch: p, Lines: []string{s, "short"}}
			if got, want := string(f.AppendIntentLine(nil, in)), human.Clip(f.IntentText(in), w); got != want {
				t.Fatalf("width %d, text %q: intent line\n%q, want\n%q", w, s, got, want)
			}
		}
	}
}
