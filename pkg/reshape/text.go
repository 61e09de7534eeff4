package reshape

import (
	"bytes"
	"fmt"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
)

// chat reshapes a chat frame: a delta whose text is the connection's text
// of the run plus its deltaText loses its message; a terminal ends the
// run's text.
func (r *run) chat(rec *capture.Record, ev *bridge.Event, cs *connState) error {
	p := ev.Payload
	switch ev.State {
	case "final", "error", "aborted":
		if ev.RunID != "" {
			cs.clear(ev.RunID)
			cs.proj.forget(ev.RunID)
		}
		return nil
	case "delta":
	default:
		return nil
	}
	id := ev.RunID
	if id == "" || !ev.HasSessionKey {
		return nil // no run to keep text for; UIs drop it as malformed
	}
	msg, hasMsg := jsonx.Get(p, "message")
	dt, dtOK := jsonx.Str(mustGet(p, "deltaText"))
	if !hasMsg {
		if dtOK {
			return &RefusedError{Reason: fmt.Sprintf("record %d is a chat delta without a message: the capture is on an append-only wire already (2026.9.7 or later)", rec.Index),
				Hint: "reshape writes the " + r.to + " wire from a 2026.9.6 capture"}
		}
		return nil
	}
	r.res.ChatDeltas++
	agentID, hasAgent := jsonx.GetStr(p, "agentId")
	replace := isTrue(mustGet(p, "replace"))
	text, nonText, shaped := messageText(msg)
	base := cs.chat[id]
	next := &chatBase{session: ev.SessionKey, agentID: agentID, hasAgentID: hasAgent, text: text, nonText: nonText}
	switch {
	case !shaped:
		// The gateway's delta message is one text block (and canvas
		// blocks): this one is not, so nothing rebuilds it; it stays
		// whole, and the next delta too.
		r.res.Unusual++
		cs.clear(id)
		return r.check(rec, ev, cs, p, "", false)
	case replace || !dtOK || base == nil || base.session != next.session || base.agentID != next.agentID || base.hasAgentID != next.hasAgentID || base.nonText != nonText:
		// A snapshot on the target too: a replace, the run's first text
		// on this connection (or since a reset), or a new canvas block.
	case base.text+dt == text:
		if out, ok := removeMember(rec.Frame, p, "message"); ok {
			rec.Frame = out
			r.res.ChatAppendOnly++
			r.keep(cs, id)
			cs.chat[id] = next
			return r.check(rec, ev, cs, mustGet(out, "payload"), text, true)
		}
		r.res.Unusual++
	default:
		r.res.Breaks++
	}
	r.keep(cs, id)
	cs.chat[id] = next
	return r.check(rec, ev, cs, p, text, true)
}

// check feeds the delta as written to the client's projection and fails
// when a delta written without its message would not rebuild the text.
func (r *run) check(rec *capture.Record, ev *bridge.Event, cs *connState, payload []byte, want string, known bool) error {
	agentID, _ := jsonx.GetStr(payload, "agentId")
	got, ok := cs.proj.chatDelta(ev.RunID, ev.SessionKey, agentID, payload)
	if known && (!ok || got != want) {
		return fmt.Errorf("reshape: self-check failed at record %d (run %s, connection %d): the client would rebuild %q (baseline %v), the input says %q",
			rec.Index, ev.RunID, rec.Conn, clip(got), ok, clip(want))
	}
	return nil
}

