package diff

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/ui/models"

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

// The end lets go of what both trackers held in turn: a pair is compared
// as soon as it is made, so the end holds a few sides at a time, and the
// pairs still come in a's order, then the runs only b saw, in b's.
func TestDrainComparesPairsAsTheyCome(t *testing.T) {
	runs := func(ids ...string) []*outcome.Run {
		var rs []*outcome.Run
		for k, id := range ids {
			rs = append(rs, &outcome.Run{ID: id, FirstI: k, EndI: -1, TerminalI: -1})
		}
		return rs
	}
	var a, b []string
	for k := range 1000 {
		a = append(a, fmt.Sprintf("r%d", k))
	}
	b = append(append([]string{"r1", "r0"}, a[2:]...), "only-b1", "only-b2")
	var got []string
	held := 0
	c := &uiPairs{res: &UIResult{}}
	c.waiting[0], c.waiting[1] = map[string][]*uiSide{}, map[string][]*uiSide{}
	c.each = func(p *RunOutcomes) error {
		got = append(got, p.RunID)
		held = max(held, len(c.order)+len(c.waiting[0])+len(c.waiting[1]))
		return nil
	}
	c.drain(runs(a...), runs(b...))
	want := append(append([]string{}, a...), "only-b1", "only-b2")
	if !slices.Equal(got, want) {
		t.Fatalf("compared %d runs in the order %v…, want %v…", len(got), got[:min(5, len(got))], want[:5])
	}
	if held > 4 {
		t.Errorf("the end held %d sides at once: a pair should be compared as soon as it is made", held)
	}
	if c.res.MetaRuns != 1002 || c.res.Same != 1000 || c.res.Differ != 2 {
		t.Errorf("%+v", c.res)
	}
}
