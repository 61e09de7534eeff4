package clawboo

import (
	"github.com/clawtap/clawtap/pkg/jsstr"
	"github.com/clawtap/clawtap/pkg/replay"
)

// recentWindow is how many of the session's newest transcript entries
// prose recovery and the failure notice look at.
const recentWindow = 10

// recover is what clawboo's host does after 1211c16 with a commit of a
// terminal that said nothing (an abort, an error, a tool-only or empty
// final), before it patches the agent: the session's streamed text is kept
// as the reply (prose recovery), unless the transcript's newest entries
// hold it already; and a failed run that said nothing gets a notice of why
// (gatewayRunFailureText). A Stop pressed in clawboo would skip both;
// a capture does not show one (docs/ui-clawboo.md).
func (c *host) recover(in *Intent) {
	said := false
	for _, l := range in.Lines {
		if !hasPrefix(l, "[[tool]]") && !hasPrefix(l, "[[tool-result]]") {
			said = true // committed prose
			break
		}
	}
	k := anchorKey(in.AgentID, in.SessionKey)
	var live string
	if cs := c.st.Chat(k); cs != nil && cs.StreamText.Valid {
		live = cs.StreamText.V
	}
	run, _ := in.RunID.Value()
	if !said && jsstr.Trim(live) != "" {
		said = true
		if c.recentHas(in.AgentID, in.SessionKey, func(l replay.Line) bool { return l.Kind == replay.LineAssistant && l.Text == live }) {
			c.h.Effect(replay.Effect{Type: replay.EffDuplicate, AgentID: in.AgentID, Text: live, Reason: "prose recovery: the transcript shows it already"})
		} else {
			c.appendEntries(in.AgentID, []string{live}, in.SessionKey, entry{kind: replay.LineAssistant, runID: run, reason: "prose recovery"})
		}
	}
	if status, _ := in.Patch.Status.Value(); status != StatusError || said {
		return
	}
	// (the transcript as it was before the commit: a recovered reply
	// returned above)
	if run != "" && c.recentHas(in.AgentID, in.SessionKey, func(l replay.Line) bool { return l.Kind == replay.LineAssistant && l.RunID == run }) {
		return // the run spoke already
	}
	reason, has := in.Patch.StreamText.Value()
	c.appendEntries(in.AgentID, []string{gatewayRunFailureText(reason, has)}, in.SessionKey,
		entry{kind: replay.LineMeta, role: "system", runID: run, reason: "failure notice"})
}

// recentHas reports whether one of the session's newest recentWindow
// transcript entries, newest first, is as f says: the agent's lines of
// that session (clawboo keeps a transcript a session; clawtap one an
// agent, each line saying its session), read in place.
func (c *host) recentHas(agentID, sessionKey string, f func(replay.Line) bool) bool {
	a := c.st.Agent(agentID)
	if a == nil {
		return false
	}
	n := 0
	for i := a.NumLines() - 1; i >= 0 && n < recentWindow; i-- {
		if l := a.Line(i); l.SessionKey == sessionKey {
			if f(l) {
				return true
			}
			n++
		}
	}
	return false
}
