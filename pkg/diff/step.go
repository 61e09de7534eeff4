// Package diff compares two captures semantically: record by record, by
// what each frame is and what the UI pipeline does with it (intents and the
// replayed state), never by bytes. Volatile values — times, run ids,
// connection numbers and ids, nonces, idempotency keys, boot ids, request
// and approval ids, tool call ids — are normalised by first appearance
// (run#1, conn#1, …), so the same scenario recorded twice compares equal.
//
// Both captures are read in lock-step; after a divergence the comparison
// re-synchronises within a bounded look-ahead window, so memory stays
// bounded however long the captures are.
package diff

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/human"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/message"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/replay"
	"github.com/clawtap/clawtap/pkg/ui"
)

// Step is one compared record of a capture.
type Step struct {
	I    int    // record index
	T    int64  // offset from the capture's first record, ms
	Kind string // e.g. "chat delta", "req chat.send", "mark open"
	Desc string // the normalised description that is compared
}

// normaliser maps volatile values to stable names by first appearance.
// Each kind remembers its last maxNames values, so its memory does not grow
// with the capture: a value seen again after that many newer ones (a run id
// after 4,096 other runs) gets a new name, as it would on the other side of
// an equivalent capture.
type normaliser struct {
	kinds map[string]*names
}

// names is one kind's table: the name of each remembered value, the values
// in first-appearance order (a ring, oldest at next), and how many values
// were named.
type names struct {
	of    map[string]string
	order []string
	next  int
	count int
}

const maxNames = 4096

func (n *normaliser) name(kind, v string) string {
	if v == "" {
		return ""
	}
	if n.kinds == nil {
		n.kinds = make(map[string]*names)
	}
	k := n.kinds[kind]
	if k == nil {
		k = &names{of: make(map[string]string)}
		n.kinds[kind] = k
	}
	if s, ok := k.of[v]; ok {
		return s
	}
	k.count++
	s := kind + "#" + strconv.Itoa(k.count)
	if len(k.order) < maxNames {
		k.order = append(k.order, v)
	} else {
		delete(k.of, k.order[k.next])
		k.order[k.next] = v
		k.next = (k.next + 1) % maxNames
	}
	k.of[v] = s
	return s
}

// Options tune a comparison.
type Options struct {
	// Ignore lists event names left out of the comparison (their timing
	// relative to runs is noise): tick and health by default, see
	// DefaultIgnore. An empty, non-nil slice ignores nothing.
	Ignore []string
	// Structure compares without text: message, delta and error texts and
	// command lines are left out (for captures redacted with --content).
	Structure bool
	// Context is how many equal steps before a divergence are kept, and
	// how many steps of each side after it. 0 means 3.
	Context int
	// Divergences is how many divergences are kept, the first ones, each
	// with its context (Result.Parted counts them all). 0 means 1.
	Divergences int
	// Window bounds the look-ahead used to re-synchronise after a
	// divergence. 0 means 64.
	Window int
	// MergeDeltas compares streamed text by where it got, not by how it
	// was cut: the deltas a run streams on one stream between two other
	// steps become one step, the last (its text is the whole text so
	// far). Captures whose gateways paced or throttled deltas differently
	// then compare equal.
	MergeDeltas bool
	// UI is the UI model both captures replay under (zero: the default).
	UI replay.UI
}

// DefaultIgnore are the events left out unless Options.Ignore says otherwise.
var DefaultIgnore = []string{"tick", "health"}

// stepper turns one capture into steps.
type stepper struct {
	src    pipeline.Source
	pass   *pipeline.Pass
	eng    *replay.Engine
	cur    *Step // the step the last record made, if any
	n      normaliser
	ignore map[string]bool
	text   bool
	t0     int64
	effs   []string
	done   bool
	header *capture.Header
	meta   Meta

	merge    bool
	deltaKey string
	pending  []*Step // MergeDeltas: the last delta of each run and stream, in first-seen order
	keys     []string
	out      []*Step
}

