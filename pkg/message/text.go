package message

import (
	"slices"
	"strings"

	"github.com/clawtap/clawtap/pkg/jsonx"
)

// Member indexes for the message scan done by Text.
var textFields = []string{"role", "content", "text"}

const (
	tfRole = iota
	tfContent
	tfText
	nTextFields
)

// Text is extractText (pipeline-spec §3.1). ok is false where the
// reference returns null: msg is not a JSON object, or it has no text
// source.
//
// The raw text is the first source that exists: content when it is a
// string; else the "text" strings of content blocks with type "text",
// joined with "\n" (this source exists only when there is at least one
// such block; non-object blocks are skipped); else message.text when it
// is a string.
//
// For role "assistant" thinking tags are stripped (see stripThinkingTags)
// and then a leading [[reply_to_current]] / [reply_to_current] marker. Any
// other role (or none) loses a leading channel envelope and a trailing
// exec-approval policy block.
func Text(msg []byte) (string, bool) { return TextVia(msg, nil) }

// TextVia is Text with the text decoded through memo (nil: without one):
// a text spelt like the one the memo decoded last is not decoded again —
// a chat delta repeats the cumulative text its agent event carried.
func TextVia(msg []byte, memo *jsonx.StrMemo) (string, bool) {
	var f [nTextFields][]byte
	if !jsonx.Members(msg, textFields, f[:]) {
		return "", false
	}
	return textOf(f[tfRole], f[tfContent], f[tfText], memo, envelopeChannels)
}

// RawText is a message's text before any tag stripping or role
// post-processing: a string content, else its text blocks joined with
// "\n", else message.text.
func RawText(msg []byte) (string, bool) {
	var f [nTextFields][]byte
	if !jsonx.Members(msg, textFields, f[:]) {
		return "", false
	}
	return rawText(f[tfContent], f[tfText], nil)
}

// textOf is Text over an already scanned message, with the envelope read
// over channels; memo (may be nil) decodes the text.
func textOf(role, content, text []byte, memo *jsonx.StrMemo, channels []string) (string, bool) {
	s, ok := rawText(content, text, memo)
	if !ok {
		return "", false
	}
	return roleText(role, s, channels), true
}

// roleText is Text's post-processing of the raw text, by role, with the
// envelope read over channels.
func roleText(role []byte, s string, channels []string) string {
	if jsonx.StrIs(role, "assistant") {
		return AssistantText(s)
	}
	return StripApprovalPolicy(StripEnvelope(s, channels))
}

// AssistantText is Text's post-processing of an assistant's raw text, the
// same in clawboo and Claw3D: thinking tags stripped (an unpaired tag
// leaks its body), then a leading [[reply_to_current]] marker.
func AssistantText(raw string) string { return stripReplyPrefix(stripThinkingTags(raw)) }

// rawText picks the text source shared by extractText and the tag rules
// of extractThinking. memo (may be nil) decodes the text.
func rawText(content, text []byte, memo *jsonx.StrMemo) (string, bool) {
	switch jsonx.KindOf(content) {
	case jsonx.String:
		if s, ok := memo.Str(content); ok {
			return s, true
		}
	case jsonx.Array:
		if s, ok := joinTextBlocks(content, memo); ok {
			return s, true
		}
	}
	return strVia(memo, text)
}

// joinTextBlocks joins the text of {type:"text", text:string} blocks with
// "\n". ok is false when there is no such block.
func joinTextBlocks(content []byte, memo *jsonx.StrMemo) (string, bool) {
	var j Joiner
	eachBlock(content, func(f [nXF][]byte) {
		if t, ok := blockText(&f, memo); ok {
			j.Add(t)
		}
	})
	return j.String(), j.Len() > 0
}

// blockText is the text of a {type:"text", text:string} content block.
func blockText(f *[nXF][]byte, memo *jsonx.StrMemo) (string, bool) {
	if !jsonx.StrIs(f[xf2], "text") {
		return "", false
	}
	return strVia(memo, f[xfT])
}

