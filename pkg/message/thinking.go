package message

import (
	"bytes"
	"strings"

	"github.com/clawtap/clawtap/pkg/jsonx"
)

// thinkingKeys are clawboo's direct thinking keys, in priority order
// (camelCase only; the snake_case forms and object values are [C3D]).
var thinkingKeys = [...]string{
	"thinking", "analysis", "reasoning",
	"thinkingText", "thinkingDelta",
	"analysisText", "analysisDelta",
	"reasoningText", "reasoningDelta",
}

const nThinkingKeys = len(thinkingKeys)

// Scan layouts: the nine thinking keys, then two more members.
var (
	msgThinkingFields   = append(thinkingKeys[:nThinkingKeys:nThinkingKeys], "content", "text")
	blockThinkingFields = append(thinkingKeys[:nThinkingKeys:nThinkingKeys], "type", "text")
)

const (
	xf2 = nThinkingKeys     // "content" (message) or "type" (block)
	xfT = nThinkingKeys + 1 // "text"
	nXF = nThinkingKeys + 2
)

// firstThinkingKey returns the first thinking key whose value is a string
// that is non-empty once trimmed, trimmed.
func firstThinkingKey(f *[nXF][]byte) (string, bool) {
	for i := 0; i < nThinkingKeys; i++ {
		if s, ok := str(f[i]); ok {
			if s = trim(s); s != "" {
				return s, true
			}
		}
	}
	return "", false
}

// Thinking is extractThinking (pipeline-spec §3.2); ok is false where the
// reference returns null. The first rule that yields a non-empty string
// wins:
//
//  1. content blocks (content is an array): a block of type thinking,
//     analysis or reasoning gives its first non-empty direct thinking key,
//     else its own trimmed text; any other block gives its trimmed
//     "thinking" string. Empty results are dropped, the rest joined
//     with "\n".
//  2. the first non-empty trimmed string among the message's thinkingKeys.
//  3. closed think/thinking/analysis blocks in the raw text (the same
//     source Text uses), paired in one pass (see closedBlocks).
//  4. the tagged-stream fallback over the raw text, also knowing thought
//     and antthinking: when the last opener has no closer after it, the
//     trimmed tail after that opener (an empty tail yields nothing, even if
//     earlier blocks were closed); otherwise the closed blocks, paired as
//     in rule 3 but over the five names.
//
// The spec's rule 3 names only think|thinking|analysis; thought and
// antthinking blocks are therefore found by rule 4 alone.
func Thinking(msg []byte) (string, bool) {
	var f [nXF][]byte
	if !jsonx.Members(msg, msgThinkingFields, f[:]) {
		return "", false
	}
	return thinkingOf(&f)
}

// msgBothFields scans what Text and Thinking both need in one pass.
var msgBothFields = append(msgThinkingFields[:nXF:nXF], "role")

// TextAndThinking returns Text(msg) and Thinking(msg) from one scan of the
// message: what a chat delta needs, on the hot path. texts (may be nil)
// decodes the text, so a cumulative text already decoded from the agent
// stream is not decoded again.
func TextAndThinking(msg []byte, texts *jsonx.StrMemo) (text string, hasText bool, thinking string, hasThinking bool) {
	var both [nXF + 1][]byte
	if !jsonx.Members(msg, msgBothFields, both[:]) {
		return "", false, "", false
	}
	f := (*[nXF][]byte)(both[:nXF])
	if jsonx.KindOf(f[xf2]) != jsonx.Array {
		text, hasText = textOf(both[nXF], f[xf2], f[xfT], texts, envelopeChannels)
		thinking, hasThinking = thinkingOf(f)
		return
	}
	// Content blocks: one walk gives both the joined text (Text's source,
	// and the raw text thinking's tag rules read) and thinking's rule 1.
	raw, hasRaw, blocks := scanBlocks(f[xf2], texts)
	if !hasRaw {
		raw, hasRaw = str(f[xfT])
	}
	if hasRaw {
		text, hasText = roleText(both[nXF], raw, envelopeChannels), true
	}
	if blocks != "" {
		return text, hasText, blocks, true
	}
	if s, ok := firstThinkingKey(f); ok {
		return text, hasText, s, true
	}
	if hasRaw {
		thinking, hasThinking = tagThinking(raw)
	}
	return
}

