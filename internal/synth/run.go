package synth

import (
	"strings"
)

// Run is one agent run: a chat.send (or a run started elsewhere) and the
// agent and chat events it produces. Agent events carry a per-run payload
// seq; chat events reuse the seq of the agent event they mirror.
type Run struct {
	s *Session
	// Sender is the connection that sent chat.send; it alone receives the
	// targeted tool stream (when it declared "tool-events"). Nil for runs
	// started by someone the capture does not see.
	Sender     *Conn
	ID         string // runId (= the chat.send idempotencyKey)
	SessionKey string
	AgentID    string
	SessionID  string
	Provider   string
	Model      string

	seq      int64
	raw      []byte // cumulative assistant text
	esc      []byte // the same, JSON-escaped (no quotes)
	chatLen  int    // len(esc) already carried by chat deltas
	think    []byte // cumulative thinking text, escaped
	itemID   string
	head     []byte // "runId":…,"sessionKey":…,"agentId":…
	started  int64
	ended    int64
	endSeq   int64
	stop     string
	outToks  int64
	usageOut bool
}

// ChatSend records the client's chat.send request and the gateway's
// {runId, status:"started"} response, and returns the run. The runId is the
// idempotencyKey the client chose.
func (c *Conn) ChatSend(sessionKey, message string) *Run {
	s := c.s
	r := s.newRun(sessionKey, c)
	w := jw{b: s.pb[:0]}
	w.open()
	w.str("sessionKey", sessionKey)
	w.str("message", message)
	w.str("idempotencyKey", r.ID)
	w.close()
	s.pb = w.b
	id := c.Req("", "chat.send", s.pb)
	s.Advance(4)
	c.Res(id, true, r.startedPayload())
	return r
}

// StartRun returns a run started by a client the capture does not see (a
// channel, another operator): no request, no response, no tool stream.
func (s *Session) StartRun(sessionKey string) *Run { return s.newRun(sessionKey, nil) }

func (s *Session) newRun(sessionKey string, sender *Conn) *Run {
	r := &Run{s: s, Sender: sender, SessionKey: sessionKey, Provider: "fake", Model: "fake-model"}
	r.ID = s.uuid()
	r.SessionID = s.uuid()
	r.itemID = "msg_" + s.hexID(24)
	r.AgentID = agentOf(sessionKey)
	w := jw{b: make([]byte, 0, 160)}
	w.str("runId", r.ID)
	w.str("sessionKey", r.SessionKey)
	w.str("agentId", r.AgentID)
	r.head = w.b
	return r
}

func agentOf(sessionKey string) string {
	if rest, ok := strings.CutPrefix(sessionKey, "agent:"); ok {
		if i := strings.IndexByte(rest, ':'); i > 0 {
			return rest[:i]
		}
	}
	return "main"
}

func (r *Run) startedPayload() []byte {
	w := jw{b: r.s.pb[:0]}
	w.open()
	w.str("runId", r.ID)
	w.str("status", "started")
	w.close()
	r.s.pb = w.b
	return r.s.pb
}

// Seq returns the run's last payload seq.
func (r *Run) Seq() int64 { return r.seq }

// Text returns the cumulative assistant text so far.
func (r *Run) Text() string { return string(r.raw) }

// --- payload builders ------------------------------------------------------

// agentStart begins an agent payload, up to and including `"data":{`.
// It takes the next payload seq unless seq is false.
func (r *Run) agentStart(stream string, withSeq bool) *jw {
	s := r.s
	w := jw{b: append(s.pb[:0], '{')}
	w.b = append(w.b, r.head...)
	if stream == "lifecycle" {
		w.str("sessionId", r.SessionID)
	}
	if withSeq {
		r.seq++
		w.int("seq", r.seq)
	}
	w.int("ts", s.t)
	w.bool("isHeartbeat", false)
	w.str("stream", stream)
	w.obj("data")
	s.pb = w.b
	return &jw{b: w.b}
}

// agentSend closes data and the payload and delivers it.
func (r *Run) agentSend(w *jw, onlySender bool) {
	w.close()
	w.close()
	r.s.pb = w.b
	r.deliver("agent", w.b, onlySender)
}

