package controlui

import (
	"strings"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/jsstr"
)

// session.message and sessions.changed, the events sessions.subscribe
// brings. Read from the 2026.9.6 bundle, dist/control-ui/assets/:
// control-ui-boot-shared-C1k19mek.js (the pane's session.message handler
// gk, its sessions.changed handler Ck, the pending reload's replay after a
// chat event _k), control-ui-boot-shared-DzouLLoo.js
// (applySessionMessagePayload yo, finishingChatRunId vo,
// reconcilePersistedAssistantStream wa) and control-ui-core-B0xWHkRR.js
// (readSessionChangedEvent Iu); docs/ui-controlui.md, "Session messages".

// sessionEvent is a session.message or sessions.changed payload as
// readSessionChangedEvent reads it: the payload with its session row over
// it.
type sessionEvent struct {
	key, agent string
	hasAgent   bool
	active     int8 // hasActiveRun: 1 true, 0 false, -1 not said
}

func readSessionEvent(payload []byte) (sessionEvent, bool) {
	var se sessionEvent
	if jsonx.KindOf(payload) != jsonx.Object {
		return se, false
	}
	row, _ := jsonx.Get(payload, "session")
	if jsonx.KindOf(row) != jsonx.Object {
		row = nil
	}
	anc, _ := jsonx.Get(payload, "ancestorSessions")
	// get is a member of the merged record: the row's, else the payload's
	// (only its null members when it lists ancestor sessions).
	get := func(name string) ([]byte, bool) {
		if v, ok := jsonx.Get(row, name); ok {
			return v, true
		}
		v, ok := jsonx.Get(payload, name)
		if ok && row != nil && jsonx.KindOf(anc) == jsonx.Array && jsonx.KindOf(v) != jsonx.Null {
			return nil, false
		}
		return v, ok
	}
	if v, ok := get("key"); ok {
		if s, ok := jsonx.Str(v); ok {
			se.key = jsstr.Trim(s)
		}
	}
	if se.key == "" {
		se.key = optStr(payload, "sessionKey")
	}
	if se.key == "" {
		return se, false
	}
	se.agent = optStr(payload, "agentId")
	se.hasAgent = se.agent != ""
	se.active = -1
	v, _ := get("hasActiveRun")
	if b := string(v); b != "true" && b != "false" {
		v, _ = jsonx.Get(payload, "hasActiveRun")
	}
	switch string(v) {
	case "true":
		se.active = 1
	case "false":
		se.active = 0
	}
	return se, true
}

// sessionPane is the pane a session event is for (the chat frames'
// match), made when first met; nil when no pane takes it.
func (c *host) sessionPane(ev *bridge.Event) (*pane, sessionEvent) {
	se, ok := readSessionEvent(ev.Payload)
	if !ok {
		return nil, se
	}
	k, a, ok := c.def.match(se.key, se.agent, se.hasAgent)
	if !ok {
		return nil, se
	}
	return c.pane(k, a), se
}

// sessionMessage is the pane's session.message handler (gk): the row goes
// into the list, and the pane reloads chat.history: at once when it
// follows no run, else when the run ends (a user row of a run still on
// reloads at once too).
func (c *host) sessionMessage(ev *bridge.Event) {
	p, se := c.sessionPane(ev)
	if p == nil {
		c.ignore(ev, "no pane: the session.message names no session the UI would show")
		return
	}
	msg, _ := jsonx.Get(ev.Payload, "message")
	id, _ := readIdent(msg, envelope{}, "")
	c.applyRow(p, ev, msg, se)
	if p.runID == "" {
		p.reload = false
		c.loadHistory(p, "a session.message")
		return
	}
	p.reload = true
	if se.active == 1 && id.role == "user" {
		c.loadHistory(p, "a user's session.message while a run is on")
	}
	// Without an active run said, the UI first asks the session's row
	// whether the run ended (not modelled: it needs the sessions list);
	// the reload waits for the run's end.
}

