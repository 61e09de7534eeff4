package check

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/gaps"
	"github.com/clawtap/clawtap/pkg/jsonx"
)

// gapRules are the rules of the seq detector's findings (gapRule).
var gapRules = []string{RuleSeqGap, RuleSeqDuplicate, RuleSeqBackwards, RuleSeqNotRestarted, RuleGatewaySeqGap, RuleRunSeqJump}

// gapRule is the rule of a seq detector's finding of kind.
func gapRule(kind string) string {
	switch kind {
	case gaps.Gap:
		return RuleSeqGap
	case gaps.Duplicate:
		return RuleSeqDuplicate
	case gaps.Backwards:
		return RuleSeqBackwards
	case gaps.FirstSeq:
		return RuleSeqNotRestarted
	case gaps.GatewayGap:
		return RuleGatewaySeqGap
	case gaps.RunSeqJump:
		return RuleRunSeqJump
	}
	return ""
}

func (a *Analyzer) gapFinding(cs *connState, g *gaps.Finding) {
	// A finding of a rule that is off is not worded: run-seq-jump, off by
	// default, comes at most merged deltas.
	rule := gapRule(g.Kind)
	if !a.enabled[rule] {
		return
	}
	known, perConn := cs.perConnSeq()
	switch g.Kind {
	case gaps.Gap:
		sev := Error
		msg := fmt.Sprintf("Frame seq jumped from %d to %d on connection %d: %d frame(s) lost.", g.Expected-1, g.Received, g.Conn, g.Missing())
		if known && !perConn {
			sev = Warn
			msg = fmt.Sprintf("Frame seq jumped from %d to %d on connection %d (%d number(s) unseen); gateway %s shares one seq counter, so events this client may not see also leave holes.", g.Expected-1, g.Received, g.Conn, g.Missing(), cs.version)
		}
		a.add(rule, sev, g.I, g.T, g.Conn, nil, "", "", "", msg)
	case gaps.Duplicate:
		a.add(rule, 0, g.I, g.T, g.Conn, nil, "", "", "", fmt.Sprintf("Frame seq %d arrived twice on connection %d.", g.Received, g.Conn))
	case gaps.Backwards:
		a.add(rule, 0, g.I, g.T, g.Conn, nil, "", "", "", fmt.Sprintf("Frame seq went back from %d to %d on connection %d.", g.Expected-1, g.Received, g.Conn))
	case gaps.FirstSeq:
		sev := Warn
		msg := fmt.Sprintf("Connection %d started at frame seq %d, not 1: the seq did not restart with the connection.", g.Conn, g.Received)
		switch {
		case !cs.started:
			sev = Info
			msg = fmt.Sprintf("Connection %d's first frame seq is %d; the capture began mid-connection.", g.Conn, g.Received)
		case !known:
			sev = Info
			msg = fmt.Sprintf("Connection %d started at frame seq %d, not 1; the gateway version is unknown (before 2026.4.22 one counter is shared by all connections).", g.Conn, g.Received)
		case !perConn:
			sev = Info
			msg = fmt.Sprintf("Connection %d started at frame seq %d: gateway %s shares one seq counter across connections.", g.Conn, g.Received, cs.version)
		}
		a.add(rule, sev, g.I, g.T, g.Conn, nil, "", "", "", msg)
	case gaps.GatewayGap:
		a.add(rule, 0, g.I, g.T, g.Conn, a.lookupRun(g.Conn, g.RunID), g.RunID, "", "", fmt.Sprintf("The gateway reported a seq gap for run %s: expected payload seq %d, received %d.", g.RunID, g.Expected, g.Received))
	case gaps.RunSeqJump:
		msg := fmt.Sprintf("Payload seq of run %s jumped from %d to %d.", g.RunID, g.Expected-1, g.Received)
		if g.Coalesced {
			msg = fmt.Sprintf("Payload seq of run %s jumped from %d to %d at a merged delta (pacing, or 2026.9.2+ coalescing for a busy connection): the merged frame carries what the skipped seqs did, nothing was lost.", g.RunID, g.Expected-1, g.Received)
		}
		a.add(rule, 0, g.I, g.T, g.Conn, a.lookupRun(g.Conn, g.RunID), g.RunID, "", "", msg)
	}
}

// perConnSeq reports whether the connection's gateway is known, and if so
// whether it counts frame seq per connection (2026.4.22 and later).
func (cs *connState) perConnSeq() (known, perConn bool) {
	if cs.protocol >= 4 {
		return true, true
	}
	if y, m, d, ok := parseVersion(cs.version); ok {
		return true, y > 2026 || y == 2026 && (m > 4 || m == 4 && d >= 22)
	}
	return false, false
}

func parseVersion(v string) (y, m, d int, ok bool) {
	parts := strings.SplitN(v, ".", 4)
	if len(parts) < 3 {
		return 0, 0, 0, false
	}
	var n [3]int
	for k := 0; k < 3; k++ {
		s := parts[k]
		if k == 2 {
			if j := strings.IndexAny(s, "-+ "); j >= 0 {
				s = s[:j]
			}
		}
		x, err := strconv.Atoi(s)
		if err != nil {
			return 0, 0, 0, false
		}
		n[k] = x
	}
	return n[0], n[1], n[2], true
}

func (a *Analyzer) marker(cs *connState, rec *capture.Record) {
	switch rec.Mark {
	case capture.MarkOpen:
		cs.started, cs.closed, cs.hello = true, false, false
	case capture.MarkHello:
		cs.hello = true
		if rec.Protocol != 0 {
			cs.protocol = rec.Protocol
		}
		if rec.Server != "" {
			cs.version = rec.Server
		}
	case capture.MarkClose:
		a.closeConn(cs, rec.Index, rec.T, rec.Code, rec.Reason)
	}
}

