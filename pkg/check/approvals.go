package check

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
)

func (a *Analyzer) other(cs *connState, rec *capture.Record, ev *bridge.Event) {
	name := ev.Event
	switch {
	case name == "session.tool":
		data, _ := jsonx.Get(ev.Payload, "data")
		if id := toolCallID(ev.Payload, data); id != "" {
			runID, _ := jsonx.GetStr(ev.Payload, "runId")
			a.tool(cs, rec, a.lookupRun(rec.Conn, runID), id, 2)
		}
	case name == "plugin.approval.requested":
		a.approvalEvent(rec, ev)
	case name == "plugin.approval.resolved":
		a.approvalEvent(rec, ev)
	}
	if ev.Type == "event" && !knownEvent(name) {
		if !a.unknown[name] && len(a.unknown) < maxUnknown {
			a.unknown[name] = true
			a.add(RuleUnknownEvent, 0, rec.Index, rec.T, rec.Conn, nil, "", "", "", fmt.Sprintf("Unknown event %s (first occurrence); no gateway release advertises it.", strconv.Quote(clip(name, 80))))
		}
	}
}

func (a *Analyzer) approvalEvent(rec *capture.Record, ev *bridge.Event) {
	p := ev.Payload
	id, _ := jsonx.GetStr(p, "id")
	if id == "" {
		return
	}
	kind := "exec"
	if strings.HasPrefix(ev.Event, "plugin.") {
		kind = "plugin"
	}
	switch {
	case strings.HasSuffix(ev.Event, ".requested") || strings.HasSuffix(ev.Event, ".pending"):
		exp, _ := numInt(p, "expiresAtMs")
		req, _ := jsonx.Get(p, "request")
		cmd, _ := jsonx.GetStr(req, "command")
		if cmd == "" {
			cmd, _ = jsonx.GetStr(req, "title")
		}
		run, _ := jsonx.GetStr(req, "runId")
		agent := ev.AgentID
		if agent == "" {
			agent, _ = jsonx.GetStr(req, "agentId")
		}
		sess, _ := jsonx.GetStr(req, "sessionKey")
		a.trackApproval(rec, id, exp, run, agent, sess, cmd, kind, ev.Event)
	case strings.HasSuffix(ev.Event, ".resolved"):
		a.resolveApproval(id)
	}
}

func numInt(obj []byte, key string) (int64, bool) {
	v, ok := jsonx.Get(obj, key)
	if !ok {
		return 0, false
	}
	f, ok := jsonx.Num(v)
	if !ok || f != f || f > 1e17 || f < -1e17 {
		return 0, false
	}
	return int64(f), true
}

func (a *Analyzer) trackApproval(rec *capture.Record, id string, exp int64, run, agent, sess, cmd, kind, source string) {
	ap := a.approvals[id]
	if ap == nil {
		if len(a.apOrder) >= maxApprovals {
			delete(a.approvals, a.apOrder[0])
			a.apOrder = a.apOrder[1:]
		}
		ap = &approval{id: id, i: rec.Index, t: rec.T, conn: rec.Conn, kind: kind, source: source}
		a.approvals[id] = ap
		a.apOrder = append(a.apOrder, id)
	}
	if exp > 0 {
		ap.expires = exp
		if a.minExpiry == 0 || exp < a.minExpiry {
			a.minExpiry = exp
		}
	}
	if ap.run == "" {
		ap.run = run
	}
	if ap.agent == "" {
		ap.agent = agent
	}
	if ap.session == "" {
		ap.session = sess
	}
	if ap.command == "" {
		ap.command = cmd
	}
}

func (a *Analyzer) resolveApproval(id string) {
	if _, ok := a.approvals[id]; !ok {
		return
	}
	delete(a.approvals, id)
	if k := slices.Index(a.apOrder, id); k >= 0 {
		a.apOrder = slices.Delete(a.apOrder, k, k+1)
	}
}

// expire runs the checks that wait for time to pass: approvals past their
// expiry, runs whose lifecycle ended with no chat terminal within the grace.
func (a *Analyzer) expire(now int64, i int) {
	if a.minExpiry != 0 && now > a.minExpiry {
		a.minExpiry = 0
		for _, id := range slices.Clone(a.apOrder) {
			ap := a.approvals[id]
			if ap.expires == 0 {
				continue
			}
			if now > ap.expires {
				a.expired(ap, i, now)
				continue
			}
			if a.minExpiry == 0 || ap.expires < a.minExpiry {
				a.minExpiry = ap.expires
			}
		}
	}
	for len(a.noChat) > 0 {
		r := a.noChat[0]
		if !r.gone && now-r.lifeTermT <= a.opts.GraceMs {
			break
		}
		a.noChat[0] = nil
		a.noChat = a.noChat[1:]
		if !r.gone {
			a.noChatCheck(r)
		}
	}
}

func (a *Analyzer) expired(ap *approval, i int, now int64) {
	a.resolveApproval(ap.id)
	what := ap.kind + " approval " + ap.id
	if ap.command != "" {
		what += " (" + clipQuote(ap.command, 60) + ")"
	}
	a.add(RuleApprovalExpired, 0, i, now, ap.conn, nil, ap.run, ap.agent, ap.session, fmt.Sprintf("%s, requested at record %d, expired %s later with no resolved event; the run waits until the UI sweeps it.", capitalize(what), ap.i, ms(ap.expires-ap.t)))
}

func (a *Analyzer) noChatCheck(r *runState) {
	if r.chatTerm != "" || r.lifeTerm == "" {
		return
	}
	r.noChatQueued = false
	a.addRun(RuleRunNoChatTerminal, 0, r.lifeTermI, r.lifeTermT, r, fmt.Sprintf("Run %s's lifecycle %s was not followed by a chat final, aborted or error (an agent-only or channel run); UIs that wait for the chat terminal keep it running.", r.key.id, r.lifeTerm))
}