// deliver sends a payload to everyone, or only to the sender when it is a
// tool-event recipient.
func (r *Run) deliver(event string, payload []byte, onlySender bool) {
	if onlySender {
		if c := r.Sender; c != nil && c.open && c.Has("tool-events") {
			c.Event(event, payload)
		}
		return
	}
	r.s.broadcast(event, payload, false, nil)
}

// chatStart begins a chat payload, up to and including "state".
func (r *Run) chatStart(seq int64, state string, withAgent bool) *jw {
	s := r.s
	w := jw{b: append(s.pb[:0], '{')}
	if withAgent {
		w.b = append(w.b, r.head...)
	} else {
		w.str("runId", r.ID)
		w.str("sessionKey", r.SessionKey)
	}
	w.int("seq", seq)
	w.str("state", state)
	return &w
}

func (r *Run) chatSend(w *jw) {
	w.close()
	r.s.pb = w.b
	r.deliver("chat", w.b, false)
}

func (r *Run) message(w *jw, text []byte, ts int64, final bool) {
	w.obj("message")
	w.str("role", "assistant")
	w.arr("content")
	w.open()
	w.str("type", "text")
	w.esc("text", text)
	w.close()
	w.closeArr()
	w.int("timestamp", ts)
	if final {
		w.str("provider", r.Provider)
		w.str("model", r.Model)
		w.str("stopReason", r.stop)
		r.usage(w, 812, r.outToks)
	}
	w.close()
}

func (r *Run) usage(w *jw, in, out int64) {
	w.obj("usage")
	w.int("input", in)
	w.int("output", out)
	w.int("cacheRead", 0)
	w.int("cacheWrite", 0)
	w.int("totalTokens", in+out)
	w.close()
}

// --- phases ----------------------------------------------------------------

// Status emits a startup phase as a chat status and an agent run_status
// sharing one payload seq.
func (r *Run) Status(phase string) {
	seq := r.seq + 1
	w := r.chatStart(seq, "status", true)
	w.str("phase", phase)
	r.chatSend(w)
	r.s.Advance(1)
	w = r.agentStart("run_status", true)
	w.str("phase", phase)
	r.agentSend(w, false)
}

// Start emits lifecycle start.
func (r *Run) Start() {
	r.started = r.s.t
	w := r.agentStart("lifecycle", true)
	w.str("phase", "start")
	w.int("startedAt", r.started)
	r.agentSend(w, false)
}

// ModelSelected emits lifecycle model {provider, model}.
func (r *Run) ModelSelected() {
	w := r.agentStart("lifecycle", true)
	w.str("phase", "model")
	w.str("provider", r.Provider)
	w.str("model", r.Model)
	r.agentSend(w, false)
}

// Prepare emits the usual start of a run: preparing_workspace and
// preparing_context, lifecycle start, starting_model and lifecycle model,
// with the gaps a warm gateway shows (about 300 ms in all).
func (r *Run) Prepare() {
	s := r.s
	s.Advance(2)
	r.Status("preparing_workspace")
	s.Advance(118)
	r.Status("preparing_context")
	s.Advance(92)
	r.Start()
	s.Advance(4)
	r.Status("starting_model")
	s.Advance(2)
	r.ModelSelected()
}

// Say streams a piece of the reply: an agent assistant event {text
// (cumulative), delta} and a chat delta {deltaText, message (cumulative)}
// with the same payload seq, 1 ms apart. Text held back by SayAgentOnly
// rides along in deltaText.
func (r *Run) Say(delta string) {
	r.appendText(delta)
	r.assistant(delta)
	r.s.Advance(1)
	r.chatDelta(r.seq)
}

// SayChatFirst is Say with the chat delta arriving before its agent event,
// as happens for a few pairs in real captures.
func (r *Run) SayChatFirst(delta string) {
	r.appendText(delta)
	r.seq++
	r.chatDelta(r.seq)
	r.s.Advance(1)
	r.seq--
	r.assistant(delta)
}

// SayAgentOnly emits only the agent assistant event: the paced chat stream
// holds the text back until the next chat delta or the final flush.
func (r *Run) SayAgentOnly(delta string) {
	r.appendText(delta)
	r.assistant(delta)
}

// Think emits an agent thinking event {text (cumulative), delta}. No chat
// frame carries thinking.
func (r *Run) Think(delta string) {
	r.think = escBody(r.think, delta)
	w := r.agentStart("thinking", true)
	w.esc("text", r.think)
	w.str("delta", delta)
	r.agentSend(w, false)
}

