package clawboo_test

// The reference pipeline, written again from pipeline-spec §1–3 and §7.1
// over the JavaScript value model of refjs_test.go: classifyEvent,
// parse{Chat,Agent}Payload, derivePolicy with deriveChatCost, and the
// @clawboo/protocol extraction it calls. It is deliberately plain (one
// function per rule of the spec, no shortcuts) and shares no code with
// the production path; differential_test.go compares the two.
//
// Where the spec leaves a reading open, the reading is the one
// docs/pipeline.md documents (noted inline).

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"
)

type refEvent struct {
	kind       string
	event      string
	agentID    *jv // undefined, or the value the reference takes
	sessionKey *jv
	payload    *jv
	payloadRaw []byte
	ts         int64
}

func refClassify(frame *jv, payloadRaw []byte, ts int64) refEvent {
	ev := refEvent{event: frame.get("event").str(), payload: frame.get("payload"), payloadRaw: payloadRaw, ts: ts,
		agentID: undef, sessionKey: undef}
	p := ev.payload
	sessionAgent := func() *jv {
		sk := p.get("sessionKey")
		if !sk.isStr() {
			return undef
		}
		m := regexp.MustCompile(`^agent:([^:]+):`).FindStringSubmatch(string(utf8Units(sk.s)))
		if m == nil {
			return undef
		}
		return &jv{k: jStr, s: unitsOf(m[1])}
	}
	if frame.get("event").k != jStr {
		ev.kind = "unknown"
		return ev
	}
	switch ev.event {
	case "presence", "heartbeat":
		ev.kind = "summary-refresh"
	case "chat":
		ev.kind = "runtime-chat"
		ev.agentID = sessionAgent()
		if p.get("sessionKey").isStr() {
			ev.sessionKey = p.get("sessionKey")
		}
	case "agent":
		ev.kind = "runtime-agent"
		if a := p.get("agentId"); a.isStr() {
			ev.agentID = a
		} else {
			ev.agentID = sessionAgent()
		}
		if p.get("sessionKey").isStr() {
			ev.sessionKey = p.get("sessionKey")
		}
	case "exec.approval.pending", "exec.approval.requested", "exec.approval.resolved":
		ev.kind = "approval"
		if a := p.get("agentId"); a.isStr() {
			ev.agentID = a
		} else if r := p.get("request"); r.k == jObj && r.get("agentId").isStr() {
			// Reading: request.agentId is taken when it is a string.
			ev.agentID = r.get("agentId")
		}
	default:
		ev.kind = "unknown"
	}
	return ev
}

// utf8Units maps code units one to one onto runes, so a regexp over the
// result sees one character per code unit; unitsOf undoes it.
func utf8Units(u []uint16) []rune {
	r := make([]rune, len(u))
	for i, c := range u {
		r[i] = rune(c)
		if c >= 0xD800 && c < 0xE000 {
			r[i] = 0xF0000 + rune(c) // a private-use stand-in keeps identity
		}
	}
	return r
}

func unitsOf(s string) []uint16 {
	var u []uint16
	for _, r := range s {
		if r >= 0xF0000+0xD800 && r < 0xF0000+0xE000 {
			u = append(u, uint16(r-0xF0000))
		} else {
			u = append(u, uint16(r))
		}
	}
	return u
}

type intentOut struct{ b []byte }

func (o *intentOut) raw(s string) { o.b = append(o.b, s...) }
func (o *intentOut) str(u []uint16) {
	o.b = appendUnits(o.b, u, true)
}

// patch fields, in clawtap's key order; nil means absent.
type refPatch struct {
	status, runID, runStartedAt, streamText, thinkingTrace, lastActivityAt *string // JSON text
}

func jsonStr(u []uint16) *string { s := string(appendUnits(nil, u, true)); return &s }
func lit(s string) *string       { return &s }

func (p refPatch) json() string {
	var parts []string
	add := func(k string, v *string) {
		if v != nil {
			parts = append(parts, `"`+k+`":`+*v)
		}
	}
	add("status", p.status)
	add("runId", p.runID)
	add("runStartedAt", p.runStartedAt)
	add("streamText", p.streamText)
	add("thinkingTrace", p.thinkingTrace)
	add("lastActivityAt", p.lastActivityAt)
	return "{" + strings.Join(parts, ",") + "}"
}

