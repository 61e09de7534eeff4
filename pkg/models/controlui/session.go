package controlui

import (
	"strings"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/jsonx"
)

// defaults are the session defaults hello-ok's snapshot gives
// (snapshot.sessionDefaults): how the pane resolves the main alias and a
// frame without an agentId.
type defaults struct {
	agentID    string // defaultAgentId
	mainKey    string // mainKey
	mainSesKey string // mainSessionKey
}

func initialDefaults() defaults { return defaults{agentID: "main", mainKey: "main"} }

// readDefaults takes them from a hello-ok payload, keeping what it lacks.
func (d *defaults) read(helloOK []byte) {
	sd, ok := jsonx.GetPath(helloOK, "snapshot", "sessionDefaults")
	if !ok || jsonx.KindOf(sd) != jsonx.Object {
		return
	}
	if s, ok := jsonx.GetStr(sd, "defaultAgentId"); ok && s != "" {
		d.agentID = strings.ToLower(s)
	}
	if s, ok := jsonx.GetStr(sd, "mainKey"); ok && s != "" {
		d.mainKey = strings.ToLower(s)
	}
	if s, ok := jsonx.GetStr(sd, "mainSessionKey"); ok && s != "" {
		d.mainSesKey = strings.ToLower(s)
	}
}

// match is the pane a frame belongs to: its session key as the pane
// compares it (trimmed, lower-cased, the main alias resolved), and the
// key's agent; ok is false when no pane takes it: no session key, or an
// agentId that is not the key's agent (a frame without one is the default
// agent's).
func (d *defaults) match(sessionKey, agentID string, hasAgent bool) (key, agent string, ok bool) {
	key = strings.ToLower(strings.TrimSpace(sessionKey))
	if key == "" {
		return "", "", false
	}
	if !hasAgent {
		agentID = d.agentID
	}
	agentID = strings.ToLower(strings.TrimSpace(agentID))
	switch {
	case key == "main" || key == d.mainKey:
		if d.mainSesKey != "" && bridge.SessionAgentID(d.mainSesKey) == d.agentID {
			key = d.mainSesKey
		} else {
			key = "agent:" + agentID + ":" + d.mainKey
		}
	case key == "global":
		return key, agentID, true
	}
	agent = bridge.SessionAgentID(key)
	if agent == "" {
		return key, agentID, true
	}
	return key, agent, agent == agentID
}