// Skip uses up n payload seqs without delivering anything, as coalesced
// deltas and events for other recipients do.
func (r *Run) Skip(n int) { r.seq += int64(n) }

// SeqGap makes the gateway notice a per-run seq gap of n: it emits the
// synthetic agent stream:"error" event {reason:"seq gap", expected,
// received} (whose payload has no seq), and the run's next event carries
// the received seq.
func (r *Run) SeqGap(n int) {
	expected := r.seq + 1
	r.seq += int64(n)
	w := r.agentStart("error", false)
	w.str("reason", "seq gap")
	w.int("expected", expected)
	w.int("received", r.seq+1)
	r.agentSend(w, false)
}

func (r *Run) appendText(delta string) {
	r.raw = append(r.raw, delta...)
	r.esc = escBody(r.esc, delta)
	r.outToks += int64(len(delta)+3) / 4
}

func (r *Run) assistant(delta string) {
	w := r.agentStart("assistant", true)
	w.esc("text", r.esc)
	w.str("delta", delta)
	w.str("itemId", r.itemID)
	r.agentSend(w, false)
}

func (r *Run) chatDelta(seq int64) {
	w := r.chatStart(seq, "delta", true)
	w.esc("deltaText", r.esc[r.chatLen:])
	r.message(w, r.esc, r.s.t, false)
	r.chatLen = len(r.esc)
	r.chatSend(w)
}

// flush sends text the chat stream held back, as one more delta.
func (r *Run) flush(seq int64) {
	if r.chatLen < len(r.esc) {
		r.chatDelta(seq)
	}
}

// Usage emits the agent usage stream.
func (r *Run) Usage() {
	r.usageOut = true
	w := r.agentStart("usage", true)
	w.int("outputTokens", r.outToks)
	r.agentSend(w, false)
}

// Tool runs one tool call: the item start (to everyone), the targeted tool
// start {name, toolCallId, args} and result {result:{content, details},
// isError} (only to the sender, if it declared "tool-events"), and the item
// end. args is raw JSON. Held-back chat text is flushed first.
func (r *Run) Tool(name, title string, args []byte, output string, isError bool) {
	s := r.s
	r.flush(r.seq)
	callID := "call_" + s.hexID(24)
	itemID := "tool:" + callID
	s.Advance(2)
	started := s.t
	r.item(itemID, "start", "tool", title, name, callID, started, 0, "running")
	s.Advance(1)
	r.toolEvent("start", name, callID, args, "", false, 0)
	dur := 40 + int64(len(output))%60
	s.Advance(dur)
	r.toolEvent("result", name, callID, nil, output, isError, dur)
	s.Advance(1)
	status := "completed"
	if isError {
		status = "failed"
	}
	r.item(itemID, "end", "tool", title, name, callID, started, s.t, status)
}

func (r *Run) item(itemID, phase, kind, title, name, callID string, started, ended int64, status string) {
	w := r.agentStart("item", true)
	w.str("itemId", itemID)
	w.str("phase", phase)
	w.str("kind", kind)
	w.str("title", title)
	w.str("status", status)
	w.str("name", name)
	w.str("toolCallId", callID)
	w.int("startedAt", started)
	if ended != 0 {
		w.int("endedAt", ended)
	}
	r.agentSend(w, false)
}

// toolEvent emits a targeted tool stream event, with the session snapshot
// the gateway merges into tool payloads (kept small here).
func (r *Run) toolEvent(phase, name, callID string, args []byte, output string, isError bool, dur int64) {
	if c := r.Sender; c == nil || !c.open || !c.Has("tool-events") {
		r.seq++ // used up for recipients we do not see
		return
	}
	w := r.agentStart("tool", true)
	w.str("phase", phase)
	w.str("name", name)
	w.str("toolCallId", callID)
	if phase == "start" {
		if args == nil {
			args = []byte("{}")
		}
		w.raw("args", args)
	} else {
		w.obj("meta")
		w.int("durationMs", dur)
		w.close()
		w.bool("isError", isError)
		w.obj("result")
		w.arr("content")
		w.open()
		w.str("type", "text")
		w.str("text", output)
		w.close()
		w.closeArr()
		w.obj("details")
		if isError {
			w.str("status", "error")
			w.int("exitCode", 1)
		} else {
			w.str("status", "completed")
			w.int("exitCode", 0)
		}
		w.int("durationMs", dur)
		w.close()
		w.close()
	}
	w.close() // data
	w.obj("session")
	w.str("key", r.SessionKey)
	w.str("sessionId", r.SessionID)
	w.str("agentId", r.AgentID)
	w.close()
	w.int("updatedAt", r.s.t)
	w.str("modelProvider", r.Provider)
	w.str("model", r.Model)
	w.int("contextTokens", 120000)
	w.int("totalTokens", 812+r.outToks)
	w.close()
	r.s.pb = w.b
	r.deliver("agent", w.b, true)
}

