package diff

import (
	"bytes"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/models"

	"github.com/clawtap/clawtap/internal/synth"
	"github.com/clawtap/clawtap/pkg/outcome"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/replay"
)

// uiRuns is a comparison of UIs with its runs.
type uiRuns struct {
	*UIResult
	Runs []RunOutcomes
}

func compareUIs(t *testing.T, b []byte, uis [2]replay.UI) uiRuns {
	t.Helper()
	var runs []RunOutcomes
	res, err := CompareUIs(pipeline.Records(open(t, b)), uis, func(p *RunOutcomes) error {
		runs = append(runs, *p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != res.MetaRuns || res.Same+res.Differ != res.MetaRuns {
		t.Fatalf("%d runs handed on, %d counted (%d same, %d differ)", len(runs), res.MetaRuns, res.Same, res.Differ)
	}
	return uiRuns{res, runs}
}

func fixtureBytes(t *testing.T, name string) []byte {
	t.Helper()
	for _, f := range synth.Fixtures() {
		if f.Name == name {
			b, err := f.Bytes()
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
	t.Fatalf("no fixture %s", name)
	return nil
}

// A UI compared with itself never differs: the replay is deterministic
// and the comparison symmetric.
func TestUIAgainstItself(t *testing.T) {
	for _, f := range synth.Fixtures() {
		b, err := f.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		for _, ui := range models.All() {
			if res := compareUIs(t, b, [2]replay.UI{ui, ui}); !res.Equal() || res.Same != res.MetaRuns {
				t.Errorf("%s under %s twice: %d differ, first %+v", f.Name, ui, res.Differ, res.First)
			}
		}
	}
}

// The real gateways' order (lifecycle end before the chat final) loses
// clawboo's reply and not Claw3D's; the stale terminal of an older run
// does the opposite. diff names both runs and the records.
func TestUIsDisagreeWhereTheModelsDo(t *testing.T) {
	res := compareUIs(t, fixtureBytes(t, "streamed-run"), [2]replay.UI{models.MustLookup("clawboo@1211c16"), models.MustLookup("claw3d")})
	if res.Differ != 1 || res.First == nil {
		t.Fatalf("streamed-run: %+v", res)
	}
	f := res.First
	if f.A.Committed || !f.B.Committed || !f.A.Reply || f.A.Dropped != "guard" || f.A.Bubble == "" || f.B.Bubble != "" {
		t.Errorf("streamed-run: clawboo should drop the reply and keep the bubble, Claw3D commit it: %+v", f)
	}
	if !strings.Contains(f.A.Why, "lifecycle end (record") || !strings.Contains(strings.Join(f.Differs, ","), "reply") {
		t.Errorf("streamed-run: the reason should name the lifecycle end's record: %q %v", f.A.Why, f.Differs)
	}

	res = compareUIs(t, fixtureBytes(t, "stale-terminal"), [2]replay.UI{models.MustLookup("clawboo@1211c16"), models.MustLookup("claw3d")})
	if res.Differ != 2 {
		t.Fatalf("stale-terminal: %d runs differ, want 2", res.Differ)
	}
	older, newer := res.Runs[0], res.Runs[1]
	if !older.A.Committed || older.B.Committed || older.B.Status != "running" || older.A.Status != "idle" {
		t.Errorf("stale-terminal, older run: clawboo commits, Claw3D ignores the other run's final and stays running: %+v", older)
	}
	if newer.A.Committed || !newer.B.Committed || !strings.Contains(newer.A.Why, older.RunID) {
		t.Errorf("stale-terminal, newer run: clawboo's guard drops it, naming the older run: %+v", newer)
	}
	if res.First.RunID != older.RunID || res.First.I != older.I {
		t.Errorf("first difference should be the older run: %+v", res.First)
	}

	swapped := compareUIs(t, fixtureBytes(t, "stale-terminal"), [2]replay.UI{models.MustLookup("claw3d"), models.MustLookup("clawboo@1211c16")})
	if swapped.Differ != res.Differ || swapped.Runs[0].A.Committed != older.B.Committed {
		t.Errorf("swapping the UIs should swap the sides: %+v", swapped.Runs[0])
	}
}

// Runs that end the same under both UIs compare equal, whatever each UI
// stores besides.
func TestUIsAgreeOnPlainRuns(t *testing.T) {
	for _, name := range []string{"abort", "error-run", "presence-burst", "slash-command"} {
		if res := compareUIs(t, fixtureBytes(t, name), [2]replay.UI{models.MustLookup("clawboo@1211c16"), models.MustLookup("claw3d")}); !res.Equal() {
			t.Errorf("%s: %d run(s) differ, first %+v", name, res.Differ, res.First)
		}
	}
}

// Both passes let a run go at the same record, so a pair is compared as
// soon as the second lets it go: the first UI's outcomes waiting never
// outnumber the run table, however long the capture.
func TestPairsComeAsTheSecondLetsGo(t *testing.T) {
	skipLarge(t)
	data, err := synth.LargeJSONL(40_000, 1)
	if err != nil {
		t.Fatal(err)
	}
	r, err := capture.NewReader(bytes.NewReader(data), capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := &uiPairs{res: &UIResult{}, firsts: map[int]*outcome.Run{}}
	held := 0
	c.each = func(p *RunOutcomes) error {
		held = max(held, len(c.firsts))
		return nil
	}
	opts := func(ui replay.UI) pipeline.Options {
		return pipeline.Options{Replay: replay.Options{UI: ui}, MaxRuns: 64}
	}
	second := pipeline.New(opts(models.MustLookup("claw3d")), sideRuns{c, 1})
	first := pipeline.New(opts(models.MustLookup("clawboo@1211c16")), sideRuns{c, 0}, pipeline.Feed(second), c)
	if err := first.Run(pipeline.Records(r)); err != nil {
		t.Fatal(err)
	}
	if born := first.Runs().Born(); c.res.MetaRuns == 0 || c.res.MetaRuns > born || len(c.firsts) != 0 {
		t.Fatalf("compared %d runs of %d born, %d left waiting", c.res.MetaRuns, born, len(c.firsts))
	}
	if held > 64 {
		t.Errorf("%d of the first UI's outcomes waited at once, more than the run table holds (64)", held)
	}
}
