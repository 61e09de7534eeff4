package reshape

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/release"
)

// maxRuns bounds the runs whose text one connection keeps; past it the
// oldest is forgotten, and its next delta is written whole (a snapshot
// is always valid on the target's wire).
const maxRuns = 4096

// run is one reshape: the connections' live text and the counts.
type run struct {
	opts          Options
	to            string
	first         string // the release the first hello names
	from          string
	conns         map[int]*connState
	res           Result
	unknownWarned bool
	forcedWarned  bool
}

// connState is what one connection holds, as the target gateway tracks
// it: the last text each run published to it (the receipt its next append
// builds on), per projection key; and what its client rebuilt, to check
// the output.
type connState struct {
	bootID  string
	lastSeq int64
	hasSeq  bool
	chat    map[string]*chatBase
	agent   map[string]*agentBase
	order   []string // run ids in the order first kept, for the cap
	proj    *projection
}

type chatBase struct {
	session, agentID string
	hasAgentID       bool
	text, nonText    string
}

type agentBase struct {
	session, agentID string
	hasAgentID       bool
	item             string
	hasItem          bool
	text             string
}

func newRun(opts Options) *run {
	return &run{opts: opts, to: opts.Target.String(), conns: map[int]*connState{}}
}

func (r *run) conn(n int) *connState {
	cs := r.conns[n]
	if cs == nil {
		cs = &connState{chat: map[string]*chatBase{}, agent: map[string]*agentBase{}, proj: newProjection()}
		r.conns[n] = cs
		r.res.Connections++
	}
	return cs
}

func (r *run) warn(i, conn int, caveat bool, msg string) {
	r.res.Warnings++
	if caveat {
		r.res.Caveats++
	}
	if r.opts.OnWarning != nil {
		r.opts.OnWarning(Warning{I: i, Conn: conn, Caveat: caveat, Msg: msg})
	}
}

// clear forgets run id on cs (its next delta is written whole).
func (cs *connState) clear(id string) {
	delete(cs.chat, id)
	delete(cs.agent, id)
}

// clearAll forgets every run on cs.
func (cs *connState) clearAll() {
	clear(cs.chat)
	clear(cs.agent)
	cs.order = cs.order[:0]
}

// keep remembers that run id has a baseline on cs, forgetting the oldest
// past the cap.
func (r *run) keep(cs *connState, id string) {
	_, c := cs.chat[id]
	_, a := cs.agent[id]
	if c || a {
		return
	}
	if len(cs.chat)+len(cs.agent) >= maxRuns && len(cs.order) > 0 {
		for len(cs.order) > 0 && len(cs.chat)+len(cs.agent) >= maxRuns {
			old := cs.order[0]
			cs.order = cs.order[1:]
			if _, ok := cs.chat[old]; ok {
				r.res.Evicted++
			}
			cs.clear(old)
		}
	}
	if len(cs.order) > 2*maxRuns {
		kept := cs.order[:0]
		for _, k := range cs.order {
			_, c := cs.chat[k]
			_, a := cs.agent[k]
			if c || a {
				kept = append(kept, k)
			}
		}
		cs.order = kept
	}
	cs.order = append(cs.order, id)
}

// record reshapes one record and writes it.
func (r *run) record(dst Sink, rec *capture.Record) error {
	r.res.Records++
	if err := r.reshape(rec); err != nil {
		return err
	}
	return dst.Write(rec)
}

func (r *run) reshape(rec *capture.Record) error {
	switch rec.Mark {
	case "":
	case capture.MarkOpen:
		delete(r.conns, rec.Conn)
		r.conn(rec.Conn)
		return nil
	case capture.MarkHello:
		cs := r.conn(rec.Conn)
		if rec.BootID != "" {
			cs.bootID = rec.BootID
		}
		if rec.Protocol == 3 {
			return &RefusedError{Reason: "connection " + itoa(rec.Conn) + " speaks protocol 3 (record " + itoa(rec.Index) + "): its frames differ from the " + r.to + " wire in more than live text",
				Hint: "reshape rewrites protocol 4 captures of 2026.9.6"}
		}
		if rec.Server != "" {
			if err := r.accept(rec.Server, rec.Index); err != nil {
				return err
			}
			rec.Server = r.to
			r.res.Hellos++
		}
		return nil
	case capture.MarkClose, capture.MarkError:
		delete(r.conns, rec.Conn)
		return nil
	default:
		return nil
	}
	if rec.Frame == nil {
		return nil
	}
	r.res.Frames++
	cs := r.conn(rec.Conn)
	if rec.Dir == capture.DirOut {
		r.request(rec, cs)
		return nil
	}
	if h, ok := readHelloOK(rec.Frame); ok {
		return r.hello(rec, h, cs)
	}
	ev := bridge.Classify(rec.Frame, rec.T)
	if ev.Type != "event" {
		return nil
	}
	// A frame seq that skips: a frame the connection never got (a slow
	// consumer's drop). Its runs' next deltas come whole.
	if ev.HasSeq {
		if cs.hasSeq && ev.Seq > cs.lastSeq+1 {
			cs.clearAll()
		}
		if !cs.hasSeq || ev.Seq > cs.lastSeq {
			cs.lastSeq, cs.hasSeq = ev.Seq, true
		}
	}
	switch ev.Kind {
	case bridge.RuntimeChat:
		return r.chat(rec, &ev, cs)
	case bridge.RuntimeAgent:
		return r.agent(rec, &ev, cs)
	}
	return nil
}

