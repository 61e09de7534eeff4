package diff

import (
	"slices"

	"github.com/clawtap/clawtap/pkg/outcome"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/replay"
)

// Outcome is what one UI left the user with for one run.
type Outcome struct {
	Seen      bool   `json:"seen"`              // the UI's replay saw the run
	Reply     bool   `json:"reply"`             // the run's chat final carried a reply
	Committed bool   `json:"committed"`         // the reply reached the transcript
	Dropped   string `json:"dropped,omitempty"` // the guard or reason that dropped the final
	Why       string `json:"why,omitempty"`     // why the reply did not reach the transcript
	Status    string `json:"status"`
	Ghost     string `json:"ghost,omitempty"`  // what the idle agent still held
	Bubble    string `json:"bubble,omitempty"` // clawboo's streaming text left on screen
	Billed    *int   `json:"billed"`           // turns billed; null for a UI that bills nothing
}

// RunOutcomes pairs one run's outcome under two UIs.
type RunOutcomes struct {
	RunID   string   `json:"runId"`
	AgentID string   `json:"agentId"`
	I       int      `json:"i"` // the run's last terminal record (or first record)
	A       Outcome  `json:"a"`
	B       Outcome  `json:"b"`
	Differs []string `json:"differs,omitempty"` // the fields that differ
}

// UIResult compares two UIs' outcomes of one capture.
type UIResult struct {
	UIs      [2]string    `json:"uis"`
	Differ   int          `json:"differ"`
	Same     int          `json:"same"`
	First    *RunOutcomes `json:"first,omitempty"`
	MetaRuns int          `json:"runs"`
}

// Equal reports whether the UIs left the user with the same outcome of
// every run.
func (r *UIResult) Equal() bool { return r.Differ == 0 }

// maxRuns is how many runs each pass's run table holds: a run is compared
// once both replays have let it go.
const maxRuns = pipeline.DefaultMaxRuns

// CompareUIs replays one capture under two UIs in one read, each record
// classified once and then replayed by each UI, and compares, run by run,
// what the user ends up with: the reply committed, the agent's status
// after the run, a ghost or a bubble left behind, and the turns billed
// where both UIs bill. Each run's pair goes to each (nil: none), in the
// order the runs first appeared under the first UI, then the runs only
// the second saw; a run is compared as soon as both replays have let it
// go, so memory stays flat however long the capture.
func CompareUIs(src pipeline.Source, uis [2]replay.UI, each func(*RunOutcomes) error) (*UIResult, error) {
	c := &uiPairs{res: &UIResult{UIs: [2]string{uis[0].String(), uis[1].String()}}, each: each}
	c.waiting[0], c.waiting[1] = map[string][]*uiSide{}, map[string][]*uiSide{}
	opts := func(ui replay.UI) pipeline.Options {
		return pipeline.Options{Replay: replay.Options{UI: ui}, MaxRuns: maxRuns}
	}
	c.second = pipeline.New(opts(uis[1]), sideRuns{c, 1})
	first := pipeline.New(opts(uis[0]), sideRuns{c, 0}, pipeline.Feed(c.second), c)
	if err := first.Run(src); err != nil {
		return nil, err
	}
	return c.res, c.err
}

// sideRuns takes the runs one UI's pass lets go to its side of the pairs.
type sideRuns struct {
	c *uiPairs
	k int
}

func (u sideRuns) Needs() pipeline.Needs  { return pipeline.Runs }
func (u sideRuns) RunDone(r *outcome.Run) { u.c.let(u.k, r) }

// Needs: the pairs come from the passes' run tables.
func (c *uiPairs) Needs() pipeline.Needs { return 0 }

// After compares the runs both replays let go on the way to this record.
func (c *uiPairs) After(*pipeline.Frame) error {
	c.emit(emitDue)
	return c.err
}

// End compares what each run table held to the end, in order: the first
// pass's, and the second's, which ended within the first's Feed.
func (c *uiPairs) End(e *pipeline.End) error {
	c.emit(emitDue)
	var b []*outcome.Run
	if t := c.second.Runs(); t != nil {
		b = t.Runs()
	}
	c.drain(e.Runs.Runs(), b)
	return c.err
}

// drain lets go of the runs each side held to the end (a's and b's, each
// in its order) and compares them all. It lets them go in turn, so that
// most pairs are complete, and compared, as soon as they are made: the end
// holds a few sides at a time, not every run's of both.
func (c *uiPairs) drain(a, b []*outcome.Run) {
	for k := 0; k < max(len(a), len(b)) && c.err == nil; k++ {
		if k < len(a) {
			c.let(0, a[k])
		}
		if k < len(b) {
			c.let(1, b[k])
		}
		c.emit(emitPaired)
	}
	c.emit(emitAll)
}

// uiSide is one UI's outcome of a run, once its tracker let the run go.
type uiSide struct {
	id, agent string
	i         int // the run's last terminal record, or its first record
	seq       int // the order the runs were let go in, on this side
	o         Outcome
	mate      *uiSide // the other UI's side, once paired
}