// scanBlocks walks a content array once for Text's joined text blocks
// (ok is false when there is none) and Thinking's rule 1.
func scanBlocks(content []byte, texts *jsonx.StrMemo) (text string, ok bool, thinking string) {
	var tb, th Joiner
	eachBlock(content, func(f [nXF][]byte) {
		if t, ok := blockText(&f, texts); ok {
			tb.Add(t)
		}
		if part := blockPart(&f); part != "" {
			th.Add(part)
		}
	})
	return tb.String(), tb.Len() > 0, th.String()
}

// eachBlock calls fn with the scanned members of each object block of a
// content array. They are passed by value: through a pointer they would
// be allocated on the heap, fn being unknown to the compiler.
func eachBlock(content []byte, fn func(f [nXF][]byte)) {
	_ = jsonx.ArrayEach(content, func(e []byte) bool {
		var f [nXF][]byte
		if jsonx.KindOf(e) == jsonx.Object && jsonx.Members(e, blockThinkingFields, f[:]) {
			fn(f)
		}
		return true
	})
}

// tagThinking is Thinking's rules 3 and 4 over the raw text.
func tagThinking(raw string) (string, bool) {
	if strings.IndexByte(raw, '<') < 0 {
		return "", false
	}
	if s, _, _, _ := closedBlocks(raw, TextTags); s != "" {
		return s, true
	}
	if s := TaggedStream(raw); s != "" {
		return s, true
	}
	return "", false
}

// thinkingOf is Thinking over an already scanned message.
func thinkingOf(f *[nXF][]byte) (string, bool) {
	content := f[xf2]
	if jsonx.KindOf(content) == jsonx.Array {
		if s := blockThinking(content); s != "" {
			return s, true
		}
	}
	if s, ok := firstThinkingKey(f); ok {
		return s, true
	}
	if !MayHaveTag(content) && !MayHaveTag(f[xfT]) {
		return "", false // no '<' at all: skip decoding the text again
	}
	raw, ok := rawText(content, f[xfT], nil)
	if !ok {
		return "", false
	}
	return tagThinking(raw)
}

// blockPart is what one content block gives rule 1.
func blockPart(f *[nXF][]byte) string {
	return BlockThinking(f[xf2], f[xfT], f[0], func() string { // f[0] is "thinking"
		s, _ := firstThinkingKey(f)
		return s
	})
}

// BlockThinking is what one content block gives Thinking's rule 1, given
// its raw "type", "text" and "thinking" members: a thinking, analysis or
// reasoning block its first non-empty direct thinking key, else its own
// trimmed text; any other block its trimmed "thinking" string. The rule
// is the same in both UIs but for the direct keys, so directKey gives the
// block's first non-empty one ("" when none); it is called only for those
// three types.
func BlockThinking(typ, text, thinking []byte, directKey func() string) string {
	if jsonx.StrIs(typ, "thinking") || jsonx.StrIs(typ, "analysis") || jsonx.StrIs(typ, "reasoning") {
		if s := directKey(); s != "" {
			return s
		}
		if s, ok := str(text); ok {
			return trim(s)
		}
		return ""
	}
	if s, ok := str(thinking); ok {
		return trim(s)
	}
	return ""
}

// blockThinking is rule 1.
func blockThinking(content []byte) string {
	var j Joiner
	eachBlock(content, func(f [nXF][]byte) {
		if part := blockPart(&f); part != "" {
			j.Add(part)
		}
	})
	return j.String()
}

// TaggedStream is Thinking's rule 4, the tagged-stream fallback, over raw
// text (the same in clawboo and Claw3D): the five stream tag names, and
// when the last opener has no closer after it, the trimmed tail after
// that opener; otherwise the closed blocks paired in one pass.
func TaggedStream(s string) string {
	joined, last, hasOpen, closedAfter := closedBlocks(s, StreamTags)
	if hasOpen && !closedAfter {
		return trim(s[last.End:])
	}
	return joined
}

// MayHaveTag reports whether raw JSON could decode to text holding a '<'
// (literally or escaped as \u003c): when it cannot, no tag is in it, and
// the text need not be decoded to look for one.
func MayHaveTag(raw []byte) bool {
	return bytes.IndexByte(raw, '<') >= 0 || bytes.Contains(raw, []byte(`\u003c`)) || bytes.Contains(raw, []byte(`\u003C`))
}
