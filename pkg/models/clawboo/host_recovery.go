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
	recent := c.recent(in.AgentID, in.SessionKey)
	run, _ := in.RunID.Value()
	if !said && jsstr.Trim(live) != "" {
		said = true
		if hasEntry(recent, func(l replay.Line) bool { return l.Kind == replay.LineAssistant && l.Text == live }) {
			c.h.Effect(replay.Effect{Type: replay.EffDuplicate, AgentID: in.AgentID, Text: live, Reason: "prose recovery: the transcript shows it already"})
		} else {
			c.appendEntries(in.AgentID, []string{live}, in.SessionKey, entry{kind: replay.LineAssistant, runID: run, reason: "prose recovery"})
		}
	}
	if status, _ := in.Patch.Status.Value(); status != StatusError || said {
		return
	}
	if run != "" && hasEntry(recent, func(l replay.Line) bool { return l.Kind == replay.LineAssistant && l.RunID == run }) {
		return // the run spoke already
	}
	reason, has := in.Patch.StreamText.Value()
	c.appendEntries(in.AgentID, []string{gatewayRunFailureText(reason, has)}, in.SessionKey,
		entry{kind: replay.LineMeta, role: "system", runID: run, reason: "failure notice"})
}

// recent is the session's newest recentWindow transcript entries, newest
// first: the agent's lines of that session (clawboo keeps a transcript a
// session; clawtap one an agent, each line saying its session).
func (c *host) recent(agentID, sessionKey string) []replay.Line {
	a := c.st.Agent(agentID)
	if a == nil {
		return nil
	}
	var out []replay.Line
	for i := a.NumLines() - 1; i >= 0 && len(out) < recentWindow; i-- {
		if l := a.Line(i); l.SessionKey == sessionKey {
			out = append(out, l)
		}
	}
	return out
}

func hasEntry(lines []replay.Line, f func(replay.Line) bool) bool {
	for _, l := range lines {
		if f(l) {
			return true
		}
	}
	return false
}
