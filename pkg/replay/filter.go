package replay

import (
	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/ui"
)

// Filter narrows steps to one agent or one chat session.
//
// With Agent set, a step is kept when at least one of its intents, effects
// or diff entries concerns that agent; within a kept step, items that
// concern another agent are removed and items that concern no agent
// (a summary refresh, a disposal, request counters) stay as context.
//
// With Session set, a record step is kept only when its frame carries
// that session key, and the agent rule applies with the session's agent
// (agent:<id>:...); timer steps follow the agent rule alone.
type Filter struct {
	Agent   string
	Session string

	out Step
}

// Active reports whether the filter narrows anything.
func (f *Filter) Active() bool { return f.Agent != "" || f.Session != "" }

// AgentID is the agent the filter keeps ("" for all).
func (f *Filter) AgentID() string {
	if f.Agent != "" {
		return f.Agent
	}
	if f.Session != "" {
		return bridge.SessionAgentID(f.Session)
	}
	return ""
}

// Apply returns the filtered step, or nil when nothing of it is kept. The
// result is valid until the next call.
func (f *Filter) Apply(s *Step, st *State) *Step {
	if !f.Active() {
		return s
	}
	if f.Session != "" && s.Timer == "" && (s.Event == nil || s.Event.Session() != f.Session) {
		return nil
	}
	agent := f.AgentID()
	o := &f.out
	o.I, o.T, o.Timer, o.Conn, o.T0, o.State, o.Rec, o.Event = s.I, s.T, s.Timer, s.Conn, s.T0, s.State, s.Rec, s.Event
	o.Intents, o.Effects, o.Diff = o.Intents[:0], o.Effects[:0], o.Diff[:0]
	hit := false
	for _, in := range s.Intents {
		switch id, kind := in.IntentAgent(), in.IntentKind(); {
		case id == agent && agent != "":
			hit = true
			o.Intents = append(o.Intents, in)
		case id == "" && kind != ui.IgnoreKind:
			o.Intents = append(o.Intents, in)
		case kind == ui.IgnoreKind && f.Session != "":
			o.Intents = append(o.Intents, in) // the frame is the session's
		}
	}
	for i := range s.Effects {
		e := &s.Effects[i]
		switch {
		case agent != "" && e.touches(agent):
			hit = true
			o.Effects = append(o.Effects, *e)
		case e.AgentID == "" && len(e.Patches) == 0:
			o.Effects = append(o.Effects, *e)
		}
	}
	for i := range s.Diff {
		c := &s.Diff[i]
		switch a := c.agent(); {
		case agent != "" && a == agent:
			hit = true
			o.Diff = append(o.Diff, *c)
		case a == "":
			o.Diff = append(o.Diff, *c)
		}
	}
	if !hit && !(f.Session != "" && s.Timer == "") {
		return nil
	}
	return o
}

// agent returns the agent a change concerns ("" for none).
func (c *Change) agent() string {
	switch c.Path.sec {
	case secAgents, secCost:
		return c.Path.key
	case secApprovals:
		if c.From.a != nil {
			return c.From.a.AgentID
		}
		if c.To.a != nil {
			return c.To.a.AgentID
		}
	}
	return ""
}
