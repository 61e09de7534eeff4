package bridge

import "github.com/clawtap/clawtap/pkg/jsonx"

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
	DeltaText *string
	Replace   bool
}

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
	return m.chat(c)
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
}

// read walks a payload object and records its members; like JSON.parse, a
// repeated key's last value wins.
func (m *members) read(p []byte) {
	*m = members{}
	if jsonx.KindOf(p) != jsonx.Object {
		return
	}
	err := jsonx.ObjectEach(p, func(k, v []byte) bool {
		switch string(k) {
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
		case "data":
			m.data = v
		}
		return true
	})
	m.ok = err == nil
}

func optStr(v []byte) *string {
	if s, ok := jsonx.Str(v); ok {
		return &s
	}
	return nil
}

// chat converts the members as parseChatPayload does.
func (m *members) chat(c *ChatPayload) bool {
	*c = ChatPayload{
		StopReason: optStr(m.stopReason),
		ErrorMsg:   optStr(m.errorMessage),
		Model:      optStr(m.model),
		Message:    m.message,
		DeltaText:  optStr(m.deltaText),
		Replace:    jsonx.KindOf(m.replace) == jsonx.Bool && m.replace[0] == 't',
	}
	c.RunID, _ = jsonx.Str(m.runID)
	c.SessionKey, _ = jsonx.Str(m.sessionKey)
	c.State, _ = jsonx.Str(m.state)
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

// agent converts the members as parseAgentPayload does.
func (m *members) agent(a *AgentPayload) bool {
	*a = AgentPayload{}
	a.RunID, _ = jsonx.Str(m.runID)
	a.Seq, a.HasSeq = jsonx.Num(m.seq)
	a.Stream, a.HasStream = jsonx.Str(m.stream)
	if k := jsonx.KindOf(m.data); k == jsonx.Object || k == jsonx.Array {
		a.Data = m.data
	}
	a.SessionKey, _ = jsonx.Str(m.sessionKey)
	return m.ok && a.RunID != ""
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
		return m.chat(c)
	}
	return ReadChatPayload(ev.Payload, c)
}

// Agent parses the event's payload as an agent payload (ParseAgentPayload),
// from the members captured while classifying when it can.
func (ev *Event) Agent(a *AgentPayload) bool {
	if m := ev.captured(); m != nil {
		return m.agent(a)
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
	Data       []byte // any truthy object (arrays pass too); nil otherwise
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
	return m.agent(a)
}
