// Package bridge answers "what is this frame?" for every record of a
// capture. It is the first, pure stage of clawtap's pipeline (Bridge →
// Policy → Handler) and follows the reference pipeline's classification
// table exactly, extended to requests, responses, markers and invalid
// messages so that every record gets a classification.
package bridge

import (
	"strings"

	"github.com/clawtap/clawtap/pkg/jsonx"
)

// Kind is what a frame is, for the pipeline.
type Kind string

// The reference's kinds, then clawtap's additions.
const (
	SummaryRefresh Kind = "summary-refresh" // presence, heartbeat
	RuntimeChat    Kind = "runtime-chat"    // chat
	RuntimeAgent   Kind = "runtime-agent"   // agent
	Approval       Kind = "approval"        // exec.approval.pending|requested|resolved
	Unknown        Kind = "unknown"         // any other event

	Request  Kind = "request"  // a req frame
	Response Kind = "response" // a res frame
	Invalid  Kind = "invalid"  // not JSON, not an object, or not a known frame type
	Marker   Kind = "marker"   // a capture marker (open, hello, close, error)
)

// Event is a classified frame: the reference's ClassifiedEvent (kind,
// agentId, sessionKey, payload, timestamp) plus the fields clawtap reads
// while it is there anyway.
type Event struct {
	Kind       Kind
	Type       string // frame type: event, req, res
	Event      string // event name
	AgentID    string
	SessionKey string
	Timestamp  int64  // the capture record's t, never the wall clock
	Payload    []byte // raw payload JSON; nil when the frame has none

	Seq    int64 // frame-level seq
	HasSeq bool

	RunID  string
	State  string // chat payload state
	Stream string // agent payload stream
	Phase  string // agent data.phase, or chat status phase

	Method string // req, or res matched to its req
	ID     string // req/res id, or approval id
	OK     *bool  // res ok
	Code   string // res error.code

	Mark   string // marker name, for Marker
	Reason string // why a record is Invalid
}

// SessionAgentID extracts the agent id from a session key of the shape
// agent:<id>:<rest>, as the reference's /^agent:([^:]+):/ does.
func SessionAgentID(key string) string {
	rest, ok := strings.CutPrefix(key, "agent:")
	if !ok {
		return ""
	}
	i := strings.IndexByte(rest, ':')
	if i <= 0 {
		return ""
	}
	return rest[:i]
}

// IsReasoningStream reports whether an agent stream name carries thinking:
// a deny-list (assistant, tool, lifecycle) checked before an allow-list
// (reason, think, analysis, trace), on the lower-cased name.
func IsReasoningStream(stream string) bool {
	s := strings.ToLower(stream)
	for _, deny := range []string{"assistant", "tool", "lifecycle"} {
		if strings.Contains(s, deny) {
			return false
		}
	}
	for _, allow := range []string{"reason", "think", "analysis", "trace"} {
		if strings.Contains(s, allow) {
			return true
		}
	}
	return false
}

