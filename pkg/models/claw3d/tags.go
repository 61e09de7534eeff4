package claw3d

import (
	"strings"

	"github.com/clawtap/clawtap/pkg/jsstr"
	"github.com/clawtap/clawtap/pkg/message"
)

// Thinking tags are pkg/message's (the grammar and the vocabularies are
// the same in both UIs, and so are tag stripping and the tagged-stream
// rule). What is Claw3D's own is the pairing of closed blocks
// ([C3D], closedBlocksSameName) and the test for a block still streaming.

// appendTags appends every tag of s in vocabulary v to dst.
func appendTags(dst []message.ThinkingTag, s string, v message.TagVocab) []message.ThinkingTag {
	for i := 0; ; {
		t, ok := message.NextThinkingTag(s, i, v)
		if !ok {
			return dst
		}
		dst = append(dst, t)
		i = t.End
	}
}

// closedBlocksSameName is [C3D] extractThinking's rule 3: the lazy
// same-name regexp /<\s*(think|thinking|analysis)\s*>([\s\S]*?)<\s*\/\s*\1\s*>/gi.
// Each opener is paired with the first later closer of the same name;
// the scan resumes after that closer, and an opener with no such closer is
// skipped. Bodies are trimmed, empty ones dropped, the rest joined with
// "\n". So <think>a<think>b</think>c</think> gives "a<think>b", and
// <think>a</analysis> gives nothing. (clawboo pairs any closer, in one
// pass: pkg/message's closedBlocks.)
func closedBlocksSameName(s string) string {
	if strings.IndexByte(s, '<') < 0 {
		return ""
	}
	var buf [16]message.ThinkingTag
	tags := appendTags(buf[:0], s, message.TextTags)
	// next[name] is a cursor to the first closer of that name not yet
	// passed; openers are visited in increasing order, so cursors only
	// move forward and the whole walk is linear.
	var next [message.TagAnalysis + 1]int
	var j message.Joiner
	resume := 0 // offset in s where the regexp resumes
	for _, t := range tags {
		if t.Closer || t.Start < resume {
			continue
		}
		c := next[t.Name]
		for c < len(tags) && (!tags[c].Closer || tags[c].Name != t.Name || tags[c].Start < t.End) {
			c++
		}
		next[t.Name] = c
		if c == len(tags) {
			continue // no closer of this name after it
		}
		if body := jsstr.Trim(s[t.End:tags[c].Start]); body != "" {
			j.Add(body)
		}
		resume = tags[c].End
	}
	return j.String()
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
		t, ok := message.NextThinkingTag(s, i, message.StreamTags)
		if !ok {
			return open
		}
		open = !t.Closer
		i = t.End
	}
}