// Meta describes a capture for the report.
type Meta struct {
	Records  int
	Versions []string
}

func newStepper(src pipeline.Source, opts *Options) *stepper {
	s := &stepper{src: src, ignore: map[string]bool{}, text: !opts.Structure, header: src.Header(), merge: opts.MergeDeltas}
	s.pass = pipeline.New(pipeline.Options{Replay: replay.Options{UI: opts.UI}}, s)
	s.eng = s.pass.Engine()
	ign := opts.Ignore
	if ign == nil {
		ign = DefaultIgnore
	}
	for _, e := range ign {
		s.ignore[e] = true
	}
	return s
}

// next returns the next compared step, or nil at the end.
func (s *stepper) next() *Step {
	if !s.merge {
		return s.step()
	}
	for len(s.out) == 0 {
		st, key := s.step(), ""
		if st != nil {
			key = s.deltaKey
		}
		if key == "" {
			// Anything else, or the end: the merged deltas come first.
			s.out = append(s.out, s.pending...)
			clear(s.pending)
			s.pending, s.keys = s.pending[:0], s.keys[:0]
			if st == nil {
				if len(s.out) == 0 {
					return nil
				}
				break
			}
			s.out = append(s.out, st)
			break
		}
		if k := slices.Index(s.keys, key); k >= 0 {
			s.pending[k] = st
		} else {
			s.pending, s.keys = append(s.pending, st), append(s.keys, key)
		}
	}
	st := s.out[0]
	s.out[0] = nil
	s.out = s.out[1:]
	return st
}

// step returns the next step of the capture, or nil at the end. With
// merging, s.deltaKey names the run and stream of a step that is a pure
// delta (nothing happened in the pipeline but the text), else it is "".
func (s *stepper) step() *Step {
	for !s.done {
		s.deltaKey, s.cur = "", nil
		s.effs = s.effs[:0]
		more, err := s.pass.Next(s.src)
		if err != nil || !more {
			s.done = true
			return nil
		}
		if s.cur != nil {
			return s.cur
		}
	}
	return nil
}

// Needs: the replay, whose record steps say what the UI did.
func (s *stepper) Needs() pipeline.Needs { return pipeline.Replay }

// After turns a record into a compared step, unless its event is ignored.
func (s *stepper) After(f *pipeline.Frame) error {
	rec, ev := f.Rec, f.Event
	s.meta.Records++
	if s.t0 == 0 && rec.T > 0 {
		s.t0 = rec.T
	}
	if ev.Kind == bridge.Marker && rec.Mark == capture.MarkHello && rec.Server != "" {
		s.addVersion(rec.Server)
	}
	if ev.Type == "event" && s.ignore[ev.Event] {
		return nil
	}
	st := &Step{I: rec.Index}
	if rec.T > 0 && s.t0 > 0 {
		st.T = rec.T - s.t0
	}
	st.Kind, st.Desc = s.describe(rec, ev)
	if len(s.effs) > 0 {
		st.Desc += " ⇒ " + strings.Join(s.effs, "; ")
	} else if s.merge && isDelta(ev) {
		s.deltaKey = st.Kind + " " + s.run(ev.RunID)
	}
	s.cur = st
	return nil
}

// isDelta reports whether ev streams text: a chat delta, or an agent
// event on the assistant or a reasoning stream. A delta that replaces the text (a retried attempt) is an event of its own.
func isDelta(ev *bridge.Event) bool {
	switch ev.Kind {
	case bridge.RuntimeChat:
		return ev.State == "delta" && !jsonx.Truthy(mustGet(ev.Payload, "replace"))
	case bridge.RuntimeAgent:
		if ev.Stream != "assistant" && !bridge.IsReasoningStream(ev.Stream) {
			return false
		}
		replace, _ := jsonx.GetPath(ev.Payload, "data", "replace")
		return !jsonx.Truthy(replace)
	}
	return false
}