// Classify classifies one frame. It is pure and total: it never panics and
// anything it does not recognise is Unknown or Invalid. ts becomes the
// event's timestamp.
func Classify(frame []byte, ts int64) Event {
	ev := Event{Timestamp: ts}
	frame = jsonx.TrimSpace(frame)
	if jsonx.KindOf(frame) != jsonx.Object {
		ev.Kind, ev.Reason = Invalid, "frame is not a JSON object"
		return ev
	}
	var idRaw, okRaw, errRaw []byte
	end, err := jsonx.ObjectEachEnd(frame, func(k, v []byte) bool {
		switch string(k) {
		case "type":
			ev.Type, _ = jsonx.Str(v)
		case "event":
			ev.Event, _ = jsonx.Str(v)
		case "payload":
			ev.Payload = v
		case "seq":
			if n, ok := jsonx.Int(v); ok {
				ev.Seq, ev.HasSeq = n, true
			} else {
				ev.Seq, ev.HasSeq = 0, false
			}
		case "id":
			idRaw = v
		case "method":
			ev.Method, _ = jsonx.Str(v)
		case "ok":
			okRaw = v
		case "error":
			errRaw = v
		}
		return true
	})
	if err != nil || end != len(frame) {
		return Event{Timestamp: ts, Kind: Invalid, Reason: "frame is not valid JSON"}
	}
	switch ev.Type {
	case "event":
		ev.Method = ""
		classifyEvent(&ev)
	case "req":
		ev.Kind = Request
		ev.ID = idString(idRaw)
	case "res":
		ev.Kind = Response
		ev.ID = idString(idRaw)
		ev.Method = ""
		if jsonx.KindOf(okRaw) == jsonx.Bool {
			ok := okRaw[0] == 't'
			ev.OK = &ok
		}
		if jsonx.KindOf(errRaw) == jsonx.Object {
			ev.Code, _ = jsonx.GetStr(errRaw, "code")
		}
	default:
		ev.Kind, ev.Reason = Invalid, "frame has no known type (event, req or res)"
		ev.Method = ""
	}
	return ev
}

// idString renders a request id; the gateway uses strings, but a number is
// kept in its JSON spelling rather than lost.
func idString(v []byte) string {
	if s, ok := jsonx.Str(v); ok {
		return s
	}
	if jsonx.KindOf(v) == jsonx.Number {
		return string(v)
	}
	return ""
}

func classifyEvent(ev *Event) {
	p := ev.Payload
	isObj := jsonx.KindOf(p) == jsonx.Object
	switch ev.Event {
	case "presence", "heartbeat":
		ev.Kind = SummaryRefresh
	case "chat":
		ev.Kind = RuntimeChat
		if isObj {
			readRunFields(ev, p)
			ev.AgentID = SessionAgentID(ev.SessionKey)
		}
	case "agent":
		ev.Kind = RuntimeAgent
		if isObj {
			agentID, hasAgentID := readRunFields(ev, p)
			if hasAgentID {
				ev.AgentID = agentID
			} else {
				ev.AgentID = SessionAgentID(ev.SessionKey)
			}
		}
	case "exec.approval.pending", "exec.approval.requested", "exec.approval.resolved":
		ev.Kind = Approval
		if isObj {
			ev.ID, _ = jsonx.GetStr(p, "id")
			if id, ok := jsonx.GetStr(p, "agentId"); ok {
				ev.AgentID = id
			} else if req, ok := jsonx.Get(p, "request"); ok && jsonx.KindOf(req) == jsonx.Object {
				ev.AgentID, _ = jsonx.GetStr(req, "agentId")
			}
			if req, ok := jsonx.Get(p, "request"); ok && jsonx.KindOf(req) == jsonx.Object {
				ev.RunID, _ = jsonx.GetStr(req, "runId")
				if sk, ok := jsonx.GetStr(req, "sessionKey"); ok {
					ev.SessionKey = sk
				}
			}
		}
	default:
		ev.Kind = Unknown
	}
}

// readRunFields reads the fields chat and agent payloads share, in one pass.
func readRunFields(ev *Event, p []byte) (agentID string, hasAgentID bool) {
	var data []byte
	_ = jsonx.ObjectEach(p, func(k, v []byte) bool {
		switch string(k) {
		case "runId":
			ev.RunID, _ = jsonx.Str(v)
		case "sessionKey":
			ev.SessionKey, _ = jsonx.Str(v)
		case "agentId":
			agentID, hasAgentID = jsonx.Str(v)
		case "state":
			ev.State, _ = jsonx.Str(v)
		case "stream":
			ev.Stream, _ = jsonx.Str(v)
		case "phase":
			ev.Phase, _ = jsonx.Str(v) // chat state "status" (v4)
		case "data":
			data = v
		}
		return true
	})
	if ev.Event == "agent" && jsonx.KindOf(data) == jsonx.Object {
		if ph, ok := jsonx.GetStr(data, "phase"); ok {
			ev.Phase = ph
		}
	}
	return agentID, hasAgentID
}
