package check

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/runs"
)

// lookupRun is the state of run id on conn, nil when the table holds no
// such run or conn has not seen it.
func (a *Analyzer) lookupRun(conn int, id string) *runState {
	if tr := a.table.Lookup(id); tr != nil {
		if c := a.runs.Peek(tr); c != nil {
			return c.on(conn)
		}
	}
	return nil
}

// run is the state of the record's run on its connection, made at the
// connection's first frame of it.
func (a *Analyzer) run(rec *capture.Record, ev *bridge.Event) *runState {
	c := a.runs.Of(a.cur)
	r := c.on(rec.Conn)
	if r == nil {
		r = &runState{key: runKey{rec.Conn, ev.RunID}, n: a.cur.N, firstI: rec.Index, firstT: rec.T}
		*c = append(*c, r)
		a.live[r.key] = r
		a.sum.Runs++
	}
	r.lastI, r.lastT = rec.Index, rec.T
	if r.agent == "" {
		r.agent = ev.AgentID
	}
	if r.session == "" {
		r.session = ev.SessionKey
	}
	return r
}

// letGo forgets a run the table lets go: a run crowded out before its
// terminal is counted (Summary.Evicted); those held to the end wait for
// End, which judges the ones still live.
func (a *Analyzer) letGo(tr *runs.Run) {
	c := a.runs.Peek(tr)
	if c == nil {
		return
	}
	for _, r := range *c {
		if tr.Kept {
			a.kept = append(a.kept, r)
			continue
		}
		if !r.done() {
			a.sum.Evicted++
		}
		r.gone = true
		delete(a.live, r.key)
	}
}

// late reports an event for a run after its terminal, once per run.
func (a *Analyzer) late(rec *capture.Record, r *runState, what string) {
	if r.lateReported {
		return
	}
	r.lateReported = true
	after, at := "", 0
	switch {
	case r.chatTerm != "":
		after, at = "chat "+r.chatTerm, r.chatTermI
	default:
		after, at = "lifecycle "+r.lifeTerm, r.lifeTermI
	}
	a.addRun(RuleLateEvent, 0, rec.Index, rec.T, r, fmt.Sprintf("%s for run %s arrived %s after its %s (record %d).", capitalize(what), r.key.id, ms(rec.T-termT(r)), after, at))
}

func termT(r *runState) int64 {
	if r.chatTerm != "" {
		return r.chatTermT
	}
	return r.lifeTermT
}

// emptyFinal explains a chat final with no message for a run that showed
// nothing before it: how the gateway closes a chat.send it did not run
// under the send's own run id. The real gateway does so when the session
// is busy: the message is queued into the running turn, which answers it,
// and the send's final comes when the turn takes the message up; after a
// restart the message waits behind the turn the restart cut short, which
// resumes under a new run id.
func (a *Analyzer) emptyFinal(rec *capture.Record, r *runState) {
	head := fmt.Sprintf("Run %s ended with an empty chat final: no message, and nothing of the run before it.", r.key.id)
	if busy := a.earliestLive(r, false); busy != nil {
		with := fmt.Sprintf("run %s (live since record %d)", busy.key.id, busy.firstI)
		if busy.key.conn != r.key.conn {
			with += fmt.Sprintf(" on connection %d", busy.key.conn)
			if cs := a.conns[busy.key.conn]; cs != nil && cs.closed {
				with += ", which closed while the run was live (a turn a gateway restart cut short resumes under a new run id)"
			}
		}
		a.addRun(RuleEmptyFinal, 0, rec.Index, rec.T, r, fmt.Sprintf("%s Session %s was busy with %s: the gateway queued the message into that turn instead of starting a run, so the reply comes in that turn or a later run, never as %s's final. A UI waiting on %s shows the message unanswered.",
			head, r.session, with, r.key.id, r.key.id))
		return
	}
	a.addRun(RuleEmptyFinal, 0, rec.Index, rec.T, r, fmt.Sprintf("%s The gateway closes a chat.send so when it does not run it under its own id: it queued the message behind a busy session (after a restart, behind the turn the restart cut short, which resumes under a new run id), answered it as a side result, or skipped the reply. The reply, if any, comes under another run id; a UI waiting on %s shows the message unanswered.",
		head, r.key.id))
}

// earliestLive is the live run of r's session, other than r, that started
// first: on r's connection only when sameConn, on any otherwise. It is nil
// when there is none, or r has no session.
func (a *Analyzer) earliestLive(r *runState, sameConn bool) *runState {
	if r.session == "" {
		return nil
	}
	var first *runState
	for _, o := range a.live {
		if o == r || sameConn && o.key.conn != r.key.conn || o.session != r.session || !o.live() {
			continue
		}
		if first == nil || o.firstI < first.firstI {
			first = o
		}
	}
	return first
}

