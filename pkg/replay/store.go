package replay

import "github.com/clawtap/clawtap/pkg/policy"

// Store writes: what a UI's host does to the engine's State, each write
// tracked for the step's diff.

func (e *Engine) agent(id string) *Agent {
	a := e.st.agents[id]
	if a == nil {
		a = &Agent{ID: id}
		e.st.agents[id] = a
	}
	return a
}

func (e *Engine) touch(a *Agent, field uint8) {
	e.tr.touchAgent(a, Path{sec: secAgents, key: a.ID, field: field})
}

// applyPatch writes a patch into the fleet store: every key the patch
// carries is assigned (null clears), the others are left alone.
func (e *Engine) applyPatch(a *Agent, p *policy.Patch) {
	if p.Status.Set {
		e.setStr(a, fStatus, &a.Status, p.Status)
	}
	if p.RunID.Set {
		e.setStr(a, fRunID, &a.RunID, p.RunID)
	}
	if p.RunStartedAt.Set {
		e.setInt(a, fRunStartedAt, &a.RunStartedAt, p.RunStartedAt)
	}
	if p.StreamText.Set {
		e.setStr(a, fStreamText, &a.StreamText, p.StreamText)
	}
	if p.ThinkingTrace.Set {
		e.setStr(a, fThinkingTrace, &a.ThinkingTrace, p.ThinkingTrace)
	}
	if p.LastActivityAt.Set {
		e.setInt(a, fLastActivityAt, &a.LastActivityAt, p.LastActivityAt)
	}
	if p.SessionCreated.Set {
		if v := nboolOf(p.SessionCreated); v != a.SessionCreated {
			e.touch(a, fSessionCreated)
			a.SessionCreated = v
		}
	}
	if p.LatestPreview.Set {
		e.setStr(a, fLatestPreview, &a.LatestPreview, p.LatestPreview)
	}
	if p.LastUserMessage.Set {
		e.setStr(a, fLastUserMessage, &a.LastUserMessage, p.LastUserMessage)
	}
	if p.LastResult.Set {
		e.setStr(a, fLastResult, &a.LastResult, p.LastResult)
	}
	if p.LastAssistantMessageAt.Set {
		e.setInt(a, fLastAssistantMessageAt, &a.LastAssistantMessageAt, p.LastAssistantMessageAt)
	}
}

// setStr assigns one of a's fields; writing the value it already holds
// changes nothing, so it is not tracked (every delta rewrites the runId).
func (e *Engine) setStr(a *Agent, field uint8, dst *NStr, s policy.Str) {
	if v := nstrOf(s); v != *dst {
		e.touch(a, field)
		*dst = v
	}
}

func (e *Engine) setInt(a *Agent, field uint8, dst *NInt, n policy.Int) {
	if v := nintOf(n); v != *dst {
		e.touch(a, field)
		*dst = v
	}
}

// pushLine appends one line to a's transcript; it reports whether the cap
// dropped the oldest.
func (e *Engine) pushLine(a *Agent, l Line) bool {
	num := a.dropped + int64(a.n)
	e.tr.touchAgent(a, Path{sec: secAgents, key: a.ID, field: fLine, n: num})
	if l.EntryID != "" {
		e.tr.touchAgent(a, Path{sec: secAgents, key: a.ID, field: fLineMeta, n: num})
	}
	return a.push(l, e.st.cap)
}

// replaceLine writes l over a's line number n (Claw3D's upsert in place).
func (e *Engine) replaceLine(a *Agent, n int64, l Line) {
	e.tr.touchAgent(a, Path{sec: secAgents, key: a.ID, field: fLine, n: n})
	e.tr.touchAgent(a, Path{sec: secAgents, key: a.ID, field: fLineMeta, n: n})
	a.set(n, l)
}

// setChatStream sets (a value) or clears (null) a chat session's
// streaming text.
func (e *Engine) setChatStream(sessionKey string, v NStr) {
	c := e.st.chat[sessionKey]
	if c == nil {
		if !v.Valid {
			return // nothing streamed there yet: nothing to clear
		}
		c = &ChatSession{}
		e.st.chat[sessionKey] = c
	}
	if c.StreamText != v {
		e.tr.touch(&e.st, Path{sec: secChat, key: sessionKey})
		c.StreamText = v
	}
}

// metric counts one logged metric of the UI.
func (e *Engine) metric(name string) {
	e.tr.touch(&e.st, Path{sec: secMetrics, key: name})
	e.st.metrics[name]++
}

// request counts a request the UI would make to the gateway.
func (e *Engine) request(kind, agentID, reason string) {
	r := e.st.requests[kind]
	if r == nil {
		r = &Requests{}
		e.st.requests[kind] = r
	}
	e.tr.touch(&e.st, Path{sec: secRequests, key: kind, field: fCount})
	e.tr.touch(&e.st, Path{sec: secRequests, key: kind, field: fLastAt})
	r.Count++
	r.LastAt = NInt{Valid: true, V: e.sched.now}
	e.addEffect(Effect{Type: EffRequest, Action: kind, AgentID: agentID, Reason: reason})
}
