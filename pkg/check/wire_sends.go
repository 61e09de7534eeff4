package check

import (
	"fmt"
	"hash/maphash"
	"strings"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/release"
)

// chat.send across the capture: the idempotency key bound to its input
// (2026.9.2), and the reply that comes under another run while an
// announce run holds the session (seen on 2026.9.4).

// reqParams is a chat.send waiting for its response.
type reqParams struct {
	key, session string
	identity     []byte // JSON of [message, mentions ?? null], as the gateway hashes it
	text         string
	i            int
	t            int64
	reused       *sendInfo // an earlier send with the same key and other input
}

// sendInfo is the first chat.send of an idempotency key. It keeps hashes
// of the input, not the input: maxSends of them are remembered across
// the capture, and only their equality matters.
type sendInfo struct {
	conn     int
	i        int
	session  string
	identity uint64 // hash of reqParams.identity
	text     uint64 // hash of the message text, 0 when it has none
	quote    string // the text as findings quote it (clipQuote, 40)
}

// inputSeed hashes chat.send inputs for equality within one run of clawtap.
var inputSeed = maphash.MakeSeed()

// textHash is the hash of a message text, 0 for none.
func textHash(text string) uint64 {
	if text == "" {
		return 0
	}
	return maphash.String(inputSeed, text) | 1
}

// announceRun is a live announce:… run of a session.
type announceRun struct {
	id string
	i  int
}

// announceFinal is a chat.send's run that ended with an empty final and no
// agent frame while an announce run held its session: its reply comes,
// if at all, under another run.
type announceFinal struct {
	key, session   string
	text           uint64 // textHash of the send's text
	conn, i, sendI int
	t              int64
	announce       string
	paired         bool
	retried        bool
}

func (a *Analyzer) wireRequest(cs *connState, rec *capture.Record, ev *bridge.Event) {
	if ev.Method != "chat.send" || ev.ID == "" {
		return
	}
	params := mustGet(rec.Frame, "params")
	key, _ := jsonx.GetStr(params, "idempotencyKey")
	session, _ := jsonx.GetStr(params, "sessionKey")
	msg := mustGet(params, "message")
	mentions := mustGet(params, "mentions")
	if mentions == nil {
		mentions = []byte("null")
	}
	id := append(append(append(append([]byte{'['}, jsonx.TrimSpace(msg)...), ','), jsonx.TrimSpace(mentions)...), ']')
	text, _ := jsonx.Str(msg)
	rp := reqParams{key: key, session: session, identity: id, text: text, i: rec.Index, t: rec.T}
	w := a.wire
	if key != "" {
		if prev := w.sends[key]; prev != nil {
			if prev.identity != maphash.Bytes(inputSeed, id) {
				rp.reused = prev
			}
		} else {
			if len(w.sendOrder) >= maxSends {
				delete(w.sends, w.sendOrder[0])
				w.sendOrder = w.sendOrder[1:]
			}
			w.sends[key] = &sendInfo{conn: rec.Conn, i: rec.Index, session: session,
				identity: maphash.Bytes(inputSeed, id), text: textHash(text), quote: clipQuote(text, 40)}
			w.sendOrder = append(w.sendOrder, key)
		}
	}
	// A message sent again after an empty final: the double answer.
	th := textHash(text)
	for _, e := range w.empties {
		if !e.retried && e.session == session && e.text != 0 && e.text == th && rec.Index > e.i {
			e.retried = true
			a.add(RuleAnnounceDoubleAnswer, Error, rec.Index, rec.T, rec.Conn, nil, key, bridge.SessionAgentID(session), session, fmt.Sprintf(
				"chat.send %s at record %d sends %s again, after its first send (key %s, record %d) got an empty final while announce run %s held session %s: the first message was queued, not dropped, so the model answers it twice.",
				orNone(ev.ID), rec.Index, clipQuote(text, 40), e.key, e.sendI, e.announce, session))
		}
	}
	c := w.conn(rec.Conn)
	if len(c.reqs) < maxReqs {
		c.reqs[ev.ID] = rp
	}
	// Remember the announce run that held the session when the send came.
	if an, ok := w.announce[session]; ok && key != "" {
		if si := w.sends[key]; si != nil && si.i == rec.Index {
			w.pendingAnnounce(key, an)
		}
	}
}

