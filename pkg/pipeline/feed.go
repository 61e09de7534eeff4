package pipeline

import "github.com/clawtap/clawtap/pkg/capture"

// Feed is an observer that hands every record of its pass, classified,
// on to a second pass (its header first, its end last): one read of a
// capture drives two replays, each with its own options and observers
// (diff --ui replays one capture under two UIs this way). The second pass
// runs inside the first's After, so its steps for a record come after the
// first's, and the observers given after the Feed see both.
func Feed(to *Pass) Observer { return feed{to} }

type feed struct{ to *Pass }

// Needs is nothing beyond the classified record: the second pass runs its
// own stages.
func (feed) Needs() Needs { return 0 }

func (d feed) Header(h *capture.Header) { d.to.Begin(h) }

func (d feed) After(f *Frame) error {
	_, err := d.to.Push(f.Rec, f.Event)
	return err
}

func (d feed) End(e *End) error {
	if d.to.done { // it stopped at its own Until, or an observer of it failed
		return nil
	}
	return d.to.end(e.Complete, e.Stats)
}
