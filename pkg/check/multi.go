package check

import (
	"slices"
	"strings"

	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/replay"
)

// Multi checks one capture under several UI versions in one read: the
// capture is read and classified once, the first UI's pass runs every
// rule, and each record, classified, is fed on to a pass of each other UI
// that runs the rules whose findings depend on the UI (the replay and the
// run table: dropped-final, lost-reply, ghost-stream, billing). A finding
// those rules make under several UIs is one finding that says which UIs
// show it and which do not (Finding.UIs, Finding.NotUIs).
//
// Each other UI's pass runs as a lane, on a goroutine of its own, a few
// records behind the first (lanes.go); a record's findings are merged as
// soon as its last UI has seen it, in record order, so the findings are
// those the passes make one after the other, record by record, and memory
// stays what a few chunks of records and their findings take.
type Multi struct {
	uis     []replay.UI
	first   *Analyzer
	others  []*Analyzer
	lanes   []*lane
	pass    *pipeline.Pass // the first UI's
	inline  bool           // the lanes run on the first pass's goroutine: the records cannot be held, or InlinePass
	started bool
	seq     int             // records the first pass handed on
	cur     []firstFound    // the first pass's findings since its last record
	firstQ  []firstFound    // the first pass's findings not merged yet
	filled  *laneChunk      // the chunk being filled
	free    chan *laneChunk // chunks every lane is done with
	pending []Finding       // the UI rules' findings of the record being merged, each with its UI
	merged  Summary         // the findings merged so far, by severity and rule

	report func(f *Finding) error // the first pass's (SetReport): the merged findings go on to its FindingObservers
	err    error
}

// firstFound is a finding of the first UI's pass at record seq; ui: its
// rule depends on the UI, and it is merged with the other UIs'.
type firstFound struct {
	seq int
	ui  bool
	f   Finding
}

// NewMulti returns a check of uis (two or more), each with its own replay;
// its pass is Pass.
func NewMulti(opts Options, uis []replay.UI) (*Multi, error) {
	first, err := New(opts)
	if err != nil {
		return nil, err
	}
	m := &Multi{uis: uis, first: first}
	m.merged.ByRule = map[string]int{}
	first.OnFinding = m.fromFirst
	first.names = versioned
	var only []string
	for _, id := range uiRules {
		if first.enabled[id] {
			only = append(only, id)
		}
	}
	if len(only) == 0 || opts.NoReplay {
		return m, nil // no rule depends on the UI: one pass is the whole check
	}
	for k := 1; k < len(uis); k++ {
		o := opts
		o.Only, o.Skip = only, nil
		an, err := New(o)
		if err != nil {
			return nil, err
		}
		an.names = versioned
		l := &lane{ui: uis[k].String()}
		an.OnFinding = l.onFinding
		m.others = append(m.others, an)
		m.lanes = append(m.lanes, l)
	}
	return m, nil
}

// Pass builds the first UI's pass with observers (given before the
// check's own), and the passes of the other UIs, its lanes. The merged
// findings go to the first pass's FindingObservers.
func (m *Multi) Pass(opts pipeline.Options, observers ...pipeline.Observer) *pipeline.Pass {
	return m.build(opts, observers, nil)
}

// InlinePass is Pass for observers that come after the check (after)
// and need each record's findings before they see the record, as a
// single UI's check gives them: the report pins a finding at its
// record's After, and keeps that record's details as critical. So the
// lanes run on the first pass's goroutine, record by record, rather than
// records behind on their own: the findings of a record, merged under
// every UI, are reported in the check's After of that record, before
// after's, and those of the end before after's End. The pass is slower
// by the lanes' replays, but what after makes of it does not depend on
// when a lane's goroutine was scheduled: the report's bytes stay the
// same from run to run.
func (m *Multi) InlinePass(opts pipeline.Options, after ...pipeline.Observer) *pipeline.Pass {
	m.inline = true
	return m.build(opts, nil, after)
}

func (m *Multi) build(opts pipeline.Options, before, after []pipeline.Observer) *pipeline.Pass {
	for k, l := range m.lanes {
		o := opts
		o.Replay.UI = m.uis[k+1]
		l.pass = pipeline.New(o, m.others[k])
	}
	opts.Replay.UI = m.uis[0]
	obs := append(append(slices.Clip(before), m, m.first, handOn{m}), after...)
	m.pass = pipeline.New(opts, obs...)
	return m.pass
}

