package replay

import (
	"unicode/utf8"

	"github.com/clawtap/clawtap/pkg/handler"
	"github.com/clawtap/clawtap/pkg/human"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/policy"
)

// The lines of a step's intents, effects and diff entries, one at a time:
// AppendStepText writes them after their markers, and the report keeps
// them one by one.

// AppendIntentLine appends the line AppendStepText writes for an intent,
// without its marker and newline.
func (f *Formatter) AppendIntentLine(dst []byte, in Intent) []byte {
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
		if e.Action == handler.Hazard {
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

// clipFrom clips what dst holds past start to n runes (human.Clip).
func clipFrom(dst []byte, start, n int) []byte {
	return append(dst[:start], human.ClipBytes(dst[start:], n)...)
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

// cutRunes is s's first n runes.
func cutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for c := 0; c < n && i < len(s); c++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

func cutStr(s policy.Str, n int) policy.Str {
	s.V = cutRunes(s.V, n)
	return s
}

// cutPatch is p with its texts cut to n runes; n <= 0 leaves them whole.
func cutPatch(p policy.Patch, n int) policy.Patch {
	if n <= 0 {
		return p
	}
	p.Status, p.RunID, p.StreamText, p.ThinkingTrace = cutStr(p.Status, n), cutStr(p.RunID, n), cutStr(p.StreamText, n), cutStr(p.ThinkingTrace, n)
	p.LatestPreview, p.LastUserMessage, p.LastResult = cutStr(p.LatestPreview, n), cutStr(p.LastUserMessage, n), cutStr(p.LastResult, n)
	return p
}

// cutIntent is in with its patch's texts and output lines cut to n runes;
// in itself when none is longer.
func cutIntent(in Intent, n int) Intent {
	p, ok := in.(*policy.Intent)
	if !ok || !longIntent(p, n) {
		return in
	}
	c := *p
	c.Patch = cutPatch(c.Patch, n)
	c.Lines = make([]string, len(p.Lines))
	for i, l := range p.Lines {
		c.Lines[i] = cutRunes(l, n)
	}
	return &c
}

func longIntent(p *policy.Intent, n int) bool {
	pa := &p.Patch
	for _, s := range [...]string{pa.Status.V, pa.RunID.V, pa.StreamText.V, pa.ThinkingTrace.V, pa.LatestPreview.V, pa.LastUserMessage.V, pa.LastResult.V} {
		if len(s) > n {
			return true
		}
	}
	for _, l := range p.Lines {
		if len(l) > n {
			return true
		}
	}
	return false
}

// appendQuotedClip appends s as a JSON string, clipped to w runes.
func appendQuotedClip(dst []byte, s string, w int) []byte {
	return clipFrom(jsonx.AppendString(dst, cutRunes(s, w)), len(dst), w)
}
