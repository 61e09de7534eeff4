package claw3d

import (
	"strings"

	"github.com/clawtap/clawtap/pkg/jsstr"
)

// IsReasoningRuntimeAgentStream is Claw3D's test for a reasoning agent
// stream: the name is trimmed and lower-cased as JavaScript does; an empty
// name, or exactly "assistant", "tool" or "lifecycle", is not reasoning;
// otherwise it is reasoning when it contains "reason", "think", "analysis"
// or "trace". Unlike clawboo's substring deny-list, "assistant.reasoning"
// is reasoning.
func IsReasoningRuntimeAgentStream(stream string) bool {
	switch stream { // the streams of every run, answered without lower-casing
	case "assistant", "tool", "lifecycle", "":
		return false
	case "thinking", "reasoning":
		return true
	}
	s := jsstr.Lower(jsstr.Trim(stream))
	switch s {
	case "", "assistant", "tool", "lifecycle":
		return false
	}
	for _, hint := range [...]string{"reason", "think", "analysis", "trace"} {
		if strings.Contains(s, hint) {
			return true
		}
	}
	return false
}

// MergeRuntimeStream is Claw3D's mergeRuntimeStream, which takes both
// incremental and repeated frames. The first rule that applies wins:
//
//  1. inc is empty: cur;
//  2. cur is empty: inc;
//  3. inc starts with cur: inc;
//  4. cur starts with inc: cur;
//  5. cur ends with inc: cur;
//  6. inc ends with cur: inc;
//  7. otherwise cur + inc.
//
// Partial overlap is not detected: "abc" + "bcd" gives "abcbcd".
func MergeRuntimeStream(cur, inc string) string {
	switch {
	case inc == "":
		return cur
	case cur == "":
		return inc
	case strings.HasPrefix(inc, cur):
		return inc
	case strings.HasPrefix(cur, inc):
		return cur
	case strings.HasSuffix(cur, inc):
		return cur
	case strings.HasSuffix(inc, cur):
		return inc
	}
	return cur + inc
}

// ShouldPublishAssistantStream decides whether an assistant agent frame
// may write streamText. next is the visible text (it must be non-empty
// once trimmed). Then: with no chat frame seen for the run, publish; when
// the frame carries data.text (a non-empty string once trimmed), publish;
// when the agent has no streamText, publish; otherwise publish only when
// next strictly extends the current streamText (both trimmed), so the
// chat stream, which owns a run once it has spoken, is never overwritten
// by a shorter or diverging agent snapshot.
func ShouldPublishAssistantStream(next string, dataText string, hasChatEvents bool, current string) bool {
	n := jsstr.Trim(next)
	if n == "" {
		return false
	}
	if !hasChatEvents || jsstr.Trim(dataText) != "" {
		return true
	}
	c := jsstr.Trim(current)
	if c == "" {
		return true
	}
	return len(n) > len(c) && strings.HasPrefix(n, c)
}

// reasoningPrefixBody returns the body of a "reasoning:" prefixed text
// (ASCII case-insensitive, after leading whitespace), trimmed; ok is false
// when the text has no such prefix.
func reasoningPrefixBody(s string) (string, bool) {
	t := jsstr.TrimStart(s)
	if !jsstr.HasPrefixFold(t, "reasoning:") {
		return "", false
	}
	return jsstr.Trim(t[len("reasoning:"):]), true
}
