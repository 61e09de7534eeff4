package claw3d

import (
	"slices"
	"testing"
)

func rosterIDs(r *Roster) []string {
	var ids []string
	for _, a := range r.Agents() {
		ids = append(ids, a.AgentID+"="+a.SessionKey)
	}
	return ids
}

var helloOK = obj{"type": "hello-ok", "protocol": 4, "snapshot": obj{
	"sessionDefaults": obj{"defaultAgentId": "main", "mainKey": "home", "mainSessionKey": "agent:main:home"},
	"health":          obj{"agents": []any{obj{"agentId": "main"}, obj{"agentId": "ops", "name": "Ops"}, obj{"id": "legacy"}, obj{"agentId": ""}}},
}}

// The hello-ok snapshot: the default agent with its main session, the
// health agents with agent:<id>:<mainKey>.
func TestRosterFromHello(t *testing.T) {
	hs := newFakeHost(t, Options{})
	ins := hs.respond(0, "connect", helloOK)
	if kinds(ins) != "hydrateAgent hydrateAgent hydrateAgent" {
		t.Fatalf("%s", kinds(ins))
	}
	want := []string{"main=agent:main:home", "ops=agent:ops:home", "legacy=agent:legacy:home"}
	if got := rosterIDs(hs.h.Roster()); !slices.Equal(got, want) {
		t.Fatalf("roster %q, want %q", got, want)
	}
	if d := hs.decided(DecisionRosterHydrated); len(d) != 1 || d[0].Source != FromHello || d[0].Count != 3 {
		t.Fatalf("decision %+v", hs.decisions)
	}
	// A chat frame on agent:main:main (not the main session here) still
	// resolves to main through the session-key regexp.
	hs.feed(10, lifecycle("r1", "start"))
	if hs.agents["main"].status() != StatusRunning {
		t.Fatal("frame for main dropped")
	}
}

// An agents.list answer is Claw3D's own fleet: authoritative, learned
// agents not in it are removed, and nothing is learned after it.
func TestRosterFromAgentsList(t *testing.T) {
	hs := newFakeHost(t, Options{})
	hs.feed(0, lifecycle("r0", "start")) // learns main
	ins := hs.respond(10, "agents.list", obj{"defaultId": "ops", "mainKey": "main", "scope": "per-sender",
		"agents": []any{obj{"id": "ops", "identity": obj{"name": "Ops bot"}}, obj{"id": "qa", "name": "QA"}, obj{"name": "no id"}}})
	if kinds(ins) != "removeAgent hydrateAgent hydrateAgent" {
		t.Fatalf("%s", kinds(ins))
	}
	if got := rosterIDs(hs.h.Roster()); !slices.Equal(got, []string{"ops=agent:ops:main", "qa=agent:qa:main"}) || !hs.h.Roster().Authoritative() {
		t.Fatalf("roster %q", got)
	}
	if a, _ := hs.h.Roster().Get("ops"); a.Name != "Ops bot" || a.Source != FromAgentsList {
		t.Fatalf("ops %+v", a)
	}
	// main is gone: its frames are dropped, and not learned again.
	if ins := hs.feed(20, delta("r0", "x", 1)); kinds(ins) != "ignore(agent-not-hydrated)" {
		t.Fatalf("after agents.list: %s", kinds(ins))
	}
	// A later hello changes nothing.
	if ins := hs.respond(30, "connect", helloOK); kinds(ins) != "" {
		t.Fatalf("hello after agents.list: %s", kinds(ins))
	}
	// A failed or malformed answer changes nothing.
	if ins := hs.respond(40, "agents.list", obj{"nope": 1}); kinds(ins) != "ignore(response-not-hydrating)" {
		t.Fatalf("malformed: %s", kinds(ins))
	}
	hs.request("x1", "agents.list")
	if ins := hs.handle(`{"type":"res","id":"x1","ok":false,"error":{"code":"FORBIDDEN"}}`); kinds(ins) != "ignore(response-not-hydrating)" {
		t.Fatalf("failed: %s", kinds(ins))
	}
}

// Session scope "global": every agent's main session is "global".
func TestRosterGlobalScope(t *testing.T) {
	var r Roster
	r.HydrateAgentsList([]byte(js(obj{"scope": "global", "agents": []any{obj{"id": "a"}}})))
	if a, _ := r.Get("a"); a.SessionKey != "global" {
		t.Fatalf("%+v", a)
	}
	if id, ok := r.BySessionKey(" global "); !ok || id != "a" {
		t.Fatal("trim-equal lookup")
	}
}

