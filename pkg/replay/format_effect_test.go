package replay

import (
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/ui"
)

// effectCases has one effect of every type and variant, with its line.
// The lines were written by the string-concatenating effectText this
// appender replaced; they pin the wording the goldens do not reach.
func effectCases() []struct {
	e    Effect
	want string
} {
	at := NInt{Valid: true, V: 1_250}
	patch := ui.Patch{Status: ui.Str{Set: true, V: "running"}, StreamText: ui.Str{Set: true, V: "héllo\n\"x\""}}
	two := []ui.AgentPatch{{AgentID: "main", Patch: patch, Patches: 3}, {AgentID: "ops", Patch: patch, Patches: 1}}
	dec := rawDetail(`{"kind":"late_event_ignored_closed_run","stream":"","runId":"r1"}`)
	return []struct {
		e    Effect
		want string
	}{
		{Effect{Type: EffQueue, AgentID: "main", Action: "merge", Count: 2, At: at, Patch: patch}, "queue main (merge, 2 pending, frame at +0.250s) {\"status\":\"running\",\"streamText\":\"héllo\\n\\\"x\\\"\"}"},
		{Effect{Type: EffQueue, AgentID: "main", Action: "add", Count: 1, Patch: patch}, "queue main (add, 1 pending) {\"status\":\"running\",\"streamText\":\"héllo\\n\\\"x\\\"\"}"},
		{Effect{Type: EffFlush, Action: "clear", AgentID: "main", Patches: two}, "flush (clearPendingLivePatch main): main ← {\"status\":\"running\",\"streamText\":\"héllo\\n\\\"x\\\"\"} (3 patches); ops ← {\"status\":\"running\",\"streamText\":\"héllo\\n\\\"x\\\"\"}"},
		{Effect{Type: EffFlush, Patches: two}, "flush (frame): main ← {\"status\":\"running\",\"streamText\":\"héllo\\n\\\"x\\\"\"} (3 patches); ops ← {\"status\":\"running\",\"streamText\":\"héllo\\n\\\"x\\\"\"}"},
		{Effect{Type: EffDrop, Patches: two}, "drop unflushed: main ← {\"status\":\"running\",\"streamText\":\"héllo\\n\\\"x\\\"\"} (3 patches); ops ← {\"status\":\"running\",\"streamText\":\"héllo\\n\\\"x\\\"\"}"},
		{Effect{Type: EffWrite, AgentID: "main", Patch: patch, Intent: "patch"}, "write main ← {\"status\":\"running\",\"streamText\":\"héllo\\n\\\"x\\\"\"} (patch)"},
		{Effect{Type: EffSkip, Intent: "status", AgentID: "main", Reason: "run closed"}, "skip status status patch for main: run closed"},
		{Effect{Type: EffAppend, Count: 2, AgentID: "main", At: at}, "append 2 line(s) to main transcript (timestamp +0.250s)"},
		{Effect{Type: EffAppend, Count: 1, AgentID: "main", At: NInt{Valid: true, V: -5}, ID: "e1", Replaced: true}, "append 1 line(s) to main transcript (timestamp -1.005s) replacing entry e1"},
		{Effect{Type: EffAppend, Count: 1, AgentID: "main", At: NInt{Valid: true, V: 61_007}, ID: "e2"}, "append 1 line(s) to main transcript (timestamp +60.007s) as entry e2"},
		{Effect{Type: EffDuplicate, AgentID: "main", Text: strings.Repeat("dup \"é\" ", 20)}, "duplicate line dropped by the chat store for main: \"dup \\\"é\\\" dup \\\"é\\\" dup \\\"é\\\" dup \\\"é\\\" dup \\\"é\\\" dup \\\"é\\\" dup \\\"é\\\" dup…\""},
		{Effect{Type: EffTrim, Count: 7, AgentID: "main"}, "transcript cap: dropped 7 oldest line(s) of main"},
		{Effect{Type: EffBill, AgentID: "main", Model: "m1", Input: NNum{Valid: true, V: 12.5}, Output: 3}, "bill main m1: in 12.5, out 3"},
		{Effect{Type: EffBill, AgentID: "main", Model: "m1", Output: 1e21}, "bill main m1: in ?, out 1e+21"},
		{Effect{Type: EffHistory, Count: 3, RunID: "r1", AgentID: "main"}, "history refresh answered: merged 3 line(s) of run r1 (its final was dropped by the guard) into main's transcript"},
		{Effect{Type: EffHistory, Count: 3, AgentID: "main"}, "history refresh answered: merged 3 line(s) of run (none) (its final was dropped by the guard) into main's transcript"},
		{Effect{Type: EffRequest, Action: "chat.history", AgentID: "main", Reason: "final dropped"}, "request chat.history main (final dropped)"},
		{Effect{Type: EffRequest, Action: "agents.list"}, "request agents.list"},
		{Effect{Type: EffGuard, Action: ui.GuardDropped, Intent: "commitChat", AgentID: "main", RunID: "r1", At: at}, "guard: dropped commitChat for main: run r1 is closed until +0.250s"},
		{Effect{Type: EffGuard, Action: ui.GuardFailOpen, Intent: "commitChat", AgentID: "main"}, "guard: commitChat for main has no runId; let through (fail-open)"},
		{Effect{Type: EffGuard, Action: ui.GuardClosed, RunID: "r1", AgentID: "main", At: at, Incoming: "r1"}, "guard: run r1 of main recorded closed until +0.250s"},
		{Effect{Type: EffGuard, Action: ui.GuardClosed, RunID: "r1", AgentID: "main", At: at, Incoming: ""}, "guard: run r1 of main recorded closed until +0.250s (incoming run (none))"},
		{Effect{Type: EffGuard, Action: ui.GuardHazard, Intent: "commitChat", Incoming: "r2", RunID: "r1", AgentID: "main", At: at}, "HAZARD: commitChat for run r2 closed the live run r1 of main; r1's own terminal will be dropped until +0.250s"},
		{Effect{Type: EffGuard, Action: ui.GuardKeptOpen, RunID: "r1", AgentID: "main"}, "guard: run r1 of main stays open (dispatch did not clear it)"},
		{Effect{Type: EffGuard, Action: ui.GuardExpired, RunID: "r1", At: at}, "guard: closed run r1 expired (was closed until +0.250s)"},
		{Effect{Type: EffGuard, Action: ui.GuardEvicted, RunID: "r1"}, "guard: closed run r1 evicted (more than 500 closed runs)"},
		{Effect{Type: EffGuard, Action: "other"}, "guard: other"},
		{Effect{Type: EffTimer, Name: "flush", Action: "fired"}, "timer flush fired"},
		{Effect{Type: EffTimer, Name: "summary", Action: "fired", Heartbeat: true}, "timer summary fired with heartbeat refresh"},
		{Effect{Type: EffTimer, Name: "flush", Action: "set", At: at, Heartbeat: true}, "timer flush set for +0.250s with heartbeat refresh"},
		{Effect{Type: EffDispose, Name: "handler", Reason: "reconnect", Count: 4, Replaced: true}, "dispose handler (reconnect): 4 closed run(s) forgotten, summary refresh timer cancelled"},
		{Effect{Type: EffDispose, Name: "handler", Reason: "reconnect", Count: 0}, "dispose handler (reconnect): 0 closed run(s) forgotten"},
		{Effect{Type: EffDispose, Name: "queue", Reason: "reconnect", Count: 2}, "dispose patch queue (reconnect): 2 pending patch(es) dropped"},
		{Effect{Type: EffDiscard, AgentID: "main", Patches: two}, "discard main's pending live patch (clearPendingLivePatch): main ← {\"status\":\"running\",\"streamText\":\"héllo\\n\\\"x\\\"\"} (3 patches); ops ← {\"status\":\"running\",\"streamText\":\"héllo\\n\\\"x\\\"\"}"},
		{Effect{Type: EffActivity, AgentID: "main"}, "markActivity main"},
		{Effect{Type: EffMetric, Detail: dec}, "metric {\"kind\":\"late_event_ignored_closed_run\",\"stream\":\"\",\"runId\":\"r1\"}"},
		{Effect{Type: EffDecision, Detail: dec}, "decision {\"kind\":\"late_event_ignored_closed_run\",\"stream\":\"\",\"runId\":\"r1\"}"},
		{Effect{Type: EffLatest, AgentID: "main", Text: "latest\ttext"}, "latest update main: \"latest\\ttext\""},
		{Effect{Type: EffWarn, Text: "something odd"}, "warning: something odd"},
		{Effect{Type: EffApproval, Action: "added", ID: "a1", AgentID: "main", Command: NStr{Valid: true, V: "rm -rf " + strings.Repeat("x", 50)}, At: at}, "approval added a1 (main: \"rm -rf xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…\") expires +0.250s"},
		{Effect{Type: EffApproval, Action: "removed", ID: "a1", AgentID: "main", At: at}, "approval removed a1 (main)"},
		{Effect{Type: "unknown-type"}, "unknown-type"},
	}
}

