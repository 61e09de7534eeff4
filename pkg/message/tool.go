package message

import (
	"github.com/clawtap/clawtap/pkg/jsonx"
)

var toolMsgFields = []string{"role", "content", "text", "toolName", "toolCallId", "details", "isError"}

const (
	mfRole = iota
	mfContent
	mfText
	mfToolName
	mfToolCallID
	mfDetails
	mfIsError
	nToolMsgFields
)

var callFields = []string{"type", "name", "id", "arguments"}

var detailFields = []string{"status", "exitCode", "durationMs", "cwd"}

// ToolLines is extractToolLines (pipeline-spec §3.3): one line per
// {type:"toolCall"} content block, in order, then, for role toolResult or
// tool only, one result line. Each line starts with "[[tool]]" or
// "[[tool-result]]" and may span several physical lines. A message that is
// not an object gives no lines (nil).
//
// Call:   "[[tool]] " + (trimmed string name, or "tool" when that is empty
// or not a string) + (" (" + id + ")" when id is a non-empty string), then,
// when the rendered arguments are non-empty, "\n```json\n" + args +
// "\n```". The arguments are the block's "arguments" member rendered as
// the reference's formatJson does: a string trimmed, a number or boolean
// as JavaScript's String(v), null (or a missing member) as nothing, and
// anything else as JSON.stringify(v, null, 2) ({} renders "{}").
//
// Result: "[[tool-result]] " + (toolName trimmed, when that is a non-empty
// string, else "tool") + (" (" + toolCallId + ")" when a non-empty string),
// then, when there is a body, "\n" + body. The body joins with "\n": the
// meta line — details.status trimmed (if non-empty), "exit
// <details.exitCode>" (if a number), "<details.durationMs>ms" (if a
// number), details.cwd trimmed (if non-empty) and "error" (if isError is
// true), joined with " · " —
// when non-empty, and "```text\n" + output + "\n```" when the trimmed
// output of Text(msg) is non-empty.
func ToolLines(msg []byte) []string { return ToolLinesWithChannels(msg, envelopeChannels) }

// ToolLinesWithChannels is ToolLines with the result's output read through
// the envelope of channels (see StripEnvelope) instead of clawboo's.
func ToolLinesWithChannels(msg []byte, channels []string) []string {
	var f [nToolMsgFields][]byte
	if !jsonx.Members(msg, toolMsgFields, f[:]) {
		return nil
	}
	var lines []string
	if jsonx.KindOf(f[mfContent]) == jsonx.Array {
		_ = jsonx.ArrayEach(f[mfContent], func(e []byte) bool {
			if jsonx.KindOf(e) != jsonx.Object {
				return true
			}
			var c [4][]byte
			if jsonx.Members(e, callFields, c[:]) && jsonx.StrIs(c[0], "toolCall") {
				lines = append(lines, toolCallLine(c[1], c[2], c[3]))
			}
			return true
		})
	}
	if jsonx.StrIs(f[mfRole], "toolResult") || jsonx.StrIs(f[mfRole], "tool") {
		lines = append(lines, toolResultLine(&f, channels))
	}
	return lines
}

func toolCallLine(name, id, args []byte) string {
	var b []byte
	b = append(b, "[[tool]] "...)
	n, _ := str(name)
	if n = trim(n); n == "" {
		n = "tool"
	}
	b = append(b, n...)
	if s, ok := str(id); ok && s != "" {
		b = append(b, " ("...)
		b = append(b, s...)
		b = append(b, ')')
	}
	if a := formatArgs(args); a != "" {
		b = append(b, "\n```json\n"...)
		b = append(b, a...)
		b = append(b, "\n```"...)
	}
	return string(b)
}

// formatArgs renders tool-call arguments as the reference's formatJson:
// "" when absent or null, a string trimmed.
func formatArgs(v []byte) string {
	switch jsonx.KindOf(v) {
	case jsonx.String:
		s, _ := jsonx.Str(v)
		return trim(s)
	case jsonx.Number:
		return jsNumberString(v)
	case jsonx.Bool:
		return string(v)
	case jsonx.Object, jsonx.Array:
		return string(appendStringify(nil, v, 0))
	}
	return ""
}

func toolResultLine(f *[nToolMsgFields][]byte, channels []string) string {
	var b []byte
	b = append(b, "[[tool-result]] "...)
	if n, ok := str(f[mfToolName]); ok && trim(n) != "" {
		b = append(b, trim(n)...)
	} else {
		b = append(b, "tool"...)
	}
	if s, ok := str(f[mfToolCallID]); ok && s != "" {
		b = append(b, " ("...)
		b = append(b, s...)
		b = append(b, ')')
	}

	var meta []byte
	sep := func() {
		if len(meta) > 0 {
			meta = append(meta, " · "...)
		}
	}
	var d [4][]byte
	if jsonx.KindOf(f[mfDetails]) == jsonx.Object && jsonx.Members(f[mfDetails], detailFields, d[:]) {
		if s, ok := str(d[0]); ok {
			if s = trim(s); s != "" {
				sep()
				meta = append(meta, s...)
			}
		}
		if jsonx.KindOf(d[1]) == jsonx.Number {
			sep()
			meta = append(meta, "exit "...)
			meta = append(meta, jsNumberString(d[1])...)
		}
		if jsonx.KindOf(d[2]) == jsonx.Number {
			sep()
			meta = append(meta, jsNumberString(d[2])...)
			meta = append(meta, "ms"...)
		}
		if s, ok := str(d[3]); ok && trim(s) != "" {
			s = trim(s)
			sep()
			meta = append(meta, s...)
		}
	}
	if string(f[mfIsError]) == "true" {
		sep()
		meta = append(meta, "error"...)
	}

	out, _ := textOf(f[mfRole], f[mfContent], f[mfText], nil, channels)
	out = trim(out)

	if len(meta) > 0 {
		b = append(b, '\n')
		b = append(b, meta...)
	}
	if out != "" {
		b = append(b, '\n')
		b = append(b, "```text\n"...)
		b = append(b, out...)
		b = append(b, "\n```"...)
	}
	return string(b)
}