func (s *stepper) addVersion(v string) {
	for _, x := range s.meta.Versions {
		if x == v {
			return
		}
	}
	if len(s.meta.Versions) < 16 {
		s.meta.Versions = append(s.meta.Versions, v)
	}
}

// Step records what the UI pipeline did for the record (timer steps are
// left out: their place depends on timing).
func (s *stepper) Step(st *replay.Step) error {
	if st.Timer != "" {
		return nil
	}
	for _, in := range st.Intents {
		if d := s.intent(in); d != "" {
			s.effs = append(s.effs, d)
		}
	}
	for k := range st.Effects {
		if d := s.effect(&st.Effects[k]); d != "" {
			s.effs = append(s.effs, d)
		}
	}
	for k := range st.Diff {
		if d := s.change(&st.Diff[k]); d != "" {
			s.effs = append(s.effs, d)
		}
	}
	return nil
}

// intent describes what an intent changes, when the UI's intents say
// something the effects and the diff do not (ui.Describer: clawboo's
// commits and status updates).
func (s *stepper) intent(x ui.Intent) string {
	if d, ok := x.(ui.Describer); ok {
		return d.Describe(s.run, s.text)
	}
	return ""
}

func (s *stepper) effect(e *replay.Effect) string {
	switch e.Type {
	case replay.EffGuard:
		switch e.Action {
		case ui.GuardDropped, ui.GuardHazard, ui.GuardKeptOpen:
			return "guard " + e.Action + " " + s.run(e.RunID)
		}
	case replay.EffApproval:
		return "approval " + e.Action + " " + s.n.name("approval", e.ID)
	case replay.EffDuplicate:
		return "duplicate line dropped"
	case replay.EffSkip:
		return "skip " + e.Intent + " (" + e.Reason + ")"
	}
	return ""
}

func (s *stepper) change(c *replay.Change) string {
	p := c.Path.String()
	rest, ok := strings.CutPrefix(p, "agents.")
	if !ok {
		if strings.HasPrefix(p, "cost.") && strings.HasSuffix(p, ".turns") {
			return "billed " + strings.TrimSuffix(strings.TrimPrefix(p, "cost."), ".turns")
		}
		return ""
	}
	i := strings.LastIndexByte(rest, '.')
	if i < 0 {
		return ""
	}
	agentID, field := rest[:i], rest[i+1:]
	a := s.eng.State().Agent(agentID)
	if a == nil {
		return ""
	}
	switch field {
	case "status":
		return agentID + ".status=" + nstr(a.Status)
	case "runId":
		if a.RunID.Valid {
			return agentID + ".runId=" + s.run(a.RunID.V)
		}
		return agentID + ".runId=null"
	}
	return ""
}

func nstr(v replay.NStr) string {
	if !v.Valid {
		return "null"
	}
	return v.V
}

func (s *stepper) run(id string) string {
	if id == "" {
		return "-"
	}
	return s.n.name("run", id)
}

