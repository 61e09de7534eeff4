package diff

import (
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
	UIs      [2]string     `json:"uis"`
	Runs     []RunOutcomes `json:"-"`
	Differ   int           `json:"differ"`
	Same     int           `json:"same"`
	First    *RunOutcomes  `json:"first,omitempty"`
	MetaRuns int           `json:"runs"`
}

// Equal reports whether the UIs left the user with the same outcome of
// every run.
func (r *UIResult) Equal() bool { return r.Differ == 0 }

// CompareUIs replays one capture under two UIs (a and b read the same
// capture, once each) and compares, run by run, what the user ends up
// with: the reply committed, the agent's status after the run, a ghost or
// a bubble left behind, and the turns billed where both UIs bill.
func CompareUIs(a, b pipeline.Source, uis [2]string) (*UIResult, error) {
	ta, err := outcomes(a, uis[0])
	if err != nil {
		return nil, err
	}
	tb, err := outcomes(b, uis[1])
	if err != nil {
		return nil, err
	}
	res := &UIResult{UIs: uis}
	byB := map[string]*outcome.Run{}
	for _, r := range tb.Runs() {
		byB[r.ID] = r
	}
	seen := map[string]bool{}
	add := func(ra, rb *outcome.Run) {
		p := RunOutcomes{A: outcomeOf(ra), B: outcomeOf(rb)}
		for _, r := range []*outcome.Run{ra, rb} {
			if r != nil {
				p.RunID, p.AgentID = r.ID, r.AgentID
				p.I = max(p.I, r.EndI, r.FirstI)
			}
		}
		p.Differs = differs(&p.A, &p.B)
		if len(p.Differs) > 0 {
			res.Differ++
			if res.First == nil {
				res.First = &p
			}
		} else {
			res.Same++
		}
		res.Runs = append(res.Runs, p)
	}
	for _, r := range ta.Runs() {
		seen[r.ID] = true
		add(r, byB[r.ID])
	}
	for _, r := range tb.Runs() {
		if !seen[r.ID] {
			add(nil, r)
		}
	}
	if res.First != nil {
		first := *res.First
		res.First = &first
	}
	res.MetaRuns = len(res.Runs)
	return res, nil
}

func outcomes(src pipeline.Source, ui string) (*outcome.Tracker, error) {
	t := outcome.New()
	p := pipeline.New(pipeline.Options{Replay: replay.Options{UI: ui}}, t)
	if err := p.Run(src); err != nil {
		return nil, err
	}
	return t, nil
}

func outcomeOf(r *outcome.Run) Outcome {
	if r == nil {
		return Outcome{}
	}
	o := Outcome{Seen: true, Reply: r.Reply != "", Committed: r.Committed, Dropped: r.Dropped, Why: r.LostWhy(), Status: r.Status, Bubble: r.Bubble}
	if r.Ghost {
		o.Ghost = r.GhostWhat
	}
	if r.Billing {
		n := r.Bills
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
