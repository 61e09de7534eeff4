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

// tagNames selects the tag vocabulary.
type tagNames uint8

const (
	// textTags are the names extractText strips and extractThinking's
	// closed-block rule reads: think, thinking, analysis.
	textTags tagNames = iota
	// streamTags add thought and antthinking (tagged-stream fallback).
	streamTags
)

// tag is one thinking tag found in a string: s[start:end].
type tag struct {
	start, end int
	closer     bool
}

// matchName returns the length of the tag name at the start of s, or 0.
func matchName(s string, names tagNames) int {
	switch {
	case hasPrefixFold(s, "thinking"):
		return len("thinking")
	case hasPrefixFold(s, "think"):
		return len("think")
	case hasPrefixFold(s, "analysis"):
		return len("analysis")
	}
	if names == streamTags {
		switch {
		case hasPrefixFold(s, "thought"):
			return len("thought")
		case hasPrefixFold(s, "antthinking"):
			return len("antthinking")
		}
	}
	return 0
}

// matchTag reports whether a tag starts at s[p] (which must be '<').
// "thinking" is tried before "think"; when "thinking" matches but is not
// followed by whitespace or '>', "think" cannot match either (the next
// byte is 'i'), so no backtracking is needed.
func matchTag(s string, p int, names tagNames) (t tag, ok bool) {
	k := skipSpace(s, p+1)
	closer := false
	if k < len(s) && s[k] == '/' {
		closer = true
		k = skipSpace(s, k+1)
	}
	n := matchName(s[k:], names)
	if n == 0 {
		return tag{}, false
	}
	k = skipSpace(s, k+n)
	if k >= len(s) || s[k] != '>' {
		return tag{}, false
	}
	return tag{start: p, end: k + 1, closer: closer}, true
}

// nextTag returns the first tag that starts at or after offset i.
// Each failed attempt scans only whitespace, '/' and name bytes, none of
// which is '<', so a full scan of s is linear.
func nextTag(s string, i int, names tagNames) (tag, bool) {
	for i < len(s) {
		j := strings.IndexByte(s[i:], '<')
		if j < 0 {
			return tag{}, false
		}
		p := i + j
		if t, ok := matchTag(s, p, names); ok {
			return t, true
		}
		i = p + 1
	}
	return tag{}, false
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
	var firstOpen, firstClose tag
	hasOpen, hasClose := false, false
	for i := 0; ; {
		t, ok := nextTag(s, i, textTags)
		if !ok {
			break
		}
		if t.closer && !hasClose {
			firstClose, hasClose = t, true
		} else if !t.closer && !hasOpen {
			firstOpen, hasOpen = t, true
		}
		if hasOpen && hasClose {
			break
		}
		i = t.end
	}
	switch {
	case !hasOpen && !hasClose:
		return s
	case hasOpen && !hasClose:
		return trimStart(s[:firstOpen.start] + s[firstOpen.end:])
	case hasClose && !hasOpen:
		return trimStart(s[:firstClose.start] + s[firstClose.end:])
	}
	var b strings.Builder
	b.Grow(len(s))
	inThinking := false
	last := 0
	for i := 0; ; {
		t, ok := nextTag(s, i, textTags)
		if !ok {
			break
		}
		if !inThinking {
			b.WriteString(s[last:t.start])
		}
		inThinking = !t.closer
		last = t.end
		i = t.end
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
func closedBlocks(s string, names tagNames) (joined string, lastOpen tag, hasOpen, closedAfter bool) {
	var b strings.Builder
	open := -1
	for i := 0; ; {
		t, ok := nextTag(s, i, names)
		if !ok {
			break
		}
		i = t.end
		if !t.closer {
			lastOpen, hasOpen, closedAfter = t, true, false
			if open < 0 {
				open = t.end
			}
			continue
		}
		closedAfter = true
		if open < 0 {
			continue
		}
		if body := trim(s[open:t.start]); body != "" {
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
		t, ok := nextTag(text, i, textTags)
		if !ok {
			return open
		}
		i = t.end
		if !t.closer {
			open = true
			continue
		}
		if !open {
			return true
		}
		open = false
	}
}