func (s *stepper) describe(rec *capture.Record, ev *bridge.Event) (kind, desc string) {
	conn := s.n.name("conn", strconv.Itoa(rec.Conn))
	switch ev.Kind {
	case bridge.Marker:
		kind = "mark " + rec.Mark
		desc = kind + " " + conn
		switch rec.Mark {
		case capture.MarkHello:
			desc += " protocol " + strconv.Itoa(rec.Protocol)
		case capture.MarkClose:
			desc += " code " + strconv.Itoa(rec.Code)
		}
		return kind, desc
	case bridge.Invalid:
		return "invalid", "invalid " + conn + " " + ev.Reason
	}
	p := ev.Payload
	switch ev.Kind {
	case bridge.Request:
		kind = "req " + ev.Method
		desc = kind + " " + conn + " " + s.n.name("req", strconv.Itoa(rec.Conn)+"/"+ev.ID)
		params, _ := jsonx.Get(rec.Frame, "params")
		switch ev.Method {
		case "chat.send":
			if k, ok := jsonx.GetStr(params, "idempotencyKey"); ok {
				desc += " " + s.run(k)
			}
			if m, ok := jsonx.GetStr(params, "message"); ok && s.text {
				desc += " " + strconv.Quote(human.Clip(m, 80))
			}
		case "chat.abort":
			if k, ok := jsonx.GetStr(params, "runId"); ok {
				desc += " " + s.run(k)
			}
		case "exec.approval.resolve":
			id, _ := jsonx.GetStr(params, "id")
			dec, _ := jsonx.GetStr(params, "decision")
			desc += " " + s.n.name("approval", id) + " " + dec
		}
		return kind, desc
	case bridge.Response:
		kind = "res " + ev.Method
		desc = kind + " " + conn + " " + s.n.name("req", strconv.Itoa(rec.Conn)+"/"+ev.ID)
		if ev.OK != nil && !*ev.OK {
			desc += " failed " + ev.Code
		} else {
			desc += " ok"
			if st, ok := jsonx.GetStr(p, "status"); ok {
				desc += " status=" + st
			}
			if typ, ok := jsonx.GetStr(p, "type"); ok && typ == "hello-ok" {
				n, _ := jsonx.GetInt(p, "protocol")
				desc += " hello-ok protocol " + strconv.FormatInt(n, 10)
			}
			if id, ok := jsonx.GetStr(p, "runId"); ok {
				desc += " " + s.run(id)
			}
		}
		return kind, desc
	case bridge.RuntimeChat:
		kind = "chat " + ev.State
		desc = kind + " " + conn + " " + s.run(ev.RunID) + " " + ev.SessionKey
		if ev.State == "status" {
			desc += " " + ev.Phase
		}
		if jsonx.Truthy(mustGet(p, "replace")) {
			desc += " replace"
		}
		if s.text {
			if m, ok := jsonx.Get(p, "message"); ok {
				if t, ok := message.Text(m); ok {
					desc += " text=" + strconv.Quote(t)
				}
			}
			if em, ok := jsonx.GetStr(p, "errorMessage"); ok {
				desc += " error=" + strconv.Quote(human.Clip(em, 120))
			}
		}
		return kind, desc
	case bridge.RuntimeAgent:
		kind = "agent " + ev.Stream
		desc = kind + " " + conn + " " + s.run(ev.RunID)
		data, _ := jsonx.Get(p, "data")
		if ev.Phase != "" {
			desc += " " + ev.Phase
		}
		switch ev.Stream {
		case "assistant", "thinking":
			if t, ok := jsonx.GetStr(data, "text"); ok && s.text {
				desc += " text=" + strconv.Quote(t)
			}
		case "tool", "item":
			name, _ := jsonx.GetStr(data, "name")
			id, _ := jsonx.GetStr(data, "toolCallId")
			desc += " " + name + " " + s.n.name("tool", id)
		case "lifecycle":
			if id, ok := jsonx.GetStr(data, "approvalId"); ok {
				desc += " " + s.n.name("approval", id)
			}
		}
		return kind, desc
	case bridge.Approval:
		kind = "event " + ev.Event
		desc = kind + " " + conn + " " + s.n.name("approval", ev.ID)
		if dec, ok := jsonx.GetStr(p, "decision"); ok {
			desc += " " + dec
		}
		return kind, desc
	}
	kind = "event " + ev.Event
	return kind, kind + " " + conn
}

func mustGet(obj []byte, k string) []byte {
	v, _ := jsonx.Get(obj, k)
	return v
}

// String renders a step for a report line.
func (st *Step) String() string {
	return fmt.Sprintf("#%d +%d.%03ds %s", st.I, st.T/1000, st.T%1000, st.Desc)
}
