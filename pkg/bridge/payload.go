package bridge

import (
	"bytes"

	"github.com/clawtap/clawtap/pkg/jsonx"
)

// ChatPayload is a validated chat payload (the reference's parseChatPayload).
type ChatPayload struct {
	RunID      string
	SessionKey string
	State      string // delta, final, aborted, error
	Seq        float64
	HasSeq     bool
	StopReason *string
	ErrorMsg   *string
	Model      *string
	Message    []byte // passed through as-is; nil when absent

	// Protocol v4 additions the reference does not read.
	DeltaText []byte // raw JSON; decode with DeltaTextString (most deltas never need it)
	Replace   bool
}

// DeltaTextString decodes deltaText; ok is false when it is absent or not
// a string.
func (c *ChatPayload) DeltaTextString() (string, bool) { return jsonx.Str(c.DeltaText) }

// ParseChatPayload returns nil for anything malformed: a missing or empty
// runId or sessionKey, or a state outside delta|final|aborted|error.
// Optional fields are kept only when their type is right.
func ParseChatPayload(p []byte) *ChatPayload {
	var c ChatPayload
	if !ReadChatPayload(p, &c) {
		return nil
	}
	return &c
}

// ReadChatPayload is ParseChatPayload into c, for callers that keep c on
// the stack; it reports whether the payload is valid.
func ReadChatPayload(p []byte, c *ChatPayload) bool {
	var m members
	m.read(p)
	return m.chat(c, nil)
}

// members holds the raw payload members the two parsers read. A
// Classifier captures them while it walks a frame anyway, so the Policy
// need not walk the payload again (Event.Chat, Event.Agent).
type members struct {
	ok                                    bool
	gen                                   uint64 // which Classifier.Record filled it
	runID, sessionKey, state, seq, stream []byte
	stopReason, errorMessage, model       []byte
	message, deltaText, replace, data     []byte
	agentID                               []byte
	dataText, dataReplace                 []byte // data.text and data.replace, when data is an object
	derived                               derived
}

// read walks a payload object and records its members; like JSON.parse, a
// repeated key's last value wins.
func (m *members) read(p []byte) {
	*m = members{}
	if jsonx.KindOf(p) != jsonx.Object {
		return
	}
	err := jsonx.ObjectEach(p, func(k, v []byte) bool {
		switch string(key(k)) {
		case "runId":
			m.runID = v
		case "sessionKey":
			m.sessionKey = v
		case "state":
			m.state = v
		case "seq":
			m.seq = v
		case "stream":
			m.stream = v
		case "stopReason":
			m.stopReason = v
		case "errorMessage":
			m.errorMessage = v
		case "model":
			m.model = v
		case "message":
			m.message = v
		case "deltaText":
			m.deltaText = v
		case "replace":
			m.replace = v
		case "agentId":
			m.agentID = v
		case "data":
			m.data, m.dataText, m.dataReplace = v, nil, nil
			if jsonx.KindOf(v) == jsonx.Object {
				_ = jsonx.ObjectEach(v, func(k, v []byte) bool {
					switch string(key(k)) {
					case "text":
						m.dataText = v
					case "replace":
						m.dataReplace = v
					}
					return true
				})
			}
		}
		return true
	})
	m.ok = err == nil
}

func optStr(v []byte) *string {
	if jsonx.KindOf(v) != jsonx.String { // before anything escapes to the heap
		return nil
	}
	s, ok := jsonx.Str(v)
	if !ok {
		return nil
	}
	return &s
}

// str decodes a string member, reusing the classified event's copy of the
// same value when there is one (no allocation on the hot path).
func knownStr(raw []byte, known string) (string, bool) {
	if known != "" && len(raw) == len(known)+2 && raw[0] == '"' && string(raw[1:len(raw)-1]) == known &&
		bytes.IndexByte(raw, '\\') < 0 {
		return known, true
	}
	return jsonx.Str(raw)
}

// chat converts the members as parseChatPayload does; ev, if given, is the
// event they were captured for.
func (m *members) chat(c *ChatPayload, ev *Event) bool {
	*c = ChatPayload{
		StopReason: optStr(m.stopReason),
		ErrorMsg:   optStr(m.errorMessage),
		Model:      optStr(m.model),
		Message:    m.message,
		DeltaText:  m.deltaText,
		Replace:    jsonx.KindOf(m.replace) == jsonx.Bool && m.replace[0] == 't',
	}
	var run, session, state string
	if ev != nil {
		run, session, state = ev.RunID, ev.SessionKey, ev.State
	}
	c.RunID, _ = knownStr(m.runID, run)
	c.SessionKey, _ = knownStr(m.sessionKey, session)
	c.State, _ = knownStr(m.state, state)
	c.Seq, c.HasSeq = jsonx.Num(m.seq)
	if !m.ok || c.RunID == "" || c.SessionKey == "" {
		return false
	}
	switch c.State {
	case "delta", "final", "aborted", "error":
		return true
	}
	return false
}

// agent converts the members as parseAgentPayload does; ev, if given, is
// the event they were captured for.
func (m *members) agent(a *AgentPayload, ev *Event) bool {
	var run, session, stream string
	if ev != nil {
		run, session, stream = ev.RunID, ev.SessionKey, ev.Stream
	}
	*a = AgentPayload{}
	a.RunID, _ = knownStr(m.runID, run)
	a.Seq, a.HasSeq = jsonx.Num(m.seq)
	a.Stream, a.HasStream = knownStr(m.stream, stream)
	a.Reasoning = a.HasStream && IsReasoningStream(a.Stream)
	if k := jsonx.KindOf(m.data); k == jsonx.Object || k == jsonx.Array {
		a.Data = m.data
		a.DataText = m.dataText
	}
	a.SessionKey, _ = knownStr(m.sessionKey, session)
	return m.ok && a.RunID != ""
}

