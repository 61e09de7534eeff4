package claw3d

import (
	"slices"
	"testing"
)

// §4.1 classifyGatewayEventKind: presence/heartbeat, chat, agent; the
// rest (with exec.approval.pending) is ignored by the runtime handler.
func TestClassifyGatewayEventKind(t *testing.T) {
	hs := newFakeHost(t, Options{}).withAgents("main")
	for _, name := range []string{"tick", "health", "connect.challenge", "session.tool", "sessions.changed", "exec.approval.pending", "plugin.approval.requested"} {
		ins := hs.feed(0, event(name, obj{"id": "a1", "request": obj{"command": "ls", "agentId": "main"}, "createdAtMs": 1, "expiresAtMs": 2}))
		if kinds(ins) != "ignore(not-a-runtime-event)" {
			t.Errorf("%s: %s", name, kinds(ins))
		}
	}
	hs.request("q1", "health")
	if ins := hs.handle(`{"type":"req","id":"q2","method":"health"}`); kinds(ins) != "ignore(not-an-event)" {
		t.Errorf("req: %s", kinds(ins))
	}
	if ins := hs.handle(`not json`); kinds(ins) != "ignore(not-an-event)" {
		t.Errorf("invalid: %s", kinds(ins))
	}
}

func approvalReq(id string, req obj, created, expires any) string {
	p := obj{"request": req, "createdAtMs": created, "expiresAtMs": expires}
	if id != "" {
		p["id"] = id
	}
	return event("exec.approval.requested", p)
}

// §4.1 exec.approval.requested: validity, then the agent.
func TestApprovalRequested(t *testing.T) {
	for _, tc := range []struct {
		name          string
		frame         string
		valid         bool
		agent, scoped string
	}{
		{"valid, agentId", approvalReq("a1", obj{"command": "ls", "agentId": "main"}, T0, T0+60_000), true, "main", "main"},
		{"agentId trusted though not hydrated", approvalReq("a1", obj{"command": "ls", "agentId": "ghost"}, T0, T0+60_000), true, "ghost", "ghost"},
		{"agent by exact session key", approvalReq("a1", obj{"command": "ls", "sessionKey": mainKey}, T0, T0+60_000), true, "main", "main"},
		{"session key must match exactly", approvalReq("a1", obj{"command": "ls", "sessionKey": mainKey + " "}, T0, T0+60_000), true, "", ""},
		{"no agent: unscoped", approvalReq("a1", obj{"command": "ls"}, T0, T0+60_000), true, "", ""},
		{"no id", approvalReq("", obj{"command": "ls"}, T0, T0+60_000), false, "", ""},
		{"empty command", approvalReq("a1", obj{"command": ""}, T0, T0+60_000), false, "", ""},
		{"request not an object", event("exec.approval.requested", obj{"id": "a1", "request": "ls", "createdAtMs": 1, "expiresAtMs": 2}), false, "", ""},
		{"createdAtMs zero", approvalReq("a1", obj{"command": "ls"}, 0, T0+60_000), false, "", ""},
		{"expiresAtMs negative", approvalReq("a1", obj{"command": "ls"}, T0, -1), false, "", ""},
		{"times as strings", approvalReq("a1", obj{"command": "ls"}, "1", "2"), false, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hs := newFakeHost(t, Options{}).withAgents("main")
			ins := hs.feed(0, tc.frame)
			if !tc.valid {
				if kinds(ins) != "ignore(invalid-approval)" || len(hs.approvals) != 0 {
					t.Fatalf("%s", kinds(ins))
				}
				return
			}
			want := "upsertApproval"
			if tc.scoped != "" {
				want += " markActivity"
			}
			if kinds(ins) != want || hs.approvals["a1"].AgentID != tc.agent || hs.approvals["a1"].Command != "ls" {
				t.Fatalf("%s; approvals %+v", kinds(ins), hs.approvals)
			}
		})
	}
}

