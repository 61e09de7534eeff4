package message

import (
	"strings"

	"github.com/clawtap/clawtap/pkg/jsonx"
)

// Transcript line markers (pipeline-spec §3.4).
const (
	ToolPrefix       = "[[tool]]"
	ToolResultPrefix = "[[tool-result]]"
	TracePrefix      = "[[trace]]"
	MetaPrefix       = "[[meta]]"
)

// IsToolLine reports whether line is a tool call or tool result line: it
// starts with "[[tool]]" or "[[tool-result]]" (no trimming).
func IsToolLine(line string) bool {
	return strings.HasPrefix(line, ToolPrefix) || strings.HasPrefix(line, ToolResultPrefix)
}

// IsTraceLine reports whether line starts with "[[trace]]".
func IsTraceLine(line string) bool { return strings.HasPrefix(line, TracePrefix) }

// IsMetaLine reports whether line starts with "[[meta]]".
func IsMetaLine(line string) bool { return strings.HasPrefix(line, MetaPrefix) }

// FormatTrace renders thinking text as a "[[trace]]" line ([C3D]
// formatThinkingMarkdown; clawboo has only the test): "[[trace]]\n"
// followed by every line of thinking (split on "\n"), trimmed, empty ones
// dropped, each wrapped as "_line_", joined with "\n\n". Splitting on "\n"
// and trimming also handles CRLF. When no line is left the result is "".
func FormatTrace(thinking string) string {
	var b strings.Builder
	for rest := thinking; ; {
		line, tail, more := strings.Cut(rest, "\n")
		if line = trim(line); line != "" {
			if b.Len() == 0 {
				b.Grow(len(TracePrefix) + len(thinking) + 16)
				b.WriteString(TracePrefix)
				b.WriteByte('\n')
			} else {
				b.WriteString("\n\n")
			}
			b.WriteByte('_')
			b.WriteString(line)
			b.WriteByte('_')
		}
		if !more {
			break
		}
		rest = tail
	}
	return b.String()
}

// FormatMeta renders a "[[meta]]" line: the prefix followed by
// JSON.stringify({role, timestamp[, thinkingDurationMs]}) with the keys in
// that order and no spaces. The numbers are written as JavaScript writes
// them (exact for any integer below 2^53 in magnitude); the role is
// escaped as JSON.stringify does.
func FormatMeta(role string, timestamp int64, thinkingDurationMs *int64) string {
	b := make([]byte, 0, len(MetaPrefix)+len(role)+64)
	b = append(b, MetaPrefix...)
	b = append(b, `{"role":`...)
	b = jsonx.AppendStringMinimal(b, role)
	b = append(b, `,"timestamp":`...)
	b = appendJSNumber(b, float64(timestamp))
	if thinkingDurationMs != nil {
		b = append(b, `,"thinkingDurationMs":`...)
		b = appendJSNumber(b, float64(*thinkingDurationMs))
	}
	b = append(b, '}')
	return string(b)
}