// pendingAnnounce notes that the send of key came while announce run an
// held its session (its empty final is then explained).
func (w *wireState) pendingAnnounce(key string, an announceRun) {
	if len(w.empties) >= maxVictims {
		return
	}
	w.empties = append(w.empties, &announceFinal{key: key, announce: an.id, i: -1, sendI: w.sends[key].i, session: w.sends[key].session, text: w.sends[key].text})
}

func (a *Analyzer) wireResponse(cs *connState, rec *capture.Record, ev *bridge.Event) {
	c := a.wire.conn(rec.Conn)
	rp, ok := c.reqs[ev.ID]
	if !ok {
		if ev.OK != nil && !*ev.OK && conflictRes(rec.Frame) {
			a.add(RuleIdempotencyConflict, 0, rec.Index, rec.T, rec.Conn, nil, "", "", "", fmt.Sprintf(
				"Request %s was refused as chat-request-conflict: its idempotency key was used before with other input (%s+ binds a key to its message); its request is not in the capture.", orNone(ev.ID), release.Since(release.RequestConflict)))
		}
		return
	}
	if ev.OK != nil && ev.Method == "chat.send" {
		delete(c.reqs, ev.ID)
	}
	if ev.OK == nil {
		return
	}
	if !*ev.OK {
		if conflictRes(rec.Frame) {
			earlier := "an earlier chat.send not in the capture"
			if rp.reused != nil {
				earlier = fmt.Sprintf("the chat.send at record %d (%s)", rp.reused.i, rp.reused.quote)
			} else if s := a.wire.sends[rp.key]; s != nil && s.i != rp.i {
				earlier = fmt.Sprintf("the chat.send at record %d", s.i)
			}
			a.add(RuleIdempotencyConflict, 0, rec.Index, rec.T, rec.Conn, nil, rp.key, bridge.SessionAgentID(rp.session), rp.session, fmt.Sprintf(
				"chat.send %s (record %d, %s) was refused as chat-request-conflict: idempotency key %s was used by %s with other input, and since %s a key is bound to its message and mentions; the first run goes on, this message is not sent. Retry with a new key.",
				orNone(ev.ID), rp.i, clipQuote(rp.text, 40), rp.key, earlier, release.Since(release.RequestConflict)))
		}
		return
	}
	if rp.reused != nil {
		v, name := a.release(cs)
		if v.AtLeast(release.V2026_9_2) {
			a.add(RuleIdempotencyConflict, Error, rec.Index, rec.T, rec.Conn, nil, rp.key, bridge.SessionAgentID(rp.session), rp.session, fmt.Sprintf(
				"chat.send %s (record %d) reused idempotency key %s of the chat.send at record %d with other input, and gateway %s accepted it: %s+ refuses that (chat-request-conflict); the answer is unexpected.",
				orNone(ev.ID), rp.i, rp.key, rp.reused.i, name, release.Since(release.RequestConflict)))
		} else {
			a.add(RuleIdempotencyConflict, Warn, rec.Index, rec.T, rec.Conn, nil, rp.key, bridge.SessionAgentID(rp.session), rp.session, fmt.Sprintf(
				"chat.send %s (record %d) reused idempotency key %s of the chat.send at record %d with other input (%s): the gateway acked it as the first send, so the new text is silently ignored; %s+ refuses it (chat-request-conflict).",
				orNone(ev.ID), rp.i, rp.key, rp.reused.i, clipQuote(rp.text, 40), release.Since(release.RequestConflict)))
		}
	}
}