// Detach returns a copy of the event whose payload members (and what was
// derived from them so far) are copied into s: the copy stays whole while
// s is not reused, however the Classifier or the event's Scratch is
// reused. Several goroutines may read the copy at once (each lane of a
// check under several UIs reads the same one): what was not derived
// before is derived by each reader, not kept (derived.shared).
func (ev *Event) Detach(s *Scratch) Event {
	c := *ev
	if m := ev.captured(); m != nil {
		s.m = *m
		s.m.derived.shared = true
		c.members = &s.m
	} else {
		c.members = nil
	}
	return c
}

// captured returns the members a Classifier captured for this event, if
// they are still the ones it holds (it reuses one buffer).
func (ev *Event) captured() *members {
	if m := ev.members; m != nil && m.ok && m.gen == ev.gen {
		return m
	}
	return nil
}

// Chat parses the event's payload as a chat payload (ParseChatPayload),
// from the members captured while classifying when it can.
func (ev *Event) Chat(c *ChatPayload) bool {
	if m := ev.captured(); m != nil {
		d := &m.derived
		if d.has&hasChat == 0 {
			if d.shared {
				return m.chat(c, ev)
			}
			d.chatOK = m.chat(&d.chat, ev)
			d.has |= hasChat
		}
		*c = d.chat
		return d.chatOK
	}
	return ReadChatPayload(ev.Payload, c)
}

// Agent parses the event's payload as an agent payload (ParseAgentPayload),
// from the members captured while classifying when it can.
func (ev *Event) Agent(a *AgentPayload) bool {
	if m := ev.captured(); m != nil {
		d := &m.derived
		if d.has&hasAgent == 0 {
			if d.shared {
				return m.agent(a, ev)
			}
			d.agentOK = m.agent(&d.agent, ev)
			d.has |= hasAgent
		}
		*a = d.agent
		return d.agentOK
	}
	return ReadAgentPayload(ev.Payload, a)
}

// AgentPayload is a validated agent payload (the reference's parseAgentPayload).
type AgentPayload struct {
	RunID      string
	Seq        float64
	HasSeq     bool
	Stream     string
	HasStream  bool
	Reasoning  bool   // Stream carries thinking (IsReasoningStream)
	Data       []byte // any truthy object (arrays pass too); nil otherwise
	DataText   []byte // raw data.text when Data is an object and has one
	SessionKey string
}

// ParseAgentPayload returns nil unless the payload has a non-empty runId.
func ParseAgentPayload(p []byte) *AgentPayload {
	var a AgentPayload
	if !ReadAgentPayload(p, &a) {
		return nil
	}
	return &a
}

// ReadAgentPayload is ParseAgentPayload into a; it reports whether the
// payload is valid.
func ReadAgentPayload(p []byte, a *AgentPayload) bool {
	var m members
	m.read(p)
	return m.agent(a, nil)
}

// Member returns the raw value of the payload's member name, as
// jsonx.Get(ev.Payload, name) does: from the members captured while
// classifying when it is one of them (runId, sessionKey, state, seq,
// stream, stopReason, errorMessage, model, message, deltaText, replace,
// data, agentId), so the payload is not walked again.
func (ev *Event) Member(name string) ([]byte, bool) {
	m := ev.captured()
	if m == nil {
		return jsonx.Get(ev.Payload, name)
	}
	var v []byte
	switch name {
	case "runId":
		v = m.runID
	case "sessionKey":
		v = m.sessionKey
	case "state":
		v = m.state
	case "seq":
		v = m.seq
	case "stream":
		v = m.stream
	case "stopReason":
		v = m.stopReason
	case "errorMessage":
		v = m.errorMessage
	case "model":
		v = m.model
	case "message":
		v = m.message
	case "deltaText":
		v = m.deltaText
	case "replace":
		v = m.replace
	case "data":
		v = m.data
	case "agentId":
		v = m.agentID
	default:
		return jsonx.Get(ev.Payload, name)
	}
	return v, v != nil
}

// MemberStr returns the payload's member name decoded as a string, as
// jsonx.GetStr(ev.Payload, name) does: from the members captured while
// classifying when it is one of them (Member), and, for the run id,
// session key, state, stream and agent id, the event's own copy when the
// member is the same string (no allocation on the hot path).
func (ev *Event) MemberStr(name string) (string, bool) {
	v, ok := ev.Member(name)
	if !ok {
		return "", false
	}
	var known string
	switch name {
	case "runId":
		known = ev.RunID
	case "sessionKey":
		known = ev.SessionKey
	case "state":
		known = ev.State
	case "stream":
		known = ev.Stream
	case "agentId":
		known = ev.AgentID
	}
	return knownStr(v, known)
}

// DataMember returns the raw value of the payload's data.name, as
// jsonx.GetPath(ev.Payload, "data", name) does: from the members captured
// while classifying for data.text and data.replace.
func (ev *Event) DataMember(name string) ([]byte, bool) {
	m := ev.captured()
	var v []byte
	switch {
	case m == nil:
		return jsonx.GetPath(ev.Payload, "data", name)
	case name == "text":
		v = m.dataText
	case name == "replace":
		v = m.dataReplace
	default:
		return jsonx.GetPath(ev.Payload, "data", name)
	}
	return v, v != nil
}
