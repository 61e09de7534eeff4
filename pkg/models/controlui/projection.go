package controlui

import (
	"github.com/clawtap/clawtap/pkg/replay"
)

// The pane's message list is its session projection: every message it
// shows, from a chat terminal or a session.message row, is an entry
// placed by projectLiveSessionMessage. Read from the 2026.9.6 bundle,
// dist/control-ui/assets/control-ui-boot-shared-DsSmvo0L.js
// (projectLiveSessionMessage lt, entryMatches st, insertEntry ct, the
// inferred terminal qe), published as the pane's chatMessages by
// control-ui-boot-shared-CpZZ54CV.js (reduceChatSessionProjection B,
// publishChatSessionProjectionMessages Je); docs/ui-controlui.md,
// "Session messages".

// entry is one message of a pane's list: its identity, what it shows, and
// the agent transcript line that holds it.
type entry struct {
	ident
	rawRole  string // the role as the message writes it (what the pane reads)
	text     string
	after    int64 // a kept stream's afterSequence, when hasAfter
	hasAfter bool
	finalOf  string // the chat run whose terminal message it is
	msgSeq   int64  // the sequence its message itself carries (a row's, merged in)
	lineRun  string // the run its transcript line names
	ts       int64
	line     int64  // its line number in the agent's transcript
	kept     uint64 // the last publish whose list holds it (host.publishes)
}

// matches is entryMatches (st) of a held entry e and an incoming live row
// t, as projectLiveSessionMessage asks it. Every entry the model holds is
// a live one (it merges no history snapshot), and it keeps no stream
// segments (so no item ids) and no sends of its own (so no pending
// entries): those branches never apply.
func matches(e, t *entry) bool {
	if sameIdent(&e.ident, &t.ident) || sameAssistantKey(&e.ident, &t.ident) {
		return true
	}
	if e.role == "assistant" && t.role == "assistant" && e.idemKey != "" && t.idemKey != "" && e.idemKey != t.idemKey {
		return false
	}
	d, s := durablePair(e, t)
	if d == nil || d.role != "assistant" || s.role != "assistant" || d.imported || s.imported || s.id != "" {
		return false
	}
	// A durable row of a run takes the place of the live message of the
	// same run: its final, or the stream kept as its message.
	return !d.toolCall && (!d.toolUse || d.contentKey == s.contentKey) && s.seq == 0 &&
		(!s.hasAfter || (d.seq != 0 && d.seq > s.after)) &&
		d.runID != "" && d.runID == s.runID && (!d.mirror || d.terminal)
}

// durablePair returns the entry with an id, then the other; nil when
// neither has one.
func durablePair(a, b *entry) (durable, other *entry) {
	switch {
	case a.id != "":
		return a, b
	case b.id != "":
		return b, a
	}
	return nil, nil
}

// outcome is what projecting a row did to the list.
type outcome int

const (
	dropped  outcome = iota // the list already has it, durably: unchanged
	inserted                // a new entry
	replaced                // it took an entry's place (at, or moved)
)

// project is projectLiveSessionMessage (lt): the list after the row in,
// what happened, and the index of the entry it replaced.
func project(entries []*entry, in *entry, runs map[string]*projRun) ([]*entry, outcome, int) {
	// The match by identity, else the only match (several: ambiguous).
	s, only, n := -1, -1, 0
	for i, e := range entries {
		if !matches(e, in) {
			continue
		}
		if n++; n == 1 {
			only = i
		}
		if s < 0 && sameIdent(&e.ident, &in.ident) {
			s = i
		}
	}
	if s < 0 && n == 1 {
		s = only
	}
	if s >= 0 && !sameIdent(&entries[s].ident, &in.ident) && !sameAssistantKey(&entries[s].ident, &in.ident) {
		if d, t := durablePair(entries[s], in); d != nil && d.toolUse {
			// A row that stopped for a tool use only replaces a live
			// message the run's own terminal confirms.
			rest := without(entries, t)
			if d == in {
				rest = insertAt(rest, in, nil)
			}
			if !inferredTerminal(t, d, runs[t.runID], rest) {
				return insertAt(entries, in, runs), inserted, -1
			}
		}
	}
	if s < 0 {
		return insertAt(entries, in, runs), inserted, -1
	}
	ex := entries[s]
	if ex.id != "" && in.id == "" {
		return entries, dropped, -1 // a durable row wins over a live copy without one
	}
	if in.seq != 0 && ex.seq == 0 {
		for i, e := range entries {
			if e.seq != 0 && ((i < s && e.seq > in.seq) || (i > s && e.seq < in.seq)) {
				return insertAt(without(entries, ex), in, runs), replaced, s
			}
		}
	}
	next := append([]*entry(nil), entries...)
	next[s] = in
	return next, replaced, s
}

func without(entries []*entry, x *entry) []*entry {
	out := make([]*entry, 0, len(entries))
	for _, e := range entries {
		if e != x {
			out = append(out, e)
		}
	}
	return out
}

