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
	if !members(msg, msgThinkingFields, f[:]) {
		return "", false
	}
	return thinkingOf(&f)
}

// msgBothFields scans what Text and Thinking both need in one pass.
var msgBothFields = append(msgThinkingFields[:nXF:nXF], "role")

// TextAndThinking returns Text(msg) and Thinking(msg) from one walk of the
// message: what a chat delta needs, on the hot path. The content blocks are
// read where the walk meets them, not skipped and walked again. texts (may
// be nil) decodes the text, so a cumulative text already decoded from the
// agent stream is not decoded again.
func TextAndThinking(msg []byte, texts *jsonx.StrMemo) (text string, hasText bool, thinking string, hasThinking bool) {
	var both [nXF + 1][]byte
	var tb, th joiner // the last content array's text blocks and rule 1
	var it jsonx.Iter
	it.Reset(msg)
	if !it.Object() {
		return "", false, "", false
	}
	for {
		k, ok := it.Key()
		if !ok {
			break
		}
		i := nameIndex(k, msgBothFields)
		if i == xf2 && it.Peek() == '[' {
			start := it.Pos()
			tb, th = joiner{}, joiner{}
			walkBlocks(&it, &tb, &th, texts)
			both[xf2] = it.Since(start)
			continue
		}
		if v := it.Skip(); i >= 0 {
			both[i] = v
		}
	}
	if it.Err() != nil {
		// Not valid JSON after all: the callback walk, whatever it makes
		// of it (the package promises no more than no panic).
		return textAndThinkingSlow(msg, texts)
	}
	return textAndThinkingOf(&both, tb.String(), tb.n > 0, th.String(), texts)
}

// textAndThinkingOf finishes TextAndThinking over the scanned members and,
// when content is an array, what its blocks gave.
func textAndThinkingOf(both *[nXF + 1][]byte, blockText string, hasBlockText bool, blocks string, texts *jsonx.StrMemo) (text string, hasText bool, thinking string, hasThinking bool) {
	f := (*[nXF][]byte)(both[:nXF])
	if jsonx.KindOf(f[xf2]) != jsonx.Array {
		text, hasText = textOf(both[nXF], f[xf2], f[xfT], texts)
		thinking, hasThinking = thinkingOf(f)
		return
	}
	// Content blocks give both the joined text (Text's source, and the raw
	// text thinking's tag rules read) and thinking's rule 1.
	raw, hasRaw := blockText, hasBlockText
	if !hasRaw {
		raw, hasRaw = str(f[xfT])
	}
	if hasRaw {
		text, hasText = roleText(both[nXF], raw), true
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

// walkBlocks reads a content array at it, block by block, into Text's
// joined text blocks and Thinking's rule 1.
func walkBlocks(it *jsonx.Iter, tb, th *joiner, texts *jsonx.StrMemo) {
	if !it.Array() {
		return
	}
	for it.Elem() {
		if it.Peek() != '{' {
			it.Skip()
			continue
		}
		var f [nXF][]byte
		it.Object()
		for {
			k, ok := it.Key()
			if !ok {
				break
			}
			v := it.Skip()
			if i := nameIndex(k, blockThinkingFields); i >= 0 {
				f[i] = v
			}
		}
		addBlock(&f, tb, th, texts)
	}
}

// addBlock adds one content block to the joined text and rule 1.
func addBlock(f *[nXF][]byte, tb, th *joiner, texts *jsonx.StrMemo) {
	if strIs(f[xf2], "text") && jsonx.KindOf(f[xfT]) == jsonx.String {
		if t, ok := texts.Str(f[xfT]); ok {
			tb.add(t)
		}
	}
	if part := blockPart(f); part != "" {
		th.add(part)
	}
}

// textAndThinkingSlow is TextAndThinking by callbacks, for input the
// iterator gives up on.
func textAndThinkingSlow(msg []byte, texts *jsonx.StrMemo) (string, bool, string, bool) {
	var both [nXF + 1][]byte
	if !members(msg, msgBothFields, both[:]) {
		return "", false, "", false
	}
	var tb, th joiner
	if jsonx.KindOf(both[xf2]) == jsonx.Array {
		_ = jsonx.ArrayEach(both[xf2], func(e []byte) bool {
			var f [nXF][]byte
			if jsonx.KindOf(e) == jsonx.Object && members(e, blockThinkingFields, f[:]) {
				addBlock(&f, &tb, &th, texts)
			}
			return true
		})
	}
	return textAndThinkingOf(&both, tb.String(), tb.n > 0, th.String(), texts)
}

// tagThinking is Thinking's rules 3 and 4 over the raw text.
func tagThinking(raw string) (string, bool) {
	if strings.IndexByte(raw, '<') < 0 {
		return "", false
	}
	if s, _, _, _ := closedBlocks(raw, textTags); s != "" {
		return s, true
	}
	if s := taggedStream(raw); s != "" {
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
	if !mayHaveTag(content) && !mayHaveTag(f[xfT]) {
		return "", false // no '<' at all: skip decoding the text again
	}
	raw, ok := rawText(content, f[xfT], nil)
	if !ok {
		return "", false
	}
	return tagThinking(raw)
}

// blockPart is what one content block gives rule 1: a thinking, analysis
// or reasoning block its first non-empty direct thinking key, else its own
// trimmed text; any other block its trimmed "thinking" string.
func blockPart(f *[nXF][]byte) string {
	t := f[xf2]
	if strIs(t, "thinking") || strIs(t, "analysis") || strIs(t, "reasoning") {
		if s, ok := firstThinkingKey(f); ok {
			return s
		}
		if s, ok := str(f[xfT]); ok {
			return trim(s)
		}
		return ""
	}
	if s, ok := str(f[0]); ok { // f[0] is "thinking"
		return trim(s)
	}
	return ""
}

// blockThinking is rule 1.
func blockThinking(content []byte) string {
	var j joiner
	_ = jsonx.ArrayEach(content, func(e []byte) bool {
		if jsonx.KindOf(e) != jsonx.Object {
			return true
		}
		var f [nXF][]byte
		if !members(e, blockThinkingFields, f[:]) {
			return true
		}
		if part := blockPart(&f); part != "" {
			j.add(part)
		}
		return true
	})
	return j.String()
}

// taggedStream is rule 4.
func taggedStream(s string) string {
	joined, last, hasOpen, closedAfter := closedBlocks(s, streamTags)
	if hasOpen && !closedAfter {
		return trim(s[last.end:])
	}
	return joined
}

// mayHaveTag reports whether raw JSON could decode to text holding a '<'
// (literally or escaped as \u003c).
func mayHaveTag(raw []byte) bool {
	return bytes.IndexByte(raw, '<') >= 0 || bytes.Contains(raw, []byte(`\u003c`)) || bytes.Contains(raw, []byte(`\u003C`))
}
