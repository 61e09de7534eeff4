package replay

import (
	"strconv"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/jsstr"
	"github.com/clawtap/clawtap/pkg/ui"
)

// ---- JSON ----

// AppendStepJSON appends one NDJSON line:
// {"i":..,"t":..,["timer":..,]"intents":[..],"effects":[..],"diff":[..]}.
func (f *Formatter) AppendStepJSON(dst []byte, s *Step) []byte {
	dst = append(dst, `{"i":`...)
	dst = appendInt(dst, int64(s.I))
	dst = append(dst, `,"t":`...)
	dst = appendInt(dst, f.rel(s.T))
	if s.Timer != "" {
		dst = append(dst, `,"timer":`...)
		dst = jsonx.AppendString(dst, s.Timer)
	}
	dst = append(dst, `,"intents":[`...)
	for i, in := range s.Intents {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = in.AppendJSONAt(dst, f.T0)
	}
	dst = append(dst, `],"effects":[`...)
	for i := range s.Effects {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = f.AppendEffectJSON(dst, &s.Effects[i])
	}
	dst = append(dst, `],"diff":[`...)
	for i := range s.Diff {
		if i > 0 {
			dst = append(dst, ',')
		}
		c := &s.Diff[i]
		dst = append(dst, `{"path":`...)
		dst = jsonx.AppendString(dst, c.Path.String())
		dst = append(dst, `,"from":`...)
		dst = f.appendValJSON(dst, c.From)
		dst = append(dst, `,"to":`...)
		dst = f.appendValJSON(dst, c.To)
		dst = append(dst, '}')
	}
	return append(dst, "]}\n"...)
}

func (f *Formatter) appendPatch(dst []byte, p ui.Patch) []byte { return p.AppendJSONAt(dst, f.T0) }

func jstr(dst []byte, key, v string) []byte {
	dst = append(dst, ',', '"')
	dst = append(dst, key...)
	dst = append(dst, '"', ':')
	return jsonx.AppendString(dst, v)
}

// jnum writes a JavaScript number as JSON.stringify does.
func jnum(dst []byte, key string, f float64) []byte {
	dst = append(dst, ',', '"')
	dst = append(dst, key...)
	dst = append(dst, '"', ':')
	return ui.AppendNumber(dst, f)
}

// numText writes a JavaScript number as String(n) does.
func numText(f float64) string { return string(jsstr.AppendNumber(nil, f)) }

func jint(dst []byte, key string, n int64) []byte {
	dst = append(dst, ',', '"')
	dst = append(dst, key...)
	dst = append(dst, '"', ':')
	return appendInt(dst, n)
}

func (f *Formatter) jtime(dst []byte, key string, n NInt) []byte {
	if !n.Valid {
		return dst
	}
	return jint(dst, key, f.rel(n.V))
}