// insertAt is insertEntry (ct): a row with a sequence goes before the
// first entry with a greater one (else at the end); a user row of a run
// goes before its run's assistant messages, and a sequenced one takes
// those without a sequence behind it.
func insertAt(entries []*entry, in *entry, runs map[string]*projRun) []*entry {
	at := -1
	if in.seq != 0 {
		at = len(entries)
		for i, e := range entries {
			if e.seq != 0 && e.seq > in.seq {
				at = i
				break
			}
		}
	}
	if in.role == "user" && in.runID != "" {
		run := in.runID
		_, known := runs[run]
		ofRun := func(e *entry) bool {
			return e.role == "assistant" && (e.runID == run || (known && e.finalOf == run))
		}
		if in.seq != 0 {
			var before, behind []*entry
			for _, e := range entries[:at] {
				if e.seq == 0 && ofRun(e) {
					behind = append(behind, e)
				} else {
					before = append(before, e)
				}
			}
			out := append(append(append(before, in), behind...), entries[at:]...)
			return out
		}
		for i, e := range entries {
			if ofRun(e) {
				if at < 0 || i < at {
					at = i
				}
				break
			}
		}
	}
	if at < 0 || at >= len(entries) {
		return append(append([]*entry(nil), entries...), in)
	}
	out := make([]*entry, 0, len(entries)+1)
	out = append(append(append(out, entries[:at]...), in), entries[at:]...)
	return out
}

// inferredTerminal is qe: does the run's terminal confirm that durable row
// d is the live message t? The run must have ended with t's content, and
// d, with the same content, must be marked the run's terminal, or have
// stopped for good, or be the run's last assistant message (after its
// user message).
func inferredTerminal(t, d *entry, run *projRun, entries []*entry) bool {
	if t.role != "assistant" || t.id != "" || t.seq != 0 || run == nil || run.status == runStreaming {
		return false
	}
	key := t.contentKey
	if !key.set || d.contentKey != key || run.key() != key {
		return false
	}
	if d.terminal {
		return true
	}
	if t.runID == "" || d.runID != t.runID {
		return false
	}
	firstUser, lastAssistant, at := -1, -1, -1
	for i, e := range entries {
		if e.runID != t.runID {
			continue
		}
		if e == d && at < 0 {
			at = i
		}
		switch {
		case e.role == "user" && firstUser < 0:
			firstUser = i
		case e.role == "assistant":
			lastAssistant = i
		}
	}
	if at < 0 {
		return false
	}
	last := lastAssistant >= 0 && at >= lastAssistant
	return d.stopEnd || (d.toolUse && last) || (firstUser >= 0 && firstUser < at && lastAssistant <= at)
}

// publish makes next the pane's list and writes it into the agent's
// transcript: the lines of entries that left are removed, the held lines
// from the first change on take the new order, and each entry more gets a
// line at the end. It returns the lines it pushed.
func (c *host) publish(p *pane, next []*entry, reason string) int {
	// The entries of next are marked with this publish, those of the list
	// that are not are gone (a mark, not a set: the list holds up to the
	// transcript's cap, and a pane publishes at every terminal).
	c.publishes++
	for _, e := range next {
		e.kept = c.publishes
	}
	a := c.st.EnsureAgent(p.agent)
	for i := len(p.entries) - 1; i >= 0; i-- {
		if e := p.entries[i]; e.kept != c.publishes {
			c.removeLine(a, e.line)
			p.setEntries(append(p.entries[:i], p.entries[i+1:]...))
		}
	}
	k := 0
	for k < len(p.entries) && k < len(next) && p.entries[k] == next[k] {
		k++
	}
	slots := make([]int64, 0, len(p.entries)-k)
	for _, e := range p.entries[k:] {
		slots = append(slots, e.line)
	}
	pushed := 0
	for j, e := range next[k:] {
		l := replay.Line{Text: e.text, Kind: lineKind(e.role), Role: e.rawRole, RunID: e.lineRun, SessionKey: p.key, TS: e.ts}
		if j < len(slots) {
			if p.entries[k+j] != e {
				c.st.ReplaceLine(a, slots[j], l)
				c.h.Effect(replay.Effect{Type: replay.EffAppend, AgentID: p.agent, SessionKey: p.key, Count: 1, At: replay.NInt{Valid: true, V: e.ts}, Replaced: true, Reason: reason})
			}
			e.line = slots[j]
			continue
		}
		e.line = a.LinesDropped() + int64(a.NumLines())
		if c.st.PushLine(a, l) {
			c.h.Effect(replay.Effect{Type: replay.EffTrim, AgentID: p.agent, Count: 1})
		}
		c.h.Effect(replay.Effect{Type: replay.EffAppend, AgentID: p.agent, SessionKey: p.key, Count: 1, At: replay.NInt{Valid: true, V: e.ts}, Reason: reason})
		pushed++
	}
	p.setEntries(next)
	if pushed > 0 {
		c.forgetDropped(p.agent, a.LinesDropped())
	}
	return pushed
}

// removeLine removes a transcript line and renumbers the entries after it,
// in every pane of the agent.
func (c *host) removeLine(a *replay.Agent, n int64) {
	if !c.st.RemoveLine(a, n) {
		return
	}
	for _, k := range c.keys {
		if q := c.panes[k]; q.agent == a.ID {
			for _, e := range q.entries {
				if e.line > n {
					e.line--
				}
			}
		}
	}
}

// forgetDropped drops the entries whose lines the transcript cap dropped:
// the model's panes hold what the transcript holds.
func (c *host) forgetDropped(agent string, dropped int64) {
	for _, k := range c.keys {
		q := c.panes[k]
		if q.agent != agent {
			continue
		}
		i := 0
		for i < len(q.entries) && q.entries[i].line < dropped {
			i++
		}
		if i > 0 {
			q.setEntries(append([]*entry(nil), q.entries[i:]...))
		}
	}
}

func lineKind(role string) string {
	switch role {
	case "assistant":
		return replay.LineAssistant
	case "tool", "toolresult", "tool_result", "function":
		return replay.LineTool
	case "user":
		return "user"
	}
	return replay.LineMeta
}
