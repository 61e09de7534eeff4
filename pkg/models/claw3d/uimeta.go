package claw3d

import (
	"strings"

	"github.com/clawtap/clawtap/pkg/jsstr"
	"github.com/clawtap/clawtap/pkg/message"
)

// Claw3D's text helpers beyond extraction (pipeline-spec §3.1, §3.5):
// the envelope with Claw3D's twelve channels (pkg/message's rule over a
// longer list), stripUiMetadata, isUiMetadataPrefix, isHeartbeatPrompt
// and normalizeAssistantDisplayText.

// envelopeChannels are Claw3D's channel names: clawboo's nine plus Zalo,
// Zalo Personal and BlueBubbles [C3D].
var envelopeChannels = append(message.EnvelopeChannels(), "Zalo", "Zalo Personal", "BlueBubbles")

// StripEnvelope removes a leading "[header]" and the whitespace after it
// when the header (the non-empty text up to the first ']', possibly over
// several lines) contains a YYYY-MM-DDTHH:MMZ or YYYY-MM-DD HH:MM stamp or
// starts with "<Channel> " for one of Claw3D's twelve channels.
func StripEnvelope(s string) string { return message.StripEnvelope(s, envelopeChannels) }

// Markers and prefixes of the text a Studio puts into prompts.
const (
	// AutoResumeMarker marks the message Claw3D sends to resume a run
	// after an exec approval; such a message is hidden.
	AutoResumeMarker = "[[claw3d:auto-resume-exec-approval]]"

	newSessionPrefix = "A new session was started via /new or /reset"
	projectPrefix    = "Project path:"
	workspacePrefix  = "Workspace path:"
)

// IsUIMetadataPrefix is Claw3D's isUiMetadataPrefix: the text starts with
// "Project path:", "Workspace path:" or "A new session was started via
// /new or /reset". Callers pass trimmed text.
func IsUIMetadataPrefix(s string) bool {
	return strings.HasPrefix(s, projectPrefix) || strings.HasPrefix(s, workspacePrefix) ||
		strings.HasPrefix(s, newSessionPrefix)
}

// IsHeartbeatPrompt reports whether text is the heartbeat prompt: trimmed,
// it starts with "Read HEARTBEAT.md if it exists", or it contains
// "Heartbeat file path:".
func IsHeartbeatPrompt(s string) bool {
	return strings.HasPrefix(jsstr.Trim(s), "Read HEARTBEAT.md if it exists") || strings.Contains(s, "Heartbeat file path:")
}

// StripUIMetadata is Claw3D's stripUiMetadata:
//
//  1. text holding AutoResumeMarker, or matching the legacy
//     /exec approval was granted[\s\S]*continue where you left off/i,
//     becomes "";
//  2. a leading "A new session was started via /new or /reset … reasoning."
//     preamble is removed, up to the first "reasoning." and the whitespace
//     after it;
//  3. a leading "System: [" block is removed through the first blank
//     line ("\n\n") after its "]";
//  4. a leading "Project path:"/"Workspace path:" inline form is removed
//     up to the first "memory_search." and the whitespace after it; if
//     there is none, the block form up to the first "\n\n" is;
//  5. every "[message_id:…]" marker goes with the whitespace around it;
//  6. the text is trimmed;
//  7. the envelope is stripped.
//
// The anchored steps (2–4) allow leading whitespace, as /^\s*…/ does.
// Claw3D's regexps are not given verbatim by the spec; these are the
// readings taken.
func StripUIMetadata(s string) string {
	if strings.Contains(s, AutoResumeMarker) || isLegacyAutoResume(s) {
		return ""
	}
	s = stripNewSessionPreamble(s)
	s = stripSystemBlock(s)
	s = stripProjectPath(s)
	s = stripMessageIDs(s)
	return StripEnvelope(jsstr.Trim(s))
}

func isLegacyAutoResume(s string) bool {
	i := indexFold(s, "exec approval was granted")
	return i >= 0 && indexFold(s[i+len("exec approval was granted"):], "continue where you left off") >= 0
}

// cutThrough removes s[:i+len(sep)] plus following whitespace when the
// text after skipping leading whitespace starts with prefix and sep occurs
// after the prefix; ok reports whether it did.
func cutThrough(s, prefix, sep string, eatSpace bool) (string, bool) {
	start := jsstr.SkipSpace(s, 0)
	if !strings.HasPrefix(s[start:], prefix) {
		return s, false
	}
	from := start + len(prefix)
	i := strings.Index(s[from:], sep)
	if i < 0 {
		return s, false
	}
	end := from + i + len(sep)
	if eatSpace {
		end = jsstr.SkipSpace(s, end)
	}
	return s[end:], true
}

func stripNewSessionPreamble(s string) string {
	out, _ := cutThrough(s, newSessionPrefix, "reasoning.", true)
	return out
}

func stripSystemBlock(s string) string {
	start := jsstr.SkipSpace(s, 0)
	if !strings.HasPrefix(s[start:], "System: [") {
		return s
	}
	j := strings.IndexByte(s[start:], ']')
	if j < 0 {
		return s
	}
	k := strings.Index(s[start+j:], "\n\n")
	if k < 0 {
		return s
	}
	return s[start+j+k+2:]
}

func stripProjectPath(s string) string {
	for _, p := range [...]string{projectPrefix, workspacePrefix} {
		if out, ok := cutThrough(s, p, "memory_search.", true); ok {
			return out
		}
	}
	for _, p := range [...]string{projectPrefix, workspacePrefix} {
		if out, ok := cutThrough(s, p, "\n\n", false); ok {
			return out
		}
	}
	return s
}

// stripMessageIDs removes /\s*\[message_id:[^\]]*\]\s*/g.
func stripMessageIDs(s string) string {
	const marker = "[message_id:"
	i := strings.Index(s, marker)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0 // end of the previous match
	for i >= 0 {
		close := strings.IndexByte(s[i+len(marker):], ']')
		if close < 0 {
			break // no ']' after this marker, nor after any later one
		}
		start := i
		for start > last {
			n := lastSpaceLen(s[last:start])
			if n == 0 {
				break
			}
			start -= n
		}
		b.WriteString(s[last:start])
		last = jsstr.SkipSpace(s, i+len(marker)+close+1)
		j := strings.Index(s[last:], marker)
		if j < 0 {
			break
		}
		i = last + j
	}
	b.WriteString(s[last:])
	return b.String()
}

// lastSpaceLen is the byte length of the JS whitespace character s ends
// with, or 0.
func lastSpaceLen(s string) int {
	for n := 1; n <= 3 && n <= len(s); n++ {
		if jsstr.SpaceAt(s, len(s)-n) == n {
			return n
		}
	}
	return 0
}

// NormalizeAssistantDisplayText is Claw3D's normalizeAssistantDisplayText:
// CRLF and CR become LF, spaces and tabs at the end of each line go, runs
// of blank lines collapse into one blank line, and the result is trimmed.
func NormalizeAssistantDisplayText(s string) string {
	if !strings.ContainsAny(s, "\r \t\n") {
		return jsstr.Trim(s)
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	var b strings.Builder
	b.Grow(len(s))
	newlines := 0 // consecutive "\n" written
	for rest := s; ; {
		line, tail, more := strings.Cut(rest, "\n")
		line = strings.TrimRight(line, " \t")
		if line != "" {
			newlines = 0
			b.WriteString(line)
		}
		if !more {
			break
		}
		if newlines < 2 {
			b.WriteByte('\n')
			newlines++
		}
		rest = tail
	}
	return jsstr.Trim(b.String())
}
