package claw3d

import (
	"slices"
	"strings"
	"testing"
)

// §4.3 preflight, for everything but lifecycle start.
func TestAgentPreflight(t *testing.T) {
	t.Run("closed run", func(t *testing.T) {
		hs := running(t, Options{})
		hs.feed(10, final("r1", "done", 5))
		hs.run(20)
		hs.reset()
		for _, fr := range []string{assistant("r1", "late"), lifecycle("r1", "end"), agentEv("r1", "tool", obj{"phase": "start", "name": "ls"})} {
			ins := hs.feed(30, fr)
			if kinds(ins) != "ignore(closed-run-event)" {
				t.Fatalf("closed run frame: %s", kinds(ins))
			}
		}
		if m := hs.decided(MetricLateEventIgnoredClosedRun); len(m) != 3 || m[0].Stream != "assistant" || m[1].Stream != "lifecycle" {
			t.Fatalf("metrics %+v", m)
		}
		// Lifecycle start is never blocked, closed or not.
		if ins := hs.feed(40, lifecycle("r1", "start")); find(ins, IntentUpdateAgent) == nil {
			t.Fatalf("start blocked: %s", kinds(ins))
		}
	})
	t.Run("another run is active", func(t *testing.T) {
		hs := running(t, Options{})
		ins := hs.feed(10, assistant("r0", "old"))
		if kinds(ins) != "clearRunTracking ignore(other-run)" || len(hs.log) != 0 {
			t.Fatalf("%s %q", kinds(ins), hs.log)
		}
	})
	t.Run("no active run, not running", func(t *testing.T) {
		hs := newFakeHost(t, Options{}).withAgents("main")
		ins := hs.feed(10, assistant("r1", "hi"))
		if kinds(ins) != "clearRunTracking ignore(inactive-agent)" {
			t.Fatalf("%s", kinds(ins))
		}
	})
	t.Run("running without a run id passes", func(t *testing.T) {
		hs := newFakeHost(t, Options{}).withAgents("main")
		hs.agent("main").Apply(&Patch{Status: ps("running")})
		ins := hs.feed(10, assistant("r1", "hi"))
		if kinds(ins) != "markActivity queueLivePatch" {
			t.Fatalf("%s", kinds(ins))
		}
	})
}

// §4.1 agent resolution for agent frames: the session key, else the agent
// running the run; payload.agentId is never read.
func TestAgentResolution(t *testing.T) {
	hs := newFakeHost(t, Options{StrictRoster: true}).withAgents("main", "ops")
	hs.feed(0, lifecycle("r1", "start"))
	// No session key: found by runId.
	ins := hs.feed(10, js(obj{"type": "event", "event": "agent", "payload": obj{"runId": "r1", "stream": "assistant", "data": obj{"text": "hi"}}}))
	if q := find(ins, IntentQueueLivePatch); len(q) != 1 || q[0].AgentID != "main" {
		t.Fatalf("by runId: %s", kinds(ins))
	}
	// payload.agentId names ops, but the session key says main.
	ins = hs.feed(20, js(obj{"type": "event", "event": "agent", "payload": obj{"runId": "r1", "agentId": "ops", "sessionKey": mainKey, "stream": "assistant", "data": obj{"text": "hi!"}}}))
	if q := find(ins, IntentQueueLivePatch); len(q) != 1 || q[0].AgentID != "main" {
		t.Fatalf("agentId read: %s", kinds(ins))
	}
	// A transport key maps onto its hydrated agent.
	ins = hs.feed(30, js(obj{"type": "event", "event": "agent", "payload": obj{"runId": "r1", "sessionKey": "agent:main:telegram:group:-100:topic:1", "stream": "assistant", "data": obj{"text": "hi!!"}}}))
	if q := find(ins, IntentQueueLivePatch); len(q) != 1 || q[0].AgentID != "main" {
		t.Fatalf("transport key: %s", kinds(ins))
	}
	// Nobody: dropped.
	ins = hs.feed(40, js(obj{"type": "event", "event": "agent", "payload": obj{"runId": "zz", "agentId": "main", "stream": "assistant", "data": obj{"text": "x"}}}))
	if kinds(ins) != "ignore(agent-not-hydrated)" {
		t.Fatalf("unresolved: %s", kinds(ins))
	}
	ins = hs.feed(50, js(obj{"type": "event", "event": "agent", "payload": obj{"sessionKey": mainKey, "stream": "assistant"}}))
	if kinds(ins) != "ignore(no-run-id)" {
		t.Fatalf("no runId: %s", kinds(ins))
	}
}

