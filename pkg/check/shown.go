package check

import (
	"fmt"
	"slices"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/replay"
)

// shownRuns are the runs of the connection the UI's replay follows, and
// what the UI showed of their stores after the last step that wrote them.
// The runs of one agent and chat session share one snapshot of those
// stores (storesShown), each run's own view made from it when asked
// (storesShown.of): a step takes again only the snapshots of the stores
// it wrote — the step's diff names the agents and chat sessions — once
// however many runs they hold. Most of the runs kept (up to maxPendingUI,
// aborted runs waiting for a second terminal among them) are idle beside
// the live run of the same agent.
type shownRuns struct {
	byRun   map[string]*shownRun
	order   []*shownRun // oldest first: the first to go at the cap
	stores  []*storesShown
	byAgent map[string][]*storesShown
	byChat  map[string][]*storesShown
}

// storesShown is what the UI showed of one agent's and one chat session's
// stores, and the runs of theirs followed.
type storesShown struct {
	snap uiSnap // for no run
	// what a run's view reads (of), as the snapshot found it
	panes                 bool
	chatRun, chatStream   replay.NStr
	agentRun, agentStream replay.NStr
	runs                  []*shownRun
	step                  int // the step that last took the snapshot (wireState.steps)
	written               int // the last step whose diff named them
}

type shownRun struct {
	id     string
	stores *storesShown // nil until the run's first step
	wire   *wireRun     // the wire's run of the same id, as last looked up (wireRun.gone: look again)
	step   int          // the step that last watched it
	gone   bool         // no longer followed
}

// snap is what the UI showed of the run after the last step that wrote
// its stores; nothing before its first step.
func (r *shownRun) snap() uiSnap {
	if r.stores == nil {
		return uiSnap{}
	}
	return r.stores.of(r.id)
}

// of is what the stores showed of run at the step that took them: the
// pane's bubble while the pane followed it, the agent's live text while
// the agent ran it.
func (p *storesShown) of(run string) uiSnap {
	s := p.snap
	if p.panes && p.chatRun.Valid && p.chatRun.V == run {
		s.bubble, s.hasBubble = p.chatStream.V, p.chatStream.Valid
	}
	if p.agentRun.Valid && p.agentRun.V == run {
		s.text, s.hasText = p.agentStream.V, p.agentStream.Valid
	}
	return s
}

// take reads the stores again, in place (this runs for every store a
// step writes); fresh looks the stores up again instead of keeping the
// ones found before (tests: the reference).
func (p *storesShown) take(st *replay.State, step int, fresh bool) {
	s := &p.snap
	if fresh {
		s.chatStore, s.agentStore = nil, nil
	}
	if s.chatStore == nil {
		s.chatStore = st.Chat(s.session)
	}
	if s.agentStore == nil {
		s.agentStore = st.Agent(s.agent)
	}
	p.panes = st.Layout().Panes
	if c := s.chatStore; c != nil {
		if p.panes {
			s.banner = c.RunError.V
		} else {
			s.bubble, s.hasBubble = c.StreamText.V, c.StreamText.Valid
		}
		s.inChat = true
		p.chatRun, p.chatStream = c.RunID, c.StreamText
	}
	if ag := s.agentStore; ag != nil {
		s.status, s.lines, s.lastLine = ag.Status.V, ag.NumLines(), ""
		if s.lines > 0 {
			s.lastLine = ag.Line(s.lines - 1).Text
		}
		p.agentRun, p.agentStream = ag.RunID, ag.StreamText
	}
	p.step = step
}

func newShownRuns() shownRuns {
	return shownRuns{byRun: map[string]*shownRun{}, byAgent: map[string][]*storesShown{}, byChat: map[string][]*storesShown{}}
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
	s.leave(r)
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
	s.stores = s.stores[:0]
}

// place puts a run with the stores of agent and session, and returns
// them: taken at step when they are new.
func (s *shownRuns) place(r *shownRun, agent, session string, st *replay.State, step int) *storesShown {
	if p := r.stores; p != nil && p.snap.agent == agent && p.snap.session == session {
		return p
	}
	s.leave(r)
	var p *storesShown
	for _, o := range s.byAgent[agent] {
		if o.snap.session == session {
			p = o
			break
		}
	}
	if p == nil {
		p = &storesShown{snap: uiSnap{agent: agent, session: session}}
		p.take(st, step, false)
		s.stores = append(s.stores, p)
		s.byAgent[agent] = append(s.byAgent[agent], p)
		s.byChat[session] = append(s.byChat[session], p)
	}
	p.runs = append(p.runs, r)
	r.stores = p
	return p
}

// leave takes a run from its stores, and the stores from the index when
// no run is left in them.
func (s *shownRuns) leave(r *shownRun) {
	p := r.stores
	if p == nil {
		return
	}
	r.stores = nil
	p.runs = slices.DeleteFunc(p.runs, func(o *shownRun) bool { return o == r })
	if len(p.runs) > 0 {
		return
	}
	drop := func(m map[string][]*storesShown, key string) {
		ps := slices.DeleteFunc(m[key], func(o *storesShown) bool { return o == p })
		if len(ps) == 0 {
			delete(m, key)
		} else {
			m[key] = ps
		}
	}
	drop(s.byAgent, p.snap.agent)
	drop(s.byChat, p.snap.session)
	s.stores = slices.DeleteFunc(s.stores, func(o *storesShown) bool { return o == p })
}

// verify (tests) holds a step's work to its definition: every run's view
// of its stores is snapOf's of the run, read afresh, and the runs watched
// are the record's run and every run whose agent or chat session the
// step's diff names.
func (s *shownRuns) verify(st *replay.Step, touched []*shownRun, step int) {
	want := map[*shownRun]bool{}
	for _, r := range s.order {
		if r.stores == nil {
			continue
		}
		if got, want := r.snap(), snapOf(st.State, r.id, r.stores.snap.agent, r.stores.snap.session); got != want {
			panic(fmt.Sprintf("check: step %d: run %s's view of its stores %+v is not snapOf's %+v", step, r.id, got, want))
		}
		for k := range st.Diff {
			id, isAgent := st.Diff[k].Path.Agent()
			key, isChat := st.Diff[k].Path.ChatSession()
			if isAgent && id == r.stores.snap.agent || isChat && key == r.stores.snap.session {
				want[r] = true
			}
		}
	}
	if ev := st.Event; st.Timer == "" && ev != nil && ev.RunID != "" && st.Rec != nil && st.Rec.Conn == st.Conn &&
		(ev.Kind == bridge.RuntimeChat || ev.Kind == bridge.RuntimeAgent) && s.byRun[ev.RunID] != nil {
		want[s.byRun[ev.RunID]] = true
	}
	got := map[*shownRun]bool{}
	for _, r := range touched {
		got[r] = true
	}
	if len(got) != len(touched) || len(got) != len(want) {
		panic(fmt.Sprintf("check: step %d watches %d run(s) (%d distinct), want %d", step, len(touched), len(got), len(want)))
	}
	for r := range want {
		if !got[r] {
			panic(fmt.Sprintf("check: step %d does not watch run %s", step, r.id))
		}
	}
}
