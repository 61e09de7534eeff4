package clawboo

import (
	"fmt"

	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/replay"
)

// clawboo's approvals store: approvals are added and removed by the
// approval intents, and a 5 s interval sweeps the expired ones (the
// gateway sends no resolved event on timeout), each leaving a meta line in
// the agent's transcript.

func (c *host) addApproval(in *Intent) {
	p := in.Payload
	id, _ := jsonx.GetStr(p, "id")
	ap := replay.Approval{ID: id, AgentID: in.AgentID}
	if req, ok := jsonx.Get(p, "request"); ok && jsonx.KindOf(req) == jsonx.Object {
		if cmd, ok := jsonx.GetStr(req, "command"); ok {
			ap.Command = replay.NStr{Valid: true, V: cmd}
		}
	}
	if n, ok := numField(p, "createdAtMs"); ok {
		ap.CreatedAt = replay.NInt{Valid: true, V: n}
	}
	if n, ok := numField(p, "expiresAtMs"); ok {
		ap.ExpiresAt = replay.NInt{Valid: true, V: n}
	}
	action := "added"
	if c.st.PutApproval(ap) {
		action = "updated"
	}
	c.h.Effect(replay.Effect{Type: replay.EffApproval, Action: action, ID: id, AgentID: in.AgentID, Command: ap.Command, At: ap.ExpiresAt})
	c.rescheduleSweep()
}

func numField(obj []byte, key string) (int64, bool) {
	v, ok := jsonx.Get(obj, key)
	if !ok {
		return 0, false
	}
	f, ok := jsonx.Num(v)
	if !ok || f != f || f > replay.MaxTime || f < -replay.MaxTime {
		return 0, false
	}
	return int64(f), true
}

func (c *host) resolveApproval(in *Intent) {
	id, _ := jsonx.GetStr(in.Payload, "id")
	ap := c.st.DeleteApproval(id)
	if ap == nil {
		c.h.Effect(replay.Effect{Type: replay.EffApproval, Action: "unknown", ID: id, AgentID: in.AgentID})
		return
	}
	c.h.Effect(replay.Effect{Type: replay.EffApproval, Action: "removed", ID: id, AgentID: ap.AgentID, Command: ap.Command})
	c.rescheduleSweep()
}

// rescheduleSweep keeps the 5 s sweep armed for the first tick that will
// find something expired. The host's interval ticks at t0 + 5000·k; ticks
// that find nothing do nothing, so only the first useful one is scheduled.
func (c *host) rescheduleSweep() {
	if c.sweep != nil {
		c.sweep()
		c.sweep = nil
	}
	var minExp int64
	found := false
	for _, id := range c.st.ApprovalIDs() {
		if ap := c.st.Approval(id); ap.ExpiresAt.Valid && (!found || ap.ExpiresAt.V < minExp) {
			minExp, found = ap.ExpiresAt.V, true
		}
	}
	if !found {
		return
	}
	// First tick strictly after now...
	now, t0 := c.h.Now(), c.h.T0()
	k := (now-t0)/ApprovalSweepMs + 1
	// ...and at or after the earliest expiry.
	if need := ceilDiv(minExp-t0, ApprovalSweepMs); need > k {
		k = need
	}
	due := t0 + k*ApprovalSweepMs
	if due <= now { // cannot happen with clamped times; never loop
		due = now + ApprovalSweepMs
	}
	c.sweep = c.h.At(due, TimerApprovalSweep, c.sweepApprovals)
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
func (c *host) sweepApprovals() {
	c.sweep = nil
	now := c.h.Now()
	for _, id := range c.st.ApprovalIDs() { // sorted, and a copy
		ap := c.st.Approval(id)
		if !ap.ExpiresAt.Valid || ap.ExpiresAt.V > now {
			continue
		}
		c.st.DeleteApproval(id)
		c.h.Effect(replay.Effect{Type: replay.EffApproval, Action: "expired", ID: id, AgentID: ap.AgentID, Command: ap.Command})
		cmd := "command"
		if ap.Command.Valid {
			cmd = ap.Command.V
		}
		line := fmt.Sprintf("Exec approval for `%s` timed out.", cmd)
		a := c.st.EnsureAgent(ap.AgentID)
		n := c.appendLines(a, []string{line}, replay.Line{Kind: replay.LineMeta, TS: now})
		c.h.Effect(replay.Effect{Type: replay.EffAppend, AgentID: ap.AgentID, Count: int64(n), At: replay.NInt{Valid: true, V: now}})
	}
	c.rescheduleSweep()
}
