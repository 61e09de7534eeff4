package claw3d

import (
	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/jsstr"
)

// Where a roster agent came from.
const (
	FromHello       = "hello"         // the hello-ok snapshot (sessionDefaults, health.agents)
	FromAgentsList  = "agents.list"   // an agents.list response: Claw3D's own source
	FromSessionList = "sessions.list" // the agent of a session key listed by sessions.list
	FromSessionKey  = "session-key"   // the agent of a session key seen on a frame
	FromHost        = "host"          // added by the host (Roster.Add)
)

// DefaultMainKey is the gateway's default main session name.
const DefaultMainKey = "main"

// RosterAgent is one hydrated agent: its id and main session key.
type RosterAgent struct {
	AgentID    string
	SessionKey string
	Name       string
	Source     string
}

// Roster is the fleet Claw3D has hydrated. Claw3D resolves every runtime
// frame to a hydrated agent and drops the frame when there is none
// (§4.1), so which agents are hydrated decides what a replay shows.
//
// Claw3D hydrates its fleet from the gateway's agents.list answer, each
// agent's main session being agent:<id>:<mainKey>. A capture holds that
// answer only when the recording client asked for it (a Claw3D session
// imported from the browser does; clawtap's recorder does not). So:
//
//   - an agents.list response is authoritative: the roster becomes exactly
//     its agents, and nothing is learned from frames after it;
//   - until then the hello-ok snapshot (sessionDefaults.defaultAgentId and
//     mainKey, health.agents) and sessions.list responses add agents, and
//     the agent of every agent:<id>:… session key a runtime frame carries
//     is added when first seen — the fleet Claw3D would have hydrated
//     before the capture began;
//   - Strict turns that learning off: only responses hydrate, and frames
//     for agents they did not name are dropped, as Claw3D drops them.
//
// The zero value is an empty, learning roster with main key "main".
type Roster struct {
	agents        []RosterAgent
	mainKey       string
	global        bool // session scope "global": every agent's main session is "global"
	authoritative bool
	// Strict disables learning agents from session keys.
	Strict bool
}

// Agents returns the agents in hydration order; the slice is the
// roster's own.
func (r *Roster) Agents() []RosterAgent { return r.agents }

// Authoritative reports whether an agents.list response hydrated it.
func (r *Roster) Authoritative() bool { return r.authoritative }

// MainKey is the main session name used for agents' session keys.
func (r *Roster) MainKey() string {
	if r.mainKey == "" {
		return DefaultMainKey
	}
	return r.mainKey
}

// MainSessionKey is the main session key of an agent.
func (r *Roster) MainSessionKey(agentID string) string {
	if r.global {
		return "global"
	}
	return "agent:" + agentID + ":" + r.MainKey()
}

func (r *Roster) index(agentID string) int {
	for i := range r.agents {
		if r.agents[i].AgentID == agentID {
			return i
		}
	}
	return -1
}

// Get returns the agent with this id.
func (r *Roster) Get(agentID string) (RosterAgent, bool) {
	if i := r.index(agentID); i >= 0 {
		return r.agents[i], true
	}
	return RosterAgent{}, false
}

// Add adds an agent unless its id is known; sessionKey "" gives its main
// session key. It reports whether the agent was added.
func (r *Roster) Add(agentID, sessionKey, name, source string) bool {
	if agentID == "" || r.index(agentID) >= 0 {
		return false
	}
	if sessionKey == "" {
		sessionKey = r.MainSessionKey(agentID)
	}
	r.agents = append(r.agents, RosterAgent{AgentID: agentID, SessionKey: sessionKey, Name: name, Source: source})
	return true
}

// BySessionKey is Claw3D's findAgentBySessionKey: the first agent whose
// session key equals key once both are trimmed; else the agent id of an
// agent:<id>:… key, but only when that agent is hydrated (transport keys
// such as agent:main:telegram:… map onto their agent this way).
func (r *Roster) BySessionKey(key string) (string, bool) {
	k := jsstr.Trim(key)
	for i := range r.agents {
		if jsstr.Trim(r.agents[i].SessionKey) == k {
			return r.agents[i].AgentID, true
		}
	}
	if id := bridge.SessionAgentID(key); id != "" && r.index(id) >= 0 {
		return id, true
	}
	return "", false
}

// ExactSessionKey returns the first agent whose session key is exactly key
// (the approval ingress's rule).
func (r *Roster) ExactSessionKey(key string) (string, bool) {
	for i := range r.agents {
		if r.agents[i].SessionKey == key {
			return r.agents[i].AgentID, true
		}
	}
	return "", false
}

