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
	*c = ChatPayload{}
	if jsonx.KindOf(p) != jsonx.Object {
		return false
	}
	optStr := func(v []byte) *string {
		if s, ok := jsonx.Str(v); ok {
			return &s
		}
		return nil
	}
	err := jsonx.ObjectEach(p, func(k, v []byte) bool {
		switch string(k) {
		case "runId":
			c.RunID, _ = jsonx.Str(v)
		case "sessionKey":
			c.SessionKey, _ = jsonx.Str(v)
		case "state":
			c.State, _ = jsonx.Str(v)
		case "seq":
			c.Seq, c.HasSeq = jsonx.Num(v)
		case "stopReason":
			c.StopReason = optStr(v)
		case "errorMessage":
			c.ErrorMsg = optStr(v)
		case "model":
			c.Model = optStr(v)
		case "message":
			c.Message = v
		case "deltaText":
			c.DeltaText = optStr(v)
		case "replace":
			c.Replace = jsonx.KindOf(v) == jsonx.Bool && v[0] == 't'
		}
		return true
	})
	if err != nil || c.RunID == "" || c.SessionKey == "" {
		return false
	}
	switch c.State {
	case "delta", "final", "aborted", "error":
		return true
	}
	return false
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
	*a = AgentPayload{}
	if jsonx.KindOf(p) != jsonx.Object {
		return false
	}
	err := jsonx.ObjectEach(p, func(k, v []byte) bool {
		switch string(k) {
		case "runId":
			a.RunID, _ = jsonx.Str(v)
		case "seq":
			a.Seq, a.HasSeq = jsonx.Num(v)
		case "stream":
			a.Stream, a.HasStream = jsonx.Str(v)
		case "data":
			if k := jsonx.KindOf(v); k == jsonx.Object || k == jsonx.Array {
				a.Data = v
			} else {
				a.Data = nil
			}
		case "sessionKey":
			a.SessionKey, _ = jsonx.Str(v)
		}
		return true
	})
	return err == nil && a.RunID != ""
}
