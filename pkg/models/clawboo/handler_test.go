package clawboo

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/internal/uitest"
	"github.com/clawtap/clawtap/pkg/ui"
)

// fakeHost is a minimal fleet store with the host's dispatch rules, recording
// every call in order.
type fakeHost struct {
	runID     map[string]string
	status    map[string]string
	approvals map[string]int
	calls     []string
	billed    int
	decisions []Decision
}

func newFakeHost() *fakeHost {
	return &fakeHost{runID: map[string]string{}, status: map[string]string{}, approvals: map[string]int{}}
}

func (h *fakeHost) apply(agent string, p ui.Patch) {
	if p.RunID.Set {
		h.runID[agent] = p.RunID.V // null → ""
	}
	if s, ok := p.Status.Value(); ok {
		h.status[agent] = s
	}
}

func (h *fakeHost) deps(ft *uitest.Clock) Deps {
	return Deps{
		GetAgentRunID: func(a string) string { h.calls = append(h.calls, "getRunId"); return h.runID[a] },
		DispatchIntent: func(in *Intent) {
			h.calls = append(h.calls, "dispatch:"+in.Kind)
			switch in.Kind {
			case UpdateAgentStatus:
				if s, _ := in.Patch.Status.Value(); s != StatusRunning && h.approvals[in.AgentID] > 0 {
					return
				}
				h.apply(in.AgentID, in.Patch)
			case CommitChat:
				if in.Cost != nil {
					h.billed++
				}
				if h.approvals[in.AgentID] > 0 {
					return
				}
				h.apply(in.AgentID, in.Patch)
			case ApprovalPending:
				h.approvals[in.AgentID]++
			case ApprovalResolved:
				h.approvals[in.AgentID]--
			}
		},
		QueueLivePatch: func(a string, p ui.Patch, sk string) { h.calls = append(h.calls, "queue") },
		ClearPendingLivePatch: func(a string) {
			h.calls = append(h.calls, "clear")
		},
		AppendOutputLines: func(a string, lines []string, sk string) {
			h.calls = append(h.calls, "append:"+strings.Join(lines, "|"))
		},
		RequestHistoryRefresh:  func(a, r string) { h.calls = append(h.calls, "history:"+r) },
		LoadSummarySnapshot:    func() { h.calls = append(h.calls, "loadSummary") },
		RefreshHeartbeatLatest: func() { h.calls = append(h.calls, "refreshHeartbeat") },
		Clock:                  ft,
		Timers:                 ft,
		Observer:               func(d *Decision) { h.decisions = append(h.decisions, *d) },
	}
}

func (h *fakeHost) reset() { h.calls, h.decisions = nil, nil }

func (h *fakeHost) decided(kind string) []Decision {
	var out []Decision
	for _, d := range h.decisions {
		if d.Kind == kind {
			out = append(out, d)
		}
	}
	return out
}

// Intent builders, shaped as policy derives them.

func start(agent, run string, ts int64) Intent {
	return Intent{Kind: UpdateAgentStatus, Plane: PlaneAgent, AgentID: agent, RunID: ui.SetStr(run),
		Patch: ui.Patch{Status: ui.SetStr("running"), RunID: ui.SetStr(run), RunStartedAt: ui.SetInt(ts), StreamText: ui.NullStr(), ThinkingTrace: ui.NullStr()}}
}

func closed(status string) ui.Patch {
	return ui.Patch{Status: ui.SetStr(status), RunID: ui.NullStr(), RunStartedAt: ui.NullInt(), StreamText: ui.NullStr(), ThinkingTrace: ui.NullStr()}
}

func end(agent, run string) Intent {
	return Intent{Kind: UpdateAgentStatus, Plane: PlaneAgent, AgentID: agent, RunID: ui.SetStr(run), Patch: closed("idle")}
}

func commit(agent, run string, lines ...string) Intent {
	in := Intent{Kind: CommitChat, Plane: PlaneWork, AgentID: agent, RunID: ui.SetStr(run), Patch: closed("idle"),
		Lines: lines, Cost: &ChatCost{Model: "m", OutputTokens: 1}}
	if run == "" {
		in.RunID = ui.NullStr()
	}
	return in
}

