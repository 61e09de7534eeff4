package pipeline_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/clawtap/clawtap/internal/synth"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/outcome"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/runs"
)

// runsSeen is an observer of the run table: the runs let go, with their
// outcomes, and the table at the end.
type runsSeen struct {
	done     []*runs.Run
	outcomes []*outcome.Run
	end      *runs.Table
	endLen   int
}

func (o *runsSeen) Needs() pipeline.Needs { return pipeline.Outcomes }
func (o *runsSeen) RunDone(r *runs.Run, out *outcome.Run) {
	o.done = append(o.done, r)
	o.outcomes = append(o.outcomes, out)
}
func (o *runsSeen) End(e *pipeline.End) error { o.end, o.endLen = e.Runs, e.Runs.Len(); return nil }

// The pass keeps one run table for all its observers: each is told of
// every run it lets go (a Group forwards them), once, in the order the
// runs were born, and the rest at the end, before End.
func TestRunTableLetsRunsGo(t *testing.T) {
	data, err := synth.LargeJSONL(5_000, 1)
	if err != nil {
		t.Fatal(err)
	}
	r, err := capture.NewReader(bytes.NewReader(data), capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const bound = 8
	a, b := &runsSeen{}, &runsSeen{}
	p := pipeline.New(pipeline.Options{MaxRuns: bound}, a, pipeline.Group{b})
	if err := p.Run(pipeline.Records(r)); err != nil {
		t.Fatal(err)
	}
	tr := p.Runs()
	if tr == nil || a.end != tr || b.end != tr || p.Engine() == nil {
		t.Fatal("a pass whose observers need outcomes keeps one run table, replays, and ends with it")
	}
	if a.endLen != 0 {
		t.Fatalf("the table held %d runs at End: every run is let go before it", a.endLen)
	}
	if len(a.done) != tr.Born() || tr.Crowded() != tr.Born()-bound || !slices.Equal(a.done, b.done) {
		t.Fatalf("let go %d and %d runs of %d born, %d crowded out: every observer is told of every run once", len(a.done), len(b.done), tr.Born(), tr.Crowded())
	}
	for k, r := range a.done {
		if r.N != k+1 || k > 0 && r.FirstI <= a.done[k-1].FirstI {
			t.Fatalf("run %s (#%d, record %d) let go %dth: runs go in the order they were born", r.ID, r.N, r.FirstI, k+1)
		}
		if r.Kept != (k >= len(a.done)-bound) {
			t.Fatalf("run #%d kept=%v: the last %d runs are held to the end", r.N, r.Kept, bound)
		}
		if o := a.outcomes[k]; o != nil && o.UI.IsZero() {
			t.Fatalf("run %s was let go without the UI that replayed it", r.ID)
		}
	}
	if q := pipeline.New(pipeline.Options{}, &events{}); q.Runs() != nil {
		t.Error("a pass no observer asks runs of keeps a run table")
	}
}

// fieldUser keeps a count of each run's frames in a field of the table
// the pass hands it.
type fieldUser struct {
	table  *runs.Table
	frames runs.Field[int]
	counts []int
}

func (o *fieldUser) Needs() pipeline.Needs { return pipeline.Runs }
func (o *fieldUser) Table(t *runs.Table) {
	o.table, o.frames = t, runs.NewField[int](t)
}
func (o *fieldUser) Before(f *pipeline.Frame) error {
	if f.Run != nil {
		*o.frames.Of(f.Run)++
	}
	return nil
}
func (o *fieldUser) RunDone(r *runs.Run, _ *outcome.Run) {
	o.counts = append(o.counts, *o.frames.Of(r))
}

// An observer that keeps fields gets the table as the pass is built,
// before the first run is born (in a Group too), and its field lives as
// long as the run.
func TestTableObserver(t *testing.T) {
	data, err := synth.LargeJSONL(2_000, 1)
	if err != nil {
		t.Fatal(err)
	}
	r, err := capture.NewReader(bytes.NewReader(data), capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, b := &fieldUser{}, &fieldUser{}
	p := pipeline.New(pipeline.Options{MaxRuns: 4}, a, pipeline.Group{b})
	if a.table != p.Runs() || b.table != p.Runs() {
		t.Fatal("the pass did not hand its run table to its observers")
	}
	if err := p.Run(pipeline.Records(r)); err != nil {
		t.Fatal(err)
	}
	if len(a.counts) == 0 || !slices.Equal(a.counts, b.counts) || slices.Contains(a.counts, 0) {
		t.Fatalf("frames per run %v and %v", a.counts, b.counts)
	}
}