func (a *Analyzer) closeConn(cs *connState, i int, t int64, code int, reason string) {
	if cs.closed {
		return
	}
	cs.closed, cs.closeCode, cs.closeT = true, code, t
	how := "closed"
	if code != 0 {
		how = fmt.Sprintf("closed (%d %s)", code, strings.TrimSpace(reason))
	}
	for _, id := range cs.reqOrder {
		rq, ok := cs.reqs[id]
		if !ok {
			continue
		}
		a.add(RuleRequestUnanswered, 0, rq.i, rq.t, cs.n, nil, "", "", "", fmt.Sprintf("Request %s (%s) got no response before connection %d %s.", id, method(rq.method), cs.n, how))
		delete(cs.reqs, id)
	}
	cs.reqOrder = cs.reqOrder[:0]
}

// size checks a frame against the gateway's limits.
func (a *Analyzer) size(cs *connState, rec *capture.Record) {
	n := int64(rawLen(rec))
	if n <= PreAuthMaxBytes {
		return
	}
	if rec.Dir == capture.DirOut && cs.started && !cs.hello {
		a.add(RuleFrameTooLarge, 0, rec.Index, rec.T, rec.Conn, nil, "", "", "", fmt.Sprintf("A %d-byte client frame before the handshake finished; the gateway closes the connection with 1009 above %d bytes.", n, PreAuthMaxBytes))
		return
	}
	if n > cs.maxPayload {
		a.add(RuleFrameTooLarge, 0, rec.Index, rec.T, rec.Conn, nil, "", "", "", fmt.Sprintf("A %d-byte %s frame, over the gateway's maxPayload of %d bytes.", n, dirWord(rec.Dir), cs.maxPayload))
	}
}

func dirWord(dir string) string {
	if dir == capture.DirOut {
		return "client"
	}
	return "gateway"
}

func (a *Analyzer) request(cs *connState, rec *capture.Record, ev *bridge.Event) {
	if ev.Method == "connect" {
		cs.started = true
	}
	if ev.ID == "" {
		return
	}
	if _, dup := cs.reqs[ev.ID]; !dup {
		if len(cs.reqOrder) >= maxReqs {
			delete(cs.reqs, cs.reqOrder[0])
			cs.reqOrder = cs.reqOrder[1:]
		}
		cs.reqOrder = append(cs.reqOrder, ev.ID)
	}
	cs.reqs[ev.ID] = reqInfo{method: ev.Method, i: rec.Index, t: rec.T}
}

// waitingMethods answer only when something else happens; their latency
// is not the gateway's.
var waitingMethods = map[string]bool{"agent.wait": true, "exec.approval.request": true, "exec.approval.waitDecision": true, "plugin.approval.request": true}

func (a *Analyzer) response(cs *connState, rec *capture.Record, ev *bridge.Event) {
	if ev.Method == "connect" || hasType(ev.Payload, "hello-ok") {
		a.hello(cs, ev.Payload)
	}
	rq, pending := cs.reqs[ev.ID]
	if pending {
		delete(cs.reqs, ev.ID)
		if k := slices.Index(cs.reqOrder, ev.ID); k >= 0 {
			cs.reqOrder = slices.Delete(cs.reqOrder, k, k+1)
		}
		if d := rec.T - rq.t; d > a.opts.SlowMs && rq.t > 0 && !waitingMethods[rq.method] {
			a.add(RuleSlowResponse, 0, rec.Index, rec.T, rec.Conn, nil, "", "", "", fmt.Sprintf("Request %s (%s) was answered after %s (record %d), over --slow-ms %d.", ev.ID, method(rq.method), ms(d), rq.i, a.opts.SlowMs))
		}
	}
	if ev.OK != nil && !*ev.OK {
		frame := rec.Frame
		errObj, _ := jsonx.Get(frame, "error")
		msg, _ := jsonx.GetStr(errObj, "message")
		detail := ""
		if d, ok := jsonx.GetPath(errObj, "details", "code"); ok {
			detail, _ = jsonx.Str(d)
		}
		code := ev.Code
		if detail != "" && code != "" {
			code += "/" + detail
		} else if detail != "" {
			code = detail
		}
		with := " with " + code
		if code == "" {
			with = " with no error code"
		}
		a.add(RuleRequestFailed, 0, rec.Index, rec.T, rec.Conn, nil, "", "", "", fmt.Sprintf("Request %s (%s) failed%s: %s", ev.ID, method(ev.Method), with, endSentence(clip(msg, 160))))
	}
}

func hasType(payload []byte, typ string) bool {
	s, ok := jsonx.GetStr(payload, "type")
	return ok && s == typ
}

func (a *Analyzer) hello(cs *connState, p []byte) {
	if !hasType(p, "hello-ok") {
		return
	}
	cs.hello = true
	cs.started = cs.started || cs.reqsSawConnect()
	if n, ok := jsonx.GetInt(p, "protocol"); ok {
		cs.protocol = int(n)
	}
	if v, ok := jsonx.GetPath(p, "server", "version"); ok {
		if s, ok := jsonx.Str(v); ok {
			cs.version = s
		}
	}
	if v, ok := jsonx.GetPath(p, "policy", "maxPayload"); ok {
		if n, ok := jsonx.Int(v); ok && n > 0 {
			cs.maxPayload = n
		}
	}
}

func (cs *connState) reqsSawConnect() bool { return cs.started }
