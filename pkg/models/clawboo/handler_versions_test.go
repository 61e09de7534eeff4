package clawboo

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/internal/uitest"
	"github.com/clawtap/clawtap/pkg/ui"
)

// The cases of clawboo's handler.test.ts as it stands at a28711e (index id
// 63398493783), run under both guards: 1211c16's, and the one after it
// (Deps.ByCommitGuard). Only "still commits the final when the LIFECYCLE
// end arrived first" and "drops a REPLAYED final under the real wire order
// too" tell them apart; the other sixteen hold for both.

// tsHarness is the test file's harness: one agent, a fleet that holds its
// runId, a dispatcher that sets the runId a commit or status patch
// carries unless an approval is pending, and the appended batches.
type tsHarness struct {
	h          *Handler
	ft         *uitest.Clock
	runID      string
	approval   bool
	appended   [][]string
	dispatched []*Intent
	mid        string // a runId a case noted on the way
}

func newTSHarness(byCommit bool, initial string) *tsHarness {
	x := &tsHarness{ft: uitest.NewClock(1_000_000), runID: initial}
	x.h = NewHandler(Deps{
		GetAgentRunID: func(string) string { return x.runID },
		DispatchIntent: func(in *Intent) {
			x.dispatched = append(x.dispatched, in)
			if x.approval {
				return
			}
			if (in.Kind == CommitChat || in.Kind == UpdateAgentStatus) && in.Patch.RunID.Set {
				x.runID = in.Patch.RunID.V // null → ""
			}
		},
		AppendOutputLines: func(_ string, lines []string, _ string) { x.appended = append(x.appended, slices.Clone(lines)) },
		Clock:             x.ft,
		Timers:            x.ft,
		ByCommitGuard:     byCommit,
	})
	return x
}

func idlePatch() ui.Patch {
	return ui.Patch{Status: ui.SetStr(StatusIdle), RunID: ui.NullStr(), RunStartedAt: ui.NullInt(), StreamText: ui.NullStr(), ThinkingTrace: ui.NullStr()}
}

// C is the file's commitChat builder; run "" is a frame without a runId.
func (x *tsHarness) C(run string, lines []string, cost *ChatCost) {
	in := Intent{Kind: CommitChat, Plane: PlaneWork, AgentID: "a1", SessionKey: "agent:a1:main", RunID: ui.SetStr(run), Patch: idlePatch(), Lines: lines, Cost: cost}
	if run == "" {
		in.RunID = ui.NullStr()
	}
	x.h.ApplyIntents([]Intent{in})
}

// T is its lifecycle terminal (updateAgentStatus).
func (x *tsHarness) T(run string) {
	x.h.ApplyIntents([]Intent{{Kind: UpdateAgentStatus, Plane: PlaneAgent, AgentID: "a1", RunID: ui.SetStr(run), Patch: idlePatch()}})
}

func (x *tsHarness) startRun(run string) { x.runID = run }

func (x *tsHarness) count(kind string) int {
	n := 0
	for _, in := range x.dispatched {
		if in.Kind == kind {
			n++
		}
	}
	return n
}

func (x *tsHarness) billed() []ChatCost {
	var out []ChatCost
	for _, in := range x.dispatched {
		if in.Kind == CommitChat && in.Cost != nil {
			out = append(out, *in.Cost)
		}
	}
	return out
}

func batches(b ...[]string) [][]string { return b }

func lines(l ...string) []string { return l }

func num(f float64) *float64 { return &f }