func (f *Formatter) jpatches(dst []byte, key string, ps []ui.AgentPatch) []byte {
	dst = append(dst, ',', '"')
	dst = append(dst, key...)
	dst = append(dst, `":[`...)
	for i := range ps {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"agentId":`...)
		dst = jsonx.AppendString(dst, ps[i].AgentID)
		dst = append(dst, `,"patch":`...)
		dst = f.appendPatch(dst, ps[i].Patch)
		dst = jint(dst, "patches", int64(ps[i].Patches))
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

// AppendEffectJSON appends one effect: {"type":..,...} with the fields
// its type carries (docs/replay.md lists them).
func (f *Formatter) AppendEffectJSON(dst []byte, e *Effect) []byte {
	dst = append(dst, `{"type":`...)
	dst = jsonx.AppendString(dst, e.Type)
	switch e.Type {
	case EffQueue:
		dst = jstr(dst, "action", e.Action)
		dst = jstr(dst, "agentId", e.AgentID)
		dst = jsonx.AppendOptStr(dst, "sessionKey", e.SessionKey)
		dst = append(dst, `,"patch":`...)
		dst = f.appendPatch(dst, e.Patch)
		dst = jint(dst, "patches", e.Count)
		dst = f.jtime(dst, "frameAt", e.At)
	case EffFlush:
		dst = jstr(dst, "action", e.Action)
		dst = jsonx.AppendOptStr(dst, "agentId", e.AgentID)
		dst = f.jpatches(dst, "writes", e.Patches)
	case EffDrop:
		dst = f.jpatches(dst, "dropped", e.Patches)
	case EffWrite:
		dst = jstr(dst, "agentId", e.AgentID)
		dst = jstr(dst, "intent", e.Intent)
		dst = append(dst, `,"patch":`...)
		dst = f.appendPatch(dst, e.Patch)
	case EffSkip:
		dst = jstr(dst, "agentId", e.AgentID)
		dst = jstr(dst, "intent", e.Intent)
		dst = jstr(dst, "reason", e.Reason)
	case EffAppend:
		dst = jstr(dst, "agentId", e.AgentID)
		dst = jsonx.AppendOptStr(dst, "sessionKey", e.SessionKey)
		dst = jint(dst, "lines", e.Count)
		dst = f.jtime(dst, "timestamp", e.At)
		if e.ID != "" { // Claw3D's upsert by entryId
			dst = jstr(dst, "entryId", e.ID)
			dst = append(dst, `,"replaced":`...)
			dst = strconv.AppendBool(dst, e.Replaced)
		}
		dst = jsonx.AppendOptStr(dst, "reason", e.Reason)
	case EffDuplicate:
		dst = jstr(dst, "agentId", e.AgentID)
		dst = jstr(dst, "text", e.Text)
		dst = jsonx.AppendOptStr(dst, "reason", e.Reason)
	case EffTrim:
		dst = jstr(dst, "agentId", e.AgentID)
		dst = jint(dst, "lines", e.Count)
	case EffBill:
		dst = jstr(dst, "agentId", e.AgentID)
		dst = jstr(dst, "model", e.Model)
		if e.Input.Valid {
			dst = jnum(dst, "inputTokens", e.Input.V)
		} else {
			dst = append(dst, `,"inputTokens":null`...)
		}
		dst = jnum(dst, "outputTokens", e.Output)
		if e.Action == BillNotRecorded {
			dst = jstr(dst, "action", e.Action)
			dst = jstr(dst, "reason", e.Reason)
		}
	case EffRequest:
		dst = jstr(dst, "action", e.Action)
		dst = jsonx.AppendOptStr(dst, "agentId", e.AgentID)
		dst = jsonx.AppendOptStr(dst, "reason", e.Reason)
	case EffHistory:
		dst = jstr(dst, "action", e.Action)
		dst = jstr(dst, "agentId", e.AgentID)
		dst = jsonx.AppendOptStr(dst, "sessionKey", e.SessionKey)
		dst = jstr(dst, "runId", e.RunID)
		dst = jint(dst, "lines", e.Count)
	case EffGuard:
		dst = jstr(dst, "action", e.Action)
		dst = jsonx.AppendOptStr(dst, "intent", e.Intent)
		dst = jsonx.AppendOptStr(dst, "agentId", e.AgentID)
		dst = jsonx.AppendOptStr(dst, "runId", e.RunID)
		if e.Action == ui.GuardClosed || e.Action == ui.GuardHazard || e.Action == ui.GuardKeptOpen {
			if e.Incoming == "" {
				dst = append(dst, `,"incoming":null`...)
			} else {
				dst = jstr(dst, "incoming", e.Incoming)
			}
		}
		dst = f.jtime(dst, "expiresAt", e.At)
		dst = jsonx.AppendOptStr(dst, "closedBy", e.ClosedBy)
		dst = jsonx.AppendOptStr(dst, "live", e.Live)
	case EffTimer:
		dst = jstr(dst, "action", e.Action)
		dst = jstr(dst, "timer", e.Name)
		dst = f.jtime(dst, "dueAt", e.At)
		dst = append(dst, `,"includeHeartbeatRefresh":`...)
		dst = strconv.AppendBool(dst, e.Heartbeat)
	case EffDispose:
		dst = jstr(dst, "action", e.Name)
		dst = jstr(dst, "reason", e.Reason)
		if e.Name == "handler" {
			dst = jint(dst, "closedRuns", e.Count)
			dst = append(dst, `,"timerCancelled":`...)
			dst = strconv.AppendBool(dst, e.Replaced)
		} else {
			dst = jint(dst, "dropped", e.Count)
		}
	case EffApproval:
		dst = jstr(dst, "action", e.Action)
		dst = jstr(dst, "id", e.ID)
		dst = jstr(dst, "agentId", e.AgentID)
		if e.Command.Valid {
			dst = jstr(dst, "command", e.Command.V)
		}
		dst = f.jtime(dst, "expiresAt", e.At)
		dst = jsonx.AppendOptStr(dst, "reason", e.Reason)
	case EffDiscard:
		dst = jstr(dst, "agentId", e.AgentID)
		dst = f.jpatches(dst, "dropped", e.Patches)
	case EffActivity:
		dst = jstr(dst, "agentId", e.AgentID)
		dst = f.jtime(dst, "at", e.At)
	case EffMetric, EffDecision:
		// The metric's or decision's own fields, after its name.
		key := "metric"
		if e.Type == EffDecision {
			key = "decision"
		}
		dst = append(dst, ',', '"')
		dst = append(dst, key...)
		dst = append(dst, `":`...)
		d := e.Detail.AppendJSONAt(nil, f.T0)
		dst = append(dst, d[len(`{"kind":`):len(d)-1]...)
	case EffLatest:
		dst = jstr(dst, "agentId", e.AgentID)
		dst = jstr(dst, "text", e.Text)
	case EffWarn:
		dst = jstr(dst, "text", e.Text)
	}
	return append(dst, '}')
}

func (f *Formatter) appendValJSON(dst []byte, v Val) []byte {
	switch v.k {
	case vStr:
		return jsonx.AppendString(dst, v.s)
	case vInt:
		return appendInt(dst, v.n)
	case vNum:
		return ui.AppendNumber(dst, v.f)
	case vTime:
		return appendInt(dst, f.rel(v.n))
	case vApproval:
		return f.appendApprovalJSON(dst, v.a)
	case vBool:
		return strconv.AppendBool(dst, v.n != 0)
	}
	return append(dst, "null"...)
}

func (f *Formatter) appendApprovalJSON(dst []byte, a *Approval) []byte {
	dst = append(dst, `{"agentId":`...)
	dst = jsonx.AppendString(dst, a.AgentID)
	dst = append(dst, `,"command":`...)
	if a.Command.Valid {
		dst = jsonx.AppendString(dst, a.Command.V)
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"createdAt":`...)
	dst = f.appendTimeOrNull(dst, a.CreatedAt)
	dst = append(dst, `,"expiresAt":`...)
	dst = f.appendTimeOrNull(dst, a.ExpiresAt)
	return append(dst, '}')
}

func (f *Formatter) appendTimeOrNull(dst []byte, n NInt) []byte {
	if !n.Valid {
		return append(dst, "null"...)
	}
	return appendInt(dst, f.rel(n.V))
}

func appendNStr(dst []byte, s NStr) []byte {
	if !s.Valid {
		return append(dst, "null"...)
	}
	return jsonx.AppendString(dst, s.V)
}

// StateFilter restricts the final state to one agent ("" = all).
type StateFilter struct {
	Agent string
}

// AppendFinalJSON appends {"final":<state>} and a newline. closed is the
// live handler's closed-run map.
func (f *Formatter) AppendFinalJSON(dst []byte, st *State, now int64, closed []ui.ClosedRun, flt StateFilter) []byte {
	dst = append(dst, `{"final":`...)
	dst = f.AppendStateJSON(dst, st, now, closed, flt)
	return append(dst, "}\n"...)
}

// AppendStateJSON appends the state as one JSON object with sorted keys
// where keys are ids: {"ui","t","agents","chat","approvals","cost",
// "requests","closedRuns"} (and "metrics" for a UI that logs them).
func (f *Formatter) AppendStateJSON(dst []byte, st *State, now int64, closed []ui.ClosedRun, flt StateFilter) []byte {
	dst = append(dst, `{"ui":`...)
	dst = jsonx.AppendString(dst, st.ui.String())
	dst = append(dst, `,"t":`...)
	dst = appendInt(dst, f.rel(now))
	dst = append(dst, `,"agents":{`...)
	n := 0
	for _, id := range st.AgentIDs() {
		if flt.Agent != "" && id != flt.Agent {
			continue
		}
		a := st.agents[id]
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		dst = jsonx.AppendString(dst, id)
		dst = append(dst, `:{"status":`...)
		dst = appendNStr(dst, a.Status)
		dst = append(dst, `,"runId":`...)
		dst = appendNStr(dst, a.RunID)
		dst = append(dst, `,"runStartedAt":`...)
		dst = f.appendTimeOrNull(dst, a.RunStartedAt)
		dst = append(dst, `,"streamText":`...)
		dst = appendNStr(dst, a.StreamText)
		dst = append(dst, `,"thinkingTrace":`...)
		dst = appendNStr(dst, a.ThinkingTrace)
		dst = append(dst, `,"lastActivityAt":`...)
		dst = f.appendTimeOrNull(dst, a.LastActivityAt)
		dst = append(dst, `,"pendingApprovals":`...)
		dst = appendInt(dst, int64(a.approvals))
		dst = append(dst, `,"outputLines":[`...)
		for i := 0; i < a.n; i++ {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = jsonx.AppendString(dst, a.line(i).Text)
		}
		dst = append(dst, `],"outputLinesDropped":`...)
		dst = appendInt(dst, a.dropped)
		if st.layout.AgentDetails {
			dst = f.appendAgentDetails(dst, a)
		}
		dst = append(dst, '}')
	}
	dst = append(dst, `},"chat":{`...)
	n = 0
	for _, k := range st.ChatKeys() {
		if flt.Agent != "" && bridge.SessionAgentID(k) != flt.Agent {
			continue
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		dst = jsonx.AppendString(dst, k)
		c := st.chat[k]
		dst = append(dst, `:{"streamText":`...)
		dst = appendNStr(dst, c.StreamText)
		if st.layout.Panes {
			dst = append(dst, `,"runId":`...)
			dst = appendNStr(dst, c.RunID)
			dst = append(dst, `,"runStatus":`...)
			dst = appendNStr(dst, c.RunStatus)
			dst = append(dst, `,"runError":`...)
			dst = appendNStr(dst, c.RunError)
			dst = jint(dst, "tools", c.Tools)
			dst = append(dst, `,"stop":`...)
			dst = strconv.AppendBool(dst, c.Stop())
		}
		dst = append(dst, '}')
	}
	dst = append(dst, `},"approvals":{`...)
	n = 0
	for _, id := range st.ApprovalIDs() {
		ap := st.approvals[id]
		if flt.Agent != "" && ap.AgentID != flt.Agent {
			continue
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		dst = jsonx.AppendString(dst, id)
		dst = append(dst, ':')
		dst = f.appendApprovalJSON(dst, ap)
	}
	dst = append(dst, `},"cost":{`...)
	n = 0
	for _, id := range sortedKeys(st.cost) {
		if flt.Agent != "" && id != flt.Agent {
			continue
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		dst = jsonx.AppendString(dst, id)
		dst = append(dst, ':', '{')
		byModel := st.cost[id]
		for j, m := range sortedKeys(byModel) {
			c := byModel[m]
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = jsonx.AppendString(dst, m)
			dst = append(dst, `:{"turns":`...)
			dst = appendInt(dst, c.Turns)
			dst = jnum(dst, "inputTokens", c.InputTokens)
			dst = jint(dst, "inputTokensUnknown", c.InputUnknown)
			dst = jnum(dst, "outputTokens", c.OutputTokens)
			dst = append(dst, '}')
		}
		dst = append(dst, '}')
	}
	dst = append(dst, `},"requests":{`...)
	for i, k := range st.RequestKinds() {
		r := st.Requests(k)
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonx.AppendString(dst, k)
		dst = append(dst, `:{"count":`...)
		dst = appendInt(dst, r.Count)
		dst = append(dst, `,"lastAt":`...)
		dst = f.appendTimeOrNull(dst, r.LastAt)
		dst = append(dst, '}')
	}
	if st.layout.Metrics {
		dst = append(dst, `},"metrics":{`...)
		for i, k := range st.MetricNames() {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = jsonx.AppendString(dst, k)
			dst = append(dst, ':')
			dst = appendInt(dst, st.metrics[k])
		}
	}
	dst = append(dst, `},"closedRuns":[`...)
	for i, c := range closed {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"runId":`...)
		dst = jsonx.AppendString(dst, c.RunID)
		dst = jint(dst, "expiresAt", f.rel(c.Expiry))
		dst = jsonx.AppendOptStr(dst, "closedBy", c.ClosedBy)
		dst = append(dst, '}')
	}
	return append(dst, "]}"...)
}

// AppendTranscriptJSON appends one line per agent:
// {"agentId":..,"lines":[{"kind":..,"timestamp":..,"text":..}],"dropped":n}.
func (f *Formatter) AppendTranscriptJSON(dst []byte, st *State, flt StateFilter) []byte {
	for _, id := range st.AgentIDs() {
		if flt.Agent != "" && id != flt.Agent {
			continue
		}
		a := st.agents[id]
		dst = append(dst, `{"agentId":`...)
		dst = jsonx.AppendString(dst, id)
		dst = append(dst, `,"lines":[`...)
		for i := 0; i < a.n; i++ {
			l := a.line(i)
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"kind":`...)
			dst = jsonx.AppendString(dst, l.Kind)
			dst = jsonx.AppendOptStr(dst, "role", l.Role)
			dst = jsonx.AppendOptStr(dst, "sessionKey", l.SessionKey)
			dst = jint(dst, "timestamp", f.rel(l.TS))
			dst = jstr(dst, "text", l.Text)
			dst = append(dst, '}')
		}
		dst = append(dst, `],"dropped":`...)
		dst = appendInt(dst, a.dropped)
		dst = append(dst, "}\n"...)
	}
	return dst
}

// appendAgentDetails appends the fields only Claw3D's agent store has, and
// each transcript entry's id, kind, run and confirmation.
func (f *Formatter) appendAgentDetails(dst []byte, a *Agent) []byte {
	dst = append(dst, `,"sessionCreated":`...)
	switch {
	case !a.SessionCreated.Valid:
		dst = append(dst, "null"...)
	default:
		dst = strconv.AppendBool(dst, a.SessionCreated.V)
	}
	dst = append(dst, `,"latestPreview":`...)
	dst = appendNStr(dst, a.LatestPreview)
	dst = append(dst, `,"lastUserMessage":`...)
	dst = appendNStr(dst, a.LastUserMessage)
	dst = append(dst, `,"lastResult":`...)
	dst = appendNStr(dst, a.LastResult)
	dst = append(dst, `,"lastAssistantMessageAt":`...)
	dst = f.appendTimeOrNull(dst, a.LastAssistantMessageAt)
	dst = append(dst, `,"entries":[`...)
	for i := 0; i < a.n; i++ {
		if i > 0 {
			dst = append(dst, ',')
		}
		l := a.line(i)
		dst = append(dst, l.meta()...)
	}
	return append(dst, ']')
}