// applyRow is applySessionMessagePayload (yo): a user row goes into the
// list; an assistant row only when it is a previous run's (it has a
// sequence and another run is followed) or the finishing run's (the run
// the pane follows or last ended); any other row, and a row with no id,
// idempotency key or sequence, not at all. The list then places it as a
// live row (projectLiveSessionMessage).
func (c *host) applyRow(p *pane, ev *bridge.Event, msg []byte, se sessionEvent) {
	env := readEnvelope(ev.Payload)
	id, ok := readIdent(msg, env, "")
	if !ok {
		c.ignoreRun(p, "", "a session.message without a message the pane reads")
		return
	}
	producer := ""
	if raw, _ := jsonx.GetStr(ev.Payload, "runId"); id.runID != "" && id.runID == raw {
		producer = id.runID
	}
	previous := id.role == "assistant" && id.seq != 0 && id.runID != "" && p.runID != "" && id.runID != p.runID
	owner := ""
	switch {
	case id.role == "assistant" && id.id != "" && !id.imported && (producer != "" || (id.runID == "" && se.active != 1)):
		owner = c.finishingRun(p, msg, producer)
	case toolRole(id.role) && id.id != "" && id.seq != 0 && !id.imported && producer != "" && hasArtifactImage(msg):
		owner = c.finishingRun(p, msg, producer)
	}
	switch {
	case id.role != "user" && !previous && owner == "":
		c.ignoreRun(p, id.runID, "a transcript row the pane leaves to the chat frames: not a user's, nor a previous run's, nor its finishing run's")
		return
	case id.imported && id.external == "" && metaSeq(msg) == 0:
		c.ignoreRun(p, id.runID, "an imported row with no source and no sequence")
		return
	case id.id == "" && id.idemKey == "" && id.seq == 0:
		c.ignoreRun(p, id.runID, "a row with no id, idempotency key or sequence")
		return
	}
	if owner != "" {
		env.runID = owner // the finishing run owns a row that names none
		id, _ = readIdent(msg, env, "")
	}
	rawRole, _ := jsonx.GetStr(msg, "role")
	e := &entry{ident: id, rawRole: rawRole, text: rowText(msg), msgSeq: id.seq, lineRun: id.runID, ts: c.h.Now()}
	next, out, _ := project(p.entries, e, p.runs)
	if out == dropped {
		c.ignoreRun(p, id.runID, "the pane shows this message already")
		return
	}
	at := len(next) - 1
	for i, x := range next {
		if x == e {
			at = i
		}
	}
	kind := IntentAppend
	switch {
	case out == replaced:
		kind = IntentReplace
	case at < len(next)-1:
		kind = IntentInsert
	}
	c.publish(p, next, "a session.message")
	c.intentRole(p, kind, id.runID, rawRole, e.text)
	if id.role != "assistant" {
		return
	}
	if owner != "" && se.active == 0 {
		// The run's row came and the session says no run is on: the
		// stream and the run's tool cards go.
		c.setStream(p, nil)
		c.dropRunTools(p, owner)
	}
	c.reconcilePersisted(p)
}

// finishingRun is finishingChatRunId (vo): the run an assistant row
// belongs to when the pane is finishing it: the run it follows (unless the
// row's producer is another), else the run whose terminal it applied last,
// when the row's producer is that run or, naming none, its text is that
// run's message.
func (c *host) finishingRun(p *pane, msg []byte, producer string) string {
	if p.runID != "" {
		if producer != "" && producer != p.runID {
			return ""
		}
		return p.runID
	}
	last := p.lastEnded
	switch {
	case last == "":
		return ""
	case producer != "":
		if producer == last {
			return last
		}
		return ""
	}
	if r := p.runs[last]; r != nil && r.text != "" && r.text == jsstr.Trim(rowText(msg)) {
		return last
	}
	return ""
}

// reconcilePersisted is reconcilePersistedAssistantStream (wa): the start
// of the stream the followed run's transcript rows hold is persisted; the
// bubble, and a stream kept as a message, show the rest.
func (c *host) reconcilePersisted(p *pane) {
	if p.runID == "" || p.stream == nil || *p.stream == "" {
		return
	}
	stream := *p.stream
	texts := p.rowsFor(p.runID)
	covered := stream
	if rest, ok := unpersisted(texts, stream); ok {
		covered = stream[:len(stream)-len(rest)]
	}
	if jsstr.Trim(covered) != "" && (p.persisted == "" || strings.HasPrefix(covered, p.persisted)) {
		p.persisted = covered
	}
}