// sessions.list adds the agents of its keys while the roster learns.
func TestRosterFromSessionsList(t *testing.T) {
	hs := newFakeHost(t, Options{})
	ins := hs.respond(0, "sessions.list", obj{"sessions": []any{obj{"key": "agent:ops:main"}, obj{"key": "global"}, obj{"key": "agent:ops:x"}, obj{"key": "agent:qa:main"}}})
	if kinds(ins) != "hydrateAgent hydrateAgent" || !slices.Equal(rosterIDs(hs.h.Roster()), []string{"ops=agent:ops:main", "qa=agent:qa:main"}) {
		t.Fatalf("%s %q", kinds(ins), rosterIDs(hs.h.Roster()))
	}
	strict := newFakeHost(t, Options{StrictRoster: true})
	if ins := strict.respond(0, "sessions.list", obj{"sessions": []any{obj{"key": "agent:ops:main"}}}); kinds(ins) != "" {
		t.Fatalf("strict: %s", kinds(ins))
	}
}

// Learning from session keys, and the strict roster that does not.
func TestRosterLearning(t *testing.T) {
	hs := newFakeHost(t, Options{})
	ins := hs.feed(0, js(obj{"type": "event", "event": "agent", "payload": obj{"runId": "r1", "sessionKey": "agent:ops:telegram:dm:1", "stream": "lifecycle", "data": obj{"phase": "start"}}}))
	if h := find(ins, IntentHydrateAgent); len(h) != 1 || h[0].AgentID != "ops" || h[0].SessionKey != "agent:ops:main" || h[0].Source != FromSessionKey {
		t.Fatalf("%s", kinds(ins))
	}
	if hs.agents["ops"].status() != StatusRunning {
		t.Fatal("learned agent's frame dropped")
	}
	if ins := hs.feed(10, chatEv(obj{"runId": "r2", "sessionKey": "global", "state": "delta"})); kinds(ins) != "ignore(agent-not-hydrated)" {
		t.Fatalf("non-agent key: %s", kinds(ins))
	}
	strict := newFakeHost(t, Options{StrictRoster: true})
	if ins := strict.feed(0, lifecycle("r1", "start")); kinds(ins) != "ignore(agent-not-hydrated)" {
		t.Fatalf("strict: %s", kinds(ins))
	}
}

// §4.1 chat resolution: trim-equal session key first, then the regexp id
// only for a hydrated agent.
func TestRosterBySessionKey(t *testing.T) {
	var r Roster
	r.Add("main", "agent:main:main", "", FromHost)
	r.Add("side", " agent:main:side ", "", FromHost)
	for _, tc := range []struct {
		key, want string
		ok        bool
	}{
		{"agent:main:main", "main", true},
		{"agent:main:side", "side", true}, // trim-equal beats the regexp
		{"agent:main:whatsapp:x", "main", true},
		{"agent:ops:main", "", false},
		{"agent:main", "", false},
		{"", "", false},
	} {
		id, ok := r.BySessionKey(tc.key)
		if id != tc.want || ok != tc.ok {
			t.Errorf("BySessionKey(%q) = %q %v", tc.key, id, ok)
		}
	}
	if _, ok := r.ExactSessionKey("agent:main:side"); ok {
		t.Error("ExactSessionKey trims")
	}
}

func FuzzRoster(f *testing.F) {
	f.Add([]byte(js(helloOK)))
	f.Add([]byte(`{"agents":[{"id":"a"},{"id":"a"},{"id":1}],"mainKey":"k","scope":"global"}`))
	f.Add([]byte(`{"sessions":[{"key":"agent:x:y"},{"key":null}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var r Roster
		r.HydrateHello(data)
		r.HydrateSessionsList(data)
		r.Learn(string(data))
		r.HydrateAgentsList(data)
		seen := map[string]bool{}
		for _, a := range r.Agents() {
			if a.AgentID == "" || seen[a.AgentID] {
				t.Fatalf("empty or repeated agent in %q", rosterIDs(&r))
			}
			seen[a.AgentID] = true
		}
	})
}