// request notes what a client's request changes: a session's message
// subscription resets the connection's receipts of that session's runs
// (at the request: the gateway's moment lies between it and its answer,
// and a snapshot is valid at either), and tasks.* is gone.
func (r *run) request(rec *capture.Record, cs *connState) {
	if !jsonx.StrIs(mustGet(rec.Frame, "type"), "req") {
		return
	}
	method, _ := jsonx.GetStr(rec.Frame, "method")
	switch {
	case method == "sessions.messages.subscribe" || method == "sessions.messages.unsubscribe":
		key, _ := jsonx.GetStr(mustGet(rec.Frame, "params"), "key")
		for id, b := range cs.chat {
			if b.session == key {
				delete(cs.chat, id)
			}
		}
		for id, b := range cs.agent {
			if b.session == key {
				delete(cs.agent, id)
			}
		}
		if method == "sessions.messages.unsubscribe" {
			cs.proj.forgetSession(key)
		}
	case strings.HasPrefix(method, "tasks."):
		r.res.Tasks++
		r.warn(rec.Index, rec.Conn, true, fmt.Sprintf("a %s call: %s removed the tasks.* methods, so its gateway would have refused it; the recorded answer is kept", method, release.Since(release.TasksRemoved)))
	}
}

// result finishes the counts.
func (r *run) result() *Result {
	res := r.res
	res.From, res.To = r.from, r.to
	res.Simulated = []string{release.AppendOnly, release.TasksRemoved}
	for _, c := range release.Changes {
		if why, ok := strings.CutPrefix(c.Reshape, "not simulated: "); ok && c.Since.Compare(r.opts.Target) <= 0 {
			res.NotSimulated = append(res.NotSimulated, c.Name+" ("+c.Since.String()+"): "+why)
		}
	}
	return &res
}

// header is the output's header: the input's, marked as reshaped.
func (r *run) header(in *capture.Header, first *capture.Record) capture.Header {
	var h capture.Header
	mode, tool := "", ""
	if in != nil {
		h = *in
		mode, tool = in.Source.Mode, in.Source.Tool
	} else {
		h.Version = capture.Version
		if first != nil && first.T > 0 {
			h.CreatedAt = time.UnixMilli(first.T).UTC().Format(time.RFC3339)
		}
	}
	h.Source.Mode = "reshape"
	if r.opts.Tool != "" {
		h.Source.Tool = r.opts.Tool
	}
	if r.opts.From != "" {
		h.Source.From = r.opts.From
	}
	h.Source.GatewayVersion = r.to
	h.Source.ReshapedFrom = r.from
	if h.Source.ReshapedFrom == "" {
		h.Source.ReshapedFrom = "unknown"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Reshaped by clawtap reshape from gateway %s to the %s wire: append-only live text per connection (a chat delta without its message, an agent assistant event without data.text, where the connection holds the run's text before it); hello-ok and hello markers name %s, without the tasks.* methods.",
		orUnknown(r.from), r.to, r.to)
	b.WriteString(" Not simulated: coalescing, a second lifecycle start, an error after an abort, state_contention, waiting_for_state, interrupted sessions, session.narration (see docs/reshape.md).")
	if mode != "" || tool != "" {
		fmt.Fprintf(&b, " Source: mode %s, tool %s.", orNone(mode), orNone(tool))
	}
	if old := oldNotes(h.Notes); old != "" {
		b.WriteString(" Original notes: " + old)
	}
	h.Notes, _ = json.Marshal(b.String())
	return h
}

// oldNotes renders a header's notes as text: a string as it is, anything
// else as its JSON.
func oldNotes(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if s, ok := jsonx.Str(raw); ok {
		return s
	}
	return string(raw)
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func itoa(n int) string { return strconv.Itoa(n) }

func quote(s string) string { return strconv.Quote(s) }