// Learn adds the agent of an agent:<id>:… session key when the roster
// learns (not strict, no agents.list yet) and the agent is new.
func (r *Roster) Learn(sessionKey string) (RosterAgent, bool) {
	if r.Strict || r.authoritative {
		return RosterAgent{}, false
	}
	id := bridge.SessionAgentID(sessionKey)
	if id == "" || !r.Add(id, "", "", FromSessionKey) {
		return RosterAgent{}, false
	}
	return r.agents[len(r.agents)-1], true
}

// HydrateHello reads a hello-ok payload's snapshot: sessionDefaults
// (mainKey, scope, defaultAgentId and its mainSessionKey) and the agents
// of health.agents (agentId, or id). It returns the agents added. After an
// agents.list answer it changes nothing: that answer is Claw3D's fleet.
func (r *Roster) HydrateHello(payload []byte) []RosterAgent {
	if r.authoritative {
		return nil
	}
	snap, ok := jsonx.Get(payload, "snapshot")
	if !ok || !isObject(snap) {
		return nil
	}
	n := len(r.agents)
	if defs, ok := jsonx.Get(snap, "sessionDefaults"); ok && isObject(defs) {
		if k, ok := nonEmptyStrOf(defs, "mainKey"); ok {
			r.mainKey = k
		}
		if s, ok := nonEmptyStrOf(defs, "scope"); ok {
			r.global = s == "global"
		}
		if id, ok := nonEmptyStrOf(defs, "defaultAgentId"); ok {
			key, _ := nonEmptyStrOf(defs, "mainSessionKey")
			r.Add(id, key, "", FromHello)
		}
	}
	if agents, ok := jsonx.GetPath(snap, "health", "agents"); ok {
		_ = jsonx.ArrayEach(agents, func(a []byte) bool {
			id, ok := nonEmptyStrOf(a, "agentId")
			if !ok {
				id, _ = nonEmptyStrOf(a, "id")
			}
			name, _ := nonEmptyStrOf(a, "name")
			r.Add(id, "", name, FromHello)
			return true
		})
	}
	return r.agents[n:]
}

// HydrateAgentsList reads an agents.list answer ({defaultId, mainKey,
// scope, agents:[{id, name, identity:{name}}]}): the roster becomes
// exactly those agents, in that order, and stops learning. It returns the
// agents added and the ones removed, and false when the payload has no
// agents array (nothing changes then).
func (r *Roster) HydrateAgentsList(payload []byte) (added, removed []RosterAgent, ok bool) {
	list, ok := jsonx.Get(payload, "agents")
	if !ok || jsonx.KindOf(list) != jsonx.Array {
		return nil, nil, false
	}
	if k, ok := nonEmptyStrOf(payload, "mainKey"); ok {
		r.mainKey = k
	}
	if s, ok := nonEmptyStrOf(payload, "scope"); ok {
		r.global = s == "global"
	}
	old := r.agents
	r.agents = nil
	r.authoritative = true
	_ = jsonx.ArrayEach(list, func(a []byte) bool {
		id, ok := nonEmptyStrOf(a, "id")
		if !ok {
			return true
		}
		name, _ := nonEmptyStrOf(a, "name")
		if ident, ok := jsonx.Get(a, "identity"); ok && isObject(ident) {
			if n, ok := nonEmptyStrOf(ident, "name"); ok {
				name = n
			}
		}
		if r.Add(id, "", name, FromAgentsList) {
			if !hasAgent(old, id) {
				added = append(added, r.agents[len(r.agents)-1])
			}
		}
		return true
	})
	for _, a := range old {
		if r.index(a.AgentID) < 0 {
			removed = append(removed, a)
		}
	}
	return added, removed, true
}

func hasAgent(list []RosterAgent, id string) bool {
	for i := range list {
		if list[i].AgentID == id {
			return true
		}
	}
	return false
}

// HydrateSessionsList reads a sessions.list answer ({sessions:[{key}]}):
// while the roster learns, the agent of each agent:<id>:… key is added.
// It returns the agents added.
func (r *Roster) HydrateSessionsList(payload []byte) []RosterAgent {
	if r.Strict || r.authoritative {
		return nil
	}
	list, ok := jsonx.Get(payload, "sessions")
	if !ok {
		return nil
	}
	n := len(r.agents)
	_ = jsonx.ArrayEach(list, func(s []byte) bool {
		if key, ok := nonEmptyStrOf(s, "key"); ok {
			r.Add(bridge.SessionAgentID(key), "", "", FromSessionList)
		}
		return true
	})
	return r.agents[n:]
}

func nonEmptyStrOf(obj []byte, key string) (string, bool) {
	if !isObject(obj) {
		return "", false
	}
	v, ok := jsonx.Get(obj, key)
	if !ok {
		return "", false
	}
	return nonEmptyStr(v)
}