// §4.1 exec.approval.resolved: removes by id with a valid decision and ts.
func TestApprovalResolved(t *testing.T) {
	for _, tc := range []struct {
		decision string
		ts       any
		removed  bool
	}{
		{"allow-once", 5, true},
		{"allow-always", 5, true},
		{"deny", 5, true},
		{"approve", 5, false},
		{"deny", 0, false},
		{"deny", "5", false},
	} {
		hs := newFakeHost(t, Options{}).withAgents("main")
		hs.feed(0, approvalReq("a1", obj{"command": "ls", "agentId": "main"}, T0, T0+60_000))
		ins := hs.feed(10, event("exec.approval.resolved", obj{"id": "a1", "decision": tc.decision, "ts": tc.ts}))
		_, pending := hs.approvals["a1"]
		if pending == tc.removed {
			t.Errorf("%s/%v: pending %v; %s", tc.decision, tc.ts, pending, kinds(ins))
		}
		if tc.removed && (len(hs.h.PendingApprovals()) != 0 || find(ins, IntentRemoveApproval)[0].Reason != tc.decision) {
			t.Errorf("%s: model still holds it: %s", tc.decision, kinds(ins))
		}
	}
}

// An approval is removed once expiresAtMs <= now.
func TestApprovalExpiry(t *testing.T) {
	hs := newFakeHost(t, Options{}).withAgents("main")
	hs.feed(0, approvalReq("b", obj{"command": "ls", "agentId": "main"}, T0, T0+5_000))
	hs.feed(10, approvalReq("a", obj{"command": "pwd"}, T0, T0+5_000))
	hs.feed(20, approvalReq("c", obj{"command": "rm"}, T0, T0+9_000))
	hs.run(4_999)
	if len(hs.approvals) != 3 {
		t.Fatal("expired early")
	}
	hs.run(5_000)
	if got := hs.logged("approval-"); !slices.Equal(got, []string{"approval- a expired", "approval- b expired"}) {
		t.Fatalf("expired %q", got)
	}
	if !slices.Equal(hs.timerRuns, []string{"approvalExpiry: removeApproval removeApproval"}) {
		t.Fatalf("timer %q", hs.timerRuns)
	}
	hs.feed(6_000, event("exec.approval.resolved", obj{"id": "c", "decision": "deny", "ts": 1}))
	hs.run(20_000)
	if len(hs.approvals) != 0 || len(hs.decided(DecisionApprovalExpired)) != 2 {
		t.Fatalf("approvals %+v, decisions %+v", hs.approvals, hs.decisions)
	}
}

func cronEv(p obj) string { return event("cron", p) }

// §4.1 cron: finished jobs of an agent session, deduplicated by key.
func TestCron(t *testing.T) {
	hs := newFakeHost(t, Options{}).withAgents("main")
	base := obj{"action": "finished", "sessionKey": "agent:main:cron:job1", "jobId": "job1", "status": "ok", "summary": "All good", "runAtMs": T0 + 5}
	ins := hs.feed(100, cronEv(base))
	if kinds(ins) != "appendOutput" {
		t.Fatalf("%s", kinds(ins))
	}
	e := hs.transcript("main").Entries()[0]
	if e.Text != "Cron finished (ok): job1\n\nAll good" || e.TimestampMs.V != T0+5 || e.SessionKey != mainKey {
		t.Fatalf("entry %+v", e)
	}
	// Same jobId and runAtMs: the same key.
	if ins := hs.feed(110, cronEv(base)); kinds(ins) != "ignore(cron-duplicate)" {
		t.Fatalf("duplicate: %s", kinds(ins))
	}
	for _, tc := range []struct {
		name string
		p    obj
		line string
	}{
		{"sessionId in the key", obj{"action": "finished", "sessionKey": "agent:main:x", "jobId": "job1", "sessionId": "s1", "runAtMs": T0 + 5, "error": "boom"},
			"Cron finished (unknown): job1\n\nboom"},
		{"no sessionId, no runAtMs: none", obj{"action": "finished", "sessionKey": "agent:main:x", "jobId": "job2"},
			"Cron finished (unknown): job2\n\n(no output)"},
	} {
		if ins := hs.feed(120, cronEv(tc.p)); kinds(ins) != "appendOutput" || find(ins, IntentAppendOutput)[0].Line != tc.line {
			t.Errorf("%s: %s", tc.name, kinds(ins))
		}
	}
	if ins := hs.feed(130, cronEv(obj{"action": "finished", "sessionKey": "agent:main:x", "jobId": "job2"})); kinds(ins) != "ignore(cron-duplicate)" {
		t.Errorf("cron:job2:none twice: %s", kinds(ins))
	}
	if e := hs.transcript("main").Entries(); e[len(e)-1].TimestampMs.V != T0+120 {
		t.Errorf("no runAtMs: stamped now, got %d", e[len(e)-1].TimestampMs.V-T0)
	}
	for _, tc := range []struct {
		p      obj
		reason string
	}{
		{obj{"action": "started", "sessionKey": "agent:main:x", "jobId": "j"}, ReasonCronNotFinished},
		{obj{"action": "finished", "sessionKey": "global", "jobId": "j"}, ReasonCronInvalid},
		{obj{"action": "finished", "sessionKey": "agent:main:x", "jobId": ""}, ReasonCronInvalid},
	} {
		if ins := hs.feed(140, cronEv(tc.p)); kinds(ins) != "ignore("+tc.reason+")" {
			t.Errorf("%v: %s", tc.p, kinds(ins))
		}
	}
	// A strict roster without the agent: its line has nowhere to go.
	hs = newFakeHost(t, Options{StrictRoster: true}).withAgents("main")
	if ins := hs.feed(0, cronEv(obj{"action": "finished", "sessionKey": "agent:ops:x", "jobId": "j"})); kinds(ins) != "ignore(agent-not-hydrated)" {
		t.Errorf("unknown agent: %s", kinds(ins))
	}
}

