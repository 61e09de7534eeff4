package bridge

import "slices"

// Kinds lists every kind, in the order help texts name them.
var Kinds = []Kind{SummaryRefresh, RuntimeChat, RuntimeAgent, Approval, Unknown, Request, Response, Invalid, Marker}

// Filter selects classified events. An empty list lets every value
// through; a non-empty one only the values it holds.
type Filter struct {
	Kinds    []string
	Events   []string // event names, or methods of requests and responses
	Agents   []string
	Sessions []string
	Runs     []string
}

// Match reports whether ev passes every list of f.
func (f *Filter) Match(ev *Event) bool {
	name := ev.Event
	if name == "" {
		name = ev.Method
	}
	return in(f.Kinds, string(ev.Kind)) && in(f.Events, name) && in(f.Agents, ev.AgentID) &&
		in(f.Sessions, ev.Session()) && in(f.Runs, ev.RunID)
}

func in(set []string, v string) bool {
	return len(set) == 0 || slices.Contains(set, v)
}
