package replay

import (
	"strconv"
	"strings"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/human"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/jsstr"
	"github.com/clawtap/clawtap/pkg/ui"
)

// ---- text ----

func (f *Formatter) width() int {
	if f.Width <= 0 {
		return 120
	}
	return f.Width
}

// oneLine makes a string printable on one line: JSON-escaped without quotes.
func oneLine(b []byte) string {
	q := jsonx.AppendString(nil, string(b))
	return string(q[1 : len(q)-1])
}

// FrameLine describes a record on one line.
func FrameLine(rec *capture.Record) string {
	switch {
	case rec.Mark != "":
		s := "mark " + rec.Mark
		if rec.Code != 0 {
			s += " code=" + strconv.Itoa(rec.Code)
		}
		if rec.Reason != "" {
			s += " reason=" + strconv.Quote(rec.Reason)
		}
		if rec.Err != "" {
			s += " error=" + strconv.Quote(rec.Err)
		}
		return s
	case rec.Malformed:
		return "malformed line: " + oneLine(rec.Raw)
	case rec.IsRaw:
		return "raw: " + oneLine(rec.Raw)
	}
	return compactLine(jsonx.TrimSpace(rec.Frame))
}

// compactLine puts a JSON value on one line: in valid JSON a line break can
// only be whitespace outside strings.
func compactLine(b []byte) string {
	for i := 0; i < len(b); i++ {
		if b[i] == '\n' || b[i] == '\r' || b[i] == '\t' {
			c := make([]byte, len(b))
			copy(c, b)
			for j := i; j < len(c); j++ {
				if c[j] == '\n' || c[j] == '\r' || c[j] == '\t' {
					c[j] = ' '
				}
			}
			return string(c)
		}
	}
	return string(b)
}

// AppendStepText appends the human form of a step: a header (record index,
// time since start, direction, the frame), then one line per intent,
// effect and diff entry.
func (f *Formatter) AppendStepText(dst []byte, s *Step) []byte {
	st := &f.Style
	w := f.width()
	if s.Timer != "" {
		dst = append(dst, paint(st.Time, human.Secs(f.rel(s.T)))...)
		dst = append(dst, "  "...)
		dst = append(dst, paint(st.Header, "timer "+s.Timer)...)
		dst = append(dst, paint(st.Dim, " (after #"+strconv.Itoa(s.I)+")")...)
		dst = append(dst, '\n')
	} else {
		dst = append(dst, paint(st.Time, human.Secs(f.rel(s.T)))...)
		dst = append(dst, "  "...)
		hdr := "#" + strconv.Itoa(s.I)
		if s.Rec != nil {
			if s.Rec.Dir != "" {
				hdr += " " + s.Rec.Dir
			}
			if s.Rec.Conn > 1 {
				hdr += " conn " + strconv.Itoa(s.Rec.Conn)
			}
		}
		dst = append(dst, paint(st.Header, hdr)...)
		if s.Rec != nil {
			dst = append(dst, ' ')
			dst = append(dst, paint(st.Frame, human.Printable(human.Clip(FrameLine(s.Rec), w)))...)
		}
		dst = append(dst, '\n')
	}
	for _, in := range s.Intents {
		dst = append(dst, "  → "...)
		dst = f.AppendIntentLine(dst, in)
		dst = append(dst, '\n')
	}
	for i := range s.Effects {
		e := &s.Effects[i]
		mark := "  • "
		if e.Type == EffGuard {
			mark = "  ! "
		}
		dst = append(dst, mark...)
		dst = f.AppendEffectLine(dst, e)
		dst = append(dst, '\n')
	}
	for i := range s.Diff {
		dst = append(dst, "  Δ "...)
		dst = f.AppendChangeLine(dst, &s.Diff[i])
		dst = append(dst, '\n')
	}
	return dst
}

// IntentText renders an intent on one line: its kind, then its fields as
// compact JSON (times relative to T0); an ignore is "ignore: <reason>".
func (f *Formatter) IntentText(in ui.Intent) string { return string(f.appendIntentText(nil, in)) }

