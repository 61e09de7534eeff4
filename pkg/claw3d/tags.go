package claw3d

import (
	"strings"

	"github.com/clawtap/clawtap/pkg/jsstr"
)

// Thinking tags, as Claw3D's message-extract.ts matches them: '<',
// optional whitespace, an optional '/' and whitespace, a tag name (ASCII
// case-insensitive), optional whitespace and '>'. "<think>", "< / THINK >"
// and "</analysis >" are tags; "<think x>" and "<thinker>" are not. Tags
// hold a single '<', so a left-to-right scan finds what a global regexp
// finds.

// tagName identifies a thinking tag's name, case folded.
type tagName uint8

const (
	tagNone tagName = iota
	tagThink
	tagThinking
	tagAnalysis
	tagThought     // tagged-stream vocabulary only
	tagAntthinking // tagged-stream vocabulary only
)

// vocab selects which names count as thinking tags.
type vocab uint8

const (
	// textVocab: think, thinking, analysis (extractText's stripping and
	// extractThinking's closed-block rule).
	textVocab vocab = iota
	// streamVocab adds thought and antthinking (the tagged-stream rule).
	streamVocab
)

type tag struct {
	start, end int
	closer     bool
	name       tagName
}

// matchName returns the name at the start of s and its length. "thinking"
// is tried before "think"; if "thinking" is not followed by whitespace or
// '>', "think" cannot be either (the next byte is 'i').
func matchName(s string, v vocab) (tagName, int) {
	switch {
	case jsstr.HasPrefixFold(s, "thinking"):
		return tagThinking, len("thinking")
	case jsstr.HasPrefixFold(s, "think"):
		return tagThink, len("think")
	case jsstr.HasPrefixFold(s, "analysis"):
		return tagAnalysis, len("analysis")
	}
	if v == streamVocab {
		switch {
		case jsstr.HasPrefixFold(s, "thought"):
			return tagThought, len("thought")
		case jsstr.HasPrefixFold(s, "antthinking"):
			return tagAntthinking, len("antthinking")
		}
	}
	return tagNone, 0
}

// matchTag reports whether a tag starts at s[p] (which is '<').
func matchTag(s string, p int, v vocab) (tag, bool) {
	k := jsstr.SkipSpace(s, p+1)
	closer := false
	if k < len(s) && s[k] == '/' {
		closer = true
		k = jsstr.SkipSpace(s, k+1)
	}
	name, n := matchName(s[k:], v)
	if n == 0 {
		return tag{}, false
	}
	k = jsstr.SkipSpace(s, k+n)
	if k >= len(s) || s[k] != '>' {
		return tag{}, false
	}
	return tag{start: p, end: k + 1, closer: closer, name: name}, true
}

// nextTag returns the first tag starting at or after offset i. A failed
// attempt scans only whitespace, '/' and name bytes, none of them '<', so
// a whole scan is linear.
func nextTag(s string, i int, v vocab) (tag, bool) {
	for i < len(s) {
		j := strings.IndexByte(s[i:], '<')
		if j < 0 {
			return tag{}, false
		}
		p := i + j
		if t, ok := matchTag(s, p, v); ok {
			return t, true
		}
		i = p + 1
	}
	return tag{}, false
}

// stripThinkingTags is extractText's tag removal for assistant text (the
// same rule in clawboo and Claw3D):
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
	for i := 0; !(hasOpen && hasClose); {
		t, ok := nextTag(s, i, textVocab)
		if !ok {
			break
		}
		if t.closer && !hasClose {
			firstClose, hasClose = t, true
		} else if !t.closer && !hasOpen {
			firstOpen, hasOpen = t, true
		}
		i = t.end
	}
	switch {
	case !hasOpen && !hasClose:
		return s
	case !hasClose:
		return jsstr.TrimStart(s[:firstOpen.start] + s[firstOpen.end:])
	case !hasOpen:
		return jsstr.TrimStart(s[:firstClose.start] + s[firstClose.end:])
	}
	var b strings.Builder
	b.Grow(len(s))
	inThinking := false
	last := 0
	for i := 0; ; {
		t, ok := nextTag(s, i, textVocab)
		if !ok {
			break
		}
		if !inThinking {
			b.WriteString(s[last:t.start])
		}
		inThinking = !t.closer
		last, i = t.end, t.end
	}
	if !inThinking {
		b.WriteString(s[last:])
	}
	return jsstr.TrimStart(b.String())
}

