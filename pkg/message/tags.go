package message

import (
	"strings"
)

// A thinking tag is '<', optional whitespace, an optional '/' followed by
// optional whitespace, a tag name (ASCII case-insensitive), optional
// whitespace and '>'. So "<think>", "< / THINK >" and "</analysis >" are
// tags, "<think x>" and "<thinker>" are not. Whitespace is JavaScript's \s
// set. Tags cannot overlap (a tag holds a single '<'), so a left-to-right
// scan finds the same tags as a global regexp.

// TagVocab selects which names a thinking-tag scan knows.
type TagVocab uint8

const (
	// TextTags are the names extractText strips and extractThinking's
	// closed-block rule reads: think, thinking, analysis.
	TextTags TagVocab = iota
	// StreamTags add thought and antthinking (tagged-stream fallback).
	StreamTags
)

// TagName is a thinking tag's name, case folded.
type TagName uint8

const (
	TagThink TagName = iota + 1
	TagThinking
	TagAnalysis
	TagThought     // StreamTags only
	TagAntthinking // StreamTags only
)

// ThinkingTag is one thinking tag found in a string s: s[Start:End].
type ThinkingTag struct {
	Start, End int
	Closer     bool
	Name       TagName
}

// matchName returns the tag name at the start of s and its length (0 when
// there is none).
func matchName(s string, v TagVocab) (TagName, int) {
	switch {
	case hasPrefixFold(s, "thinking"):
		return TagThinking, len("thinking")
	case hasPrefixFold(s, "think"):
		return TagThink, len("think")
	case hasPrefixFold(s, "analysis"):
		return TagAnalysis, len("analysis")
	}
	if v == StreamTags {
		switch {
		case hasPrefixFold(s, "thought"):
			return TagThought, len("thought")
		case hasPrefixFold(s, "antthinking"):
			return TagAntthinking, len("antthinking")
		}
	}
	return 0, 0
}

// matchTag reports whether a tag starts at s[p] (which must be '<').
// "thinking" is tried before "think"; when "thinking" matches but is not
// followed by whitespace or '>', "think" cannot match either (the next
// byte is 'i'), so no backtracking is needed.
func matchTag(s string, p int, v TagVocab) (t ThinkingTag, ok bool) {
	k := skipSpace(s, p+1)
	closer := false
	if k < len(s) && s[k] == '/' {
		closer = true
		k = skipSpace(s, k+1)
	}
	name, n := matchName(s[k:], v)
	if n == 0 {
		return ThinkingTag{}, false
	}
	k = skipSpace(s, k+n)
	if k >= len(s) || s[k] != '>' {
		return ThinkingTag{}, false
	}
	return ThinkingTag{Start: p, End: k + 1, Closer: closer, Name: name}, true
}

// NextThinkingTag returns the first thinking tag of vocabulary v that
// starts at or after offset i: the scan both UIs' tag rules rest on.
// Each failed attempt scans only whitespace, '/' and name bytes, none of
// which is '<', so a full scan of s is linear.
func NextThinkingTag(s string, i int, v TagVocab) (ThinkingTag, bool) {
	for i < len(s) {
		j := strings.IndexByte(s[i:], '<')
		if j < 0 {
			return ThinkingTag{}, false
		}
		p := i + j
		if t, ok := matchTag(s, p, v); ok {
			return t, true
		}
		i = p + 1
	}
	return ThinkingTag{}, false
}

// stripThinkingTags is extractText's tag removal for assistant text.
//
//   - no tag: s unchanged (not trimmed);
//   - openers only, or closers only: the first such tag alone is removed
//     and its body kept (the documented leak), then trimStart;
//   - both kinds: walk the tags; text outside open→close is kept, an
//     opener inside an open block changes nothing, a closer outside a
//     block is dropped, and text after an opener that is never closed is
//     dropped; then trimStart.
func stripThinkingTags(s string) string {
	if strings.IndexByte(s, '<') < 0 {
		return s
	}
	var firstOpen, firstClose ThinkingTag
	hasOpen, hasClose := false, false
	for i := 0; ; {
		t, ok := NextThinkingTag(s, i, TextTags)
		if !ok {
			break
		}
		if t.Closer && !hasClose {
			firstClose, hasClose = t, true
		} else if !t.Closer && !hasOpen {
			firstOpen, hasOpen = t, true
		}
		if hasOpen && hasClose {
			break
		}
		i = t.End
	}
	switch {
	case !hasOpen && !hasClose:
		return s
	case hasOpen && !hasClose:
		return trimStart(s[:firstOpen.Start] + s[firstOpen.End:])
	case hasClose && !hasOpen:
		return trimStart(s[:firstClose.Start] + s[firstClose.End:])
	}
	var b strings.Builder
	b.Grow(len(s))
	inThinking := false
	last := 0
	for i := 0; ; {
		t, ok := NextThinkingTag(s, i, TextTags)
		if !ok {
			break
		}
		if !inThinking {
			b.WriteString(s[last:t.Start])
		}
		inThinking = !t.Closer
		last = t.End
		i = t.End
	}
	if !inThinking {
		b.WriteString(s[last:])
	}
	return trimStart(b.String())
}

// closedBlocks pairs each opener with the next closer in one pass (any
// name of the vocabulary closes any other; an opener inside an open block
// is part of its body; a closer outside a block is ignored). Bodies are
// trimmed, empty ones dropped, the rest joined with "\n". It also returns
// the last opener and whether a closer follows it.
func closedBlocks(s string, names TagVocab) (joined string, lastOpen ThinkingTag, hasOpen, closedAfter bool) {
	var b strings.Builder
	open := -1
	for i := 0; ; {
		t, ok := NextThinkingTag(s, i, names)
		if !ok {
			break
		}
		i = t.End
		if !t.Closer {
			lastOpen, hasOpen, closedAfter = t, true, false
			if open < 0 {
				open = t.End
			}
			continue
		}
		closedAfter = true
		if open < 0 {
			continue
		}
		if body := trim(s[open:t.Start]); body != "" {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(body)
		}
		open = -1
	}
	return b.String(), lastOpen, hasOpen, closedAfter
}

// HasThinkingTagLeak reports whether text has an unbalanced thinking tag
// (think, thinking or analysis, in the tag grammar extractText uses):
// a closer with no open block before it, or an opener whose block is never
// closed. Pairing is one pass: an opener inside an open block is part of
// that block, and the block's first closer closes it.
//
// On raw assistant text (before Text) a true result means Text's output
// may carry thinking body text (a lone opener or closer keeps its body,
// a stray closer keeps what precedes it) or may have lost the text after
// an unclosed opener. On visible text (after Text) it reports a leftover
// tag, e.g. "a<think>b" from "<think>a<think>b".
func HasThinkingTagLeak(text string) bool {
	if strings.IndexByte(text, '<') < 0 {
		return false
	}
	open := false
	for i := 0; ; {
		t, ok := NextThinkingTag(text, i, TextTags)
		if !ok {
			return open
		}
		i = t.End
		if !t.Closer {
			open = true
			continue
		}
		if !open {
			return true
		}
		open = false
	}
}
