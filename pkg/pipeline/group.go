package pipeline

import (
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/outcome"
	"github.com/clawtap/clawtap/pkg/replay"
	"github.com/clawtap/clawtap/pkg/runs"
)

// Group is observers that act as one, each called in order: an observer
// that composes others (report runs check and stats) forwards its calls to
// a Group. Nil members are skipped.
type Group []Observer

// Needs is the union of the members' needs.
func (g Group) Needs() Needs {
	var n Needs
	for _, o := range g {
		if o != nil {
			n |= o.Needs()
		}
	}
	return n
}

// Header forwards the header.
func (g Group) Header(h *capture.Header) {
	for _, o := range g {
		if x, ok := o.(HeaderObserver); ok {
			x.Header(h)
		}
	}
}

// Before forwards a record before its replay.
func (g Group) Before(f *Frame) error {
	for _, o := range g {
		if x, ok := o.(BeforeObserver); ok {
			if err := x.Before(f); err != nil {
				return err
			}
		}
	}
	return nil
}

// Step forwards a replay step.
func (g Group) Step(s *replay.Step) error {
	for _, o := range g {
		if x, ok := o.(StepObserver); ok {
			if err := x.Step(s); err != nil {
				return err
			}
		}
	}
	return nil
}

// After forwards a record after its replay.
func (g Group) After(f *Frame) error {
	for _, o := range g {
		if x, ok := o.(AfterObserver); ok {
			if err := x.After(f); err != nil {
				return err
			}
		}
	}
	return nil
}

// End forwards the end of the capture.
func (g Group) End(e *End) error {
	for _, o := range g {
		if x, ok := o.(EndObserver); ok {
			if err := x.End(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// RunDone forwards a run the run table let go.
func (g Group) RunDone(r *runs.Run, o *outcome.Run) {
	for _, m := range g {
		if x, ok := m.(RunObserver); ok {
			x.RunDone(r, o)
		}
	}
}

// RunTable hands the pass's run table to the members that keep fields in
// it.
func (g Group) RunTable(t *runs.Table) {
	for _, m := range g {
		if x, ok := m.(RunTableUser); ok {
			x.RunTable(t)
		}
	}
}
