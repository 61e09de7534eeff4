package reshape

import (
	"github.com/clawtap/clawtap/pkg/jsonx"
)

// projection rebuilds live text the way the official gateway client does
// on a 2026.9.7 connection, so that reshape can check its own output as
// it writes it: upstream's GatewayChatStreamProjection and
// mergeChatStreamMessage (packages/gateway-client/src/chat-stream-
// projection.ts and chat-stream-message.ts; code index ids 68507237309
// and 68743561768), described in our words in docs/reshape.md. Per
// connection and run it keeps the message text; a delta's message wins,
// a delta without one appends its deltaText to the last text block (or
// replaces the text with replace:true), and a delta without one and
// without a baseline is the client's "chat stream baseline missing".
//
// The official client does not rebuild the agent stream; a client that
// does (the agent variant of the same rule, keyed by data.itemId) is
// modelled beside it, for the assistant events reshape rewrites.
type projection struct {
	chat  map[string]projText
	agent map[string]projText
}

type projText struct {
	session, agentID string
	item             string // agent: data.itemId
	hasItem          bool
	text             string
}

func newProjection() *projection {
	return &projection{chat: map[string]projText{}, agent: map[string]projText{}}
}

// forget drops a run (a chat terminal, or a reset the client makes).
func (p *projection) forget(run string) {
	delete(p.chat, run)
	delete(p.agent, run)
}

// forgetSession drops every run of a session (sessions.messages.unsubscribe).
func (p *projection) forgetSession(session string) {
	for id, t := range p.chat {
		if t.session == session {
			delete(p.chat, id)
		}
	}
	for id, t := range p.agent {
		if t.session == session {
			delete(p.agent, id)
		}
	}
}

// chatDelta merges a chat delta's payload and returns the text the
// client would hand its listeners; ok is false when the baseline is
// missing (the client drops the frame and reconnects).
func (p *projection) chatDelta(run, session, agentID string, payload []byte) (string, bool) {
	prev, had := p.chat[run]
	if had && (prev.session != session || prev.agentID != agentID) {
		had = false
	}
	next := projText{session: session, agentID: agentID}
	if msg, ok := jsonx.Get(payload, "message"); ok {
		if jsonx.KindOf(msg) != jsonx.Object { // null: no baseline after it
			delete(p.chat, run)
			return "", true
		}
		next.text, _ = lastText(msg)
		p.chat[run] = next
		return next.text, true
	}
	d, ok := jsonx.Str(mustGet(payload, "deltaText"))
	if !ok {
		return prev.text, had
	}
	replace := isTrue(mustGet(payload, "replace"))
	if d == "" && !replace {
		return prev.text, had
	}
	if !had && !replace {
		return "", false
	}
	if replace {
		next.text = d
	} else {
		next.text = prev.text + d
	}
	p.chat[run] = next
	return next.text, true
}

// agentText merges an assistant event's data and returns the item's text;
// ok is false when the baseline is missing.
func (p *projection) agentText(run, session, agentID string, data []byte) (string, bool) {
	item, hasItem := jsonx.Str(mustGet(data, "itemId"))
	next := projText{session: session, agentID: agentID, item: item, hasItem: hasItem}
	if t, ok := jsonx.Str(mustGet(data, "text")); ok {
		next.text = t
		p.agent[run] = next
		return t, true
	}
	d, ok := jsonx.Str(mustGet(data, "delta"))
	if !ok {
		return "", false
	}
	prev, had := p.agent[run]
	if isTrue(mustGet(data, "replace")) {
		next.text = d
	} else if had && prev.session == session && prev.agentID == agentID && prev.hasItem == hasItem && prev.item == item {
		next.text = prev.text + d
	} else {
		return "", false
	}
	p.agent[run] = next
	return next.text, true
}

// lastText is the text a message shows as the client's merge sees it:
// its string content, or its last text block's text.
func lastText(msg []byte) (string, bool) {
	content, ok := jsonx.Get(msg, "content")
	if !ok {
		return "", false
	}
	if s, ok := jsonx.Str(content); ok {
		return s, true
	}
	var text string
	found := false
	_ = jsonx.ArrayEach(content, func(b []byte) bool {
		if jsonx.StrIs(mustGet(b, "type"), "text") {
			if s, ok := jsonx.Str(mustGet(b, "text")); ok {
				text, found = s, true
			}
		}
		return true
	})
	return text, found
}

func mustGet(obj []byte, key string) []byte {
	v, _ := jsonx.Get(obj, key)
	return v
}

// isTrue reports whether a raw JSON value is true (JavaScript's === true).
func isTrue(v []byte) bool { return string(jsonx.TrimSpace(v)) == "true" }