func final(agent, run string, lines ...string) []Intent {
	return []Intent{{Kind: ClearPendingLivePatch, Plane: PlaneWork, AgentID: agent}, commit(agent, run, lines...)}
}

func pending(agent string) Intent {
	return Intent{Kind: ApprovalPending, Plane: PlaneTrust, AgentID: agent, Payload: []byte(`{"id":"a1"}`)}
}

func resolved(agent string) Intent {
	return Intent{Kind: ApprovalResolved, Plane: PlaneTrust, AgentID: agent, Payload: []byte(`{"id":"a1"}`)}
}

func summary(heartbeat bool) Intent {
	return Intent{Kind: ScheduleSummaryRefresh, Plane: PlaneAgent, DelayMs: 750, Heartbeat: heartbeat}
}

func one(in Intent) []Intent { return []Intent{in} }

func setup() (*Handler, *fakeHost, *uitest.Clock) {
	ft := uitest.NewClock(1_000_000)
	h := newFakeHost()
	return NewHandler(h.deps(ft)), h, ft
}

func TestConstants(t *testing.T) {
	if ClosedRunTTLMs != 30_000 || ClosedRunsMaxSize != 500 || SummaryRefreshDelayMs != 750 {
		t.Fatalf("constants changed: ttl %d, max %d, debounce %d", ClosedRunTTLMs, ClosedRunsMaxSize, SummaryRefreshDelayMs)
	}
}

// TestCommitChatOrder: clear, append (if lines), pre, dispatch, post, close pre.
func TestCommitChatOrder(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		want  []string
	}{
		{"with lines", []string{"hi", "[[tool]] x"}, []string{"clear", "append:hi|[[tool]] x", "getRunId", "dispatch:commitChat", "getRunId"}},
		{"no lines", nil, []string{"clear", "getRunId", "dispatch:commitChat", "getRunId"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hd, h, _ := setup()
			hd.ApplyIntents(one(start("main", "r1", 0)))
			h.reset()
			hd.ApplyIntents(one(commit("main", "r1", tc.lines...)))
			if !slices.Equal(h.calls, tc.want) {
				t.Fatalf("calls %v, want %v", h.calls, tc.want)
			}
			if !hd.IsClosed("r1") {
				t.Fatal("r1 not recorded closed")
			}
		})
	}
}

// TestTTLBoundary: an entry expires only when now > expiry, strictly.
func TestTTLBoundary(t *testing.T) {
	for _, tc := range []struct {
		after   int64
		dropped bool
	}{
		{0, true},
		{29_999, true},
		{30_000, true}, // exactly +30 000 ms: still closed
		{30_001, false},
		{120_000, false},
	} {
		t.Run(fmt.Sprintf("+%d", tc.after), func(t *testing.T) {
			hd, h, ft := setup()
			hd.ApplyIntents(one(start("main", "r1", 0)))
			closedAt := ft.Now()
			hd.ApplyIntents(final("main", "r1", "hello"))
			ft.Advance(closedAt + tc.after)
			h.reset()
			hd.ApplyIntents(final("main", "r1", "hello"))
			appended := slices.Contains(h.calls, "append:hello")
			if appended == tc.dropped {
				t.Fatalf("appended=%v, want dropped=%v; calls %v", appended, tc.dropped, h.calls)
			}
			if tc.dropped {
				d := h.decided(DroppedClosed)
				if len(d) != 1 || d[0].RunID != "r1" || d[0].Expiry != closedAt+ClosedRunTTLMs {
					t.Fatalf("decisions %+v", h.decisions)
				}
				// The whole intent is skipped: no clear, no dispatch, no billing.
				if slices.Contains(h.calls, "dispatch:commitChat") || h.billed != 1 {
					t.Fatalf("dropped commit still dispatched: %v billed %d", h.calls, h.billed)
				}
			} else if len(h.decided(Expired)) != 1 {
				t.Fatalf("no expiry decision: %+v", h.decisions)
			}
		})
	}
}

// TestPruneOnEveryCall: pruning happens at the top of every ApplyIntents,
// even one that only ignores.
func TestPruneOnEveryCall(t *testing.T) {
	hd, h, ft := setup()
	hd.ApplyIntents(one(start("main", "r1", 0)))
	hd.ApplyIntents(one(end("main", "r1")))
	ft.Advance(ft.Now() + 30_001)
	h.reset()
	hd.ApplyIntents(one(Intent{Kind: Ignore, Reason: "x"}))
	if hd.IsClosed("r1") || len(h.decided(Expired)) != 1 {
		t.Fatalf("not pruned: %+v", h.decisions)
	}
}