// agent reshapes an agent frame: an assistant event whose text is the
// connection's text of the item plus its delta loses data.text; a
// lifecycle error (a retry clears the run) and the gateway's seq-gap
// event (a new epoch for every connection) end the run's text.
func (r *run) agent(rec *capture.Record, ev *bridge.Event, cs *connState) error {
	id := ev.RunID
	switch ev.Stream {
	case "lifecycle":
		if ev.Phase == "error" && id != "" {
			data := mustGet(ev.Payload, "data")
			if src, _ := jsonx.GetStr(data, "completionSource"); src == "reply-dispatch" {
				return nil
			}
			cs.clear(id)
		}
		return nil
	case "error":
		if reason, _ := jsonx.GetStr(mustGet(ev.Payload, "data"), "reason"); reason == "seq gap" && id != "" {
			for _, o := range r.conns {
				if o == cs || cs.bootID != "" && o.bootID == cs.bootID {
					o.clear(id)
				}
			}
		}
		return nil
	case "assistant":
	default:
		return nil
	}
	if id == "" {
		return nil
	}
	data, ok := jsonx.Get(ev.Payload, "data")
	if !ok || jsonx.KindOf(data) != jsonx.Object {
		return nil
	}
	textRaw, hasText := jsonx.Get(data, "text")
	text, textOK := jsonx.Str(textRaw)
	d, dOK := jsonx.Str(mustGet(data, "delta"))
	if !hasText {
		if dOK {
			return &RefusedError{Reason: fmt.Sprintf("record %d is an agent assistant event without data.text: the capture is on an append-only wire already (2026.9.7 or later)", rec.Index),
				Hint: "reshape writes the " + r.to + " wire from a 2026.9.6 capture"}
		}
		return nil
	}
	if !textOK {
		cs.clear(id)
		return nil
	}
	r.res.AgentTexts++
	agentID, hasAgent := jsonx.GetStr(ev.Payload, "agentId")
	item, hasItem := jsonx.Str(mustGet(data, "itemId"))
	next := &agentBase{session: ev.SessionKey, agentID: agentID, hasAgentID: hasAgent, item: item, hasItem: hasItem, text: text}
	base := cs.agent[id]
	switch {
	case isTrue(mustGet(data, "replace")) || !dOK || d == "" || mediaURL(data):
		// Forced whole on the target.
	case base == nil || base.session != next.session || base.agentID != next.agentID || base.hasAgentID != next.hasAgentID || base.hasItem != hasItem || base.item != item:
		// The item's first text on this connection.
	case base.text+d == text:
		if out, ok := removeMember(rec.Frame, data, "text"); ok {
			rec.Frame = out
			r.res.AgentAppendOnly++
			r.keep(cs, id)
			cs.agent[id] = next
			return r.checkAgent(rec, ev, cs, mustGet(mustGet(out, "payload"), "data"), text)
		}
		r.res.Unusual++
	default:
		r.res.Breaks++
	}
	r.keep(cs, id)
	cs.agent[id] = next
	return r.checkAgent(rec, ev, cs, data, text)
}

func (r *run) checkAgent(rec *capture.Record, ev *bridge.Event, cs *connState, data []byte, want string) error {
	agentID, _ := jsonx.GetStr(ev.Payload, "agentId")
	got, ok := cs.proj.agentText(ev.RunID, ev.SessionKey, agentID, data)
	if !ok || got != want {
		return fmt.Errorf("reshape: self-check failed at record %d (run %s, connection %d): an assistant event would rebuild %q (baseline %v), the input says %q",
			rec.Index, ev.RunID, rec.Conn, clip(got), ok, clip(want))
	}
	return nil
}

// mediaURL: an assistant event with media is always sent whole.
func mediaURL(data []byte) bool {
	if _, ok := jsonx.Str(mustGet(data, "mediaUrl")); ok {
		return true
	}
	urls := mustGet(data, "mediaUrls")
	if jsonx.KindOf(urls) != jsonx.Array {
		return false
	}
	n := 0
	_ = jsonx.ArrayEach(urls, func([]byte) bool { n++; return false })
	return n > 0
}

// messageText reads a delta's message as the gateway builds it: content
// with exactly one text block (whose text it returns) and maybe canvas
// blocks (whose raw JSON, in order, is nonText), or a string content.
// ok is false for any other shape.
func messageText(msg []byte) (text, nonText string, ok bool) {
	if jsonx.KindOf(msg) != jsonx.Object {
		return "", "", false
	}
	content, has := jsonx.Get(msg, "content")
	if !has {
		return "", "", false
	}
	if s, isStr := jsonx.Str(content); isStr {
		return s, "string", true
	}
	if jsonx.KindOf(content) != jsonx.Array {
		return "", "", false
	}
	var other bytes.Buffer
	texts := 0
	bad := false
	err := jsonx.ArrayEach(content, func(b []byte) bool {
		if jsonx.StrIs(mustGet(b, "type"), "text") {
			s, isStr := jsonx.Str(mustGet(b, "text"))
			if !isStr {
				bad = true
				return false
			}
			texts++
			text = s
			return true
		}
		other.WriteByte(',')
		other.Write(b)
		return true
	})
	if err != nil || bad || texts != 1 {
		return "", "", false
	}
	return text, other.String(), true
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
