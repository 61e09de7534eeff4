package synth

// The shapes of the gateway releases after 2026.9.6 (gateway-protocol §11)
// that a 2026.9.6 session does not make by itself: a run started under an
// id of the gateway's choosing (announce and follow-up runs), a bare empty
// final, a chat.send refused for reusing its key, a chat status with retry
// mid-turn, a second lifecycle start on one run, and a chat error after an
// abort. Fixtures of the 2026.9.7 wire are made from these with reshape
// (fixtures_wire.go).

// StartRunID is StartRun with the run id given: the gateway's own runs
// (announce:v1:…, the follow-up run that answers a queued message).
func (s *Session) StartRunID(sessionKey, id string) *Run {
	r := s.newRun(sessionKey, nil)
	r.ID = id
	w := jw{b: make([]byte, 0, 160)}
	w.str("runId", r.ID)
	w.str("sessionKey", r.SessionKey)
	w.str("agentId", r.AgentID)
	r.head = w.b
	return r
}

// EmptyFinal ends a run with the bare final the gateway sends for a
// chat.send it did not run under its own id: payload seq 1, no agentId,
// no message.
func (r *Run) EmptyFinal() {
	w := r.chatStart(1, "final", false)
	r.chatSend(w)
}

// ChatSendReused sends a chat.send that reuses key with other input, and
// the 2026.9.2+ refusal: INVALID_REQUEST, details.reason
// "chat-request-conflict". The first run goes on.
func (c *Conn) ChatSendReused(sessionKey, message, key string) {
	s := c.s
	w := jw{b: s.pb[:0]}
	w.open()
	w.str("sessionKey", sessionKey)
	w.str("message", message)
	w.str("idempotencyKey", key)
	w.close()
	s.pb = w.b
	id := c.Req("", "chat.send", s.pb)
	s.Advance(3)
	w = jw{b: s.pb[:0]}
	w.open()
	w.str("code", "INVALID_REQUEST")
	w.str("message", "This message ID was already used for different input. Check the conversation history and use a new message ID to send again.")
	w.obj("details")
	w.str("reason", "chat-request-conflict")
	w.close()
	w.close()
	s.pb = w.b
	c.Res(id, false, s.pb)
}

// WaitRateLimit is the mid-turn status of 2026.9.4+: the provider asked
// the run to wait, so the gateway sends agent run_status {phase:
// "retrying", attempt, maxAttempts, reason:"rate_limit"} and the chat
// status {phase:"starting_model", retry:{…}} with the same payload seq,
// after text was shown; the text stays.
func (r *Run) WaitRateLimit(attempt, maxAttempts int) {
	s := r.s
	w := r.agentStart("run_status", true)
	w.str("phase", "retrying")
	w.int("attempt", int64(attempt))
	w.int("maxAttempts", int64(maxAttempts))
	w.str("reason", "rate_limit")
	r.agentSend(w, false)
	s.Advance(1)
	cw := r.chatStart(r.seq, "status", true)
	cw.str("phase", "starting_model")
	cw.obj("retry")
	cw.int("attempt", int64(attempt))
	cw.int("maxAttempts", int64(maxAttempts))
	cw.str("reason", "rate_limit")
	cw.close()
	r.chatSend(cw)
}

// Continuation is the rest of a run that an unfinished-plan check
// continued (2026.9.7): a new assistant item whose agent text starts
// afresh, while the run's chat text goes on.
type Continuation struct {
	r    *Run
	item string
	text []byte // the item's text, escaped
}

// Continue continues the run after its answer as 2026.9.7's plan check
// does: no lifecycle terminal, a second lifecycle start and model on the
// same run id, and a new assistant item. sep joins the two answers in the
// chat text.
func (r *Run) Continue(sep string) *Continuation {
	s := r.s
	r.flush(r.seq)
	r.Start()
	s.Advance(3)
	r.ModelSelected()
	r.appendText(sep) // the chat text's; the new item's agent text starts empty
	return &Continuation{r: r, item: "msg_" + s.hexID(24)}
}

// Say streams a piece of the continued answer: the item's agent
// assistant event and the run's chat delta, sharing a payload seq.
func (c *Continuation) Say(delta string) {
	r := c.r
	r.appendText(delta)
	c.text = escBody(c.text, delta)
	w := r.agentStart("assistant", true)
	w.esc("text", c.text)
	w.str("delta", delta)
	w.str("itemId", c.item)
	r.agentSend(w, false)
	r.s.Advance(1)
	r.chatDelta(r.seq)
}

// AbortNotSaved is Abort followed by 2026.9.7's chat error for the same
// run when the stopped reply could not be saved: payload seq 1, no
// agentId, stopReason "aborted-partial-persistence-failed".
func (r *Run) AbortNotSaved(by *Conn) {
	r.Abort(by)
	r.s.Advance(48)
	w := r.chatStart(1, "error", false)
	w.str("errorMessage", "Stopped, but a reply could not be saved to history. Copy any visible text before leaving this chat.")
	w.str("stopReason", "aborted-partial-persistence-failed")
	r.chatSend(w)
}