func ignoreJSON(reason []uint16) string {
	return `{"kind":"ignore","reason":` + string(appendUnits(nil, reason, true)) + `}`
}

func u16(s string) []uint16 { return utf16.Encode([]rune(s)) }

func sessionPart(ev refEvent) string {
	if ev.sessionKey.k == jStr {
		return `,"sessionKey":` + string(appendUnits(nil, ev.sessionKey.s, true))
	}
	return ""
}

// refDerive is derivePolicy.
func refDerive(ev refEvent) []string {
	ts := strconv.FormatInt(ev.ts, 10)
	agent := func() string { return `,"agentId":` + string(appendUnits(nil, ev.agentID.s, true)) }
	hasAgent := ev.agentID.k == jStr && len(ev.agentID.s) > 0
	switch ev.kind {
	case "summary-refresh":
		return []string{`{"kind":"scheduleSummaryRefresh","plane":"agent","delayMs":750,"includeHeartbeatRefresh":` + strconv.FormatBool(ev.event == "heartbeat") + `}`}
	case "runtime-chat":
		p := ev.payload
		if p.k != jObj || !p.get("runId").isStr() || len(p.get("runId").s) == 0 || !p.get("sessionKey").isStr() || len(p.get("sessionKey").s) == 0 {
			return []string{ignoreJSON(u16("malformed chat payload"))}
		}
		state := p.get("state")
		if !(state.strIs("delta") || state.strIs("final") || state.strIs("aborted") || state.strIs("error")) {
			return []string{ignoreJSON(u16("malformed chat payload"))}
		}
		if !hasAgent {
			return []string{ignoreJSON(u16("chat event missing agentId"))}
		}
		runID := jsonStr(p.get("runId").s)
		msg := p.get("message")
		clear := `{"kind":"clearPendingLivePatch","plane":"work","agentId":` + string(appendUnits(nil, ev.agentID.s, true)) + `}`
		commit := func(patch refPatch, lines [][]uint16, cost string) string {
			var ls []string
			for _, l := range lines {
				ls = append(ls, string(appendUnits(nil, l, true)))
			}
			return `{"kind":"commitChat","plane":"work"` + agent() + sessionPart(ev) + `,"runId":` + *runID + `,"patch":` + patch.json() +
				`,"outputLines":[` + strings.Join(ls, ",") + `],"cost":` + cost + `}`
		}
		null := lit("null")
		switch state.str() {
		case "delta":
			patch := refPatch{runID: runID, lastActivityAt: &ts}
			if t := extractText(msg); t != nil {
				patch.streamText = jsonStr(t)
			}
			if th := extractThinking(msg); th != nil {
				patch.thinkingTrace = jsonStr(th)
			}
			return []string{`{"kind":"queueLivePatch","plane":"work"` + agent() + sessionPart(ev) + `,"patch":` + patch.json() + `}`}
		case "final":
			text := extractText(msg)
			var lines [][]uint16
			if len(text) > 0 {
				lines = append(lines, text)
			}
			lines = append(lines, extractToolLines(msg)...)
			patch := refPatch{status: lit(`"idle"`), runID: null, runStartedAt: null, streamText: null, thinkingTrace: null, lastActivityAt: &ts}
			out := []string{clear, commit(patch, lines, deriveChatCost(p, text))}
			if extractThinking(msg) == nil {
				out = append(out, `{"kind":"requestHistoryRefresh","plane":"agent"`+agent()+`,"reason":"chat-final-no-trace"}`)
			}
			return out
		case "aborted":
			patch := refPatch{status: lit(`"idle"`), runID: null, runStartedAt: null, streamText: null, thinkingTrace: null}
			return []string{clear, commit(patch, nil, "null")}
		default:
			patch := refPatch{status: lit(`"error"`), runID: null, runStartedAt: null, streamText: null, thinkingTrace: null}
			if em := p.get("errorMessage"); em.isStr() {
				patch.streamText = jsonStr(em.s)
			}
			return []string{clear, commit(patch, nil, "null")}
		}
	case "runtime-agent":
		p := ev.payload
		if p.k != jObj || !p.get("runId").isStr() || len(p.get("runId").s) == 0 {
			return []string{ignoreJSON(u16("malformed agent payload"))}
		}
		if !hasAgent {
			return []string{ignoreJSON(u16("agent event missing agentId"))}
		}
		runID := jsonStr(p.get("runId").s)
		stream := undef
		if p.get("stream").isStr() {
			stream = p.get("stream")
		}
		data := undef
		if d := p.get("data"); d.k == jObj || d.k == jArr {
			data = d
		}
		upd := func(patch refPatch) []string {
			return []string{`{"kind":"updateAgentStatus","plane":"agent"` + agent() + `,"runId":` + *runID + `,"patch":` + patch.json() + `}`}
		}
		null := lit("null")
		text := data.get("text")
		switch {
		case stream.strIs("lifecycle"):
			phase := data.get("phase")
			switch {
			case phase.strIs("start"):
				return upd(refPatch{status: lit(`"running"`), runID: runID, runStartedAt: &ts, streamText: null, thinkingTrace: null})
			case phase.strIs("end"):
				return upd(refPatch{status: lit(`"idle"`), runID: null, runStartedAt: null, streamText: null, thinkingTrace: null, lastActivityAt: &ts})
			case phase.strIs("error"):
				return upd(refPatch{status: lit(`"error"`), runID: null, runStartedAt: null, streamText: null, thinkingTrace: null, lastActivityAt: &ts})
			}
			return []string{ignoreJSON(append(u16("unknown lifecycle phase: "), jsString(phase)...))}
		case stream.k == jStr && isReasoningStream(stream.s):
			// Reading: data.text counts when it is a non-empty string.
			if !text.isStr() || len(text.s) == 0 {
				return []string{ignoreJSON(u16("reasoning stream with no text"))}
			}
			patch := refPatch{runID: runID, thinkingTrace: jsonStr(text.s), lastActivityAt: &ts}
			return []string{`{"kind":"queueLivePatch","plane":"work"` + agent() + sessionPart(ev) + `,"patch":` + patch.json() + `}`}
		case stream.strIs("assistant"):
			if !text.isStr() || len(text.s) == 0 {
				return []string{ignoreJSON(u16("assistant stream with no text"))}
			}
			patch := refPatch{runID: runID, streamText: jsonStr(text.s), lastActivityAt: &ts}
			return []string{`{"kind":"queueLivePatch","plane":"work"` + agent() + sessionPart(ev) + `,"patch":` + patch.json() + `}`}
		}
		return []string{ignoreJSON(append(u16("tool/unknown stream (handled by handler): "), jsString(stream)...))}
	case "approval":
		if !hasAgent {
			return []string{ignoreJSON(u16("approval event missing agentId"))}
		}
		kind := "approvalResolved"
		if ev.event == "exec.approval.pending" || ev.event == "exec.approval.requested" {
			kind = "approvalPending"
		}
		payload := "null"
		if ev.payloadRaw != nil {
			payload = string(ev.payloadRaw)
		}
		return []string{`{"kind":"` + kind + `","plane":"trust"` + agent() + `,"payload":` + payload + `}`}
	}
	return []string{ignoreJSON(u16("unknown event kind"))}
}

