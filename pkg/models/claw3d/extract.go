package claw3d

import (
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/jsstr"
	"github.com/clawtap/clawtap/pkg/message"
)

// Claw3D's message-extract.ts (pipeline-spec §3): extractText,
// extractThinking and extractToolLines with the [C3D] differences from
// clawboo's rules in pkg/message:
//
//   - the envelope knows twelve channels (StripEnvelope);
//   - thinking keys also come in snake_case, and a key may hold an object
//     whose text|delta|content|summary|analysis|reasoning|thinking is read;
//   - closed thinking blocks pair same-name tags lazily
//     (closedBlocksSameName).
//
// Everything else is clawboo's rule; tool lines are pkg/message's
// ToolLines with the result's output read through the twelve-channel
// envelope.

// thinkingKeys are the direct thinking keys in priority order: clawboo's
// nine camelCase keys, then [C3D]'s snake_case forms. The spec does not
// give Claw3D's order between the two spellings; when a message carries
// both, the camelCase key wins.
var thinkingKeys = [...]string{
	"thinking", "analysis", "reasoning",
	"thinkingText", "thinkingDelta", "analysisText", "analysisDelta", "reasoningText", "reasoningDelta",
	"thinking_text", "thinking_delta", "analysis_text", "analysis_delta", "reasoning_text", "reasoning_delta",
}

const nThinkingKeys = len(thinkingKeys)

// nestedThinkingKeys are read, in order, from an object held by a
// thinking key [C3D].
var nestedThinkingKeys = []string{"text", "delta", "content", "summary", "analysis", "reasoning", "thinking"}

// Scan layouts: the thinking keys, then three more members.
var (
	msgFields   = append(thinkingKeys[:nThinkingKeys:nThinkingKeys], "content", "text", "role")
	blockFields = append(thinkingKeys[:nThinkingKeys:nThinkingKeys], "type", "text")
)

const (
	fContent = nThinkingKeys     // message: content; block: type
	fText    = nThinkingKeys + 1 // text
	fRole    = nThinkingKeys + 2 // message: role (blocks have no third member)
	nFields  = nThinkingKeys + 3
)

// thinkingValue reads a thinking key's value: a string trimmed, or [C3D]
// an object's first non-empty trimmed string member among
// nestedThinkingKeys. "" when there is none.
func thinkingValue(v []byte) string {
	switch jsonx.KindOf(v) {
	case jsonx.String:
		s, _ := jsonx.Str(v)
		return jsstr.Trim(s)
	case jsonx.Object:
		var f [7][]byte
		if !jsonx.Members(v, nestedThinkingKeys, f[:]) {
			return ""
		}
		for _, m := range f {
			if s, ok := str(m); ok {
				if s = jsstr.Trim(s); s != "" {
					return s
				}
			}
		}
	}
	return ""
}

// firstThinkingKey is extractThinking's rule 2 over scanned members.
func firstThinkingKey(f *[nFields][]byte) string {
	for i := 0; i < nThinkingKeys; i++ {
		if f[i] != nil {
			if s := thinkingValue(f[i]); s != "" {
				return s
			}
		}
	}
	return ""
}

// msgScan is what one walk of a message gives: its members, the raw text
// (extractText's source), the thinking of its content blocks, and whether
// any block is a tool call.
type msgScan struct {
	f           [nFields][]byte
	ok          bool // the message is an object
	raw         string
	hasRaw      bool
	blocks      string // rule 1 of extractThinking
	hasToolCall bool
}

// scanMessage walks msg once. texts (may be nil) decodes the text, so a
// cumulative reply decoded already (from the agent stream) is not decoded
// again.
func scanMessage(msg []byte, texts *jsonx.StrMemo, m *msgScan) {
	*m = msgScan{}
	if m.ok = jsonx.Members(msg, msgFields, m.f[:]); !m.ok {
		return
	}
	content := m.f[fContent]
	switch jsonx.KindOf(content) {
	case jsonx.String:
		m.raw, m.hasRaw = texts.Str(content)
	case jsonx.Array:
		var text, think message.Joiner
		_ = jsonx.ArrayEach(content, func(e []byte) bool {
			var b [nFields][]byte
			if jsonx.KindOf(e) != jsonx.Object || !jsonx.Members(e, blockFields, b[:len(blockFields)]) {
				return true
			}
			if jsonx.StrIs(b[fContent], "text") {
				if s, ok := strMemo(texts, b[fText]); ok {
					text.Add(s)
				}
			} else if jsonx.StrIs(b[fContent], "toolCall") {
				m.hasToolCall = true
			}
			if part := blockThinking(&b); part != "" {
				think.Add(part)
			}
			return true
		})
		m.raw, m.hasRaw = text.String(), text.Len() > 0
		m.blocks = think.String()
	}
	if !m.hasRaw {
		m.raw, m.hasRaw = strMemo(texts, m.f[fText])
	}
}