func TestEffectTexts(t *testing.T) {
	f := &Formatter{T0: 1_000}
	for _, c := range effectCases() {
		if got := string(f.appendEffect(nil, &c.e, 0)); got != c.want {
			t.Errorf("%s %s:\n got %q\nwant %q", c.e.Type, c.e.Action, got, c.want)
		}
		// Appended after other text, the line is the same.
		if got := string(f.appendEffect([]byte("lead "), &c.e, 0)); got != "lead "+c.want {
			t.Errorf("%s %s after other text: %q", c.e.Type, c.e.Action, got)
		}
	}
}

// An intent's line is the same appended to a buffer that holds text
// already: it is rewritten in place of the intent's JSON.
func TestIntentTextInPlace(t *testing.T) {
	f := &Formatter{T0: 1_000}
	intents := []ui.Intent{
		testIntent{"patch", "main", `,"plane":"agent","agentId":"main","patch":{"streamText":"hi"}`},
		testIntent{"commitChat", "main", `,"plane":"agent","agentId":"main","outputLines":["a","b"]`},
		testIntent{ui.IgnoreKind, "", `,"reason":"tick \"x\""`},
		testIntent{"clearRun", "", `,"plane":""`},
	}
	for _, in := range intents[:2] {
		// The kind, then the intent's JSON without it.
		js := string(in.AppendJSONAt(nil, f.T0))
		rest, ok := strings.CutPrefix(js, `{"kind":"`+in.IntentKind()+`"`)
		want := in.IntentKind() + " {" + strings.TrimPrefix(rest, ",")
		if !ok || rest == "}" {
			t.Fatalf("%s: JSON %s", in.IntentKind(), js)
		}
		if got := f.IntentText(in); got != want {
			t.Errorf("%s: %q, want %q", in.IntentKind(), got, want)
		}
	}
	for _, in := range intents {
		want := f.IntentText(in)
		if got := string(f.appendIntentText([]byte("lead "), in)); got != "lead "+want {
			t.Errorf("%s: %q, want %q", in.IntentKind(), got, "lead "+want)
		}
	}
	if got := f.IntentText(intents[3]); got != "clearRun " && !strings.HasPrefix(got, "clearRun {") {
		t.Errorf("clearRun: %q", got)
	}
	if got := f.IntentText(intents[2]); got != `ignore: tick "x"` {
		t.Errorf("ignore: %q", got)
	}
}

// rawDetail is a model's detail that is its JSON.
type rawDetail string

func (d rawDetail) AppendJSONAt(dst []byte, _ int64) []byte { return append(dst, d...) }

// testIntent is an intent whose JSON is its kind and the members given.
type testIntent struct{ kind, agent, members string }

func (t testIntent) IntentKind() string  { return t.kind }
func (t testIntent) IntentAgent() string { return t.agent }
func (t testIntent) AppendJSONAt(dst []byte, _ int64) []byte {
	dst = append(dst, `{"kind":`...)
	dst = jsonx.AppendString(dst, t.kind)
	return append(append(dst, t.members...), '}')
}