// TestCapEviction: past 500 entries the oldest (insertion order) are evicted
// at the next prune; re-closing a run keeps its position, as a JS Map does.
func TestCapEviction(t *testing.T) {
	for _, tc := range []struct {
		name      string
		n         int
		reclose   string // re-close this run last (updates expiry, keeps position)
		evicted   []string
		stillOpen string // a run whose final must now pass
		stillShut string // a run whose final must still be dropped
	}{
		{name: "500 fit", n: 500, stillShut: "r0"},
		{name: "501 evicts r0", n: 501, evicted: []string{"r0"}, stillOpen: "r0", stillShut: "r1"},
		{name: "503 evicts three", n: 503, evicted: []string{"r0", "r1", "r2"}, stillOpen: "r2", stillShut: "r3"},
		// r0 re-closed after the other 499 (its own end would be dropped, so a
		// terminal of another run closes it), then r500 closed: r0 is still
		// the oldest by insertion, so it goes first.
		{name: "re-close keeps position", n: 500, reclose: "r0", evicted: []string{"r0"}, stillOpen: "r0", stillShut: "r1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hd, h, ft := setup()
			var batch []Intent
			for i := 0; i < tc.n; i++ {
				run := fmt.Sprintf("r%d", i)
				batch = append(batch, start("main", run, 0), end("main", run))
			}
			hd.ApplyIntents(batch) // one call: no prune in between
			if tc.reclose != "" {
				ft.Advance(ft.Now() + 10)
				hd.ApplyIntents([]Intent{start("main", tc.reclose, 0), end("main", "other"), start("main", "r500", 0), end("main", "r500")})
				if got := hd.ClosedRuns(); len(got) != 501 || got[0].RunID != tc.reclose || got[0].Expiry != ft.Now()+ClosedRunTTLMs {
					t.Fatalf("re-close: first entry %+v of %d", got[0], len(got))
				}
			}
			if got := len(hd.ClosedRuns()); got != tc.n && tc.reclose == "" {
				t.Fatalf("before prune: %d entries, want %d (eviction waits for the next call)", got, tc.n)
			}
			h.reset()
			hd.ApplyIntents(one(Intent{Kind: Ignore}))
			var ev []string
			for _, d := range h.decided(Evicted) {
				ev = append(ev, d.RunID)
			}
			if !slices.Equal(ev, tc.evicted) {
				t.Fatalf("evicted %v, want %v", ev, tc.evicted)
			}
			if got := len(hd.ClosedRuns()); got > ClosedRunsMaxSize {
				t.Fatalf("%d entries after prune", got)
			}
			if tc.stillOpen != "" && hd.IsClosed(tc.stillOpen) {
				t.Fatalf("%s still closed", tc.stillOpen)
			}
			if tc.stillShut != "" && !hd.IsClosed(tc.stillShut) {
				t.Fatalf("%s not closed", tc.stillShut)
			}
		})
	}
}

