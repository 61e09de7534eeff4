package replay

import (
	"fmt"

	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/policy"
)

// clawboo's approvals store: approvals are added and removed by the
// approval intents, and a 5 s interval sweeps the expired ones (the
// gateway sends no resolved event on timeout), each leaving a meta line in
// the agent's transcript.

func (c *clawboo) addApproval(in *policy.Intent) {
	p := in.Payload
	id, _ := jsonx.GetStr(p, "id")
	ap := Approval{ID: id, AgentID: in.AgentID}
	if req, ok := jsonx.Get(p, "request"); ok && jsonx.KindOf(req) == jsonx.Object {
		if cmd, ok := jsonx.GetStr(req, "command"); ok {
			ap.Command = NStr{Valid: true, V: cmd}
		}
	}
	if n, ok := numField(p, "createdAtMs"); ok {
		ap.CreatedAt = NInt{Valid: true, V: n}
	}
	if n, ok := numField(p, "expiresAtMs"); ok {
		ap.ExpiresAt = NInt{Valid: true, V: n}
	}
	c.e.tr.touch(&c.e.st, Path{sec: secApprovals, key: id})
	action := "added"
	if old := c.e.st.approvals[id]; old != nil {
		action = "updated"
		c.e.agent(old.AgentID).approvals--
	}
	c.e.st.approvals[id] = &ap
	c.e.agent(in.AgentID).approvals++
	c.e.addEffect(Effect{Type: EffApproval, Action: action, ID: id, AgentID: in.AgentID, Command: ap.Command, At: ap.ExpiresAt})
	c.rescheduleSweep()
}

func numField(obj []byte, key string) (int64, bool) {
	v, ok := jsonx.Get(obj, key)
	if !ok {
		return 0, false
	}
	f, ok := jsonx.Num(v)
	if !ok || f != f || f > maxTime || f < -maxTime {
		return 0, false
	}
	return int64(f), true
}

func (c *clawboo) removeApproval(ap *Approval) {
	c.e.tr.touch(&c.e.st, Path{sec: secApprovals, key: ap.ID})
	delete(c.e.st.approvals, ap.ID)
	if a := c.e.st.agents[ap.AgentID]; a != nil {
		a.approvals--
	}
}

func (c *clawboo) resolveApproval(in *policy.Intent) {
	id, _ := jsonx.GetStr(in.Payload, "id")
	ap := c.e.st.approvals[id]
	if ap == nil {
		c.e.addEffect(Effect{Type: EffApproval, Action: "unknown", ID: id, AgentID: in.AgentID})
		return
	}
	c.removeApproval(ap)
	c.e.addEffect(Effect{Type: EffApproval, Action: "removed", ID: id, AgentID: ap.AgentID, Command: ap.Command})
	c.rescheduleSweep()
}

// rescheduleSweep keeps the 5 s sweep armed for the first tick that will
// find something expired. The host's interval ticks at t0 + 5000·k; ticks
// that find nothing do nothing, so only the first useful one is scheduled.
func (c *clawboo) rescheduleSweep() {
	c.e.sched.cancel(c.sweep)
	c.sweep = nil
	var minExp int64
	found := false
	for _, ap := range c.e.st.approvals {
		if ap.ExpiresAt.Valid && (!found || ap.ExpiresAt.V < minExp) {
			minExp, found = ap.ExpiresAt.V, true
		}
	}
	if !found {
		return
	}
	// First tick strictly after now...
	k := (c.e.sched.now-c.e.t0)/ApprovalSweepMs + 1
	// ...and at or after the earliest expiry.
	if need := ceilDiv(minExp-c.e.t0, ApprovalSweepMs); need > k {
		k = need
	}
	due := c.e.t0 + k*ApprovalSweepMs
	if due <= c.e.sched.now { // cannot happen with clamped times; never loop
		due = c.e.sched.now + ApprovalSweepMs
	}
	c.sweep = c.e.sched.at(due, TimerApprovalSweep, c.sweepApprovals)
}

func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a > 0) == (b > 0) {
		q++
	}
	return q
}

// sweepApprovals removes every approval with expiresAtMs <= now (the
// gateway sends no resolved event on timeout) and injects a meta line into
// the agent's transcript.
func (c *clawboo) sweepApprovals() {
	c.sweep = nil
	now := c.e.sched.now
	c.e.sortBuf = c.e.sortBuf[:0]
	for id, ap := range c.e.st.approvals {
		if ap.ExpiresAt.Valid && ap.ExpiresAt.V <= now {
			c.e.sortBuf = append(c.e.sortBuf, id)
		}
	}
	sortStrings(c.e.sortBuf)
	for _, id := range c.e.sortBuf {
		ap := c.e.st.approvals[id]
		c.removeApproval(ap)
		c.e.addEffect(Effect{Type: EffApproval, Action: "expired", ID: id, AgentID: ap.AgentID, Command: ap.Command})
		cmd := "command"
		if ap.Command.Valid {
			cmd = ap.Command.V
		}
		line := fmt.Sprintf("Exec approval for `%s` timed out.", cmd)
		a := c.e.agent(ap.AgentID)
		n := c.appendLines(a, []string{line}, LineMeta, now)
		c.e.addEffect(Effect{Type: EffAppend, AgentID: ap.AgentID, Count: int64(n), At: NInt{Valid: true, V: now}})
	}
	c.rescheduleSweep()
}
