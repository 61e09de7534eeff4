package check

import "slices"

// shownRuns are the runs of the connection the UI's replay follows, each
// with what the UI showed of it after the last step that wrote its
// stores. They are indexed by run and by store: a step takes again only
// the snapshots of the runs whose agent or chat session it wrote, though
// the runs kept (up to maxPendingUI, aborted runs waiting for a second
// terminal among them) are mostly idle.
type shownRuns struct {
	byRun   map[string]*shownRun
	order   []*shownRun // oldest first: the first to go at the cap
	byAgent map[string][]*shownRun
	byChat  map[string][]*shownRun
}

type shownRun struct {
	id   string
	snap uiSnap
	step int  // the step that last took the snapshot (wireState.steps)
	gone bool // no longer followed
}

func newShownRuns() shownRuns {
	return shownRuns{byRun: map[string]*shownRun{}, byAgent: map[string][]*shownRun{}, byChat: map[string][]*shownRun{}}
}

func (s *shownRuns) get(id string) *shownRun { return s.byRun[id] }

// add starts following a run, letting the oldest go at the cap.
func (s *shownRuns) add(id string) *shownRun {
	if len(s.order) >= maxPendingUI {
		s.remove(s.order[0].id)
	}
	r := &shownRun{id: id, step: -1}
	s.byRun[id] = r
	s.order = append(s.order, r)
	s.index(r)
	return r
}

// remove stops following a run.
func (s *shownRuns) remove(id string) {
	r := s.byRun[id]
	if r == nil {
		return
	}
	r.gone = true
	delete(s.byRun, id)
	s.order = slices.DeleteFunc(s.order, func(o *shownRun) bool { return o == r })
	s.unindex(r)
}

// reset follows no run (the replay follows another connection).
func (s *shownRuns) reset() {
	for _, r := range s.order {
		r.gone = true
	}
	clear(s.byRun)
	clear(s.byAgent)
	clear(s.byChat)
	s.order = s.order[:0]
}

// set is a run's new snapshot, which may name other stores.
func (s *shownRuns) set(r *shownRun, snap uiSnap) {
	moved := snap.agent != r.snap.agent || snap.session != r.snap.session
	if moved {
		s.unindex(r)
	}
	r.snap = snap
	if moved {
		s.index(r)
	}
}

func (s *shownRuns) index(r *shownRun) {
	s.byAgent[r.snap.agent] = append(s.byAgent[r.snap.agent], r)
	s.byChat[r.snap.session] = append(s.byChat[r.snap.session], r)
}

func (s *shownRuns) unindex(r *shownRun) {
	drop := func(m map[string][]*shownRun, key string) {
		rs := slices.DeleteFunc(m[key], func(o *shownRun) bool { return o == r })
		if len(rs) == 0 {
			delete(m, key)
		} else {
			m[key] = rs
		}
	}
	drop(s.byAgent, r.snap.agent)
	drop(s.byChat, r.snap.session)
}