// TestGuards covers the guard semantics scenario by scenario.
func TestGuards(t *testing.T) {
	type step struct {
		at      int64 // ms after the start
		intents []Intent
	}
	for _, tc := range []struct {
		name       string
		steps      []step
		wantStatus string
		wantRun    string
		wantLines  []string // appended lines, in order
		wantBilled int
		wantClosed []string
		decisions  []string // decision kinds in order (timer/disposal ones excluded)
	}{
		{
			name: "duplicate final is dropped",
			steps: []step{
				{0, one(start("main", "r1", 0))},
				{100, final("main", "r1", "answer")},
				{200, final("main", "r1", "answer")},
			},
			wantStatus: "idle", wantLines: []string{"answer"}, wantBilled: 1, wantClosed: []string{"r1"},
			decisions: []string{ClosedRecorded, DroppedClosed},
		},
		{
			name: "lifecycle end after final is dropped",
			steps: []step{
				{0, one(start("main", "r1", 0))},
				{100, final("main", "r1", "answer")},
				{150, one(end("main", "r1"))},
			},
			wantStatus: "idle", wantLines: []string{"answer"}, wantBilled: 1, wantClosed: []string{"r1"},
			decisions: []string{ClosedRecorded, DroppedClosed},
		},
		{
			name: "final after lifecycle end is dropped (whichever comes first closes)",
			steps: []step{
				{0, one(start("main", "r1", 0))},
				{100, one(end("main", "r1"))},
				{150, final("main", "r1", "answer")},
			},
			wantStatus: "idle", wantLines: nil, wantBilled: 0, wantClosed: []string{"r1"},
			decisions: []string{ClosedRecorded, DroppedClosed},
		},
		{
			name: "late lifecycle end of a closed run after a new run started",
			steps: []step{
				{0, one(start("main", "r1", 0))},
				{100, final("main", "r1", "one")},
				{200, one(start("main", "r2", 200))},
				{300, one(end("main", "r1"))},
			},
			wantStatus: "running", wantRun: "r2", wantLines: []string{"one"}, wantBilled: 1, wantClosed: []string{"r1"},
			decisions: []string{ClosedRecorded, DroppedClosed},
		},
		{
			name: "keyed on the incoming runId, not the current one",
			steps: []step{
				{0, one(start("main", "r1", 0))},
				{100, final("main", "r1", "one")},
				{200, one(start("main", "r2", 200))},
				{300, final("main", "r1", "one")}, // current run is r2; the guard still matches r1
			},
			wantStatus: "running", wantRun: "r2", wantLines: []string{"one"}, wantBilled: 1, wantClosed: []string{"r1"},
			decisions: []string{ClosedRecorded, DroppedClosed},
		},
		{
			name: "hazard: late final of an unclosed older run closes the live run",
			steps: []step{
				{0, one(start("main", "r1", 0))},
				{100, one(start("main", "r2", 100))}, // r1 never closed
				{200, final("main", "r1", "late r1")},
				{300, final("main", "r2", "r2 answer")}, // dropped: r2 was recorded closed
			},
			wantStatus: "idle", wantLines: []string{"late r1"}, wantBilled: 1, wantClosed: []string{"r2"},
			decisions: []string{ClosedRecorded, Hazard, DroppedClosed},
		},
		{
			name: "hazard via a late lifecycle end",
			steps: []step{
				{0, one(start("main", "r1", 0))},
				{100, one(start("main", "r2", 100))},
				{200, one(end("main", "r1"))},
				{300, one(end("main", "r2"))},
			},
			wantStatus: "idle", wantClosed: []string{"r2"},
			decisions: []string{ClosedRecorded, Hazard, DroppedClosed},
		},
		{
			name: "running status is never dropped",
			steps: []step{
				{0, one(start("main", "r1", 0))},
				{100, one(end("main", "r1"))},
				{200, one(start("main", "r1", 200))},
			},
			wantStatus: "running", wantRun: "r1", wantClosed: []string{"r1"},
			decisions: []string{ClosedRecorded},
		},
		{
			name: "missing runId fails open",
			steps: []step{
				{0, one(start("main", "r1", 0))},
				{100, final("main", "", "a")},
				{200, final("main", "", "a")},
			},
			wantStatus: "idle", wantLines: []string{"a", "a"}, wantBilled: 2, wantClosed: []string{"r1"},
			decisions: []string{FailOpen, ClosedRecorded, FailOpen},
		},
		{
			name: "approval continuation: the blocked run stays open and its second final is accepted and billed",
			steps: []step{
				{0, one(start("main", "r1", 0))},
				{100, one(pending("main"))},
				{200, final("main", "r1", "need approval")}, // patch skipped: r1 stays
				{250, one(end("main", "r1"))},               // skipped too
				{300, one(resolved("main"))},
				{400, final("main", "r1", "done")},
			},
			wantStatus: "idle", wantLines: []string{"need approval", "done"}, wantBilled: 2, wantClosed: []string{"r1"},
			decisions: []string{KeptOpen, KeptOpen, ClosedRecorded},
		},
		{
			name: "error lifecycle closes like end",
			steps: []step{
				{0, one(start("main", "r1", 0))},
				{100, one(Intent{Kind: UpdateAgentStatus, AgentID: "main", RunID: ui.SetStr("r1"), Patch: closed("error")})},
				{200, final("main", "r1", "x")},
			},
			wantStatus: "error", wantClosed: []string{"r1"},
			decisions: []string{ClosedRecorded, DroppedClosed},
		},
		{
			name: "terminal without runId:null in its patch is not recorded",
			steps: []step{
				{0, one(start("main", "r1", 0))},
				{100, one(Intent{Kind: UpdateAgentStatus, AgentID: "main", RunID: ui.SetStr("r1"), Patch: ui.Patch{Status: ui.SetStr("idle")}})},
			},
			wantStatus: "idle", wantRun: "r1",
			decisions: nil,
		},
		{
			name: "agents are independent",
			steps: []step{
				{0, []Intent{start("a", "r1", 0), start("b", "r2", 0)}},
				{100, final("a", "r1", "from a")},
				{200, final("b", "r2", "from b")},
			},
			wantStatus: "running", wantRun: "", // agent "main" untouched
			wantLines: []string{"from a", "from b"}, wantBilled: 2, wantClosed: []string{"r1", "r2"},
			decisions: []string{ClosedRecorded, ClosedRecorded},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hd, h, ft := setup()
			t0 := ft.Now()
			if tc.name == "agents are independent" {
				h.status["main"] = "running"
			}
			for _, s := range tc.steps {
				ft.Advance(t0 + s.at)
				hd.ApplyIntents(s.intents)
			}
			if got := h.status["main"]; got != tc.wantStatus {
				t.Errorf("status %q, want %q", got, tc.wantStatus)
			}
			if got := h.runID["main"]; got != tc.wantRun {
				t.Errorf("runId %q, want %q", got, tc.wantRun)
			}
			var lines []string
			for _, c := range h.calls {
				if l, ok := strings.CutPrefix(c, "append:"); ok {
					lines = append(lines, strings.Split(l, "|")...)
				}
			}
			if !slices.Equal(lines, tc.wantLines) {
				t.Errorf("lines %q, want %q", lines, tc.wantLines)
			}
			if h.billed != tc.wantBilled {
				t.Errorf("billed %d, want %d", h.billed, tc.wantBilled)
			}
			var closed []string
			for _, c := range hd.ClosedRuns() {
				closed = append(closed, c.RunID)
			}
			if !slices.Equal(closed, tc.wantClosed) {
				t.Errorf("closed %v, want %v", closed, tc.wantClosed)
			}
			var kinds []string
			for _, d := range h.decisions {
				switch d.Kind {
				case SummaryArmed, SummaryFired, Disposed, Expired, Evicted:
					continue
				}
				kinds = append(kinds, d.Kind)
			}
			if !slices.Equal(kinds, tc.decisions) {
				t.Errorf("decisions %v, want %v", kinds, tc.decisions)
			}
		})
	}
}