// §4.5: summary refresh only while connected; heartbeat side effects at
// once, once per frame; the load is a 750 ms trailing debounce.
func TestSummaryRefresh(t *testing.T) {
	hs := newFakeHost(t, Options{})
	hs.feed(0, event("heartbeat", obj{"ts": 1}))
	hs.feed(100, event("presence", obj{"presence": []any{}}))
	hs.feed(200, event("heartbeat", obj{"ts": 2}))
	want := []string{"bumpTick 0", "refreshHeartbeat 0", "bumpTick 200", "refreshHeartbeat 200"}
	if got := hs.log; !slices.Equal(got, want) {
		t.Fatalf("log %q, want %q", got, want)
	}
	hs.run(949)
	if len(hs.logged("loadSummary")) != 0 {
		t.Fatal("loaded before the debounce ended")
	}
	hs.run(950)
	if got := hs.logged("loadSummary"); !slices.Equal(got, []string{"loadSummary 950"}) {
		t.Fatalf("loads %q", got)
	}
	if d := hs.decided(DecisionSummaryRefreshArmed); len(d) != 3 || d[0].Replaced || !d[1].Replaced {
		t.Fatalf("armed %+v", d)
	}
	hs.status = "disconnected"
	hs.reset()
	if ins := hs.feed(2_000, event("heartbeat", obj{})); kinds(ins) != "ignore(not-connected)" || len(hs.log) != 0 {
		t.Fatalf("disconnected: %s %q", kinds(ins), hs.log)
	}
}

// dispose clears the summary timer and every fallback timer and resets
// the coordinator state (the fence too).
func TestDispose(t *testing.T) {
	hs := streaming(t)
	hs.feed(100, event("presence", obj{}))
	hs.feed(100, lifecycle("r1", "end")) // the fallback is pending
	hs.h.Dispose()
	if d := hs.decided(DecisionDisposed); len(d) != 1 || d[0].Count != 1 || !d[0].Replaced {
		t.Fatalf("dispose %+v", hs.decisions)
	}
	hs.run(5_000)
	if len(hs.logged("loadSummary")) != 0 || len(hs.decided(DecisionFallbackFired)) != 0 || len(hs.lines("main")) != 0 {
		t.Fatalf("timers survived dispose: %q", hs.log)
	}
	if hs.h.TrackedRuns() != 0 || len(hs.h.ClosedRuns()) != 0 {
		t.Fatal("state survived dispose")
	}
}
