package bridge

import (
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/message"
)

// derived is what the stages that read an event derived from its payload
// members, kept with them: the Policy reads a chat or agent payload and
// decodes a delta's streamed text, and the observers after it in the pass
// (check, the report) read the same instead of converting the members and
// decoding the payload again. A Classifier resets it with the members.
type derived struct {
	dataText   string
	dataTextOK bool
	msgText    string
	msgThink   string
	msgHasText bool
	msgHasTh   bool
	toolLines  []string
	chatOK     bool
	agentOK    bool
	has        uint8 // hasDataText, hasMsgText, hasMsgThinking, hasChat, hasAgent, hasToolLines
	// shared: several goroutines read these members (Event.Detach), so
	// what is not derived yet is derived for the reader and not kept.
	shared bool
	chat   ChatPayload
	agent  AgentPayload
}

const (
	hasDataText uint8 = 1 << iota
	hasMsgText
	hasMsgThinking
	hasChat
	hasAgent
	hasToolLines
)

// DataTextString is jsonx.Str of the payload's data.text (DataMember),
// decoded through memo (nil: none; see jsonx.StrMemo) once per event when
// the classifier captured the payload's members.
func (ev *Event) DataTextString(memo *jsonx.StrMemo) (string, bool) {
	m := ev.captured()
	if m == nil {
		raw, _ := ev.DataMember("text")
		return memo.Str(raw)
	}
	d := &m.derived
	if d.has&hasDataText == 0 {
		if d.shared {
			return memo.Str(m.dataText)
		}
		d.dataText, d.dataTextOK = memo.Str(m.dataText)
		d.has |= hasDataText
	}
	return d.dataText, d.dataTextOK
}

// Derive derives ahead what the Policy and the observers read of a chat
// or an agent event (the payload parsed, the message's text and thinking,
// the agent's data.text), so that the pass, one goroutine that the
// Policy, the UI model and every observer share, finds it done: the
// classifying stage calls it (pipeline.Records). texts is the stage's own
// memo; a memo gives the same text whichever decodes it, and one that
// sees every text of a stream in turn decodes each only by what it adds.
func (ev *Event) Derive(texts *jsonx.StrMemo) {
	if ev.Type != "event" || ev.captured() == nil {
		return
	}
	switch ev.Event {
	case "chat":
		var p ChatPayload
		if ev.Chat(&p) {
			ev.MessageTextAndThinking(texts)
		}
	case "agent":
		var a AgentPayload
		if ev.Agent(&a) {
			ev.DataTextString(texts)
		}
	}
}

// MessageTextAndThinking is message.TextAndThinking of the payload's
// message (Member("message")) through texts, derived once per event when
// the classifier captured the payload's members.
func (ev *Event) MessageTextAndThinking(texts *jsonx.StrMemo) (text string, hasText bool, thinking string, hasThinking bool) {
	m := ev.captured()
	if m == nil {
		raw, _ := ev.Member("message")
		return message.TextAndThinking(raw, texts)
	}
	d := &m.derived
	if d.has&hasMsgThinking == 0 {
		if d.shared {
			return message.TextAndThinking(m.message, texts)
		}
		d.msgText, d.msgHasText, d.msgThink, d.msgHasTh = message.TextAndThinking(m.message, texts)
		d.has |= hasMsgText | hasMsgThinking
	}
	return d.msgText, d.msgHasText, d.msgThink, d.msgHasTh
}

// MessageText is message.TextVia of the payload's message through texts,
// derived once per event (or taken from MessageTextAndThinking) when the
// classifier captured the payload's members.
func (ev *Event) MessageText(texts *jsonx.StrMemo) (string, bool) {
	m := ev.captured()
	if m == nil {
		raw, _ := ev.Member("message")
		return message.TextVia(raw, texts)
	}
	d := &m.derived
	if d.has&hasMsgText == 0 {
		if d.shared {
			return message.TextVia(m.message, texts)
		}
		d.msgText, d.msgHasText = message.TextVia(m.message, texts)
		d.has |= hasMsgText
	}
	return d.msgText, d.msgHasText
}

// MessageToolLines is message.ToolLines of the payload's message, derived
// once per event when the classifier captured the payload's members. The
// lines are shared: callers must not change them.
func (ev *Event) MessageToolLines() []string {
	m := ev.captured()
	if m == nil {
		raw, _ := ev.Member("message")
		return message.ToolLines(raw)
	}
	d := &m.derived
	if d.has&hasToolLines == 0 {
		if d.shared {
			return message.ToolLines(m.message)
		}
		d.toolLines = message.ToolLines(m.message)
		d.has |= hasToolLines
	}
	return d.toolLines
}

// FinalLines are the lines a chat final commits to a transcript: its
// text, when it has one, then its tool lines; and its text. Both are the
// message's, derived once for every reader.
func (ev *Event) FinalLines() ([]string, string) {
	lines := []string{}
	text, hasText := ev.MessageText(nil)
	if hasText && text != "" {
		lines = append(lines, text)
	}
	return append(lines, ev.MessageToolLines()...), text
}

// TerminalLines are the lines an agent's chat terminal carries for its
// transcript: a final's FinalLines, none for aborted and error; false
// for any other frame, or a chat frame without an agent.
func (ev *Event) TerminalLines() ([]string, bool) {
	if ev.Kind != RuntimeChat || ev.AgentID == "" {
		return nil, false
	}
	var p ChatPayload
	if !ev.Chat(&p) {
		return nil, false
	}
	switch p.State {
	case "final":
		lines, _ := ev.FinalLines()
		return lines, true
	case "aborted", "error":
		return []string{}, true
	}
	return nil, false
}
