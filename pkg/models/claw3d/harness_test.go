package claw3d

import (
	"fmt"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/internal/uitest"
	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
)

// T0 is the start of every test's clock.
const T0 = 1_700_000_000_000

// fakeHost is a Claw3D page for the tests: an agent store, transcripts, the
// live patch queue on 16 ms frames, approvals, and a log of every effect.
type fakeHost struct {
	t           testing.TB
	clock       *uitest.Clock
	h           *Handler
	cls         *bridge.Classifier
	agents      map[string]*Agent
	transcripts map[string]*Transcript
	queue       *LivePatchQueue
	approvals   map[string]Approval
	status      string
	suppress    bool

	log       []string // effects, in order
	decisions []Decision
	history   []HistoryRefresh
	timerRuns []string // timer name: intent kinds
	latest    []string // updateSpecialLatestUpdate messages
}

func newFakeHost(t testing.TB, opts Options) *fakeHost {
	hs := &fakeHost{
		t: t, clock: uitest.NewClock(T0), cls: bridge.NewClassifier(),
		agents: map[string]*Agent{}, transcripts: map[string]*Transcript{}, approvals: map[string]Approval{},
		status: StatusConnected,
	}
	hs.queue = NewLivePatchQueue(func(fn func()) func() { return hs.clock.SetTimeout(16, fn) }, func(batch []PendingPatch) {
		for i := range batch {
			hs.logf("flush %s %s", batch[i].AgentID, batch[i].Patch.AppendJSON(nil))
			hs.agent(batch[i].AgentID).Apply(&batch[i].Patch)
		}
	})
	hs.h = New(hs.deps(), opts)
	return hs
}

// withAgents hydrates agents with their main session keys, as an
// agents.list answer would.
func (hs *fakeHost) withAgents(ids ...string) *fakeHost {
	for _, id := range ids {
		hs.h.Roster().Add(id, "", "", FromHost)
	}
	return hs
}

func (hs *fakeHost) logf(format string, args ...any) {
	hs.log = append(hs.log, fmt.Sprintf(format, args...))
}

func (hs *fakeHost) agent(id string) *Agent {
	a := hs.agents[id]
	if a == nil {
		a = &Agent{AgentID: id}
		hs.agents[id] = a
	}
	return a
}

func (hs *fakeHost) transcript(id string) *Transcript {
	tr := hs.transcripts[id]
	if tr == nil {
		tr = &Transcript{}
		hs.transcripts[id] = tr
	}
	return tr
}

func (hs *fakeHost) deps() Deps {
	return Deps{
		Now:        hs.clock.Now,
		SetTimeout: hs.clock.SetTimeout,
		Status:     func() string { return hs.status },
		Agent: func(id string) Agent {
			a := *hs.agent(id)
			a.HasTraceLine = hs.transcript(id).HasTrace()
			return a
		},
		Dispatch: func(a *Action) {
			switch a.Type {
			case ActionUpdateAgent:
				hs.logf("update %s %s", a.AgentID, a.Patch.AppendJSON(nil))
				hs.agent(a.AgentID).Apply(&a.Patch)
			case ActionAppendOutput:
				hs.logf("append %s %q", a.AgentID, a.Line)
				hs.transcript(a.AgentID).Append(a.Line, &a.Transcript)
			case ActionMarkActivity:
				hs.logf("activity %s %d", a.AgentID, a.At-T0)
			}
		},
		QueueLivePatch: func(id string, p *Patch) {
			mode, _ := hs.queue.Enqueue(id, p)
			hs.logf("queue %s %s %s", id, mode, p.AppendJSON(nil))
		},
		ClearPendingLivePatch: func(id string) {
			_, ok := hs.queue.Clear(id)
			hs.logf("clear %s %v", id, ok)
		},
		LoadSummarySnapshot: func() { hs.logf("loadSummary %d", hs.clock.Now()-T0) },
		RequestHistoryRefresh: func(r *HistoryRefresh) {
			hs.history = append(hs.history, *r)
			hs.logf("history %s %s %d", r.AgentID, r.Reason, hs.clock.Now()-T0)
		},
		RefreshHeartbeatLatestUpdate: func() { hs.logf("refreshHeartbeat %d", hs.clock.Now()-T0) },
		BumpHeartbeatTick:            func() { hs.logf("bumpTick %d", hs.clock.Now()-T0) },
		ShouldSuppressRunAbortedLine: func(q *AbortedLine) bool { return hs.suppress && q.StopReason == "rpc" },
		UpdateSpecialLatestUpdate: func(id string, a *Agent, msg string) {
			hs.latest = append(hs.latest, id+":"+msg)
		},
		UpsertApproval: func(a *Approval) {
			hs.approvals[a.ID] = *a
			hs.logf("approval+ %s %s", a.ID, a.AgentID)
		},
		RemoveApproval: func(id, reason string) {
			delete(hs.approvals, id)
			hs.logf("approval- %s %s", id, reason)
		},
		LogWarn:  func(m string) { hs.logf("warn %s", m) },
		Observer: func(d *Decision) { hs.decisions = append(hs.decisions, *d) },
		TimerIntents: func(name string, ins []Intent) {
			hs.timerRuns = append(hs.timerRuns, name+": "+kinds(ins))
		},
	}
}