// appendIntentText appends IntentText(in), in place of the intent's JSON.
func (f *Formatter) appendIntentText(dst []byte, in ui.Intent) []byte {
	kind := in.IntentKind()
	start := len(dst)
	dst = in.AppendJSONAt(dst, f.T0)
	js := dst[start:]
	if kind == ui.IgnoreKind {
		reason, _ := jsonx.GetStr(js, "reason") // a copy: dst is written over next
		return append(append(dst[:start], "ignore: "...), reason...)
	}
	// Drop the {"kind":"..." prefix: the kind leads the line instead.
	head := len(`{"kind":`) + len(kind) + 2
	if !jsonx.Plain(kind) {
		head = len(`{"kind":`) + len(jsonx.AppendString(nil, kind))
	}
	rest := len(js) - head
	if rest <= 1 {
		return append(append(dst[:start], kind...), ' ')
	}
	js[head] = '{' // the comma after the kind opens the fields
	n := copy(js, kind)
	js[n] = ' '
	copy(js[n+1:], js[head:])
	return dst[:start+n+1+rest]
}

// plainText reports whether s prints unambiguously without quotes.
func plainText(s string) bool {
	if s == "" || s == "null" || s == "true" || s == "false" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == ':' || c == '.' || c == '/' || c == '@') {
			return false
		}
	}
	// Only a number would read as one. ParseFloat is asked only when s
	// may be one: its error copies s.
	switch c := s[0]; {
	case c >= '0' && c <= '9', c == '.', c == '-', c == 'i', c == 'I', c == 'n', c == 'N':
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			return false
		}
	}
	return true
}

// ValueText renders a state value for people, clipped to the width.
func (f *Formatter) ValueText(v Val) string { return f.valText(v, f.width()) }

func (f *Formatter) valText(v Val, w int) string { return string(f.appendVal(nil, v, w)) }

// appendVal appends valText(v, w).
func (f *Formatter) appendVal(dst []byte, v Val, w int) []byte {
	switch v.k {
	case vNull:
		return append(dst, "null"...)
	case vStr:
		if plainText(v.s) {
			return clipFrom(append(dst, ui.CutRunes(v.s, w+1)...), len(dst), w)
		}
		return appendQuotedClip(dst, v.s, w)
	case vInt:
		return strconv.AppendInt(dst, v.n, 10)
	case vNum:
		return jsstr.AppendNumber(dst, v.f)
	case vTime:
		return f.appendSecs(dst, v.n)
	case vApproval:
		return clipFrom(f.appendApprovalJSON(dst, v.a), len(dst), w*2)
	case vBool:
		return strconv.AppendBool(dst, v.n != 0)
	}
	return append(dst, '?')
}