// uiPairs pairs the two UIs' sides of each run as the trackers let them
// go: the trackers read the same records, so a run leaves both at about
// the same record, and few sides ever wait.
type uiPairs struct {
	second  *pipeline.Pass // the second UI's, fed by the first
	res     *UIResult
	each    func(*RunOutcomes) error
	order   []*uiSide               // a's sides in the order let go, from the first not emitted
	waiting [2]map[string][]*uiSide // sides not paired yet, by run id
	seq     [2]int
	err     error
}

func (c *uiPairs) let(k int, r *outcome.Run) {
	s := &uiSide{id: r.ID, agent: r.AgentID, i: max(r.EndI, r.FirstI), seq: c.seq[k], o: outcomeOf(r)}
	c.seq[k]++
	other := 1 - k
	if w := c.waiting[other][r.ID]; len(w) > 0 {
		s.mate, w[0].mate = w[0], s
		if len(w) == 1 {
			delete(c.waiting[other], r.ID)
		} else {
			c.waiting[other][r.ID] = w[1:]
		}
	} else {
		c.waiting[k][r.ID] = append(c.waiting[k][r.ID], s)
	}
	if k == 0 {
		c.order = append(c.order, s)
	}
}

// What emit compares.
type emitMode uint8

const (
	emitDue    emitMode = iota // the pairs made, and a's runs that waited too long, alone
	emitPaired                 // the pairs made only (the end lets the rest go first)
	emitAll                    // everything: the capture ended
)

// emit compares the runs both sides let go, in a's order; at the end, or
// once a run has waited for b's side through maxRuns more of a's, it goes
// alone, and at the end b's runs a never saw follow in b's order.
func (c *uiPairs) emit(mode emitMode) {
	end := mode == emitAll
	n := 0
	for ; n < len(c.order) && c.err == nil; n++ {
		s := c.order[n]
		if s.mate == nil && (mode == emitPaired || !end && len(c.order)-n <= maxRuns) {
			break
		}
		if s.mate == nil {
			c.unwait(0, s)
		}
		c.pair(s, s.mate)
	}
	clear(c.order[:n])
	c.order = c.order[n:]
	if !end || c.err != nil {
		return
	}
	var only []*uiSide
	for _, w := range c.waiting[1] {
		only = append(only, w...)
	}
	slices.SortFunc(only, func(x, y *uiSide) int { return x.seq - y.seq })
	for _, s := range only {
		if c.err == nil {
			c.pair(nil, s)
		}
	}
}

// unwait takes side s of UI k off the waiting list: it goes alone.
func (c *uiPairs) unwait(k int, s *uiSide) {
	w := c.waiting[k][s.id]
	if i := slices.Index(w, s); i >= 0 {
		w = slices.Delete(w, i, i+1)
	}
	if len(w) == 0 {
		delete(c.waiting[k], s.id)
	} else {
		c.waiting[k][s.id] = w
	}
}

// pair compares one run's sides (either may be nil) and hands the pair on.
func (c *uiPairs) pair(a, b *uiSide) {
	p := RunOutcomes{}
	for k, s := range []*uiSide{a, b} {
		if s == nil {
			continue
		}
		if k == 0 {
			p.A = s.o
		} else {
			p.B = s.o
		}
		p.RunID, p.AgentID = s.id, s.agent
		p.I = max(p.I, s.i)
	}
	p.Differs = differs(&p.A, &p.B)
	res := c.res
	res.MetaRuns++
	if len(p.Differs) > 0 {
		res.Differ++
		if res.First == nil {
			first := p
			res.First = &first
		}
	} else {
		res.Same++
	}
	if c.each != nil {
		c.err = c.each(&p)
	}
}

func outcomeOf(r *outcome.Run) Outcome {
	if r == nil {
		return Outcome{}
	}
	o := Outcome{Seen: true, Reply: r.HasReply, Committed: r.Committed, Dropped: r.Dropped, Why: r.LostWhy(), Status: r.Status, Bubble: r.Bubble}
	if r.Ghost {
		o.Ghost = r.GhostWhat
	}
	if r.Billing {
		n := int(r.Bills)
		o.Billed = &n
	}
	return o
}

// differs names the outcome fields that differ: a reply only when both
// saw one, a status only when both UIs set one, billing only when both
// UIs bill.
func differs(a, b *Outcome) []string {
	var d []string
	if a.Seen != b.Seen {
		d = append(d, "seen")
	}
	if a.Reply && b.Reply && a.Committed != b.Committed {
		d = append(d, "reply")
	}
	if a.Status != "" && b.Status != "" && a.Status != b.Status { // "" = the UI never set one
		d = append(d, "status")
	}
	if (a.Ghost != "") != (b.Ghost != "") {
		d = append(d, "ghost")
	}
	if (a.Bubble != "") != (b.Bubble != "") {
		d = append(d, "bubble")
	}
	if a.Billed != nil && b.Billed != nil && *a.Billed != *b.Billed {
		d = append(d, "billed")
	}
	return d
}
