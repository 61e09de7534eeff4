package pipeline_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/clawtap/clawtap/internal/synth"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/outcome"
	"github.com/clawtap/clawtap/pkg/pipeline"
)

// runsSeen is an observer of the run table: the runs let go, and the
// table at the end.
type runsSeen struct {
	done []*outcome.Run
	end  *outcome.Tracker
}

func (o *runsSeen) Needs() pipeline.Needs     { return pipeline.Runs }
func (o *runsSeen) RunDone(r *outcome.Run)    { o.done = append(o.done, r) }
func (o *runsSeen) End(e *pipeline.End) error { o.end = e.Runs; return nil }

// The pass keeps one run table for all its observers: each is told of
// every run it lets go (a Group forwards them), once, in the order the
// runs came, and End holds the rest.
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
		t.Fatal("a pass whose observers need runs keeps one run table, replays, and ends with it")
	}
	if len(a.done) == 0 || len(a.done) != tr.Forgotten || !slices.Equal(a.done, b.done) {
		t.Fatalf("let go %d and %d runs, forgot %d: every observer is told of every run forgotten", len(a.done), len(b.done), tr.Forgotten)
	}
	held := tr.Runs()
	if len(held) != bound {
		t.Fatalf("the table held %d runs to the end, want %d", len(held), bound)
	}
	all := append(slices.Clone(a.done), held...)
	for k := 1; k < len(all); k++ {
		if all[k].FirstI <= all[k-1].FirstI {
			t.Fatalf("run %s (record %d) let go after %s (record %d): runs go in the order they came", all[k].ID, all[k].FirstI, all[k-1].ID, all[k-1].FirstI)
		}
	}
	for _, r := range all {
		if r.UI.IsZero() {
			t.Fatalf("run %s was let go without the UI that replayed it", r.ID)
		}
	}
	if q := pipeline.New(pipeline.Options{}, &events{}); q.Runs() != nil {
		t.Error("a pass no observer asks runs of keeps a run table")
	}
}