// End emits the end of a successful run: usage (unless already sent),
// lifecycle finishing, lifecycle model {null}, and lifecycle end.
func (r *Run) End() {
	s := r.s
	if !r.usageOut {
		s.Advance(3)
		r.Usage()
	}
	s.Advance(2)
	w := r.agentStart("lifecycle", true)
	w.str("phase", "finishing")
	r.agentSend(w, false)
	s.Advance(2)
	w = r.agentStart("lifecycle", true)
	w.str("phase", "model")
	w.null("provider")
	w.null("model")
	r.agentSend(w, false)
	s.Advance(1)
	r.ended = s.t
	r.stop = "stop"
	w = r.agentStart("lifecycle", true)
	r.endSeq = r.seq
	w.str("phase", "end")
	w.int("startedAt", r.started)
	w.int("endedAt", r.ended)
	w.str("stopReason", r.stop)
	w.str("livenessState", "settled")
	r.agentSend(w, false)
}

// Final emits the chat final carrying the full message, with the payload
// seq of the lifecycle end; held-back chat text is flushed first as a last
// delta with the same seq. Calling it again re-delivers the identical
// payload (a duplicate final).
func (r *Run) Final() {
	if r.endSeq == 0 {
		r.endSeq, r.ended, r.stop = r.seq, r.s.t, "stop"
	}
	if r.chatLen < len(r.esc) {
		r.s.Advance(1)
		r.flush(r.endSeq)
	}
	r.s.Advance(1)
	w := r.chatStart(r.endSeq, "final", true)
	r.message(w, r.esc, r.ended, true)
	w.str("stopReason", r.stop)
	r.chatSend(w)
}

// Finish is End then Final.
func (r *Run) Finish() {
	r.End()
	r.Final()
}

// Abort aborts the run the way chat.abort does on 2026.9.6: the request
// (from by, if not nil), chat aborted {stopReason:"rpc", message: partial
// text} and lifecycle end {status:"cancelled", aborted:true} sharing the
// next payload seq, the response {ok, aborted, runIds}, then ~73 ms later
// lifecycle error {error:"This operation was aborted"}. No final follows.
func (r *Run) Abort(by *Conn) {
	s := r.s
	var id string
	if by != nil {
		w := jw{b: s.pb[:0]}
		w.open()
		w.str("sessionKey", r.SessionKey)
		w.str("runId", r.ID)
		w.close()
		s.pb = w.b
		id = by.Req("", "chat.abort", s.pb)
	}
	s.Advance(21)
	r.stop = "rpc"
	seq := r.seq + 1
	cw := r.chatStart(seq, "aborted", true)
	if len(r.esc) > 0 {
		r.message(cw, r.esc, s.t, false)
	}
	cw.str("stopReason", "rpc")
	r.chatSend(cw)
	r.chatLen = len(r.esc)
	s.Advance(1)
	r.ended = s.t
	w := r.agentStart("lifecycle", true) // takes seq
	w.str("phase", "end")
	w.int("startedAt", r.started)
	w.int("endedAt", r.ended)
	w.str("status", "cancelled")
	w.bool("aborted", true)
	w.str("stopReason", "rpc")
	r.agentSend(w, false)
	r.endSeq = r.seq
	if by != nil {
		s.Advance(1)
		w := jw{b: s.pb[:0]}
		w.open()
		w.bool("ok", true)
		w.bool("aborted", true)
		w.strs("runIds", r.ID)
		w.close()
		s.pb = w.b
		by.Res(id, true, s.pb)
	}
	s.Advance(73)
	w = r.agentStart("lifecycle", true)
	w.str("phase", "error")
	w.str("error", "This operation was aborted")
	w.str("stopReason", "aborted")
	w.int("endedAt", s.t)
	r.agentSend(w, false)
}