// §4.3 lifecycle start: the running patch, and a 250 ms history refresh
// when no chat frame came first, once per run.
func TestLifecycleStart(t *testing.T) {
	hs := newFakeHost(t, Options{}).withAgents("main")
	ins := hs.feed(0, lifecycle("r1", "start"))
	u := find(ins, IntentUpdateAgent)
	if len(u) != 1 || string(u[0].Patch.AppendJSONAt(nil, T0)) != `{"status":"running","runId":"r1","runStartedAt":0,"lastActivityAt":0,"sessionCreated":true}` {
		t.Fatalf("start patch: %s", kinds(ins))
	}
	hs.feed(100, lifecycle("r1", "start")) // a repeated start: still once
	hs.run(249)
	if len(hs.history) != 0 {
		t.Fatal("refresh before 250 ms")
	}
	hs.run(250)
	if len(hs.history) != 1 || hs.history[0].Reason != RefreshRunStartNoChat || hs.history[0].SessionKey != mainKey {
		t.Fatalf("refresh %+v", hs.history)
	}
	hs.run(1000)
	if len(hs.history) != 1 {
		t.Fatalf("refresh not once per run: %+v", hs.history)
	}
}

// §4.3 lifecycle end/error of another run than the agent's: ignored
// (here by preflight; resolveLifecyclePatch would too).
func TestLifecycleOtherRun(t *testing.T) {
	hs := running(t, Options{})
	ins := hs.feed(10, lifecycle("r0", "end"))
	if find(ins, IntentUpdateAgent) != nil || hs.agents["main"].activeRunID() != "r1" {
		t.Fatalf("another run's end applied: %s", kinds(ins))
	}
	ins = hs.feed(20, lifecycle("r1", "model"))
	if kinds(ins) != "ignore(lifecycle-phase)" {
		t.Fatalf("model phase: %s", kinds(ins))
	}
}

// §4.3 reasoning streams.
func TestReasoningStream(t *testing.T) {
	reason := func(stream string, data obj) string { return agentEv("r1", stream, data) }
	trace := func(ins []Intent) string {
		q := find(ins, IntentQueueLivePatch)
		if len(q) != 1 {
			return "<none: " + kinds(ins) + ">"
		}
		return q[0].Patch.ThinkingTrace.V
	}
	t.Run("data.text replaces", func(t *testing.T) {
		hs := running(t, Options{})
		hs.feed(10, reason("thinking", obj{"text": "step one"}))
		ins := hs.feed(20, reason("thinking", obj{"text": "step one, two"}))
		if got := trace(ins); got != "step one, two" {
			t.Fatalf("trace %q", got)
		}
		q := find(ins, IntentQueueLivePatch)[0].Patch
		if string(q.AppendJSONAt(nil, T0)) != `{"status":"running","runId":"r1","thinkingTrace":"step one, two","lastActivityAt":20,"sessionCreated":true}` {
			t.Fatalf("patch %s", q.AppendJSONAt(nil, T0))
		}
	})
	t.Run("deltas: merged in state, the trace shows the latest chunk (quirk)", func(t *testing.T) {
		hs := running(t, Options{})
		hs.feed(10, reason("reasoning", obj{"delta": "step one"}))
		ins := hs.feed(20, reason("reasoning", obj{"delta": ", two"}))
		if got := trace(ins); got != ", two" {
			t.Fatalf("trace %q", got)
		}
		if raw := hs.h.runs["r1"].thinking; raw != "step one, two" {
			t.Fatalf("merged %q", raw)
		}
	})
	t.Run("the frame's delta before its text", func(t *testing.T) {
		hs := running(t, Options{})
		ins := hs.feed(10, reason("thinking", obj{"text": "all so far", "delta": " far "}))
		if got := trace(ins); got != "far" {
			t.Fatalf("trace %q", got)
		}
	})
	t.Run("extractThinking(data) first", func(t *testing.T) {
		hs := running(t, Options{})
		ins := hs.feed(10, reason("analysis", obj{"text": "x", "reasoning_text": " keyed "}))
		if got := trace(ins); got != "keyed" {
			t.Fatalf("trace %q", got)
		}
	})
	t.Run("reasoning: prefix body", func(t *testing.T) {
		hs := running(t, Options{})
		ins := hs.feed(10, reason("trace", obj{"text": "Reasoning: weigh options", "delta": "x"}))
		if got := trace(ins); got != "weigh options" {
			t.Fatalf("trace %q", got)
		}
	})
	t.Run("nothing: ignored", func(t *testing.T) {
		hs := running(t, Options{})
		ins := hs.feed(10, reason("thinking", obj{"text": "  ", "delta": ""}))
		if kinds(ins) != "markActivity ignore(reasoning-without-text)" && kinds(ins) != "ignore(reasoning-without-text)" {
			t.Fatalf("%s", kinds(ins))
		}
	})
	t.Run("assistant.reasoning is reasoning", func(t *testing.T) {
		hs := running(t, Options{})
		ins := hs.feed(10, reason("assistant.reasoning", obj{"text": "hmm"}))
		if got := trace(ins); got != "hmm" {
			t.Fatalf("trace %q", got)
		}
	})
}