// Needs: Multi is an observer of the first pass only to report there.
func (m *Multi) Needs() pipeline.Needs { return 0 }

// SetReport takes the first pass's report function.
func (m *Multi) SetReport(report func(*Finding) error) { m.report = report }

// Summary is the check's summary: the first pass's counts of the capture,
// with the findings as merged.
func (m *Multi) Summary() Summary {
	s := m.first.Summary()
	s.Errors, s.Warnings, s.Infos, s.ByRule = m.merged.Errors, m.merged.Warnings, m.merged.Infos, m.merged.ByRule
	return s
}

// asUI is a UI's finding ready to merge: with that UI in UIs, or in
// NotUIs for a hazard it does not show.
func asUI(f *Finding, ui string) Finding {
	g := *f
	g.UIs = []string{ui}
	if f.Hazard == HazardNotShown {
		g.UIs, g.NotUIs = []string{}, []string{ui}
	}
	return g
}

func (m *Multi) emit(f *Finding) error { m.count(f); return m.send(f) }

// versioned names a UI with its version: several versions of one UI are
// checked at once.
func versioned(u replay.UI) string { return u.String() }

// flush merges the findings held: one per rule, record and run, with the
// UIs that made it, in the order the first of them was made; the message
// and severity are the first UI's that made it (in the order of the UIs).
func (m *Multi) flush() error {
	if m.err != nil || len(m.pending) == 0 {
		return m.err
	}
	type key struct {
		rule, run string
		i         int
	}
	groups := map[key]int{}
	var out []Finding
	for _, f := range m.pending {
		k := key{f.Rule, f.RunID, f.I}
		if at, ok := groups[k]; ok {
			g := &out[at]
			if f.Hazard == HazardNotShown {
				// A UI that does not show the hazard explains it only
				// while no UI that shows it has.
				if g.Hazard == HazardNotShown && m.index(f.NotUIs[0]) < m.index(g.NotUIs[0]) {
					g.Message, g.Severity, g.T, g.Conn, g.AgentID, g.SessionKey = f.Message, f.Severity, f.T, f.Conn, f.AgentID, f.SessionKey
				}
				g.NotUIs = append(g.NotUIs, f.NotUIs...)
				continue
			}
			if g.Hazard == HazardNotShown || m.index(f.UIs[0]) < m.index(g.UIs[0]) { // a UI listed first explains it
				g.Message, g.Severity, g.T, g.Conn, g.AgentID, g.SessionKey = f.Message, f.Severity, f.T, f.Conn, f.AgentID, f.SessionKey
			}
			if g.Hazard == HazardNotShown {
				g.Hazard = HazardShown // shown, once a UI shows it
			}
			g.UIs = append(g.UIs, f.UIs...)
			continue
		}
		groups[k] = len(out)
		out = append(out, f)
	}
	clear(m.pending)
	m.pending = m.pending[:0]
	for k := range out {
		g := &out[k]
		slices.SortFunc(g.UIs, func(a, b string) int { return m.index(a) - m.index(b) })
		g.NotUIs = nil // every UI that does not show it, in order
		for _, u := range m.uis {
			if !slices.Contains(g.UIs, u.String()) {
				g.NotUIs = append(g.NotUIs, u.String())
			}
		}
		if err := m.emit(g); err != nil {
			return err
		}
	}
	return nil
}

func (m *Multi) index(name string) int {
	return slices.IndexFunc(m.uis, func(u replay.UI) bool { return u.String() == name })
}

func (m *Multi) count(f *Finding) {
	switch f.Severity {
	case Error:
		m.merged.Errors++
	case Warn:
		m.merged.Warnings++
	default:
		m.merged.Infos++
	}
	m.merged.ByRule[f.Rule]++
}

func (m *Multi) send(f *Finding) error {
	if m.report != nil && m.err == nil {
		m.err = m.report(f)
	}
	return m.err
}

// UIList renders a finding's UIs for a sentence: "a, b and c".
func UIList(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
