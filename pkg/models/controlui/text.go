package controlui

import (
	"strings"
	"unicode/utf8"

	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/jsstr"
)

// message is an assistant message as the pane reads it.
type message struct {
	ok     bool   // a message the pane counts (role assistant or none, with content or text)
	text   string // its text: non-blank text blocks joined by "\n"
	array  bool   // its content is an array
	hidden bool   // NO_REPLY, or a heartbeat ack
	id     string // its identity, to tell one final from another
	role   string
}

// rowText is a transcript row's text as the pane shows it, whatever its
// role: its string content, its text blocks, or its text.
func rowText(raw []byte) string {
	content, hasContent := jsonx.Get(raw, "content")
	switch {
	case hasContent && jsonx.KindOf(content) == jsonx.String:
		s, _ := jsonx.Str(content)
		return s
	case hasContent && jsonx.KindOf(content) == jsonx.Array:
		return arrayText(content, nil)
	}
	s, _ := jsonx.GetStr(raw, "text")
	return s
}

// metaSeq is the sequence a message itself carries (__openclaw.seq).
func metaSeq(raw []byte) int64 {
	meta, _ := jsonx.Get(raw, "__openclaw")
	return seqOf(meta, "seq")
}

// textMessage is an assistant message of one text block: the stream as
// the pane materialises it.
func textMessage(text string) []byte {
	b := append([]byte(`{"role":"assistant","content":[{"type":"text","text":`), jsonx.AppendString(nil, text)...)
	return append(b, `}]}`...)
}

// readMessage reads a payload's message (normalizeFinalAssistantMessage
// and the text rules, docs/ui-controlui.md), its texts decoded through
// texts (nil: none remembered).
func readMessage(raw []byte, texts *jsonx.StrMemo) message {
	var m message
	if jsonx.KindOf(raw) != jsonx.Object {
		return m
	}
	var mem [3][]byte
	jsonx.Members(raw, messageMembers, mem[:])
	role, hasRole := jsonx.Str(mem[0])
	if hasRole && role != "assistant" {
		return m // a user-role final is no message
	}
	m.role = "assistant"
	content, hasContent := mem[1], mem[1] != nil
	text, hasText := mem[2], mem[2] != nil
	switch {
	case hasContent && jsonx.KindOf(content) == jsonx.String:
		m.text, _ = texts.Str(content)
	case hasContent && jsonx.KindOf(content) == jsonx.Array:
		m.array = true
		m.text = arrayText(content, texts)
	case hasText && jsonx.KindOf(text) == jsonx.String:
		m.text, _ = texts.Str(text)
	default:
		return m
	}
	m.ok = true
	m.hidden = isHidden(m.text)
	return m
}

// The members readMessage and arrayText read, each object in one walk.
var (
	messageMembers = []string{"role", "content", "text"}
	blockMembers   = []string{"type", "text", "phase"}
)

// arrayText joins the non-blank text blocks with "\n", those whose phase
// is final_answer alone when there are any.
func arrayText(content []byte, texts *jsonx.StrMemo) string {
	var all, final []string
	_ = jsonx.ArrayEach(content, func(b []byte) bool {
		var mem [3][]byte
		jsonx.Members(b, blockMembers, mem[:])
		if t, _ := jsonx.Str(mem[0]); t != "text" {
			return true
		}
		s, ok := texts.Str(mem[1])
		if !ok || jsstr.Trim(s) == "" {
			return true
		}
		all = append(all, s)
		if p, _ := jsonx.Str(mem[2]); p == "final_answer" {
			final = append(final, s)
		}
		return true
	})
	if len(final) > 0 {
		return strings.Join(final, "\n")
	}
	return strings.Join(all, "\n")
}

// identity is what tells two finals of a run apart: the message's
// __openclaw.id, else its seq, else its role and content.
func identity(raw []byte) string {
	if id, ok := jsonx.GetPath(raw, "__openclaw", "id"); ok {
		return "id:" + string(id)
	}
	if seq, ok := jsonx.GetPath(raw, "__openclaw", "seq"); ok {
		return "seq:" + string(seq)
	}
	content, _ := jsonx.Get(raw, "content")
	return "content:" + string(content)
}

const heartbeatToken = "HEARTBEAT_OK"

// isHidden: the pane never shows a message whose text trims to NO_REPLY,
// nor a heartbeat acknowledgement (the token, with at most 300 characters
// besides).
func isHidden(text string) bool {
	t := jsstr.Trim(text)
	if t == "NO_REPLY" {
		return true
	}
	if !strings.Contains(t, heartbeatToken) {
		return false
	}
	rest := jsstr.Trim(strings.ReplaceAll(t, heartbeatToken, ""))
	return utf8.RuneCountInString(rest) <= 300
}

// errorText is the banner's text: the error message with "Error: " in
// front (unless it has one, or a warning sign), else the message's text,
// else "chat error".
func errorText(errorMessage string, hasError bool, msg message) string {
	if e := jsstr.Trim(errorMessage); hasError && e != "" {
		if strings.HasPrefix(e, "⚠️") || strings.HasPrefix(e, "Error:") {
			return e
		}
		return "Error: " + e
	}
	if msg.ok && msg.text != "" {
		return msg.text
	}
	return "chat error"
}