// stale reports a terminal of run r arriving while another run of the same
// session is live on the connection.
func (a *Analyzer) stale(rec *capture.Record, r *runState, what string) {
	if r.staleReported {
		return
	}
	other := a.earliestLive(r, true)
	if other == nil {
		return
	}
	r.staleReported = true
	a.addRun(RuleStaleTerminal, 0, rec.Index, rec.T, r, fmt.Sprintf("%s for run %s arrived while run %s of session %s was live (since record %d); a UI fenced on the agent's current run applies it to the wrong run.", capitalize(what), r.key.id, other.key.id, r.session, other.firstI))
}

func (a *Analyzer) chat(cs *connState, rec *capture.Record, ev *bridge.Event) {
	p := ev.Payload
	if ev.State == "status" && ev.RunID != "" {
		a.run(rec, ev)
		return
	}
	var cp bridge.ChatPayload // from the members the classifier captured
	if !ev.Chat(&cp) {
		a.add(RuleMalformedPayload, 0, rec.Index, rec.T, rec.Conn, nil, ev.RunID, "", ev.SessionKey, "Chat event "+chatProblem(p)+"; UIs drop it as a malformed chat payload.")
		return
	}
	r := a.run(rec, ev)
	switch ev.State {
	case "delta":
		if r.done() {
			a.late(rec, r, "chat delta")
			return
		}
		r.hasChatDelta = true
		rv, _ := ev.Member("replace")
		replace := jsonx.Truthy(rv) // any truthy value, as for agent events
		var next string
		have := false
		if jsonx.KindOf(cp.Message) == jsonx.Object {
			// Derived once per event (the replay's policy did, when it
			// ran); else mostly the text the run's agent event just
			// carried, which the memo hands back instead of decoding it.
			next, have = ev.MessageText(&a.texts)
		}
		if !have {
			if dt, ok := cp.DeltaTextString(); ok {
				if replace {
					next, have = dt, true
				} else {
					next, have = r.chat.s+dt, true
				}
			}
		}
		if replace {
			a.addRun(RuleReplaceDelta, 0, rec.Index, rec.T, r, fmt.Sprintf("Chat delta with replace:true rewrote the streamed text of run %s (%d → %d chars).", r.key.id, len(r.chat.s), len(next)))
		}
		if have {
			a.trackText(rec, r, &r.chat, "chat", next, replace)
		}
	case "final", "aborted", "error":
		a.chatTerminal(rec, r, ev, p)
	}
}

func chatProblem(p []byte) string {
	if jsonx.KindOf(p) != jsonx.Object {
		return "payload is not an object"
	}
	if s, _ := jsonx.GetStr(p, "runId"); s == "" {
		return "has no runId"
	}
	if s, _ := jsonx.GetStr(p, "sessionKey"); s == "" {
		return "has no sessionKey"
	}
	st, _ := jsonx.GetStr(p, "state")
	return "has unknown state " + strconv.Quote(st)
}