func strMemo(texts *jsonx.StrMemo, v []byte) (string, bool) {
	if jsonx.KindOf(v) != jsonx.String {
		return "", false
	}
	return texts.Str(v)
}

// blockThinking is what one content block gives rule 1: pkg/message's
// rule with Claw3D's direct keys.
func blockThinking(b *[nFields][]byte) string {
	return message.BlockThinking(b[fContent], b[fText], b[0], func() string { // thinkingKeys[0] is "thinking"
		return firstThinkingKey(b)
	})
}

// text is extractText over the scan.
func (m *msgScan) text() (string, bool) {
	if !m.hasRaw {
		return "", false
	}
	return roleText(jsonx.StrIs(m.f[fRole], "assistant"), m.raw), true
}

// roleText is extractText's post-processing: for the assistant, clawboo's
// (thinking tags, then the reply marker); for any other role the envelope
// of Claw3D's twelve channels and then the approval-policy suffix.
func roleText(assistant bool, s string) string {
	if assistant {
		return message.AssistantText(s)
	}
	return message.StripApprovalPolicy(StripEnvelope(s))
}

// thinking is extractThinking over the scan: content blocks, direct keys,
// same-name closed tag blocks, the tagged stream.
func (m *msgScan) thinking() (string, bool) {
	if !m.ok {
		return "", false
	}
	if m.blocks != "" {
		return m.blocks, true
	}
	if s := firstThinkingKey(&m.f); s != "" {
		return s, true
	}
	if m.hasRaw {
		return thinkingFromTags(m.raw)
	}
	return "", false
}

// thinkingFromTags is extractThinking's rules 3 and 4 over raw text:
// rule 3 pairs same-name tags [C3D], rule 4 is clawboo's.
func thinkingFromTags(raw string) (string, bool) {
	if s := closedBlocksSameName(raw); s != "" {
		return s, true
	}
	if s := message.TaggedStream(raw); s != "" {
		return s, true
	}
	return "", false
}

// knownRoles are answered without decoding (a delta names its role on
// every frame).
var knownRoles = [...]string{"assistant", "user", "system", "tool", "toolResult"}

// role returns the message's role when it is a string.
func (m *msgScan) role() string {
	v := m.f[fRole]
	for _, r := range knownRoles {
		if len(v) == len(r)+2 && string(v[1:len(v)-1]) == r && v[0] == '"' {
			return r
		}
	}
	r, _ := str(v)
	return r
}

// Text is Claw3D's extractText; ok is false where it returns null (msg is
// not an object, or has no text source).
func Text(msg []byte) (string, bool) {
	var m msgScan
	scanMessage(msg, nil, &m)
	return m.text()
}

// Thinking is Claw3D's extractThinking; ok is false where it returns null.
func Thinking(msg []byte) (string, bool) {
	var m msgScan
	scanMessage(msg, nil, &m)
	return m.thinking()
}

// ToolLines is Claw3D's extractToolLines: pkg/message's ToolLines, except
// that a tool result's output loses a leading envelope of any of Claw3D's
// twelve channels.
func ToolLines(msg []byte) []string {
	var m msgScan
	scanMessage(msg, nil, &m)
	return m.toolLines(msg)
}

// toolLines is ToolLines over the scan; msg is the scanned message.
func (m *msgScan) toolLines(msg []byte) []string {
	if !m.ok {
		return nil
	}
	role := m.f[fRole]
	isTool := jsonx.StrIs(role, "toolResult") || jsonx.StrIs(role, "tool")
	if !m.hasToolCall && !isTool {
		return nil // the common case: no call block, not a result
	}
	return message.ToolLinesWithChannels(msg, envelopeChannels)
}

// AssistantText is extractText({role:"assistant", content: raw}): what
// the agent stream's raw text shows.
func AssistantText(raw string) string { return message.AssistantText(raw) }

// FormatThinking is formatThinkingMarkdown: a "[[trace]]" line, or "".
func FormatThinking(thinking string) string { return message.FormatTrace(thinking) }