// Fail ends the run with an error as 2026.9.6 does: lifecycle error, the
// chat error from it (agentId, the run's payload seq, errorKind), and
// ~40 ms later a second chat error from the dispatch failure (payload seq
// 1, no agentId, message prefixed "⚠️ Agent failed before reply: ").
func (r *Run) Fail(msg, kind string) {
	s := r.s
	s.Advance(2)
	r.ended = s.t
	w := r.agentStart("lifecycle", true)
	w.str("phase", "error")
	w.str("error", msg)
	if kind != "" {
		w.str("errorKind", kind)
	}
	w.bool("executionSettled", true)
	w.int("endedAt", r.ended)
	r.agentSend(w, false)
	r.endSeq = r.seq
	s.Advance(1)
	cw := r.chatStart(r.seq, "error", true)
	cw.str("errorMessage", msg)
	if kind != "" {
		cw.str("errorKind", kind)
	}
	r.chatSend(cw)
	s.Advance(40)
	cw = r.chatStart(1, "error", false)
	cw.str("errorMessage", "⚠️ Agent failed before reply: "+msg)
	r.chatSend(cw)
}

// Command sends a slash command such as /status: the request, the
// {status:"started"} response, and one chat final with payload seq 1, no
// agentId, from provider "openclaw" / model "gateway-injected". No agent
// events.
func (c *Conn) Command(sessionKey, command, reply string) *Run {
	s := c.s
	r := s.newRun(sessionKey, c)
	r.Provider, r.Model = "openclaw", "gateway-injected"
	w := jw{b: s.pb[:0]}
	w.open()
	w.str("sessionKey", sessionKey)
	w.str("message", command)
	w.str("idempotencyKey", r.ID)
	w.close()
	s.pb = w.b
	id := c.Req("", "chat.send", s.pb)
	s.Advance(3)
	c.Res(id, true, r.startedPayload())
	s.Advance(34)
	r.appendText(reply)
	r.outToks = 0
	r.stop = "stop"
	r.ended = s.t
	r.seq = 1
	r.endSeq = 1
	cw := r.chatStart(1, "final", false)
	cw.obj("message")
	cw.str("role", "assistant")
	cw.arr("content")
	cw.open()
	cw.str("type", "text")
	cw.esc("text", r.esc)
	cw.close()
	cw.closeArr()
	cw.int("timestamp", r.ended)
	cw.str("provider", r.Provider)
	cw.str("model", r.Model)
	cw.str("stopReason", "stop")
	r.usage(cw, 0, 0)
	cw.close()
	r.chatSend(cw)
	r.chatLen = len(r.esc)
	return r
}

// Approval is an exec approval a run is waiting on.
type Approval struct {
	r          *Run
	ID         string
	ToolCallID string
	Command    string
	created    int64
	itemID     string
	started    int64
}

// RequestApproval starts an exec tool call that needs approval: the item
// start, the targeted tool start, lifecycle {phase:"waiting-approval",
// approvalId, toolCallId} (to everyone) and exec.approval.requested {id,
// request, createdAtMs, expiresAtMs} (only to connections that declared the
// "approvals" cap).
func (r *Run) RequestApproval(command string) *Approval {
	s := r.s
	r.flush(r.seq)
	a := &Approval{r: r, Command: command}
	a.ID = s.uuid()
	a.ToolCallID = "call_" + s.hexID(24)
	a.itemID = "tool:" + a.ToolCallID
	s.Advance(2)
	a.started = s.t
	r.item(a.itemID, "start", "command", command, "exec", a.ToolCallID, a.started, 0, "running")
	s.Advance(1)
	w := jw{b: make([]byte, 0, 64)}
	w.open()
	w.str("command", command)
	w.close()
	r.toolEvent("start", "exec", a.ToolCallID, w.b, "", false, 0)
	s.Advance(3)
	lw := r.agentStart("lifecycle", true)
	lw.str("phase", "waiting-approval")
	lw.str("approvalId", a.ID)
	lw.str("toolCallId", a.ToolCallID)
	r.agentSend(lw, false)
	s.Advance(1)
	a.created = s.t
	pw := jw{b: s.pb[:0]}
	pw.open()
	pw.str("id", a.ID)
	pw.str("approvalKind", "exec")
	a.request(&pw)
	pw.int("createdAtMs", a.created)
	pw.int("expiresAtMs", a.created+120_000)
	pw.close()
	s.pb = pw.b
	s.broadcast("exec.approval.requested", s.pb, false, approver)
	return a
}