// TestHazardDecision checks what the hazard report carries.
func TestHazardDecision(t *testing.T) {
	hd, h, ft := setup()
	hd.ApplyIntents(one(start("main", "r1", 0)))
	hd.ApplyIntents(one(start("main", "r2", 0)))
	ft.Advance(ft.Now() + 500)
	hd.ApplyIntents(final("main", "r1", "x"))
	hz := h.decided(Hazard)
	if len(hz) != 1 {
		t.Fatalf("hazards %+v", h.decisions)
	}
	d := hz[0]
	if d.RunID != "r2" || d.Pre != "r2" || d.Incoming != "r1" || d.Post != "" || d.Intent != CommitChat || d.Expiry != ft.Now()+ClosedRunTTLMs {
		t.Fatalf("hazard %+v", d)
	}
	rec := h.decided(ClosedRecorded)[0]
	if rec.RunID != "r2" || rec.Incoming != "r1" {
		t.Fatalf("recorded %+v", rec)
	}
	if hd.IsClosed("r1") {
		t.Fatal("the incoming run r1 must not be recorded (the reference records pre)")
	}
}

// TestDisposeReconnect: dispose clears closed runs and the timer, so the
// same runId can commit again after a reconnect.
func TestDisposeReconnect(t *testing.T) {
	hd, h, ft := setup()
	hd.ApplyIntents(one(start("main", "r1", 0)))
	hd.ApplyIntents(final("main", "r1", "a"))
	hd.ApplyIntents(one(summary(true)))
	hd.Dispose()
	if len(hd.ClosedRuns()) != 0 || hd.SummaryRefreshPending() {
		t.Fatal("dispose left state")
	}
	d := h.decided(Disposed)
	if len(d) != 1 || d[0].Count != 1 || !d[0].Replaced {
		t.Fatalf("disposed %+v", d)
	}
	h.reset()
	ft.Advance(ft.Now() + 10_000)
	if slices.Contains(h.calls, "loadSummary") {
		t.Fatal("timer fired after dispose")
	}
	hd2 := NewHandler(h.deps(ft)) // the host builds a fresh handler on reconnect
	h.runID["main"] = "r1"
	hd2.ApplyIntents(final("main", "r1", "a"))
	if !slices.Contains(h.calls, "append:a") {
		t.Fatalf("commit after reconnect dropped: %v", h.calls)
	}
	// The disposed handler itself also forgot r1.
	h.reset()
	h.runID["main"] = "r1"
	hd.ApplyIntents(final("main", "r1", "a"))
	if !slices.Contains(h.calls, "append:a") {
		t.Fatalf("commit on disposed handler dropped: %v", h.calls)
	}
}

