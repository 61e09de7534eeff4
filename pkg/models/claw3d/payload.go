package claw3d

import (
	"math"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/jsonx"
)

// Claw3D reads chat and agent payloads field by field, without clawboo's
// parsers: a chat frame needs only a sessionKey (a missing runId is
// tolerated), any state is read, and an agent frame needs a runId.

// chatFrame is what the chat workflow reads of a chat payload.
type chatFrame struct {
	runID, sessionKey, state string
	seq                      float64
	hasSeq                   bool
	message                  []byte // nil when absent or null
	errorMessage, stopReason string
}

var chatFields = []string{"runId", "sessionKey", "state", "seq", "message", "errorMessage", "stopReason"}

// readChat reads the payload, through the members the classifier captured
// when it can (the hot path), else with one scan.
func readChat(ev *bridge.Event, c *chatFrame) {
	*c = chatFrame{}
	var p bridge.ChatPayload
	if ev.Chat(&p) {
		c.runID, c.sessionKey, c.state = p.RunID, p.SessionKey, p.State
		c.seq, c.hasSeq = finite(p.Seq, p.HasSeq)
		c.message = nonNull(p.Message)
		if p.ErrorMsg != nil {
			c.errorMessage = *p.ErrorMsg
		}
		if p.StopReason != nil {
			c.stopReason = *p.StopReason
		}
		return
	}
	var f [7][]byte
	if !jsonx.Members(ev.Payload, chatFields, f[:]) {
		return
	}
	c.runID, _ = str(f[0])
	c.sessionKey, _ = str(f[1])
	c.state, _ = str(f[2])
	c.seq, c.hasSeq = num(f[3])
	c.message = nonNull(f[4])
	c.errorMessage, _ = str(f[5])
	c.stopReason, _ = str(f[6])
}

func finite(f float64, ok bool) (float64, bool) {
	if !ok || math.IsInf(f, 0) || f != f {
		return 0, false
	}
	return f, true
}

func nonNull(v []byte) []byte {
	if jsonx.KindOf(v) == jsonx.Null || len(v) == 0 {
		return nil
	}
	return v
}

// agentFrame is what the agent workflow reads of an agent payload.
type agentFrame struct {
	runID, sessionKey, stream string
	data                      []byte // an object (or array), else nil
	dataText                  []byte // raw data.text
	phase                     string // data.phase when a string
}

var agentFields = []string{"runId", "sessionKey", "stream", "data"}

func readAgent(ev *bridge.Event, a *agentFrame) {
	*a = agentFrame{}
	var p bridge.AgentPayload
	if ev.Agent(&p) {
		a.runID, a.sessionKey, a.stream = p.RunID, p.SessionKey, p.Stream
		a.data, a.dataText = p.Data, p.DataText
		a.phase = ev.Phase // the classifier read data.phase (when a string)
		return
	}
	// No runId (or not an object): Claw3D drops the frame anyway; read
	// what there is so the ignore can name the stream.
	var f [4][]byte
	if !jsonx.Members(ev.Payload, agentFields, f[:]) {
		return
	}
	a.runID, _ = str(f[0])
	a.sessionKey, _ = str(f[1])
	a.stream, _ = str(f[2])
	if k := jsonx.KindOf(f[3]); k == jsonx.Object || k == jsonx.Array {
		a.data = f[3]
	}
	if isObject(a.data) {
		a.dataText, _ = jsonx.Get(a.data, "text")
		a.phase, _ = jsonx.GetStr(a.data, "phase")
	}
}