// appendTags appends every tag of s in vocabulary v to dst.
func appendTags(dst []tag, s string, v vocab) []tag {
	for i := 0; ; {
		t, ok := nextTag(s, i, v)
		if !ok {
			return dst
		}
		dst = append(dst, t)
		i = t.end
	}
}

// joinBody adds a trimmed non-empty body to b, "\n"-separated.
func joinBody(b *strings.Builder, body string) {
	if body = jsstr.Trim(body); body == "" {
		return
	}
	if b.Len() > 0 {
		b.WriteByte('\n')
	}
	b.WriteString(body)
}

// closedBlocksSameName is [C3D] extractThinking's rule 3: the lazy
// same-name regexp /<\s*(think|thinking|analysis)\s*>([\s\S]*?)<\s*\/\s*\1\s*>/gi.
// Each opener is paired with the first later closer of the same name;
// the scan resumes after that closer, and an opener with no such closer is
// skipped. Bodies are trimmed, empty ones dropped, the rest joined with
// "\n". So <think>a<think>b</think>c</think> gives "a<think>b", and
// <think>a</analysis> gives nothing.
func closedBlocksSameName(s string) string {
	if strings.IndexByte(s, '<') < 0 {
		return ""
	}
	var buf [16]tag
	tags := appendTags(buf[:0], s, textVocab)
	// next[name] is a cursor to the first closer of that name not yet
	// passed; openers are visited in increasing order, so cursors only
	// move forward and the whole walk is linear.
	var next [tagAnalysis + 1]int
	var b strings.Builder
	resume := 0 // offset in s where the regexp resumes
	for _, t := range tags {
		if t.closer || t.start < resume {
			continue
		}
		c := next[t.name]
		for c < len(tags) && (!tags[c].closer || tags[c].name != t.name || tags[c].start < t.end) {
			c++
		}
		next[t.name] = c
		if c == len(tags) {
			continue // no closer of this name after it
		}
		joinBody(&b, s[t.end:tags[c].start])
		resume = tags[c].end
	}
	return b.String()
}

// taggedStream is extractThinking's rule 4 (the tagged-stream fallback,
// the same in clawboo and Claw3D), over think, thinking, analysis, thought
// and antthinking: when the last opener has no closer after it, the
// trimmed tail after that opener (an empty tail yields nothing, even if
// earlier blocks were closed); otherwise the closed blocks, each opener
// paired with the next closer of any name in one pass, trimmed, empty
// ones dropped, joined with "\n".
func taggedStream(s string) string {
	if strings.IndexByte(s, '<') < 0 {
		return ""
	}
	var b strings.Builder
	open := -1
	var last tag
	hasOpen, closedAfter := false, false
	for i := 0; ; {
		t, ok := nextTag(s, i, streamVocab)
		if !ok {
			break
		}
		i = t.end
		if !t.closer {
			last, hasOpen, closedAfter = t, true, false
			if open < 0 {
				open = t.end
			}
			continue
		}
		closedAfter = true
		if open >= 0 {
			joinBody(&b, s[open:t.start])
			open = -1
		}
	}
	if hasOpen && !closedAfter {
		return jsstr.Trim(s[last.end:])
	}
	return b.String()
}

// hasOpenThinkingTag reports whether the last thinking opener of s
// (stream vocabulary) has no closer after it: a thinking block is still
// streaming.
func hasOpenThinkingTag(s string) bool {
	if strings.IndexByte(s, '<') < 0 {
		return false
	}
	open := false
	for i := 0; ; {
		t, ok := nextTag(s, i, streamVocab)
		if !ok {
			return open
		}
		open = !t.closer
		i = t.end
	}
}
