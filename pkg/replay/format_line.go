package replay

import (
	"github.com/clawtap/clawtap/pkg/human"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/ui"
)

// The lines of a step's intents, effects and diff entries, one at a time:
// AppendStepText writes them after their markers, and the report keeps
// them one by one.

// AppendIntentLine appends the line AppendStepText writes for an intent,
// without its marker and newline.
func (f *Formatter) AppendIntentLine(dst []byte, in ui.Intent) []byte {
	w, start := f.width(), len(dst)
	dst = f.appendIntentText(dst, cutIntent(in, w))
	return paintFrom(clipFrom(dst, start, w), start, f.Style.Intent)
}

// AppendEffectLine appends the line AppendStepText writes for an effect,
// without its marker and newline.
func (f *Formatter) AppendEffectLine(dst []byte, e *Effect) []byte {
	style := f.Style.Effect
	if e.Type == EffGuard {
		style = f.Style.Guard
		if e.Action == ui.GuardHazard {
			style = f.Style.Hazard
		}
	}
	w, start := f.width()+40, len(dst)
	dst = f.appendEffect(dst, e, w)
	return paintFrom(clipFrom(dst, start, w), start, style)
}

// AppendChangeLine appends the line AppendStepText writes for a diff
// entry, without its marker and newline.
func (f *Formatter) AppendChangeLine(dst []byte, c *Change) []byte {
	st, w := &f.Style, f.width()
	start := len(dst)
	dst = paintFrom(c.Path.append(dst), start, st.Path)
	dst = append(dst, ": "...)
	start = len(dst)
	dst = paintFrom(f.appendVal(dst, c.From, w/2), start, st.From)
	dst = append(dst, " → "...)
	start = len(dst)
	return paintFrom(f.appendVal(dst, c.To, w/2), start, st.To)
}

// clipFrom clips what dst holds past start to n runes (human.Clip) and
// makes it printable (human.Printable): a line of a step, whatever the
// capture put in it, is one line that acts on no terminal.
func clipFrom(dst []byte, start, n int) []byte {
	return append(dst[:start], human.PrintableBytes(human.ClipBytes(dst[start:], n))...)
}

// paintFrom paints what dst holds past start; plain text stays in place.
func paintFrom(dst []byte, start int, style func(string) string) []byte {
	if style == nil {
		return dst
	}
	return append(dst[:start], style(string(dst[start:]))...)
}

// A line is clipped to n runes, and no text in it starts before its first
// rune, so of a text longer than n runes only the first n can show. The
// gateway's cumulative replies run to many kilobytes: the lines cut their
// texts to n runes before escaping them. The clipped line is the same
// (escaping maps each rune on its own, to at least one rune);
// TestCutTextsKeepLines checks it.

// cutIntent is in with its texts cut to n runes, when the UI's intents
// can be cut (ui.Clipper).
func cutIntent(in ui.Intent, n int) ui.Intent {
	if c, ok := in.(ui.Clipper); ok {
		return c.ClipTexts(n)
	}
	return in
}

// appendQuotedClip appends s as a JSON string, clipped to w runes.
func appendQuotedClip(dst []byte, s string, w int) []byte {
	return clipFrom(jsonx.AppendString(dst, ui.CutRunes(s, w)), len(dst), w)
}