// §4.3 assistant stream: the patch is always queued; streamText only
// under the three conditions.
func TestAssistantStream(t *testing.T) {
	stream := func(ins []Intent) (string, bool) {
		q := find(ins, IntentQueueLivePatch)
		if len(q) != 1 {
			return "", false
		}
		return q[0].Patch.StreamText.V, q[0].Patch.StreamText.Set
	}
	t.Run("no chat frames: published", func(t *testing.T) {
		hs := running(t, Options{})
		ins := hs.feed(10, agentEv("r1", "assistant", obj{"delta": "Hel"}))
		if s, ok := stream(ins); !ok || s != "Hel" {
			t.Fatalf("%q %v", s, ok)
		}
		ins = hs.feed(20, agentEv("r1", "assistant", obj{"delta": "lo"}))
		if s, _ := stream(ins); s != "Hello" {
			t.Fatalf("merged %q", s)
		}
	})
	t.Run("chat owns the run: deltas publish only strict extensions", func(t *testing.T) {
		hs := running(t, Options{})
		hs.feed(10, delta("r1", "Hello", 1))
		hs.run(40) // flush: streamText "Hello"
		ins := hs.feed(50, agentEv("r1", "assistant", obj{"delta": "Hel"}))
		if _, ok := stream(ins); ok {
			t.Fatal("a shorter agent text overwrote the chat's")
		}
		ins = hs.feed(60, agentEv("r1", "assistant", obj{"delta": "lo world"}))
		if s, ok := stream(ins); !ok || s != "Hello world" {
			t.Fatalf("extension %q %v", s, ok)
		}
		// data.text present: published whatever it is.
		ins = hs.feed(70, agentEv("r1", "assistant", obj{"text": "Hi"}))
		if s, ok := stream(ins); !ok || s != "Hi" {
			t.Fatalf("data.text %q %v", s, ok)
		}
	})
	t.Run("reasoning-only chunk", func(t *testing.T) {
		hs := running(t, Options{})
		ins := hs.feed(10, agentEv("r1", "assistant", obj{"text": "<think>planning"}))
		q := find(ins, IntentQueueLivePatch)[0].Patch
		if q.StreamText.Set || q.ThinkingTrace.V != "planning" {
			t.Fatalf("patch %s", q.AppendJSON(nil))
		}
		ins = hs.feed(20, agentEv("r1", "assistant", obj{"text": "<think>planning</think>Answer"}))
		q = find(ins, IntentQueueLivePatch)[0].Patch
		if q.StreamText.V != "Answer" || q.ThinkingTrace.V != "planning" {
			t.Fatalf("patch %s", q.AppendJSON(nil))
		}
	})
	t.Run("empty visible text: the patch still goes", func(t *testing.T) {
		hs := running(t, Options{})
		ins := hs.feed(10, agentEv("r1", "assistant", obj{"text": "", "delta": "", "replace": true}))
		q := find(ins, IntentQueueLivePatch)
		if len(q) != 1 || q[0].Patch.StreamText.Set || string(q[0].Patch.AppendJSONAt(nil, T0)) != `{"status":"running","runId":"r1","lastActivityAt":10,"sessionCreated":true}` {
			t.Fatalf("%s", kinds(ins))
		}
	})
	t.Run("UI metadata is stripped from the visible text", func(t *testing.T) {
		hs := running(t, Options{})
		ins := hs.feed(10, agentEv("r1", "assistant", obj{"text": "Done [message_id:7]"}))
		if s, _ := stream(ins); s != "Done" {
			t.Fatalf("%q", s)
		}
	})
}

