package diff

import (
	"strings"
	"testing"

	"github.com/clawtap/clawtap/internal/synth"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/replay"
)

// uiRuns is a comparison of UIs with its runs.
type uiRuns struct {
	*UIResult
	Runs []RunOutcomes
}

func compareUIs(t *testing.T, b []byte, uis [2]string) uiRuns {
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
		for _, ui := range replay.UIs {
			if res := compareUIs(t, b, [2]string{ui, ui}); !res.Equal() || res.Same != res.MetaRuns {
				t.Errorf("%s under %s twice: %d differ, first %+v", f.Name, ui, res.Differ, res.First)
			}
		}
	}
}

// The real gateways' order (lifecycle end before the chat final) loses
// clawboo's reply and not Claw3D's; the stale terminal of an older run
// does the opposite. diff names both runs and the records.
func TestUIsDisagreeWhereTheModelsDo(t *testing.T) {
	res := compareUIs(t, fixtureBytes(t, "streamed-run"), [2]string{replay.UIClawboo, replay.UIClaw3D})
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

	res = compareUIs(t, fixtureBytes(t, "stale-terminal"), [2]string{replay.UIClawboo, replay.UIClaw3D})
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

	swapped := compareUIs(t, fixtureBytes(t, "stale-terminal"), [2]string{replay.UIClaw3D, replay.UIClawboo})
	if swapped.Differ != res.Differ || swapped.Runs[0].A.Committed != older.B.Committed {
		t.Errorf("swapping the UIs should swap the sides: %+v", swapped.Runs[0])
	}
}

// Runs that end the same under both UIs compare equal, whatever each UI
// stores besides.
func TestUIsAgreeOnPlainRuns(t *testing.T) {
	for _, name := range []string{"abort", "error-run", "presence-burst", "slash-command"} {
		if res := compareUIs(t, fixtureBytes(t, name), [2]string{replay.UIClawboo, replay.UIClaw3D}); !res.Equal() {
			t.Errorf("%s: %d run(s) differ, first %+v", name, res.Differ, res.First)
		}
	}
}
