// Package bridge answers "what is this frame?" for every record of a
// capture. It is the first, pure stage of clawtap's pipeline (Bridge →
// Policy → Handler) and follows the reference pipeline's classification
// table exactly, extended to requests, responses, markers and invalid
// messages so that every record gets a classification.
package bridge

import (
	"bytes"
	"strings"

	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/jsstr"
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
	// HasSessionKey: the payload's sessionKey is a string, even "" (the
	// reference keeps an empty key; only approvals never have one).
	HasSessionKey bool
	Timestamp     int64  // the capture record's t, never the wall clock
	Payload       []byte // raw payload JSON; nil when the frame has none

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

	// RequestSessionKey is an approval's payload.request.sessionKey
	// (clawtap's; the reference classifies approvals without a session).
	RequestSessionKey string

	// The payload members a Classifier captured on the way (see Chat).
	members *members
	gen     uint64
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

// Session is the session an event concerns: its sessionKey, or for an
// approval the request's.
func (ev *Event) Session() string {
	if ev.Kind == Approval {
		return ev.RequestSessionKey
	}
	return ev.SessionKey
}

// IsReasoningStream reports whether an agent stream name carries thinking:
// a deny-list (assistant, tool, lifecycle) checked before an allow-list
// (reason, think, analysis, trace), on the name lower-cased as JavaScript
// lower-cases it ("THİNK" becomes "thi̇nk", which is not "think").
func IsReasoningStream(stream string) bool {
	switch stream { // the streams of every run, answered without lower-casing
	case "assistant", "tool", "lifecycle":
		return false
	case "thinking", "reasoning":
		return true
	}
	for _, deny := range []string{"assistant", "tool", "lifecycle"} {
		if jsstr.ContainsFold(stream, deny) {
			return false
		}
	}
	for _, allow := range []string{"reason", "think", "analysis", "trace"} {
		if jsstr.ContainsFold(stream, allow) {
			return true
		}
	}
	return false
}

// Classify classifies one frame. It is pure and total: it never panics and
// anything it does not recognise is Unknown or Invalid. ts becomes the
// event's timestamp.
func Classify(frame []byte, ts int64) Event { return classify(frame, nil, ts, false, nil, nil) }

// fields is everything classification reads, gathered in one pass over the
// frame whatever the order of its keys.
type fields struct {
	in                          *interner
	plain                       bool     // the frame has no backslash (jsonx.Index.Plain)
	m                           *members // where to capture payload members, or nil
	typ, event, method          string
	idRaw, okRaw, payload       []byte
	seq                         int64
	hasSeq                      bool
	code                        string
	runID, sessionKey, agentID  string
	hasAgentID, hasSessionKey   bool
	state, stream, phase, id    string
	dataPhase                   string
	hasDataPhase, reqObj        bool
	reqAgentID, reqRunID, reqSK string
	hasReqAgentID, hasReqSK     bool
	payloadObj                  bool
}

// classify does the work; trusted skips validation for frames the capture
// reader has already validated.
//
// idx, when not nil, is the frame's index by Schema, Exact: the members are
// read from it instead of walking the frame.
func classify(frame []byte, idx *jsonx.Index, ts int64, trusted bool, in *interner, m *members) Event {
	if trimmed := jsonx.TrimSpace(frame); len(trimmed) != len(frame) {
		frame, idx = trimmed, nil // the index counts from the first byte
	}
	if jsonx.KindOf(frame) != jsonx.Object {
		return Event{Timestamp: ts, Kind: Invalid, Reason: "frame is not a JSON object"}
	}
	if !trusted && !jsonx.Valid(frame) {
		return Event{Timestamp: ts, Kind: Invalid, Reason: "frame is not valid JSON"}
	}
	f := fields{in: in, m: m}
	if idx != nil {
		f.readIndexed(frame, idx)
	} else {
		var it jsonx.Iter
		it.Reset(frame)
		if !it.Object() || !f.readFrame(&it) {
			return Event{Timestamp: ts, Kind: Invalid, Reason: "frame is not valid JSON"}
		}
	}
	ev := Event{Timestamp: ts, Type: f.typ, Seq: f.seq, HasSeq: f.hasSeq, Payload: f.payload}
	if m != nil && f.payloadObj && m.ok {
		ev.members, ev.gen = m, m.gen
	}
	switch f.typ {
	case "event":
		ev.Event = f.event
		f.classifyEvent(&ev)
	case "req":
		ev.Kind = Request
		ev.ID = idString(f.idRaw)
		ev.Method = f.method
	case "res":
		ev.Kind = Response
		ev.ID = idString(f.idRaw)
		if jsonx.KindOf(f.okRaw) == jsonx.Bool {
			ok := f.okRaw[0] == 't'
			ev.OK = &ok
		}
		ev.Code = f.code
	default:
		ev.Kind, ev.Reason = Invalid, "frame has no known type (event, req or res)"
	}
	return ev
}

// key returns a member name, decoding escapes only if present. Callers
// switch on string(key(k)), which Go compares without allocating.
func key(k []byte) []byte {
	if bytes.IndexByte(k, '\\') < 0 {
		return k
	}
	s, _ := jsonx.Str(append(append([]byte{'"'}, k...), '"'))
	return []byte(s)
}

// interner shares the strings that repeat from frame to frame (event
// names, states, run ids, session keys) so classifying allocates little.
// Each field has a slot remembering its last two values, the latest
// first: consecutive frames mostly repeat one (or, with two runs streaming
// at once, alternate between two), and comparing bytes is cheaper than
// hashing them.
type interner struct {
	m    map[string]string
	last [nSlots][2]string
}

// Slots of the last-value cache, one per field read.
const (
	slotType = iota
	slotEvent
	slotMethod
	slotRunID
	slotSessionKey
	slotAgentID
	slotState
	slotStream
	slotPhase
	slotID
	slotDataPhase
	slotReqAgentID
	slotReqRunID
	slotReqSessionKey
	nSlots
)

const maxInterned = 8192

// str is the string v, a raw JSON string, from in; plain says it has no
// backslash (the walk saw none in the line), so none is looked for.
func (in *interner) str(v []byte, slot int, plain bool) string {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return ""
	}
	body := v[1 : len(v)-1]
	if in == nil || len(body) > 256 || !plain && bytes.IndexByte(body, '\\') >= 0 {
		s, _ := jsonx.Str(v)
		return s
	}
	last := &in.last[slot]
	if last[0] == string(body) {
		return last[0]
	}
	if last[1] == string(body) {
		last[0], last[1] = last[1], last[0]
		return last[0]
	}
	s, ok := in.m[string(body)]
	if !ok {
		s, _ = jsonx.Str(v)
		if len(in.m) < maxInterned {
			in.m[s] = s
		}
	}
	last[0], last[1] = s, last[0]
	return s
}

