package replay

import (
	"strconv"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/human"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/ui"
)

// TestCutTextsKeepLines holds the effect and diff lines, which cut their
// texts to the line's width before escaping them, to the lines of the
// whole texts clipped: texts of every length around the width, with
// escapes, wide runes and bytes that are not UTF-8. (A clawboo intent's
// line is held the same way in pkg/models/clawboo.)
func TestCutTextsKeepLines(t *testing.T) {
	pieces := []string{"a", "é", "日本", "\n", "\"", "\\", "\x01", "\xff", "\u2028", "😀", " "}
	var texts []string
	for _, p := range pieces {
		for _, n := range []int{0, 1, 38, 39, 40, 59, 60, 61, 79, 80, 81, 119, 120, 121, 159, 160, 161, 400} {
			texts = append(texts, strings.Repeat("x", n%7)+strings.Repeat(p, n))
		}
	}
	for _, width := range []int{0, 40, 80} {
		f := &Formatter{T0: 5, Width: width}
		w := f.width()
		for _, s := range texts {
			p := ui.Patch{StreamText: ui.SetStr(s), RunID: ui.SetStr("run-" + s), ThinkingTrace: ui.SetStr(s + s)}
			for _, e := range []Effect{
				{Type: EffQueue, AgentID: "main", Action: "merge", Count: 2, Patch: p},
				{Type: EffWrite, AgentID: "main", Patch: p, Intent: "commitChat"},
				{Type: EffFlush, Patches: []ui.AgentPatch{{AgentID: "a", Patch: p, Patches: 3}, {AgentID: "b", Patch: p}}},
			} {
				if got, want := string(f.AppendEffectLine(nil, &e)), human.Clip(string(f.appendEffect(nil, &e, 0)), w+40); got != want {
					t.Fatalf("width %d, text %q: effect line\n%q, want\n%q", w, s, got, want)
				}
			}
			c := Change{From: Val{k: vStr, s: s}, To: Val{k: vStr, s: s + "!"}}
			val := func(s string) string {
				if plainText(s) {
					return human.Clip(s, w/2)
				}
				return human.Clip(string(jsonx.AppendString(nil, s)), w/2)
			}
			want := c.Path.String() + ": " + val(s) + " → " + val(s+"!")
			if got := string(f.AppendChangeLine(nil, &c)); got != want {
				t.Fatalf("width %d, text %q: diff line\n%q, want\n%q", w, s, got, want)
			}
		}
	}
}

// TestPlainText: a value prints bare unless it would read as another
// value (a number, null, a boolean, nothing) or holds other characters.
// plainText asks strconv only about what may be a number; the answers are
// those of asking it always.
func TestPlainText(t *testing.T) {
	always := func(s string) bool {
		if s == "" || s == "null" || s == "true" || s == "false" {
			return false
		}
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			return false
		}
		return strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-:./@") == ""
	}
	for _, s := range []string{
		"main", "run-1", "agent:main:main", "a.b/c@d", "nano", "index", "", "null", "true", "false", "1", "-1.5",
		".5", "1e5", "inf", "Infinity", "+Inf", "-inf", "NaN", "nan", "0x1p-2", "1_0", "0x10", "0x_1p0", "two words",
		"quote\"", "日本", "-", ".", "i", "N", "1.2.3", "5/6",
	} {
		if got, want := plainText(s), always(s); got != want {
			t.Errorf("plainText(%q) = %v, want %v", s, got, want)
		}
		if s == "main" && !plainText(s) || s == "1" && plainText(s) {
			t.Errorf("plainText(%q) = %v", s, plainText(s))
		}
	}
}