func approver(c *Conn) bool { return c.Has("approvals") }

func (a *Approval) request(w *jw) {
	r := a.r
	w.obj("request")
	w.str("command", a.Command)
	w.strs("commandArgv", strings.Fields(a.Command)...)
	w.str("cwd", "/workspace")
	w.str("host", "gateway")
	w.str("security", "allowlist")
	w.str("ask", "on-miss")
	w.strs("allowedDecisions", "allow-once", "allow-always", "deny")
	w.str("agentId", r.AgentID)
	w.str("sessionKey", r.SessionKey)
	w.str("runId", r.ID)
	w.str("toolCallId", a.ToolCallID)
	w.close()
}

// Resolve answers the approval: by (if not nil) sends
// exec.approval.resolve and gets {ok:true}; exec.approval.resolved goes to
// approval clients, lifecycle {phase:"approval-resolved"} to everyone; then
// the tool runs (allow-*) or fails (deny) and the item ends. resolvedBy
// names who decided, e.g. "operator" or "approval-scope-closed".
func (a *Approval) Resolve(by *Conn, decision, resolvedBy, output string) {
	r := a.r
	s := r.s
	if by != nil {
		w := jw{b: s.pb[:0]}
		w.open()
		w.str("id", a.ID)
		w.str("decision", decision)
		w.close()
		s.pb = w.b
		id := by.Req("", "exec.approval.resolve", s.pb)
		s.Advance(4)
		w = jw{b: s.pb[:0]}
		w.open()
		w.bool("ok", true)
		w.close()
		s.pb = w.b
		by.Res(id, true, s.pb)
	}
	s.Advance(1)
	w := jw{b: s.pb[:0]}
	w.open()
	w.str("id", a.ID)
	w.str("decision", decision)
	w.str("resolvedBy", resolvedBy)
	w.int("ts", s.t)
	a.request(&w)
	w.close()
	s.pb = w.b
	s.broadcast("exec.approval.resolved", s.pb, false, approver)
	s.Advance(2)
	lw := r.agentStart("lifecycle", true)
	lw.str("phase", "approval-resolved")
	lw.str("approvalId", a.ID)
	lw.str("decision", decision)
	r.agentSend(lw, false)
	denied := decision == "deny"
	if denied {
		output = "exec denied: " + resolvedBy
	}
	dur := int64(12)
	if !denied {
		dur = 180
	}
	s.Advance(dur)
	r.toolEvent("result", "exec", a.ToolCallID, nil, output, denied, dur)
	s.Advance(1)
	status := "completed"
	if denied {
		status = "failed"
	}
	r.item(a.itemID, "end", "command", a.Command, "exec", a.ToolCallID, a.started, s.t, status)
}

// Retry restarts the run after a transient provider failure, as 2026.9.6
// does: agent run_status {phase:"retrying", attempt, maxAttempts, reason};
// if text was shown, an agent assistant {text:"", delta:"", replace:true}
// and a chat delta {deltaText:"", replace:true} that reset the partial
// reply; then a fresh lifecycle start and model.
func (r *Run) Retry(attempt, maxAttempts int, reason string) {
	s := r.s
	s.Advance(3)
	w := r.agentStart("run_status", true)
	w.str("phase", "retrying")
	w.int("attempt", int64(attempt))
	w.int("maxAttempts", int64(maxAttempts))
	w.str("reason", reason)
	r.agentSend(w, false)
	if len(r.raw) > 0 {
		r.raw, r.esc, r.chatLen = r.raw[:0], r.esc[:0], 0
		s.Advance(1)
		w = r.agentStart("assistant", true)
		w.str("text", "")
		w.str("delta", "")
		w.bool("replace", true)
		w.str("itemId", r.itemID)
		r.agentSend(w, false)
		s.Advance(1)
		cw := r.chatStart(r.seq, "delta", true)
		cw.str("deltaText", "")
		cw.bool("replace", true)
		r.message(cw, nil, s.t, false)
		r.chatSend(cw)
	}
	s.Advance(500 * int64(attempt))
	r.Start()
	s.Advance(3)
	r.ModelSelected()
}