// TestDebounce: a burst collapses into one reload 750 ms after its last
// intent, and that last intent decides the heartbeat refresh.
func TestDebounce(t *testing.T) {
	for _, tc := range []struct {
		name  string
		burst []bool  // includeHeartbeatRefresh of each intent
		gaps  []int64 // ms before each intent
		want  []string
		at    int64 // ms after the last intent when the reload happens
	}{
		{"single presence", []bool{false}, []int64{0}, []string{"loadSummary"}, 750},
		{"single heartbeat", []bool{true}, []int64{0}, []string{"loadSummary", "refreshHeartbeat"}, 750},
		{"heartbeat then presence: no heartbeat refresh", []bool{true, false}, []int64{0, 100}, []string{"loadSummary"}, 750},
		{"presence then heartbeat: heartbeat refresh", []bool{false, true}, []int64{0, 749}, []string{"loadSummary", "refreshHeartbeat"}, 750},
		{"burst of five", []bool{false, false, true, false, true}, []int64{0, 10, 10, 10, 10}, []string{"loadSummary", "refreshHeartbeat"}, 750},
		{"two bursts", []bool{true, false}, []int64{0, 751}, []string{"loadSummary", "refreshHeartbeat", "loadSummary"}, 750},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hd, h, ft := setup()
			for i, hb := range tc.burst {
				ft.Advance(ft.Now() + tc.gaps[i])
				hd.ApplyIntents(one(summary(hb)))
			}
			last := ft.Now()
			ft.Advance(last + tc.at - 1)
			before := slices.Clone(h.calls)
			ft.Advance(last + tc.at)
			if !slices.Equal(h.calls, tc.want) {
				t.Fatalf("calls %v, want %v", h.calls, tc.want)
			}
			if slices.Equal(before, h.calls) {
				t.Fatalf("reload happened before +%d ms", tc.at)
			}
			if ft.Live() != 0 {
				t.Fatal("timer left armed")
			}
			armed := h.decided(SummaryArmed)
			if len(armed) != len(tc.burst) {
				t.Fatalf("armed %d times", len(armed))
			}
		})
	}
}

func TestIgnoreLogsOnly(t *testing.T) {
	ft := uitest.NewClock(0)
	var logged []string
	h := newFakeHost()
	deps := h.deps(ft)
	deps.Log = func(s string) { logged = append(logged, s) }
	NewHandler(deps).ApplyIntents(one(Intent{Kind: Ignore, Reason: "unknown event kind"}))
	if len(h.calls) != 0 || !slices.Equal(logged, []string{"ignore: unknown event kind"}) {
		t.Fatalf("calls %v logged %v", h.calls, logged)
	}
}

func TestHistoryAndQueueDelegate(t *testing.T) {
	hd, h, _ := setup()
	hd.ApplyIntents([]Intent{
		{Kind: QueueLivePatch, AgentID: "main", Patch: ui.Patch{StreamText: ui.SetStr("x")}},
		{Kind: RequestHistoryRefresh, AgentID: "main", Reason: "chat-final-no-trace"},
	})
	if !slices.Equal(h.calls, []string{"queue", "history:chat-final-no-trace"}) {
		t.Fatalf("calls %v", h.calls)
	}
}