func quoteRun(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// appendPatchText appends p as JSON, its texts cut to n runes (n <= 0:
// whole).
func (f *Formatter) appendPatchText(dst []byte, p ui.Patch, n int) []byte {
	return f.appendPatch(dst, p.CutTexts(n))
}

// appendPatchesText lists patches, their texts cut to n runes (n <= 0:
// whole).
func (f *Formatter) appendPatchesText(dst []byte, ps []ui.AgentPatch, n int) []byte {
	for i := range ps {
		if i > 0 {
			dst = append(dst, "; "...)
		}
		dst = append(dst, ps[i].AgentID...)
		dst = append(dst, " ← "...)
		dst = f.appendPatchText(dst, ps[i].Patch, n)
		if ps[i].Patches > 1 {
			dst = append(dst, " ("...)
			dst = strconv.AppendInt(dst, int64(ps[i].Patches), 10)
			dst = append(dst, " patches)"...)
		}
	}
	return dst
}

// appendSecs appends a time as an offset from T0 (+1.250s).
func (f *Formatter) appendSecs(dst []byte, t int64) []byte { return human.AppendSecs(dst, f.rel(t)) }

// appendQuoted appends s clipped to n runes, Go-quoted.
func appendQuoted(dst []byte, s string, n int) []byte {
	return strconv.AppendQuote(dst, human.Clip(s, n))
}

// appendEffect appends the description of an effect; its patches' texts
// are cut to n runes (n <= 0: whole), for a line clipped to n.
func (f *Formatter) appendEffect(b []byte, e *Effect, n int) []byte {
	switch e.Type {
	case EffQueue:
		b = append(b, "queue "...)
		b = append(b, e.AgentID...)
		b = append(b, " ("...)
		b = append(b, e.Action...)
		b = append(b, ", "...)
		b = strconv.AppendInt(b, e.Count, 10)
		b = append(b, " pending"...)
		if e.At.Valid {
			b = append(b, ", frame at "...)
			b = f.appendSecs(b, e.At.V)
		}
		b = append(b, ") "...)
		return f.appendPatchText(b, e.Patch, n)
	case EffFlush:
		if e.Action == "clear" {
			b = append(b, "flush (clearPendingLivePatch "...)
			b = append(b, e.AgentID...)
			b = append(b, "): "...)
		} else {
			b = append(b, "flush (frame): "...)
		}
		return f.appendPatchesText(b, e.Patches, n)
	case EffDrop:
		return f.appendPatchesText(append(b, "drop unflushed: "...), e.Patches, n)
	case EffWrite:
		b = append(b, "write "...)
		b = append(b, e.AgentID...)
		b = append(b, " ← "...)
		b = f.appendPatchText(b, e.Patch, n)
		b = append(b, " ("...)
		b = append(b, e.Intent...)
		return append(b, ')')
	case EffSkip:
		b = append(b, "skip "...)
		b = append(b, e.Intent...)
		b = append(b, " status patch for "...)
		b = append(b, e.AgentID...)
		b = append(b, ": "...)
		return append(b, e.Reason...)
	case EffAppend:
		b = append(b, "append "...)
		b = strconv.AppendInt(b, e.Count, 10)
		b = append(b, " line(s) to "...)
		b = append(b, e.AgentID...)
		b = append(b, " transcript (timestamp "...)
		b = f.appendSecs(b, e.At.V)
		b = append(b, ')')
		switch {
		case e.ID != "" && e.Replaced:
			b = append(b, " replacing entry "...)
			b = append(b, e.ID...)
		case e.ID != "":
			b = append(b, " as entry "...)
			b = append(b, e.ID...)
		}
		if e.Reason != "" {
			b = append(b, ": "...)
			b = append(b, e.Reason...)
		}
		return b
	case EffDuplicate:
		if e.Reason != "" { // a line the host held back, not the store
			b = append(b, e.Reason...)
			b = append(b, ": "...)
			return appendQuoted(b, e.Text, 60)
		}
		b = append(b, "duplicate line dropped by the chat store for "...)
		b = append(b, e.AgentID...)
		b = append(b, ": "...)
		return appendQuoted(b, e.Text, 60)
	case EffTrim:
		b = append(b, "transcript cap: dropped "...)
		b = strconv.AppendInt(b, e.Count, 10)
		b = append(b, " oldest line(s) of "...)
		return append(b, e.AgentID...)
	case EffBill:
		b = append(b, "bill "...)
		b = append(b, e.AgentID...)
		b = append(b, ' ')
		b = append(b, e.Model...)
		b = append(b, ": in "...)
		if e.Input.Valid {
			b = jsstr.AppendNumber(b, e.Input.V)
		} else {
			b = append(b, '?')
		}
		b = append(b, ", out "...)
		b = jsstr.AppendNumber(b, e.Output)
		if e.Action == BillNotRecorded {
			b = append(b, " — not recorded: "...)
			b = append(b, e.Reason...)
		}
		return b
	case EffHistory:
		b = append(b, "history refresh answered: merged "...)
		b = strconv.AppendInt(b, e.Count, 10)
		b = append(b, " line(s) of run "...)
		b = append(b, quoteRun(e.RunID)...)
		b = append(b, " (its final was dropped by the guard) into "...)
		b = append(b, e.AgentID...)
		return append(b, "'s transcript"...)
	case EffRequest:
		b = append(b, "request "...)
		b = append(b, e.Action...)
		if e.AgentID != "" {
			b = append(b, ' ')
			b = append(b, e.AgentID...)
		}
		if e.Reason != "" {
			b = append(b, " ("...)
			b = append(b, e.Reason...)
			b = append(b, ')')
		}
		return b
	case EffGuard:
		return f.appendGuard(b, e)
	case EffTimer:
		b = append(b, "timer "...)
		b = append(b, e.Name...)
		if e.Action == "fired" {
			b = append(b, " fired"...)
		} else {
			b = append(b, ' ')
			b = append(b, e.Action...)
			b = append(b, " for "...)
			b = f.appendSecs(b, e.At.V)
		}
		if e.Heartbeat {
			b = append(b, " with heartbeat refresh"...)
		}
		return b
	case EffDispose:
		if e.Name == "handler" {
			b = append(b, "dispose handler ("...)
			b = append(b, e.Reason...)
			b = append(b, "): "...)
			b = strconv.AppendInt(b, e.Count, 10)
			b = append(b, " closed run(s) forgotten"...)
			if e.Replaced {
				b = append(b, ", summary refresh timer cancelled"...)
			}
			return b
		}
		b = append(b, "dispose patch queue ("...)
		b = append(b, e.Reason...)
		b = append(b, "): "...)
		b = strconv.AppendInt(b, e.Count, 10)
		return append(b, " pending patch(es) dropped"...)
	case EffDiscard:
		b = append(b, "discard "...)
		b = append(b, e.AgentID...)
		b = append(b, "'s pending live patch (clearPendingLivePatch): "...)
		return f.appendPatchesText(b, e.Patches, n)
	case EffActivity:
		return append(append(b, "markActivity "...), e.AgentID...)
	case EffMetric:
		return e.Detail.AppendJSONAt(append(b, "metric "...), f.T0)
	case EffDecision:
		return e.Detail.AppendJSONAt(append(b, "decision "...), f.T0)
	case EffLatest:
		b = append(b, "latest update "...)
		b = append(b, e.AgentID...)
		b = append(b, ": "...)
		return appendQuoted(b, e.Text, 60)
	case EffWarn:
		return append(append(b, "warning: "...), e.Text...)
	case EffApproval:
		b = append(b, "approval "...)
		b = append(b, e.Action...)
		b = append(b, ' ')
		b = append(b, e.ID...)
		b = append(b, " ("...)
		b = append(b, e.AgentID...)
		if e.Command.Valid {
			b = append(b, ": "...)
			b = appendQuoted(b, e.Command.V, 40)
		}
		b = append(b, ')')
		if e.At.Valid && (e.Action == "added" || e.Action == "updated") {
			b = append(b, " expires "...)
			b = f.appendSecs(b, e.At.V)
		}
		return b
	}
	return append(b, e.Type...)
}

// appendGuard describes a closed-run guard decision.
func (f *Formatter) appendGuard(b []byte, e *Effect) []byte {
	str := func(ss ...string) []byte {
		for _, s := range ss {
			b = append(b, s...)
		}
		return b
	}
	switch e.Action {
	case ui.GuardDropped:
		b = f.appendSecs(str("guard: dropped ", e.Intent, " for ", e.AgentID, ": run ", e.RunID, " is closed until "), e.At.V)
		switch {
		case e.ClosedBy == "commit" && e.Intent == "commitChat":
			b = str(" (closed by its commit: a replayed final)")
		case e.ClosedBy == "commit":
			b = str(" (closed by its commit)")
		case e.ClosedBy == "lifecycle" && e.Live != "":
			b = str(" (closed by its lifecycle terminal, and run ", e.Live, " is live)")
		case e.ClosedBy == "lifecycle":
			b = str(" (closed by its lifecycle terminal)")
		}
		return b
	case ui.GuardPassed:
		return str("guard: ", e.Intent, " for ", e.AgentID, " goes through: run ", e.RunID, " was closed by its lifecycle terminal, and no other run is live")
	case ui.GuardFailOpen:
		return str("guard: ", e.Intent, " for ", e.AgentID, " has no runId; let through (fail-open)")
	case ui.GuardClosed:
		b = f.appendSecs(str("guard: run ", e.RunID, " of ", e.AgentID, " recorded closed until "), e.At.V)
		if e.ClosedBy != "" {
			b = str(" by its ", e.ClosedBy)
		}
		if e.Incoming != e.RunID {
			b = str(" (incoming run ", quoteRun(e.Incoming), ")")
		}
		return b
	case ui.GuardHazard:
		return f.appendSecs(str("HAZARD: ", e.Intent, " for run ", quoteRun(e.Incoming), " closed the live run ", e.RunID, " of ", e.AgentID,
			"; ", e.RunID, "'s own terminal will be dropped until "), e.At.V)
	case ui.GuardKeptOpen:
		return str("guard: run ", e.RunID, " of ", e.AgentID, " stays open (dispatch did not clear it)")
	case ui.GuardExpired:
		return append(f.appendSecs(str("guard: closed run ", e.RunID, " expired (was closed until "), e.At.V), ')')
	case ui.GuardEvicted:
		return str("guard: closed run ", e.RunID, " evicted (more than 500 closed runs)")
	}
	return str("guard: ", e.Action)
}

// AppendFinalText appends the final state for people: one line per
// non-null field, then approvals, cost, requests and closed runs.
func (f *Formatter) AppendFinalText(dst []byte, st *State, now int64, closed []ui.ClosedRun, flt StateFilter) []byte {
	s := &f.Style
	w := f.width()
	dst = append(dst, paint(s.Header, "final state of the "+st.ui.String()+" UI at "+human.Secs(f.rel(now)))...)
	dst = append(dst, '\n')
	field := func(path string, v string) {
		dst = append(dst, "  "...)
		dst = append(dst, paint(s.Path, human.Printable(path))...)
		dst = append(dst, ": "...)
		dst = append(dst, human.Printable(v)...)
		dst = append(dst, '\n')
	}
	for _, id := range st.AgentIDs() {
		if flt.Agent != "" && id != flt.Agent {
			continue
		}
		a := st.agents[id]
		p := Path{sec: secAgents, key: id}
		name := func(fl uint8) string { p.field = fl; return p.String() }
		if !st.layout.Panes || a.Status.Valid || a.RunID.Valid { // a pane has no fleet store
			field(name(fStatus), f.valText(strVal(a.Status), w))
			field(name(fRunID), f.valText(strVal(a.RunID), w))
		}
		if a.RunStartedAt.Valid {
			field(name(fRunStartedAt), f.valText(timeVal(a.RunStartedAt), w))
		}
		if a.StreamText.Valid {
			field(name(fStreamText), f.valText(strVal(a.StreamText), w))
		}
		if a.ThinkingTrace.Valid {
			field(name(fThinkingTrace), f.valText(strVal(a.ThinkingTrace), w))
		}
		if a.LastActivityAt.Valid {
			field(name(fLastActivityAt), f.valText(timeVal(a.LastActivityAt), w))
		}
		for _, x := range []struct {
			fl uint8
			v  Val
		}{{fSessionCreated, boolVal(a.SessionCreated)}, {fLatestPreview, strVal(a.LatestPreview)}, {fLastUserMessage, strVal(a.LastUserMessage)},
			{fLastResult, strVal(a.LastResult)}, {fLastAssistantMessageAt, timeVal(a.LastAssistantMessageAt)}} {
			if !x.v.IsNull() {
				field(name(x.fl), f.valText(x.v, w))
			}
		}
		lines := strconv.Itoa(a.n) + " line(s)"
		if a.dropped > 0 {
			lines += ", " + strconv.FormatInt(a.dropped, 10) + " older dropped by the cap"
		}
		field(name(fStatus)[:len(name(fStatus))-len("status")]+"outputLines", lines)
	}
	for _, k := range st.ChatKeys() {
		c := st.chat[k]
		if flt.Agent != "" && bridge.SessionAgentID(k) != flt.Agent {
			continue
		}
		if c.StreamText.Valid { // a cleared bubble says nothing
			field(Path{sec: secChat, key: k}.String(), f.valText(strVal(c.StreamText), w))
		}
		if !st.layout.Panes {
			continue
		}
		for _, p := range [...]struct {
			field uint8
			v     NStr
		}{{fRunID, c.RunID}, {fRunStatus, c.RunStatus}, {fRunError, c.RunError}} {
			if p.v.Valid {
				field(Path{sec: secChat, key: k, field: p.field}.String(), f.valText(strVal(p.v), w))
			}
		}
		if c.Tools > 0 {
			field(Path{sec: secChat, key: k, field: fTools}.String(), strconv.FormatInt(c.Tools, 10))
		}
		if c.Stop() {
			field(string(appendKey([]byte("chat"), k))+".stop", "shown") // derived, not a path of the diff
		}
	}
	for _, id := range st.ApprovalIDs() {
		ap := st.approvals[id]
		if flt.Agent != "" && ap.AgentID != flt.Agent {
			continue
		}
		field(Path{sec: secApprovals, key: id}.String(), string(f.appendApprovalJSON(nil, ap)))
	}
	for _, id := range sortedKeys(st.cost) {
		if flt.Agent != "" && id != flt.Agent {
			continue
		}
		for _, m := range sortedKeys(st.cost[id]) {
			c := st.cost[id][m]
			p := Path{sec: secCost, key: id, key2: m, field: fTurns}
			name := string(p.append(nil))
			name = name[:len(name)-len(".turns")]
			v := strconv.FormatInt(c.Turns, 10) + " turn(s), input " + numText(c.InputTokens)
			if c.InputUnknown > 0 {
				v += " (+" + strconv.FormatInt(c.InputUnknown, 10) + " turn(s) unknown)"
			}
			v += ", output " + numText(c.OutputTokens)
			field(name, v)
		}
	}
	var req []byte
	for i, k := range st.RequestKinds() {
		r := st.Requests(k)
		if i > 0 {
			req = append(req, ", "...)
		}
		req = append(req, k...)
		req = append(req, ' ')
		req = appendInt(req, r.Count)
		if r.LastAt.Valid {
			req = append(req, " (last "...)
			req = append(req, human.Secs(f.rel(r.LastAt.V))...)
			req = append(req, ')')
		}
	}
	field("requests", string(req))
	for _, k := range st.MetricNames() {
		field(Path{sec: secMetrics, key: k}.String(), strconv.FormatInt(st.metrics[k], 10))
	}
	if len(closed) > 0 {
		var cr []byte
		for i, c := range closed {
			if i > 0 {
				cr = append(cr, ", "...)
			}
			cr = append(cr, c.RunID...)
			cr = append(cr, " until "...)
			cr = append(cr, human.Secs(f.rel(c.Expiry))...)
			if c.ClosedBy != "" {
				cr = append(cr, " (by "...)
				cr = append(cr, c.ClosedBy...)
				cr = append(cr, ')')
			}
		}
		field("closedRuns", human.Clip(string(cr), 4*w))
	}
	return dst
}

// AppendTranscriptText appends each agent's committed transcript as a
// person would read it: assistant text as is, tool calls and results as
// labelled blocks, injected meta lines marked.
func (f *Formatter) AppendTranscriptText(dst []byte, st *State, flt StateFilter) []byte {
	s := &f.Style
	for _, id := range st.AgentIDs() {
		if flt.Agent != "" && id != flt.Agent {
			continue
		}
		a := st.agents[id]
		hdr := "== " + id + " (" + strconv.Itoa(a.n) + " line(s)"
		if a.dropped > 0 {
			hdr += "; " + strconv.FormatInt(a.dropped, 10) + " older dropped by the " + strconv.Itoa(st.layout.TranscriptCap) + "-line cap"
		}
		dst = append(dst, paint(s.Header, human.Printable(hdr)+") ==")...)
		dst = append(dst, '\n')
		for i := 0; i < a.n; i++ {
			dst = appendReadableLine(dst, a.line(i), s)
		}
	}
	return dst
}

func appendReadableLine(dst []byte, l Line, s *Style) []byte {
	text := l.Text
	label := ""
	switch {
	case strings.HasPrefix(text, "[[tool-result]]"):
		label, text = "result: ", text[len("[[tool-result]]"):]
	case strings.HasPrefix(text, "[[tool]]"):
		label, text = "tool: ", text[len("[[tool]]"):]
	case strings.HasPrefix(text, "[[trace]]"):
		label, text = "thinking: ", text[len("[[trace]]"):]
	case strings.HasPrefix(text, "[[meta]]"):
		label, text = "meta: ", text[len("[[meta]]"):]
	case l.Kind == LineMeta:
		label = "-- "
	}
	head, body, _ := cutLine(trimSpaceStr(text))
	if label != "" {
		dst = append(dst, paint(s.Dim, label)...)
	}
	dst = append(dst, human.Text(head)...)
	dst = append(dst, '\n')
	for body != "" {
		var ln string
		ln, body, _ = cutLine(body)
		if label != "" && strings.HasPrefix(ln, "```") {
			continue // fences around tool arguments and output
		}
		if label != "" {
			dst = append(dst, "    "...)
		}
		dst = append(dst, human.Text(ln)...)
		dst = append(dst, '\n')
	}
	return dst
}

func cutLine(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

func trimSpaceStr(s string) string {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	return s
}