// §4.3 tool stream.
func TestToolStream(t *testing.T) {
	tool := func(data obj) string { return agentEv("r1", "tool", data) }
	hs := running(t, Options{})
	hs.feed(10, tool(obj{"phase": "start", "name": "exec", "toolCallId": "c1", "args": obj{"command": "ls"}}))
	hs.feed(20, tool(obj{"phase": "start", "name": "exec", "toolCallId": "c1", "args": obj{"command": "ls"}})) // repeat: deduped
	hs.feed(30, tool(obj{"phase": "update", "name": "exec", "toolCallId": "c1", "partialResult": "a"}))
	ins := hs.feed(40, tool(obj{"phase": "result", "name": "exec", "toolCallId": "c1", "isError": false,
		"result": obj{"content": []any{obj{"type": "text", "text": "a.txt\nb.txt"}}, "details": obj{"status": "completed", "exitCode": 0, "durationMs": 12}}}))
	want := []string{
		"[[tool]] exec (c1)\n```json\n{\n  \"command\": \"ls\"\n}\n```",
		"[[tool]] exec (c1)",
		"[[tool-result]] exec (c1)\ncompleted · exit 0 · 12ms\n```text\na.txt\nb.txt\n```",
	}
	if got := hs.lines("main"); !slices.Equal(got, want) {
		t.Fatalf("lines\n%q\nwant\n%q", got, want)
	}
	e := hs.transcript("main").Entries()[0]
	if e.Kind != KindTool || e.Source != SourceRuntimeAgent || e.RunID != "r1" {
		t.Fatalf("entry %+v", e)
	}
	if r := find(ins, IntentRequestHistoryRefresh); len(r) != 1 || r[0].DelayMs != 750 || r[0].Reason != RefreshChatFinalNoTrace {
		t.Fatalf("first result refresh: %s", kinds(ins))
	}
	ins = hs.feed(50, tool(obj{"phase": "result", "name": "exec", "toolCallId": "c2", "result": obj{"text": "x"}}))
	if len(find(ins, IntentRequestHistoryRefresh)) != 0 {
		t.Fatal("second result refreshed again")
	}
	hs.run(789)
	if len(hs.history) != 1 || hs.history[0].Reason != RefreshRunStartNoChat {
		t.Fatalf("refresh before 750 ms: %+v", hs.history)
	}
	hs.run(790)
	if len(hs.history) != 2 || hs.history[1].Reason != RefreshChatFinalNoTrace {
		t.Fatalf("refresh %+v", hs.history)
	}
	if got := hs.lines("main"); got[len(got)-1] != "[[tool-result]] exec (c2)\n```text\nx\n```" {
		t.Fatalf("text result %q", got[len(got)-1])
	}
	// Arguments from args, input or parameters; a missing name is "tool".
	for _, tc := range []struct {
		data obj
		want string
	}{
		{obj{"phase": "start", "toolCallId": "k1", "input": "raw"}, "[[tool]] tool (k1)\n```json\nraw\n```"},
		{obj{"phase": "start", "name": "x", "toolCallId": "k2", "arguments": nil, "parameters": 7}, "[[tool]] x (k2)\n```json\n7\n```"},
		{obj{"phase": "start", "name": "x", "toolCallId": "k3", "parameters": nil}, "[[tool]] x (k3)"}, // null arguments render nothing, as formatJson(null) (§3.3; no [C3D] difference)
	} {
		hs.feed(900, tool(tc.data))
		if got := hs.lines("main"); got[len(got)-1] != tc.want {
			t.Errorf("%v: %q, want %q", tc.data, got[len(got)-1], tc.want)
		}
	}
	if ins := hs.feed(910, tool(obj{"name": "x"})); !strings.Contains(kinds(ins), "ignore(tool-without-phase)") {
		t.Fatalf("no phase: %s", kinds(ins))
	}
}

// With thinking traces hidden, a tool result asks for no refresh.
func TestToolResultRefreshNeedsTraces(t *testing.T) {
	hs := running(t, Options{HideThinkingTraces: true})
	ins := hs.feed(10, agentEv("r1", "tool", obj{"phase": "result", "name": "x"}))
	if len(find(ins, IntentRequestHistoryRefresh)) != 0 {
		t.Fatalf("refresh with traces hidden: %s", kinds(ins))
	}
}

// Other streams (item, usage, …) pass preflight, mark activity, and are
// not handled.
func TestUnhandledStream(t *testing.T) {
	hs := running(t, Options{})
	ins := hs.feed(400, agentEv("r1", "item", obj{"phase": "start"}))
	if kinds(ins) != "markActivity ignore(unhandled-stream)" {
		t.Fatalf("%s", kinds(ins))
	}
}