// str is the interned string of the raw JSON string v.
func (f *fields) str(v []byte, slot int) string { return f.in.str(v, slot, f.plain) }

func (f *fields) strOK(v []byte, slot int) (string, bool) {
	if jsonx.KindOf(v) != jsonx.String {
		return "", false
	}
	return f.str(v, slot), true
}

// readFrame walks the frame's members, descending into the payload.
func (f *fields) readFrame(it *jsonx.Iter) bool {
	for {
		k, ok := it.Key()
		if !ok {
			return it.Err() == nil
		}
		switch string(key(k)) {
		case "type":
			f.typ = f.str(it.Skip(), slotType)
		case "event":
			f.event = f.str(it.Skip(), slotEvent)
		case "method":
			f.method = f.str(it.Skip(), slotMethod)
		case "id":
			f.idRaw = it.Skip()
		case "ok":
			f.okRaw = it.Skip()
		case "seq":
			f.seq, f.hasSeq = jsonx.Int(it.Skip())
		case "error":
			if v := it.Skip(); jsonx.KindOf(v) == jsonx.Object {
				f.code, _ = jsonx.GetStr(v, "code")
			}
		case "payload":
			f.payload, f.payloadObj = nil, false
			if it.Peek() != '{' {
				f.payload = it.Skip()
				continue
			}
			start := it.Pos()
			f.payloadObj = true
			it.Object()
			f.readPayload(it)
			f.payload = it.Since(start)
		default:
			it.Skip()
		}
		if it.Err() != nil {
			return false
		}
	}
}