// unpersisted is what of stream the rows' texts, in order from the first
// that starts it, do not hold; ok is false when a row runs past the stream.
func unpersisted(texts []string, stream string) (string, bool) {
	from := 0
	for i, t := range texts {
		if t != "" && (strings.HasPrefix(stream, t) || strings.HasPrefix(t, stream)) {
			from = i
			break
		}
	}
	n := 0
	for _, t := range texts[from:] {
		if t == "" {
			continue
		}
		rest := stream[n:]
		if strings.HasPrefix(rest, t) {
			n += len(t)
			continue
		}
		if strings.HasPrefix(t, rest) {
			return "", false
		}
		if n > 0 {
			if ws := jsstr.SkipSpace(rest, 0); ws > 0 {
				if strings.HasPrefix(rest[ws:], t) {
					n += ws + len(t)
					continue
				}
				if strings.HasPrefix(t, rest[ws:]) {
					return "", false
				}
			}
			break
		}
	}
	return stream[n:], true
}

// sessionsChanged is the pane's sessions.changed handler (Ck), for what it
// does to the chat pane: a reset of its session empties the list (and the
// runs it knows); a reset, a compaction, a message phase that carries no
// message, or a send, a run start or settled input reloads chat.history.
// The run's end read from the session row, and the branch list, are left
// out.
func (c *host) sessionsChanged(ev *bridge.Event) {
	p, _ := c.sessionPane(ev)
	if p == nil {
		c.ignore(ev, "no pane: the sessions.changed names no session the UI would show")
		return
	}
	reason, _ := jsonx.GetStr(ev.Payload, "reason")
	phase, _ := jsonx.GetStr(ev.Payload, "phase")
	resets := reason == "reset" || phase == "reset"
	if resets {
		c.publish(p, nil, "")
		clear(p.runs)
		p.order = p.order[:0]
		c.intent(p, IntentClear, "", "", "")
	}
	has := func(k string) bool { _, ok := jsonx.Get(ev.Payload, k); return ok }
	switch {
	case resets || reason == "compact":
		c.loadHistory(p, "sessions.changed: "+reason+phase)
	case phase == "message" && !has("message") && !has("messageId") && !has("messageSeq"):
		c.loadHistory(p, "sessions.changed: a message phase without the message")
	case reason == "send" || reason == "agent.run.started" || reason == "agent.input.settled":
		c.loadHistory(p, "sessions.changed: "+reason)
	default:
		c.ignoreRun(p, "", "a sessions.changed that changes nothing the chat pane shows")
	}
}

// replayReload is the replay of a pending session.message reload after a
// chat event of the pane's session (_k): once the pane follows no run.
func (c *host) replayReload(ev *bridge.Event) {
	sk, _ := ev.Member("sessionKey")
	key, _ := jsonx.Str(sk)
	if key = jsstr.Trim(key); key == "" {
		return
	}
	k, _, _ := c.def.match(key, "", false)
	if p := c.panes[k]; p != nil && p.reload && p.runID == "" {
		p.reload = false
		c.loadHistory(p, "the reload a session.message left for the run's end")
	}
}

func (c *host) loadHistory(p *pane, why string) {
	c.h.Request(ReqChatHistory, p.agent, why)
}

// dropRunTools is maybeResetToolStreamRun: the run's tool cards go.
func (c *host) dropRunTools(p *pane, run string) {
	kept := p.toolOrder[:0]
	for _, k := range p.toolOrder {
		if strings.HasPrefix(k, run+":") {
			delete(p.tools, k)
			continue
		}
		kept = append(kept, k)
	}
	changed := len(kept) != len(p.toolOrder)
	p.toolOrder = kept
	if changed {
		c.st.SetPaneTools(p.key, int64(len(p.toolOrder)))
	}
}

func toolRole(role string) bool {
	switch role {
	case "toolresult", "tool_result", "tool", "function":
		return true
	}
	return false
}

// hasArtifactImage: an image block that names its stored artifact.
func hasArtifactImage(msg []byte) bool {
	content, _ := jsonx.Get(msg, "content")
	found := false
	if jsonx.KindOf(content) == jsonx.Array {
		_ = jsonx.ArrayEach(content, func(b []byte) bool {
			if t, _ := jsonx.GetStr(b, "type"); t == "image" && optStr(b, "artifactId") != "" {
				found = true
			}
			return !found
		})
	}
	return found
}
