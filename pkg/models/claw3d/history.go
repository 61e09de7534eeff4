package claw3d

import (
	"strings"

	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/jsstr"
	"github.com/clawtap/clawtap/pkg/message"
)

// HistoryLines is buildHistoryLines' result: transcript lines for a
// chat.history answer, and what it says about the last turns.
type HistoryLines struct {
	Lines           []string
	LastAssistant   string
	LastAssistantAt int64 // 0: unknown
	LastRole        string
	LastUser        string
	LastUserAt      int64 // 0: unknown
}

// BuildHistoryLines is Claw3D's buildHistoryLines over the messages array
// of a chat.history answer (§4.8):
//
//   - user: heartbeat prompts and "GatewayRestart:{" sentinels are
//     skipped; otherwise an optional "[[meta]]" (when the message has a
//     time), then "> " + stripUiMetadata(text); a message that strips to
//     nothing (an auto-resume) disappears;
//   - assistant: "[[meta]]", "[[trace]]", the tool lines, the normalized
//     text; when trace, tools and text are all empty, a terminal line
//     instead ("Run aborted." for stopReason aborted, "Error: <msg>" or
//     "Run error." for error, "Error: <msg>" for any other message with an
//     errorMessage); the meta line is dropped when nothing follows it;
//   - system: the tool lines only;
//   - any other role: the tool lines, else the text.
//
// A message that is not an object is skipped.
func BuildHistoryLines(messages []byte) HistoryLines {
	var h HistoryLines
	_ = jsonx.ArrayEach(messages, func(msg []byte) bool {
		if isObject(msg) {
			h.add(msg)
		}
		return true
	})
	return h
}

var historyFields = []string{"role", "stopReason", "errorMessage"}

func (h *HistoryLines) add(msg []byte) {
	var f [3][]byte
	jsonx.Members(msg, historyFields, f[:])
	role, _ := str(f[0])
	var m msgScan
	scanMessage(msg, nil, &m)
	text, _ := m.text()
	at, hasAt := historyTime(msg)
	switch role {
	case "user":
		if IsHeartbeatPrompt(text) || strings.HasPrefix(jsstr.Trim(text), "GatewayRestart:{") {
			return
		}
		cleaned := StripUIMetadata(text)
		if cleaned == "" {
			return
		}
		if hasAt {
			h.Lines = append(h.Lines, message.FormatMeta("user", at, nil))
		}
		h.Lines = append(h.Lines, "> "+cleaned)
		h.LastUser, h.LastUserAt = cleaned, at
	case "assistant":
		var body []string
		thinking, _ := m.thinking()
		if trace := FormatThinking(thinking); trace != "" {
			body = append(body, trace)
		}
		body = append(body, m.toolLines(msg)...)
		normalized := NormalizeAssistantDisplayText(text)
		if normalized != "" {
			body = append(body, normalized)
		}
		if len(body) == 0 {
			if line := terminalLine(f[1], f[2]); line != "" {
				body = append(body, line)
			}
		}
		if len(body) == 0 {
			return
		}
		if hasAt {
			h.Lines = append(h.Lines, message.FormatMeta("assistant", at, nil))
		}
		h.Lines = append(h.Lines, body...)
		if normalized != "" {
			h.LastAssistant, h.LastAssistantAt = normalized, at
		}
	case "system":
		h.Lines = append(h.Lines, m.toolLines(msg)...)
	default:
		if lines := m.toolLines(msg); len(lines) > 0 {
			h.Lines = append(h.Lines, lines...)
		} else if text != "" {
			h.Lines = append(h.Lines, text)
		}
	}
	h.LastRole = role
}

// terminalLine is the line of an assistant message with nothing else.
func terminalLine(stopReason, errorMessage []byte) string {
	stop, _ := str(stopReason)
	msg, _ := nonEmptyStr(errorMessage)
	switch {
	case stop == "aborted":
		return RunAbortedLine
	case stop == "error" && msg == "":
		return RunErrorLine
	case msg != "":
		return "Error: " + msg
	}
	return ""
}

// historyTime is a history message's time: timestamp, createdAt or at, a
// positive number or a date.
func historyTime(msg []byte) (int64, bool) {
	const none = -1
	if t := messageTime(msg, none); t != none {
		return t, true
	}
	return 0, false
}