func TestHandlerCasesOfBothVersions(t *testing.T) {
	cost := &ChatCost{Model: "claude-opus-5", InputTokens: num(100), OutputTokens: 200}
	cases := []struct {
		name string
		run  func(x *tsHarness)
		// check reports what differs from the expectation of the version
		// (byCommit: the guard after 1211c16), "" when it holds.
		check func(x *tsHarness, byCommit bool) string
	}{
		{"commits a first chat final and closes the run",
			func(x *tsHarness) { x.C("r1", lines("hello"), nil) },
			func(x *tsHarness, _ bool) string {
				return expect(x.appended, batches(lines("hello"))) + expectN(x.count(CommitChat), 1) + expectRun(x.runID, "")
			}},
		{"drops a REPLAYED final for the same run (the triple-render root cause)",
			func(x *tsHarness) { x.C("r1", lines("hello"), nil); x.C("r1", lines("hello"), nil) },
			func(x *tsHarness, _ bool) string {
				return expect(x.appended, batches(lines("hello"))) + expectN(x.count(CommitChat), 1)
			}},
		{"still commits the final when the LIFECYCLE end arrived first",
			func(x *tsHarness) { x.T("r1"); x.C("r1", lines("the reply"), nil) },
			func(x *tsHarness, byCommit bool) string {
				if !byCommit { // 1211c16 loses the reply: the lifecycle end closed the run
					return expect(x.appended, nil) + expectN(x.count(CommitChat), 0)
				}
				return expect(x.appended, batches(lines("the reply"))) + expectN(x.count(CommitChat), 1)
			}},
		{"still drops a replayed final after the run committed once",
			func(x *tsHarness) { x.C("r1", lines("hello"), nil); x.T("r1"); x.C("r1", lines("hello"), nil) },
			func(x *tsHarness, _ bool) string {
				return expect(x.appended, batches(lines("hello"))) + expectN(x.count(CommitChat), 1)
			}},
		{"drops a REPLAYED final under the real wire order too",
			func(x *tsHarness) { x.T("r1"); x.C("r1", lines("the reply"), nil); x.C("r1", lines("the reply"), nil) },
			func(x *tsHarness, byCommit bool) string {
				if !byCommit {
					return expect(x.appended, nil) + expectN(x.count(CommitChat), 0)
				}
				return expect(x.appended, batches(lines("the reply"))) + expectN(x.count(CommitChat), 1)
			}},
		{"never lets a stale final flip a NEWLY started run to idle",
			func(x *tsHarness) { x.T("r1"); x.startRun("r2"); x.C("r1", lines("stale"), nil) },
			func(x *tsHarness, _ bool) string { return expectRun(x.runID, "r2") + expect(x.appended, nil) }},
		{"lets a DIFFERENT run commit after the first closed",
			func(x *tsHarness) { x.C("r1", lines("first"), nil); x.startRun("r2"); x.C("r2", lines("second"), nil) },
			func(x *tsHarness, _ bool) string {
				return expect(x.appended, batches(lines("first"), lines("second")))
			}},
		{"lets a post-approval continuation through (same runId, different text)",
			func(x *tsHarness) {
				x.approval = true
				x.C("r1", lines("first"), nil)
				x.mid = x.runID // the approval held the run open
				x.approval = false
				x.C("r1", lines("second"), nil)
			},
			func(x *tsHarness, _ bool) string {
				return expectRun(x.mid, "r1") + expect(x.appended, batches(lines("first"), lines("second"))) + expectRun(x.runID, "")
			}},
		{"a replayed final cannot clobber a freshly-started run",
			func(x *tsHarness) { x.C("r1", lines("first"), nil); x.startRun("r2"); x.C("r1", lines("first"), nil) },
			func(x *tsHarness, _ bool) string {
				return expectRun(x.runID, "r2") + expect(x.appended, batches(lines("first")))
			}},
		{"fails OPEN when the frame carries no runId",
			func(x *tsHarness) { x.C("r1", lines("first"), nil); x.C("", lines("unattributed"), nil) },
			func(x *tsHarness, _ bool) string {
				return expect(x.appended, batches(lines("first"), lines("unattributed")))
			}},
		{"skips appendOutputLines for an empty commit (aborted / error finals)",
			func(x *tsHarness) { x.C("r1", lines(), nil) },
			func(x *tsHarness, _ bool) string { return expect(x.appended, nil) + expectN(x.count(CommitChat), 1) }},
		{"bills a committed turn exactly once",
			func(x *tsHarness) { x.C("r1", lines("hello"), cost) },
			func(x *tsHarness, _ bool) string { return expectCosts(x.billed(), *cost) }},
		{"does NOT bill a replayed final twice",
			func(x *tsHarness) { x.C("r1", lines("hello"), cost); x.C("r1", lines("hello"), cost) },
			func(x *tsHarness, _ bool) string { return expectCosts(x.billed(), *cost) }},
		{"bills BOTH halves of a post-approval continuation",
			func(x *tsHarness) {
				x.approval = true
				x.C("r1", lines("first"), &ChatCost{Model: "m", InputTokens: num(10), OutputTokens: 20})
				x.approval = false
				x.C("r1", lines("second"), &ChatCost{Model: "m", InputTokens: num(30), OutputTokens: 40})
			},
			func(x *tsHarness, _ bool) string {
				return expectCosts(x.billed(), ChatCost{Model: "m", InputTokens: num(10), OutputTokens: 20}, ChatCost{Model: "m", InputTokens: num(30), OutputTokens: 40})
			}},
		{"drops a late terminal status for a run that already closed",
			func(x *tsHarness) { x.C("r1", lines("done"), nil); x.startRun("r2"); x.T("r1") },
			func(x *tsHarness, _ bool) string {
				return expectRun(x.runID, "r2") + expectN(x.count(UpdateAgentStatus), 0)
			}},
		{"lets a terminal status for a still-open run through",
			func(x *tsHarness) { x.T("r1") },
			func(x *tsHarness, _ bool) string {
				return expectN(x.count(UpdateAgentStatus), 1) + expectRun(x.runID, "")
			}},
		{"never drops a `running` status, even for a closed runId",
			func(x *tsHarness) {
				x.C("r1", lines("done"), nil)
				x.h.ApplyIntents([]Intent{{Kind: UpdateAgentStatus, Plane: PlaneAgent, AgentID: "a1", RunID: ui.SetStr("r1"),
					Patch: ui.Patch{Status: ui.SetStr(StatusRunning), RunID: ui.SetStr("r1"), RunStartedAt: ui.SetInt(1)}}})
			},
			func(x *tsHarness, _ bool) string {
				return expectN(x.count(UpdateAgentStatus), 1) + expectRun(x.runID, "r1")
			}},
		{"clears closedRuns so a reconnect starts clean",
			func(x *tsHarness) {
				x.C("r1", lines("first"), nil)
				x.h.Dispose()
				x.startRun("r1")
				x.C("r1", lines("first"), nil)
			},
			func(x *tsHarness, _ bool) string {
				return expect(x.appended, batches(lines("first"), lines("first")))
			}},
	}
	for _, byCommit := range []bool{false, true} {
		version := map[bool]string{false: "1211c16", true: "59639f1"}[byCommit]
		for _, c := range cases {
			x := newTSHarness(byCommit, "r1")
			c.run(x)
			if msg := c.check(x, byCommit); msg != "" {
				t.Errorf("%s: %s:%s", version, c.name, msg)
			}
		}
	}
}