func (a *Analyzer) chatTerminal(rec *capture.Record, r *runState, ev *bridge.Event, p []byte) {
	state := ev.State
	if r.chatTerm != "" {
		if state == "error" && r.chatTerm == "aborted" {
			return // 2026.9.7's error after an abort: error-after-aborted (wire.go)
		}
		if state == "error" && r.chatTerm == "error" && r.chatErrors == 1 && isDispatchError(p) {
			r.chatErrors++
			a.addRun(RuleDoubleError, 0, rec.Index, rec.T, r, fmt.Sprintf("Second chat error for run %s, %s after the first: the gateway's dispatch-failure copy (2026.9.6 sends two per failed run); a UI without a closed-run guard shows the error twice.", r.key.id, ms(rec.T-r.chatTermT)))
			return
		}
		if !r.dupReported {
			r.dupReported = true
			same := ""
			if state == r.chatTerm {
				same = " again"
			}
			a.addRun(RuleDuplicateTerminal, 0, rec.Index, rec.T, r, fmt.Sprintf("Chat %s%s for run %s, %s after its chat %s (record %d): a UI without a closed-run guard commits the turn twice.", state, same, r.key.id, ms(rec.T-r.chatTermT), r.chatTerm, r.chatTermI))
		}
		return
	}
	a.stale(rec, r, "chat "+state)
	r.chatTerm, r.chatTermI, r.chatTermT = state, rec.Index, rec.T
	delete(a.live, r.key)
	if state == "error" {
		r.chatErrors = 1
	}
	msgRaw, hasMsg := ev.Member("message")
	hasMsg = hasMsg && jsonx.KindOf(msgRaw) == jsonx.Object
	switch state {
	case "final":
		if hasMsg {
			a.leak(rec, r, msgRaw, "chat final")
		}
		if r.firstI == rec.Index && (msgRaw == nil || jsonx.KindOf(msgRaw) == jsonx.Null) {
			a.emptyFinal(rec, r)
		}
		a.finalText(rec, r, ev, hasMsg)
	case "aborted":
		if hasMsg {
			a.leak(rec, r, msgRaw, "chat aborted")
		}
		sv, _ := ev.Member("stopReason")
		stop, _ := jsonx.Str(sv)
		a.addRun(RuleRunAborted, 0, rec.Index, rec.T, r, fmt.Sprintf("Run %s was aborted (stopReason %s) after %s.", r.key.id, orNone(stop), ms(rec.T-r.firstT)))
	case "error":
		if !r.failed {
			r.failed = true
			emv, _ := ev.Member("errorMessage")
			em, _ := jsonx.Str(emv)
			kind, _ := jsonx.GetStr(p, "errorKind")
			a.addRun(RuleRunFailed, 0, rec.Index, rec.T, r, fmt.Sprintf("Run %s failed (chat error%s): %s", r.key.id, kindNote(kind), endSentence(clip(orNone(em), 160))))
		}
	}
	// A terminal run keeps no text.
	r.chat, r.asst, r.thk = textTrack{}, textTrack{}, textTrack{}
	r.waiting = nil
}

func kindNote(kind string) string {
	if kind == "" {
		return ""
	}
	return ", errorKind " + kind
}

// isDispatchError recognises the second chat error of a failed run on
// 2026.9.6: payload seq 1, no agentId, "Agent failed before reply".
func isDispatchError(p []byte) bool {
	if _, ok := jsonx.Get(p, "agentId"); !ok {
		return true
	}
	if n, ok := jsonx.GetInt(p, "seq"); ok && n == 1 {
		return true
	}
	em, _ := jsonx.GetStr(p, "errorMessage")
	return strings.Contains(em, "Agent failed before reply")
}

func (a *Analyzer) agent(cs *connState, rec *capture.Record, ev *bridge.Event) {
	p := ev.Payload
	if ev.RunID == "" {
		if ev.Stream == "error" {
			return // the gateway's seq-gap event; the gap detector reports it
		}
		a.add(RuleMalformedPayload, 0, rec.Index, rec.T, rec.Conn, nil, "", ev.AgentID, ev.SessionKey, "Agent event (stream "+orNone(ev.Stream)+") has no runId; UIs drop it as a malformed agent payload.")
		return
	}
	r := a.run(rec, ev)
	data, _ := ev.Member("data")
	switch ev.Stream {
	case "lifecycle":
		a.lifecycle(rec, r, ev.Phase, data)
		return
	case "error":
		return
	case "tool":
		if id := toolCallID(p, data); id != "" {
			a.tool(cs, rec, r, id, 1)
		}
	}
	if r.done() {
		a.late(rec, r, "agent "+ev.Stream+" event")
		return
	}
	if r.lifeTerm != "" && ev.Stream != "run_status" {
		a.late(rec, r, "agent "+ev.Stream+" event")
		return
	}
	switch {
	case ev.Stream == "assistant":
		rv, _ := ev.DataMember("replace")
		replace := jsonx.Truthy(rv)
		next, ok := ev.DataTextString(&a.texts) // decoded once per event
		if !ok {
			d, dok := jsonx.GetStr(data, "delta")
			if !dok {
				return
			}
			if replace {
				next = d
			} else {
				next = r.asst.s + d
			}
		}
		if replace {
			a.addRun(RuleReplaceDelta, 0, rec.Index, rec.T, r, fmt.Sprintf("Agent assistant event with replace:true rewrote the text of run %s (%d → %d chars).", r.key.id, len(r.asst.s), len(next)))
		}
		if a.newCallText(rec, r, &r.asst, &r.asstCall, "agent assistant", next, replace) {
			return
		}
		a.trackText(rec, r, &r.asst, "agent assistant", next, replace)
	case bridge.IsReasoningStream(ev.Stream):
		if next, ok := ev.DataTextString(&a.texts); ok { // decoded once per event
			rv, _ := ev.DataMember("replace")
			if a.newCallText(rec, r, &r.thk, &r.thkCall, "agent "+ev.Stream, next, jsonx.Truthy(rv)) {
				return
			}
			a.trackText(rec, r, &r.thk, "agent "+ev.Stream, next, jsonx.Truthy(rv))
		}
	}
}

