package diff

import (
	"github.com/clawtap/clawtap/pkg/outcome"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/replay"
	"github.com/clawtap/clawtap/pkg/runs"
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

// CompareUIs replays one capture under two UIs in one read, each record
// classified once and then replayed by each UI, and compares, run by run,
// what the user ends up with: the reply committed, the agent's status
// after the run, a ghost or a bubble left behind, and the turns billed
// where both UIs bill. Each run's pair goes to each (nil: none), in the
// order the runs were born.
//
// Both passes read the same records, so their run tables are born, and
// let go, alike: a run is compared as soon as the second pass lets it go
// too, at the same record as the first (at the end, once the first has
// let every run go), and memory stays flat however long the capture.
func CompareUIs(src pipeline.Source, uis [2]replay.UI, each func(*RunOutcomes) error) (*UIResult, error) {
	c := &uiPairs{res: &UIResult{UIs: [2]string{uis[0].String(), uis[1].String()}}, each: each, firsts: map[int]*outcome.Run{}}
	opts := func(ui replay.UI) pipeline.Options {
		return pipeline.Options{Replay: replay.Options{UI: ui}}
	}
	second := pipeline.New(opts(uis[1]), sideRuns{c, 1})
	first := pipeline.New(opts(uis[0]), sideRuns{c, 0}, pipeline.Feed(second), c)
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

func (u sideRuns) Needs() pipeline.Needs { return pipeline.Outcomes }
func (u sideRuns) RunDone(r *runs.Run, o *outcome.Run) {
	if u.k == 0 {
		u.c.firsts[r.N] = o
		return
	}
	a, seen := u.c.firsts[r.N]
	delete(u.c.firsts, r.N)
	if (a != nil || o != nil) && seen && u.c.err == nil {
		u.c.pair(a, o)
	}
}

// Needs: the pairs come from the passes' run tables.
func (c *uiPairs) Needs() pipeline.Needs { return 0 }

// End reports the first error of the pairs' consumer.
func (c *uiPairs) End(*pipeline.End) error { return c.err }

// uiPairs pairs the two UIs' outcomes of each run, by the run's number.
type uiPairs struct {
	res    *UIResult
	each   func(*RunOutcomes) error
	firsts map[int]*outcome.Run // the first UI's outcomes the second has not let go yet, by run number
	err    error
}

// pair compares one run's outcomes (either may be nil: that UI's replay
// never saw the run) and hands the pair on.
func (c *uiPairs) pair(a, b *outcome.Run) {
	p := RunOutcomes{A: outcomeOf(a), B: outcomeOf(b)}
	for _, r := range []*outcome.Run{a, b} {
		if r != nil {
			p.RunID, p.AgentID = r.ID, r.AgentID
			p.I = max(p.I, r.EndI, r.FirstI)
		}
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