func isReasoningStream(stream []uint16) bool {
	s := lowerU(stream)
	for _, deny := range []string{"assistant", "tool", "lifecycle"} {
		if containsU(s, deny) {
			return false
		}
	}
	for _, allow := range []string{"reason", "think", "analysis", "trace"} {
		if containsU(s, allow) {
			return true
		}
	}
	return false
}

// deriveChatCost, as JSON text.
func deriveChatCost(p *jv, text []uint16) string {
	msg := p.get("message")
	if msg.k != jObj {
		return "null"
	}
	model := u16("unknown")
	if m := p.get("model"); m.isStr() {
		model = m.s
	} else if m := msg.get("model"); m.isStr() {
		model = m.s
	}
	head := `{"model":` + string(appendUnits(nil, model, true))
	usage := msg.get("usage")
	if usage.k != jObj { // reading: a usage block is an object
		usage = msg.get("metadata").get("usage")
	}
	if usage.k == jObj {
		count := func(v *jv) string {
			if v.k != jNum || !(v.n > 0) {
				return "0"
			}
			return numJSON(v.n)
		}
		return head + `,"inputTokens":` + count(usage.get("input_tokens")) + `,"outputTokens":` + count(usage.get("output_tokens")) + `}`
	}
	out := 0
	if len(text) > 0 {
		out = (len(text) + 3) / 4 // Math.ceil(length / 4), length in code units
	}
	return head + `,"inputTokens":null,"outputTokens":` + strconv.Itoa(out) + `}`
}