func toolCallID(p, data []byte) string {
	if s, ok := jsonx.GetStr(data, "toolCallId"); ok {
		return s
	}
	s, _ := jsonx.GetStr(p, "toolCallId")
	return s
}

func (a *Analyzer) lifecycle(rec *capture.Record, r *runState, phase string, data []byte) {
	switch phase {
	case "start":
		if r.done() {
			a.late(rec, r, "lifecycle start")
			return
		}
		// A retry or fallback may reuse the runId after a lifecycle error.
		r.lifeStarted = true
		r.lifeTerm, r.lifeAborted = "", false
		a.live[r.key] = r
		r.asst, r.thk = textTrack{}, textTrack{}
	case "model":
		// A new model call streams its message afresh on the agent stream.
		r.asstCall, r.thkCall, r.callI = true, true, rec.Index
	case "waiting-approval":
		if id, ok := jsonx.GetStr(data, "approvalId"); ok && id != "" {
			if r.waiting == nil {
				r.waiting = make(map[string]bool)
			}
			r.waiting[id] = true
			a.trackApproval(rec, id, 0, r.key.id, r.agent, r.session, "", "exec", "lifecycle waiting-approval")
		}
	case "approval-resolved":
		if id, ok := jsonx.GetStr(data, "approvalId"); ok {
			delete(r.waiting, id)
			a.resolveApproval(id)
		}
	case "end", "error":
		aborted := jsonx.Truthy(mustGet(data, "aborted"))
		if st, _ := jsonx.GetStr(data, "status"); st == "cancelled" {
			aborted = true
		}
		errText, _ := jsonx.GetStr(data, "error")
		abortRelated := r.lifeAborted || r.chatTerm == "aborted" || aborted || strings.Contains(strings.ToLower(errText), "aborted")
		if r.chatTerm != "" {
			// After a chat aborted or error the lifecycle may still end
			// (2026.5.7 and 2026.9.6 send end and then error on abort).
			if r.chatTerm == "final" && !abortRelated {
				a.late(rec, r, "lifecycle "+phase)
			}
			return
		}
		if r.lifeTerm != "" {
			if !abortRelated && !r.dupReported {
				r.dupReported = true
				a.addRun(RuleDuplicateTerminal, 0, rec.Index, rec.T, r, fmt.Sprintf("Lifecycle %s for run %s, %s after its lifecycle %s (record %d), with no abort between.", phase, r.key.id, ms(rec.T-r.lifeTermT), r.lifeTerm, r.lifeTermI))
			}
			return
		}
		a.stale(rec, r, "lifecycle "+phase)
		r.lifeTerm, r.lifeTermI, r.lifeTermT, r.lifeAborted = phase, rec.Index, rec.T, aborted
		delete(a.live, r.key)
		if phase == "error" && !abortRelated && !r.failed {
			r.failed = true
			kind, _ := jsonx.GetStr(data, "errorKind")
			a.addRun(RuleRunFailed, 0, rec.Index, rec.T, r, fmt.Sprintf("Run %s failed (lifecycle error%s): %s", r.key.id, kindNote(kind), endSentence(clip(orNone(errText), 160))))
		}
		if r.asst.set {
			a.leakText(rec, r, r.asst.s, "agent assistant text")
		}
		if !r.noChatQueued {
			r.noChatQueued = true
			a.noChat = append(a.noChat, r)
		}
	}
}

// tool remembers a tool call id on a connection: bit 1 from an agent tool
// event, bit 2 from session.tool.
func (a *Analyzer) tool(cs *connState, rec *capture.Record, r *runState, id string, bit uint8) {
	old, seen := cs.tools[id]
	if !seen {
		if len(cs.toolOrder) >= maxTools {
			delete(cs.tools, cs.toolOrder[0])
			cs.toolOrder = cs.toolOrder[1:]
		}
		cs.toolOrder = append(cs.toolOrder, id)
	}
	now := old | bit
	cs.tools[id] = now
	if old&3 != 3 && now == 3 {
		cs.tools[id] = now | 4
		runID, agent, sess := "", "", ""
		if r != nil {
			runID, agent, sess = r.key.id, r.agent, r.session
		}
		a.add(RuleToolAmplified, 0, rec.Index, rec.T, rec.Conn, nil, runID, agent, sess, fmt.Sprintf("Tool call %s reached connection %d both as an agent tool event and as session.tool: the same data twice.", id, rec.Conn))
	}
}