func (f *fields) readPayload(it *jsonx.Iter) {
	var local members // when nothing is captured; keeps the cases below simple
	m := f.m
	if m == nil {
		m = &local
	} else {
		gen := m.gen
		*m = members{gen: gen}
	}
	// A payload key repeated: like JSON.parse, the last one wins.
	for {
		k, ok := it.Key()
		if !ok {
			m.ok = it.Err() == nil
			return
		}
		switch string(key(k)) {
		case "runId":
			m.runID = it.Skip()
			f.runID = f.str(m.runID, slotRunID)
		case "sessionKey":
			m.sessionKey = it.Skip()
			f.sessionKey = f.str(m.sessionKey, slotSessionKey)
			f.hasSessionKey = jsonx.KindOf(m.sessionKey) == jsonx.String
		case "seq":
			m.seq = it.Skip()
		case "stopReason":
			m.stopReason = it.Skip()
		case "errorMessage":
			m.errorMessage = it.Skip()
		case "model":
			m.model = it.Skip()
		case "message":
			m.message = it.Skip()
		case "deltaText":
			m.deltaText = it.Skip()
		case "replace":
			m.replace = it.Skip()
		case "agentId":
			m.agentID = it.Skip()
			f.agentID, f.hasAgentID = f.strOK(m.agentID, slotAgentID)
		case "state":
			m.state = it.Skip()
			f.state = f.str(m.state, slotState)
		case "stream":
			m.stream = it.Skip()
			f.stream = f.str(m.stream, slotStream)
		case "phase":
			f.phase = f.str(it.Skip(), slotPhase)
		case "id":
			f.id = f.str(it.Skip(), slotID)
		case "data":
			f.dataPhase, f.hasDataPhase = "", false
			m.dataText, m.dataReplace = nil, nil
			if it.Peek() != '{' {
				m.data = it.Skip()
				continue
			}
			start := it.Pos()
			it.Object()
			for {
				dk, ok := it.Key()
				if !ok {
					break
				}
				switch string(key(dk)) {
				case "phase":
					f.dataPhase, f.hasDataPhase = f.strOK(it.Skip(), slotDataPhase)
				case "text":
					m.dataText = it.Skip()
				case "replace":
					m.dataReplace = it.Skip()
				default:
					it.Skip()
				}
			}
			m.data = it.Since(start)
		case "request":
			f.reqObj, f.reqAgentID, f.hasReqAgentID, f.reqRunID, f.reqSK, f.hasReqSK = false, "", false, "", "", false
			if it.Peek() != '{' {
				it.Skip()
				continue
			}
			f.reqObj = true
			it.Object()
			for {
				rk, ok := it.Key()
				if !ok {
					break
				}
				switch string(key(rk)) {
				case "agentId":
					f.reqAgentID, f.hasReqAgentID = f.strOK(it.Skip(), slotReqAgentID)
				case "runId":
					f.reqRunID = f.str(it.Skip(), slotReqRunID)
				case "sessionKey":
					f.reqSK, f.hasReqSK = f.strOK(it.Skip(), slotReqSessionKey)
				default:
					it.Skip()
				}
			}
		default:
			it.Skip()
		}
		if it.Err() != nil {
			return
		}
	}
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

func (f *fields) classifyEvent(ev *Event) {
	switch ev.Event {
	case "presence", "heartbeat":
		ev.Kind = SummaryRefresh
	case "chat":
		ev.Kind = RuntimeChat
		if f.payloadObj {
			ev.RunID, ev.SessionKey, ev.HasSessionKey, ev.State, ev.Phase = f.runID, f.sessionKey, f.hasSessionKey, f.state, f.phase
			ev.AgentID = SessionAgentID(ev.SessionKey)
		}
	case "agent":
		ev.Kind = RuntimeAgent
		if f.payloadObj {
			ev.RunID, ev.SessionKey, ev.HasSessionKey, ev.Stream = f.runID, f.sessionKey, f.hasSessionKey, f.stream
			if f.hasDataPhase {
				ev.Phase = f.dataPhase
			}
			if f.hasAgentID {
				ev.AgentID = f.agentID
			} else {
				ev.AgentID = SessionAgentID(ev.SessionKey)
			}
		}
	case "exec.approval.pending", "exec.approval.requested", "exec.approval.resolved":
		ev.Kind = Approval
		if f.payloadObj {
			ev.ID = f.id
			if f.hasAgentID {
				ev.AgentID = f.agentID
			} else if f.reqObj {
				ev.AgentID = f.reqAgentID
			}
			if f.reqObj {
				ev.RunID = f.reqRunID
				if f.hasReqSK {
					ev.RequestSessionKey = f.reqSK
				}
			}
		}
	default:
		ev.Kind = Unknown
	}
}