func expect(got, want [][]string) string {
	if slices.EqualFunc(got, want, slices.Equal[[]string]) {
		return ""
	}
	return " appended " + format(got) + ", want " + format(want)
}

func format(b [][]string) string {
	var parts []string
	for _, l := range b {
		parts = append(parts, "["+strings.Join(l, ",")+"]")
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func expectN(got, want int) string {
	if got == want {
		return ""
	}
	return " dispatched " + itoa(got) + ", want " + itoa(want)
}

func expectRun(got, want string) string {
	if got == want {
		return ""
	}
	return " runId " + quoteOrNull(got) + ", want " + quoteOrNull(want)
}

func expectCosts(got []ChatCost, want ...ChatCost) string {
	same := slices.EqualFunc(got, want, func(a, b ChatCost) bool {
		return a.Model == b.Model && a.OutputTokens == b.OutputTokens && (a.InputTokens == nil) == (b.InputTokens == nil) && (a.InputTokens == nil || *a.InputTokens == *b.InputTokens)
	})
	if same {
		return ""
	}
	return " billed " + itoa(len(got)) + " turns, want " + itoa(len(want))
}

func itoa(n int) string { return strconv.Itoa(n) }

func quoteOrNull(s string) string {
	if s == "" {
		return "null"
	}
	return `"` + s + `"`
}

// What the closed-run map holds under the guard after 1211c16: what closed
// each run, and a run closed again keeps its place with the new reason.
func TestByCommitGuardRemembersWhatClosedARun(t *testing.T) {
	x := newTSHarness(true, "r1")
	x.T("r1")
	if got := x.h.ClosedRuns(); len(got) != 1 || got[0].ClosedBy != "lifecycle" {
		t.Fatalf("after the lifecycle end: %+v", got)
	}
	x.startRun("r2")
	x.T("r2")
	x.C("r1", lines("late"), nil) // no run live: r1's final commits and closes it by commit
	got := x.h.ClosedRuns()
	if len(got) != 2 || got[0].RunID != "r1" || got[0].ClosedBy != "commit" || got[1].RunID != "r2" || got[1].ClosedBy != "lifecycle" {
		t.Fatalf("r1 closed again by its commit keeps its place: %+v", got)
	}
	// A commit without a runId closes nothing (1211c16 closed the live run).
	y := newTSHarness(true, "r1")
	y.C("", lines("unattributed"), nil)
	if got := y.h.ClosedRuns(); len(got) != 0 {
		t.Errorf("a commit without a runId closed %+v", got)
	}
	z := newTSHarness(false, "r1")
	z.C("", lines("unattributed"), nil)
	if got := z.h.ClosedRuns(); len(got) != 1 || got[0].RunID != "r1" || got[0].ClosedBy != "" {
		t.Errorf("1211c16 closes the run that was live: %+v", got)
	}
	// The late final of a run never closed, while another is live, goes
	// through: the incoming run is closed, not the live one.
	w := newTSHarness(true, "r2")
	w.C("r1", lines("late"), nil)
	if got := w.h.ClosedRuns(); len(got) != 1 || got[0].RunID != "r1" {
		t.Errorf("closed %+v, want r1 alone", got)
	}
	// A retry on the same runId: the second lifecycle end is dropped (it
	// ignores what closed the run), the final commits.
	v := newTSHarness(true, "r1")
	v.T("r1")
	v.startRun("r1")
	v.T("r1")
	if v.runID != "r1" || v.count(UpdateAgentStatus) != 1 {
		t.Fatalf("the retry's lifecycle end: runId %q, %d dispatched", v.runID, v.count(UpdateAgentStatus))
	}
	v.C("r1", lines("done"), nil)
	if v.runID != "" || v.count(CommitChat) != 1 {
		t.Errorf("the retry's final: runId %q, %d dispatched", v.runID, v.count(CommitChat))
	}
	// An approval held while the agent's runId is already null: the commit
	// closes its run, so the continuation with the same runId is dropped.
	u := newTSHarness(true, "")
	u.approval = true
	u.C("r1", lines("first"), nil)
	u.approval = false
	u.C("r1", lines("second"), nil)
	if !slices.EqualFunc(u.appended, batches(lines("first")), slices.Equal[[]string]) {
		t.Errorf("appended %v", u.appended)
	}
}