// stripReplyPrefix removes a leading "[[reply_to_current]]" or
// "[reply_to_current]" (ASCII case-insensitive), the whitespace after it,
// an optional "|" and, since the rest is trimStarted, all whitespace that
// follows. Text without the marker is returned unchanged.
func stripReplyPrefix(s string) string {
	var n int
	switch {
	case hasPrefixFold(s, "[[reply_to_current]]"):
		n = len("[[reply_to_current]]")
	case hasPrefixFold(s, "[reply_to_current]"):
		n = len("[reply_to_current]")
	default:
		return s
	}
	i := skipSpace(s, n)
	if i < len(s) && s[i] == '|' {
		i++
	}
	return trimStart(s[i:])
}

// envelopeChannels are clawboo's nine channel names; a header that starts
// with one of them followed by a space is an envelope ([C3D]'s extra Zalo,
// Zalo Personal and BlueBubbles are deliberately absent).
var envelopeChannels = []string{
	"WebChat", "WhatsApp", "Telegram", "Signal", "Slack", "Discord", "iMessage", "Teams", "Matrix",
}

// EnvelopeChannels returns clawboo's nine envelope channel names (a new
// slice), for a UI that knows these and more.
func EnvelopeChannels() []string { return slices.Clone(envelopeChannels) }

// StripEnvelope removes a leading "[header]" plus the whitespace after it
// when the header (the non-empty text up to the first ']'; it may span
// lines) contains a YYYY-MM-DDTHH:MMZ or YYYY-MM-DD HH:MM stamp or starts
// with "<Channel> " for one of channels: clawboo's EnvelopeChannels, or
// Claw3D's twelve. The spec writes the envelope as "[header] "; we read
// the separator as any run of JS whitespace (possibly none), the form the
// reference's `^\[([^\]]+)\]\s*` prefix takes.
func StripEnvelope(s string, channels []string) string {
	if len(s) < 3 || s[0] != '[' {
		return s
	}
	j := strings.IndexByte(s, ']')
	if j < 2 { // no ']' or empty header
		return s
	}
	if !isEnvelopeHeader(s[1:j], channels) {
		return s
	}
	return s[skipSpace(s, j+1):]
}

func isEnvelopeHeader(h string, channels []string) bool {
	for _, c := range channels {
		if len(h) > len(c) && h[len(c)] == ' ' && h[:len(c)] == c {
			return true
		}
	}
	return containsStamp(h)
}

// containsStamp reports whether h contains "dddd-dd-ddTdd:ddZ" or
// "dddd-dd-dd dd:dd" with ASCII digits d. (Like the spec, nothing is
// required after the minutes.)
func containsStamp(h string) bool {
	const n = len("dddd-dd-dd dd:dd")
	for i := 0; i+n <= len(h); i++ {
		if !isDigit(h[i]) {
			continue
		}
		t := h[i : i+n]
		if !(isDigit(t[1]) && isDigit(t[2]) && isDigit(t[3]) && t[4] == '-' &&
			isDigit(t[5]) && isDigit(t[6]) && t[7] == '-' && isDigit(t[8]) && isDigit(t[9]) &&
			isDigit(t[11]) && isDigit(t[12]) && t[13] == ':' && isDigit(t[14]) && isDigit(t[15])) {
			continue
		}
		if t[10] == ' ' || (t[10] == 'T' && i+n < len(h) && h[i+n] == 'Z') {
			return true
		}
	}
	return false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// The exec-approval policy block the Studio appends to user prompts. The
// spec pins its first line, its last characters and its length (four
// lines) but not the two middle lines, so the match is structural: the
// text must end with
//
//	"\n\nExecution approval policy:\n" + <line> + "\n" + <line> + "\n" + <line>
//
// where the last <line> ends with `Waiting for approved command result."`
// and no <line> contains "\n". That block (from the "\n\n" on) is removed;
// nothing is trimmed. A text with more or fewer lines after the policy
// header is left alone.
const (
	policyHead = "\n\nExecution approval policy:\n"
	policyTail = "Waiting for approved command result.\""
)

// StripApprovalPolicy removes that block (both UIs do, for any role but
// the assistant).
func StripApprovalPolicy(s string) string {
	if !strings.HasSuffix(s, policyTail) {
		return s
	}
	i := len(s)
	for k := 0; k < 3; k++ {
		i = strings.LastIndexByte(s[:i], '\n')
		if i < 0 {
			return s
		}
	}
	start := i + 1 - len(policyHead)
	if start < 0 || s[start:i+1] != policyHead {
		return s
	}
	return s[:start]
}
