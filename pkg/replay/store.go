package replay

import "github.com/clawtap/clawtap/pkg/ui"

// Store writes: what a UI's host does to the State, each write tracked for
// the step's diff. A model writes only through these.

// EnsureAgent returns the agent's state, creating it empty the first time
// anything is written for it.
func (s *State) EnsureAgent(id string) *Agent {
	a := s.agents[id]
	if a == nil {
		a = &Agent{ID: id}
		s.agents[id] = a
	}
	return a
}

func (s *State) touch(a *Agent, field uint8) {
	s.tr.touchAgent(a, Path{sec: secAgents, key: a.ID, field: field})
}

// ApplyPatch writes a patch into the fleet store: every key the patch
// carries is assigned (null clears), the others are left alone.
func (s *State) ApplyPatch(a *Agent, p *ui.Patch) {
	if p.Status.Set {
		s.setStr(a, fStatus, &a.Status, p.Status)
	}
	if p.RunID.Set {
		s.setStr(a, fRunID, &a.RunID, p.RunID)
	}
	if p.RunStartedAt.Set {
		s.setInt(a, fRunStartedAt, &a.RunStartedAt, p.RunStartedAt)
	}
	if p.StreamText.Set {
		s.setStr(a, fStreamText, &a.StreamText, p.StreamText)
	}
	if p.ThinkingTrace.Set {
		s.setStr(a, fThinkingTrace, &a.ThinkingTrace, p.ThinkingTrace)
	}
	if p.LastActivityAt.Set {
		s.setInt(a, fLastActivityAt, &a.LastActivityAt, p.LastActivityAt)
	}
	if p.SessionCreated.Set {
		if v := NBoolOf(p.SessionCreated); v != a.SessionCreated {
			s.touch(a, fSessionCreated)
			a.SessionCreated = v
		}
	}
	if p.LatestPreview.Set {
		s.setStr(a, fLatestPreview, &a.LatestPreview, p.LatestPreview)
	}
	if p.LastUserMessage.Set {
		s.setStr(a, fLastUserMessage, &a.LastUserMessage, p.LastUserMessage)
	}
	if p.LastResult.Set {
		s.setStr(a, fLastResult, &a.LastResult, p.LastResult)
	}
	if p.LastAssistantMessageAt.Set {
		s.setInt(a, fLastAssistantMessageAt, &a.LastAssistantMessageAt, p.LastAssistantMessageAt)
	}
}

// setStr assigns one of a's fields; writing the value it already holds
// changes nothing, so it is not tracked (every delta rewrites the runId).
func (s *State) setStr(a *Agent, field uint8, dst *NStr, v ui.Str) {
	if n := NStrOf(v); n != *dst {
		s.touch(a, field)
		*dst = n
	}
}

func (s *State) setInt(a *Agent, field uint8, dst *NInt, v ui.Int) {
	if n := NIntOf(v); n != *dst {
		s.touch(a, field)
		*dst = n
	}
}

// PushLine appends one line to a's transcript; it reports whether the
// layout's cap dropped the oldest.
func (s *State) PushLine(a *Agent, l Line) bool {
	num := a.dropped + int64(a.n)
	s.tr.touchAgent(a, Path{sec: secAgents, key: a.ID, field: fLine, n: num})
	if l.EntryID != "" {
		s.tr.touchAgent(a, Path{sec: secAgents, key: a.ID, field: fLineMeta, n: num})
	}
	return a.push(l, s.layout.TranscriptCap)
}

// ReplaceLine writes l over a's line number n (an upsert in place).
func (s *State) ReplaceLine(a *Agent, n int64, l Line) {
	s.tr.touchAgent(a, Path{sec: secAgents, key: a.ID, field: fLine, n: n})
	s.tr.touchAgent(a, Path{sec: secAgents, key: a.ID, field: fLineMeta, n: n})
	a.set(n, l)
}

// RemoveLine deletes a's line number n, the later lines moving one number
// down; it reports whether the line was held.
func (s *State) RemoveLine(a *Agent, n int64) bool {
	end := a.dropped + int64(a.n)
	if n < a.dropped || n >= end {
		return false
	}
	for k := n; k < end; k++ {
		s.tr.touchAgent(a, Path{sec: secAgents, key: a.ID, field: fLine, n: k})
		s.tr.touchAgent(a, Path{sec: secAgents, key: a.ID, field: fLineMeta, n: k})
	}
	for k := n; k+1 < end; k++ {
		m, _ := a.lineByNumber(k + 1)
		a.set(k, m)
	}
	a.n--
	return true
}

