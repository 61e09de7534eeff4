package pipeline_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/clawtap/clawtap/pkg/models"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/replay"
)

// trace is what a pass showed an observer: its header, every replay step,
// and whether the end came complete.
type trace struct {
	header bool
	steps  []string
	end    *bool
	failAt int // Step fails at this record (0: never)
}

func (tr *trace) Needs() pipeline.Needs    { return pipeline.Replay }
func (tr *trace) Header(h *capture.Header) { tr.header = h != nil }
func (tr *trace) Step(s *replay.Step) error {
	if tr.failAt > 0 && s.I == tr.failAt {
		return errStop
	}
	tr.steps = append(tr.steps, fmt.Sprintf("%d %s %d effects %d changes", s.I, s.Timer, len(s.Effects), len(s.Diff)))
	return nil
}
func (tr *trace) End(e *pipeline.End) error { tr.end = &e.Complete; return nil }

var errStop = errors.New("stop")

func openFixture(t *testing.T, name string) pipeline.Source {
	t.Helper()
	r, err := capture.Open("../../fixtures/"+name, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return pipeline.Records(r)
}

// A pass fed by another replays what it would replay reading the capture
// itself: the same steps, the header, the end.
func TestFeedDrivesASecondPass(t *testing.T) {
	const name = "streamed-run.jsonl.zst"
	for _, ui := range models.All() {
		alone := &trace{}
		if err := pipeline.New(pipeline.Options{Replay: replay.Options{UI: ui}}, alone).Run(openFixture(t, name)); err != nil {
			t.Fatal(err)
		}
		fed, first := &trace{}, &trace{}
		second := pipeline.New(pipeline.Options{Replay: replay.Options{UI: ui}}, fed)
		other := models.MustLookup("clawboo@1211c16")
		if ui == other {
			other = models.MustLookup("claw3d")
		}
		if err := pipeline.New(pipeline.Options{Replay: replay.Options{UI: other}}, first, pipeline.Feed(second)).Run(openFixture(t, name)); err != nil {
			t.Fatal(err)
		}
		if len(alone.steps) < 10 || !alone.header || alone.end == nil || !*alone.end {
			t.Fatalf("%s: the fixture should replay with a header and end: %d steps", ui, len(alone.steps))
		}
		if !slices.Equal(fed.steps, alone.steps) {
			t.Errorf("%s fed by %s: %d steps, alone %d\n%v\n%v", ui, other, len(fed.steps), len(alone.steps), fed.steps, alone.steps)
		}
		if !fed.header || fed.end == nil || !*fed.end {
			t.Errorf("%s fed: header %v, end %v", ui, fed.header, fed.end)
		}
	}
}

// An observer of the fed pass that fails stops the first pass with its
// error, and the fed pass is not ended twice.
func TestFeedStopsOnTheSecondPassError(t *testing.T) {
	fed := &trace{failAt: 5}
	second := pipeline.New(pipeline.Options{}, fed)
	first := &trace{}
	err := pipeline.New(pipeline.Options{}, first, pipeline.Feed(second)).Run(openFixture(t, "streamed-run.jsonl.zst"))
	if !errors.Is(err, errStop) {
		t.Fatalf("err %v, want the fed observer's", err)
	}
	if fed.end != nil || first.end != nil {
		t.Errorf("a failed pass does not end: first %v, fed %v", first.end, fed.end)
	}
	if n := len(first.steps); n == 0 || n > 8 {
		t.Errorf("the first pass went on past the failure: %d steps", n)
	}
}
