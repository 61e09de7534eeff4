package clawboo_test

// @clawboo/protocol's extraction (pipeline-spec §3.1–3.3), written again
// over the JavaScript value model with regular expressions shaped like
// the reference's. A regexp runs over one rune per code unit (utf8Units),
// so every offset is a code-unit offset.

import (
	"regexp"
	"strings"
)

// ws is JavaScript's \s as a character class, built from isWS.
var ws = func() string {
	var b strings.Builder
	b.WriteByte('[')
	for r := rune(0); r < 0xD800; r++ {
		if isWS(uint16(r)) {
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	for r := rune(0xE000); r <= 0xFFFF; r++ {
		if isWS(uint16(r)) {
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteByte(']')
	return b.String()
}()

// ci spells an ASCII word case-insensitively, as a non-unicode /i regexp
// matches it (no Kelvin sign, no long s).
func ci(word string) string {
	var b strings.Builder
	for _, c := range word {
		lo, up := strings.ToLower(string(c)), strings.ToUpper(string(c))
		if lo != up {
			b.WriteString("[" + lo + up + "]")
		} else {
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	return b.String()
}

func tagRE(names ...string) *regexp.Regexp {
	var alts []string
	for _, n := range names {
		alts = append(alts, ci(n))
	}
	return regexp.MustCompile(`<` + ws + `*(/?)` + ws + `*(?:` + strings.Join(alts, "|") + `)` + ws + `*>`)
}

var (
	textTagRE   = tagRE("think", "thinking", "analysis")
	streamTagRE = tagRE("think", "thinking", "analysis", "thought", "antthinking")
	replyRE     = regexp.MustCompile(`^(?:` + ci(`[[reply_to_current]]`) + `|` + ci(`[reply_to_current]`) + `)` + ws + `*(?:\|` + ws + `*)?`)
	envelopeRE  = regexp.MustCompile(`^\[([^\]]+)\]` + ws + `*`)
	stampRE     = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}Z|\d{4}-\d{2}-\d{2} \d{2}:\d{2}`)
	channelRE   = regexp.MustCompile(`^(?:WebChat|WhatsApp|Telegram|Signal|Slack|Discord|iMessage|Teams|Matrix) `)
	policyRE    = regexp.MustCompile("\n\nExecution approval policy:\n[^\n]*\n[^\n]*\n[^\n]*Waiting for approved command result\\.\"$")
)

type tagAt struct {
	start, end int // code-unit offsets
	closer     bool
}

func findTags(re *regexp.Regexp, s string) []tagAt {
	var tags []tagAt
	// Offsets in s are byte offsets of a string of runes: map them back.
	for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
		tags = append(tags, tagAt{unitIndex(s, m[0]), unitIndex(s, m[1]), m[3] > m[2]})
	}
	return tags
}

func unitIndex(s string, byteOff int) int { return len([]rune(s[:byteOff])) }

func rs(u []uint16) string { return string(utf8Units(u)) }

func nonNil(u []uint16) []uint16 {
	if u == nil {
		return []uint16{}
	}
	return u
}

// rawTextOf is extractText's source: string content, else the text
// blocks joined (a source only when there is one), else message.text.
func rawTextOf(msg *jv) []uint16 {
	if c := msg.get("content"); c.isStr() {
		return nonNil(c.s)
	} else if c.k == jArr {
		var parts [][]uint16
		for _, b := range c.a {
			if b.k == jObj && b.get("type").strIs("text") && b.get("text").isStr() {
				parts = append(parts, b.get("text").s)
			}
		}
		if len(parts) > 0 {
			return joinU(parts, "\n")
		}
	}
	if t := msg.get("text"); t.isStr() {
		return nonNil(t.s)
	}
	return nil
}

func joinU(parts [][]uint16, sep string) []uint16 {
	out := []uint16{}
	for i, p := range parts {
		if i > 0 {
			out = append(out, u16(sep)...)
		}
		out = append(out, p...)
	}
	return out
}

func extractText(msg *jv) []uint16 {
	if msg.k != jObj {
		return nil
	}
	raw := rawTextOf(msg)
	if raw == nil {
		return nil
	}
	if msg.get("role").strIs("assistant") {
		t := stripThinking(raw)
		if m := replyRE.FindStringIndex(rs(t)); m != nil {
			t = trimStartU(t[unitIndex(rs(t), m[1]):])
		}
		return nonNil(t)
	}
	t := raw
	if m := envelopeRE.FindStringSubmatchIndex(rs(t)); m != nil {
		header := rs(t)[m[2]:m[3]]
		if stampRE.MatchString(header) || channelRE.MatchString(header) {
			t = t[unitIndex(rs(t), m[1]):]
		}
	}
	if m := policyRE.FindStringIndex(rs(t)); m != nil {
		t = t[:unitIndex(rs(t), m[0])]
	}
	return nonNil(t)
}

func stripThinking(s []uint16) []uint16 {
	tags := findTags(textTagRE, rs(s))
	if len(tags) == 0 {
		return s
	}
	var openers, closers []tagAt
	for _, t := range tags {
		if t.closer {
			closers = append(closers, t)
		} else {
			openers = append(openers, t)
		}
	}
	cut := func(t tagAt) []uint16 {
		return trimStartU(append(append([]uint16{}, s[:t.start]...), s[t.end:]...))
	}
	if len(closers) == 0 {
		return cut(openers[0])
	}
	if len(openers) == 0 {
		return cut(closers[0])
	}
	out := []uint16{}
	in, last := false, 0
	for _, t := range tags {
		if !in {
			out = append(out, s[last:t.start]...)
		}
		in = !t.closer
		last = t.end
	}
	if !in {
		out = append(out, s[last:]...)
	}
	return trimStartU(out)
}

var thinkingKeys = []string{"thinking", "analysis", "reasoning", "thinkingText", "thinkingDelta", "analysisText", "analysisDelta", "reasoningText", "reasoningDelta"}

func firstKey(o *jv) []uint16 {
	for _, k := range thinkingKeys {
		if v := o.get(k); v.isStr() {
			if t := trimU(v.s); len(t) > 0 {
				return t
			}
		}
	}
	return nil
}

func extractThinking(msg *jv) []uint16 {
	if msg.k != jObj {
		return nil
	}
	if c := msg.get("content"); c.k == jArr {
		var parts [][]uint16
		for _, b := range c.a {
			if b.k != jObj {
				continue
			}
			var part []uint16
			if t := b.get("type"); t.strIs("thinking") || t.strIs("analysis") || t.strIs("reasoning") {
				if part = firstKey(b); part == nil && b.get("text").isStr() {
					part = trimU(b.get("text").s)
				}
			} else if th := b.get("thinking"); th.isStr() {
				part = trimU(th.s)
			}
			if len(part) > 0 {
				parts = append(parts, part)
			}
		}
		if len(parts) > 0 {
			return joinU(parts, "\n")
		}
	}
	if t := firstKey(msg); t != nil {
		return t
	}
	raw := rawTextOf(msg)
	if raw == nil {
		return nil
	}
	if t := closedBlocks(raw, findTags(textTagRE, rs(raw))); len(t) > 0 {
		return t
	}
	tags := findTags(streamTagRE, rs(raw))
	lastOpen := -1
	for i, t := range tags {
		if !t.closer {
			lastOpen = i
		}
	}
	if lastOpen >= 0 {
		closed := false
		for _, t := range tags[lastOpen+1:] {
			closed = closed || t.closer
		}
		if !closed {
			if t := trimU(raw[tags[lastOpen].end:]); len(t) > 0 {
				return t
			}
			return nil
		}
	}
	if t := closedBlocks(raw, tags); len(t) > 0 {
		return t
	}
	return nil
}

// closedBlocks pairs each opener with the next closer, in one pass.
func closedBlocks(s []uint16, tags []tagAt) []uint16 {
	var parts [][]uint16
	open := -1
	for _, t := range tags {
		if !t.closer {
			if open < 0 {
				open = t.end
			}
			continue
		}
		if open >= 0 {
			if body := trimU(s[open:t.start]); len(body) > 0 {
				parts = append(parts, body)
			}
			open = -1
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return joinU(parts, "\n")
}

// formatJSON is the reference's formatJson for tool arguments.
func formatJSON(v *jv) []uint16 {
	switch v.k {
	case jUndef, jNull:
		return nil
	case jStr:
		return trimU(v.s)
	case jNum, jBool:
		return jsString(v)
	}
	return stringify2(v, "")
}

func extractToolLines(msg *jv) [][]uint16 {
	if msg.k != jObj {
		return nil
	}
	var lines [][]uint16
	if c := msg.get("content"); c.k == jArr {
		for _, b := range c.a {
			if b.k != jObj || !b.get("type").strIs("toolCall") {
				continue
			}
			name := u16("tool")
			if n := b.get("name"); n.isStr() && len(trimU(n.s)) > 0 {
				name = trimU(n.s)
			}
			line := append(u16("[[tool]] "), name...)
			if id := b.get("id"); id.isStr() && len(id.s) > 0 {
				line = append(append(append(line, u16(" (")...), id.s...), ')')
			}
			if args := formatJSON(b.get("arguments")); len(args) > 0 {
				line = append(append(append(line, u16("\n```json\n")...), args...), u16("\n```")...)
			}
			lines = append(lines, line)
		}
	}
	if !msg.get("role").strIs("toolResult") && !msg.get("role").strIs("tool") {
		return lines
	}
	name := u16("tool")
	if n := msg.get("toolName"); n.isStr() && len(trimU(n.s)) > 0 {
		name = trimU(n.s)
	}
	line := append(u16("[[tool-result]] "), name...)
	if id := msg.get("toolCallId"); id.isStr() && len(id.s) > 0 {
		line = append(append(append(line, u16(" (")...), id.s...), ')')
	}
	var meta [][]uint16
	if d := msg.get("details"); d.k == jObj {
		if s := d.get("status"); s.isStr() && len(trimU(s.s)) > 0 {
			meta = append(meta, trimU(s.s))
		}
		if e := d.get("exitCode"); e.k == jNum {
			meta = append(meta, append(u16("exit "), jsString(e)...))
		}
		if ms := d.get("durationMs"); ms.k == jNum {
			meta = append(meta, append(jsString(ms), u16("ms")...))
		}
		if cwd := d.get("cwd"); cwd.isStr() && len(trimU(cwd.s)) > 0 {
			meta = append(meta, trimU(cwd.s))
		}
	}
	if e := msg.get("isError"); e.k == jBool && e.b {
		meta = append(meta, u16("error"))
	}
	var body [][]uint16
	if len(meta) > 0 {
		body = append(body, joinU(meta, " · "))
	}
	if out := trimU(extractText(msg)); len(out) > 0 {
		body = append(body, append(append(u16("```text\n"), out...), u16("\n```")...))
	}
	if len(body) > 0 {
		line = append(append(line, '\n'), joinU(body, "\n")...)
	}
	return append(lines, line)
}