// SetChatStream sets (a value) or clears (null) a chat session's
// streaming text.
func (s *State) SetChatStream(sessionKey string, v NStr) {
	c := s.chat[sessionKey]
	if c == nil {
		if !v.Valid {
			return // nothing streamed there yet: nothing to clear
		}
		c = &ChatSession{}
		s.chat[sessionKey] = c
	}
	if c.StreamText != v {
		s.tr.touch(s, Path{sec: secChat, key: sessionKey})
		c.StreamText = v
	}
}

// chatSession is a session's store, made when first written.
func (s *State) chatSession(key string) *ChatSession {
	c := s.chat[key]
	if c == nil {
		c = &ChatSession{}
		s.chat[key] = c
	}
	return c
}

// SetPaneRun sets (a value) or clears (null) the run a session's pane
// follows, the status its last terminal left, or its error banner
// (Layout.Panes).
func (s *State) SetPaneRun(key string, runID, status, runError NStr) {
	c := s.chatSession(key)
	set := func(f uint8, dst *NStr, v NStr) {
		if *dst != v {
			s.tr.touch(s, Path{sec: secChat, key: key, field: f})
			*dst = v
		}
	}
	set(fRunID, &c.RunID, runID)
	set(fRunStatus, &c.RunStatus, status)
	set(fRunError, &c.RunError, runError)
}

// SetPaneTools sets the number of tool cards a session's pane shows.
func (s *State) SetPaneTools(key string, n int64) {
	c := s.chatSession(key)
	if c.Tools != n {
		s.tr.touch(s, Path{sec: secChat, key: key, field: fTools})
		c.Tools = n
	}
}

// CountMetric counts one logged metric of the UI.
func (s *State) CountMetric(name string) {
	s.tr.touch(s, Path{sec: secMetrics, key: name})
	s.metrics[name]++
}

// countRequest counts a request of kind at now (Host.Request).
func (s *State) countRequest(kind string, now int64) {
	r := s.requests[kind]
	if r == nil {
		r = &Requests{}
		s.requests[kind] = r
	}
	s.tr.touch(s, Path{sec: secRequests, key: kind, field: fCount})
	s.tr.touch(s, Path{sec: secRequests, key: kind, field: fLastAt})
	r.Count++
	r.LastAt = NInt{Valid: true, V: now}
}

// Bill records one billed turn of agentID on model: input is null when
// the UI did not know the input tokens (it estimates them).
func (s *State) Bill(agentID, model string, input NNum, output float64) {
	touch := func(f uint8) { s.tr.touch(s, Path{sec: secCost, key: agentID, key2: model, field: f}) }
	touch(fTurns)
	touch(fOutputTokens)
	if input.Valid {
		touch(fInputTokens)
	} else {
		touch(fInputUnknown)
	}
	byModel := s.cost[agentID]
	if byModel == nil {
		byModel = make(map[string]*Cost)
		s.cost[agentID] = byModel
	}
	c := byModel[model]
	if c == nil {
		c = &Cost{}
		byModel[model] = c
	}
	c.Turns++
	if input.Valid {
		c.InputTokens += input.V
	} else {
		c.InputUnknown++
	}
	c.OutputTokens += output
}

// PutApproval adds or replaces a pending approval and keeps each agent's
// count of pending ones; it reports whether it replaced one.
func (s *State) PutApproval(ap Approval) (replaced bool) {
	s.tr.touch(s, Path{sec: secApprovals, key: ap.ID})
	if old := s.approvals[ap.ID]; old != nil {
		replaced = true
		if a := s.agents[old.AgentID]; a != nil {
			a.approvals--
		}
	}
	s.approvals[ap.ID] = &ap
	if ap.AgentID != "" {
		s.EnsureAgent(ap.AgentID).approvals++
	}
	return replaced
}

// DeleteApproval removes a pending approval and returns it, or nil when
// none has the id.
func (s *State) DeleteApproval(id string) *Approval {
	ap := s.approvals[id]
	if ap == nil {
		return nil
	}
	s.tr.touch(s, Path{sec: secApprovals, key: id})
	delete(s.approvals, id)
	if a := s.agents[ap.AgentID]; a != nil {
		a.approvals--
	}
	return ap
}