// feed advances the clock to T0+ms (firing timers due by then) and hands
// the frame to the handler.
func (hs *fakeHost) feed(ms int64, frame string) []Intent {
	hs.clock.Advance(T0 + ms)
	return hs.handle(frame)
}

// handle hands a frame over at the current time, without firing timers.
func (hs *fakeHost) handle(frame string) []Intent {
	rec := capture.Record{T: hs.clock.Now(), Conn: 1, Dir: capture.DirIn, Frame: []byte(frame)}
	ev := hs.cls.Record(&rec)
	return hs.h.Handle(nil, &ev)
}

// request records a client request, so the response that follows is
// matched to its method.
func (hs *fakeHost) request(id, method string) {
	rec := capture.Record{T: hs.clock.Now(), Conn: 1, Dir: capture.DirOut,
		Frame: []byte(fmt.Sprintf(`{"type":"req","id":%q,"method":%q,"params":{}}`, id, method))}
	hs.cls.Record(&rec)
}

// respond feeds the answer to a request of method.
func (hs *fakeHost) respond(ms int64, method string, payload any) []Intent {
	id := fmt.Sprintf("r%d", len(hs.log)+len(hs.decisions)+int(ms))
	hs.clock.Advance(T0 + ms)
	hs.request(id, method)
	return hs.handle(fmt.Sprintf(`{"type":"res","id":%q,"ok":true,"payload":%s}`, id, js(payload)))
}

// run advances to T0+ms, firing timers.
func (hs *fakeHost) run(ms int64) { hs.clock.Advance(T0 + ms) }

func (hs *fakeHost) reset() { hs.log, hs.decisions, hs.history, hs.timerRuns = nil, nil, nil, nil }

// logged returns the log entries starting with prefix.
func (hs *fakeHost) logged(prefix string) []string {
	var out []string
	for _, l := range hs.log {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}

func (hs *fakeHost) decided(kind string) []Decision {
	var out []Decision
	for _, d := range hs.decisions {
		if d.Kind == kind {
			out = append(out, d)
		}
	}
	return out
}

func (hs *fakeHost) lines(agent string) []string { return hs.transcript(agent).Lines() }

func kinds(ins []Intent) string {
	var b []string
	for _, in := range ins {
		k := in.Kind
		if in.Kind == IntentIgnore {
			k += "(" + in.Reason + ")"
		}
		b = append(b, k)
	}
	return strings.Join(b, " ")
}

func find(ins []Intent, kind string) []Intent {
	var out []Intent
	for _, in := range ins {
		if in.Kind == kind {
			out = append(out, in)
		}
	}
	return out
}

// Frame builders. Sessions default to mainKey.

func chatEv(payload obj) string {
	return js(obj{"type": "event", "event": "chat", "payload": payload})
}

func assistantMsg(text string) obj {
	return obj{"role": "assistant", "content": []any{obj{"type": "text", "text": text}}}
}

func delta(run, text string, seq int) string {
	return chatEv(obj{"runId": run, "sessionKey": mainKey, "state": "delta", "seq": seq, "message": assistantMsg(text)})
}

func final(run, text string, seq int) string {
	return chatEv(obj{"runId": run, "sessionKey": mainKey, "state": "final", "seq": seq, "message": assistantMsg(text)})
}

func agentEv(run, stream string, data obj) string {
	return js(obj{"type": "event", "event": "agent", "payload": obj{"runId": run, "sessionKey": mainKey, "stream": stream, "data": data}})
}

func lifecycle(run, phase string) string { return agentEv(run, "lifecycle", obj{"phase": phase}) }

func assistant(run, text string) string {
	return agentEv(run, "assistant", obj{"text": text, "delta": text})
}

func event(name string, payload any) string {
	return js(obj{"type": "event", "event": name, "payload": payload})
}