// conflictRes reports a response refused as chat-request-conflict.
func conflictRes(frame []byte) bool {
	e := mustGet(frame, "error")
	code, _ := jsonx.GetStr(e, "code")
	reason, _ := jsonx.GetStr(mustGet(e, "details"), "reason")
	return code == "INVALID_REQUEST" && reason == "chat-request-conflict"
}

// announceFrame follows announce runs and the replies that come after an
// empty final.
func (a *Analyzer) announceFrame(rec *capture.Record, ev *bridge.Event) {
	if ev.RunID == "" || (ev.Kind != bridge.RuntimeChat && ev.Kind != bridge.RuntimeAgent) {
		return
	}
	w := a.wire
	id, session := ev.RunID, ev.SessionKey
	terminal := ev.Kind == bridge.RuntimeChat && (ev.State == "final" || ev.State == "aborted" || ev.State == "error") ||
		ev.Kind == bridge.RuntimeAgent && ev.Stream == "lifecycle" && (ev.Phase == "end" || ev.Phase == "error")
	if strings.HasPrefix(id, "announce:") {
		if terminal {
			if an, ok := w.announce[session]; ok && an.id == id {
				delete(w.announce, session)
			}
		} else if _, ok := w.announce[session]; !ok && len(w.announce) < maxVictims {
			w.announce[session] = announceRun{id: id, i: rec.Index}
		}
		return
	}
	for _, e := range w.empties {
		switch {
		case e.key == id && e.i == -1:
			// The send's own run: an empty final with nothing before it.
			if ev.Kind == bridge.RuntimeChat && ev.State == "final" && emptyMessage(ev) {
				e.i, e.t, e.conn = rec.Index, rec.T, rec.Conn
			} else {
				e.i = -2 // the run ran: not the queued case
			}
		case e.i >= 0 && !e.paired && id != e.key && session == e.session && w.sends[id] == nil && visibleText(ev):
			e.paired = true
			a.add(RuleAnnounceDoubleAnswer, 0, rec.Index, rec.T, rec.Conn, nil, id, ev.AgentID, session, fmt.Sprintf(
				"The reply to chat.send %s (record %d) came as run %s: that send got an empty final with no lifecycle (record %d) while announce run %s held session %s, so the gateway queued its message and answered it under a follow-up run id it does not link on the wire (seen since %s). A client that waits on %s shows the message unanswered, and one that sends it again makes the model answer twice.",
				e.key, e.sendI, id, e.i, e.announce, session, release.V2026_9_4, e.key))
		}
	}
}

func emptyMessage(ev *bridge.Event) bool {
	msg, ok := ev.Member("message")
	if !ok || jsonx.KindOf(msg) != jsonx.Object {
		return true
	}
	var texts jsonx.StrMemo
	t, _, _, _ := ev.MessageTextAndThinking(&texts)
	return strings.TrimSpace(t) == ""
}

// visibleText reports a chat frame with text to show.
func visibleText(ev *bridge.Event) bool {
	if ev.Kind != bridge.RuntimeChat || (ev.State != "delta" && ev.State != "final") {
		return false
	}
	return !emptyMessage(ev) || func() bool {
		dt, ok := jsonx.Str(mustGet(ev.Payload, "deltaText"))
		return ok && strings.TrimSpace(dt) != ""
	}()
}

// announceEnd reports the empty finals whose reply never came.
func (a *Analyzer) announceEnd() {
	for _, e := range a.wire.empties {
		if e.i < 0 || e.paired {
			continue
		}
		a.add(RuleAnnounceDoubleAnswer, Info, e.i, e.t, e.conn, nil, e.key, bridge.SessionAgentID(e.session), e.session, fmt.Sprintf(
			"chat.send %s (record %d) got an empty final with no lifecycle while announce run %s held session %s, and no other run replied before the capture ended: the message was queued behind the announce run.",
			e.key, e.sendI, e.announce, e.session))
	}
}
