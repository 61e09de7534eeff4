// Package outcome follows a replay run by run and says what the user ended
// up with: whether each run's reply reached the transcript, how its agent
// was left, whether a streaming bubble or a run id stayed behind, and what
// the turn was billed. It keeps what it knows of a run in a field of the
// pass's run table (pkg/runs): a pass whose observers need outcomes
// (pipeline.Outcomes) feeds it every replay step and hands each run's
// outcome to them as the table lets the run go. check explains the runs
// that went wrong (lost-reply, ghost-stream, billing); diff --ui compares
// two UIs' outcomes of one capture. It reads only replay steps, so it
// serves every UI model the engine runs.
package outcome

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/replay"
	"github.com/clawtap/clawtap/pkg/runs"
	"github.com/clawtap/clawtap/pkg/ui"
)

// maxPending is how many replies per agent wait to be committed.
const maxPending = 256

// recentTexts is how many committed transcript texts are remembered per
// agent, to match a final committed before it arrived (Claw3D's fallback).
const recentTexts = 64

// Run is what one run left the user with.
type Run struct {
	ID      string
	AgentID string
	Session string
	Conn    int // the connection the run was first seen on
	FirstI  int // the run's first record

	// Terminal is the run's chat terminal state (final, aborted, error),
	// "" when none came; TerminalI its record.
	Terminal  string
	TerminalI int
	TerminalT int64
	// EndI and EndT are the run's last terminal of either stream (a chat
	// terminal or a lifecycle end or error); -1 when none came.
	EndI int
	EndT int64
	// Reply is the text of the run's chat final, as the gateway sent it
	// (clipped to MaxText), while it has not reached the transcript: once
	// Committed, the transcript holds it and Reply is "". HasReply says
	// the final carried one.
	Reply    string
	HasReply bool
	// Committed: the reply reached the agent's transcript; CommitI is the
	// step's record.
	Committed bool
	CommitI   int
	// Dropped says why the UI did not commit the final when it did not:
	// the guard, fence or reason the step shows ("" when nothing said so).
	Dropped string
	// ClosedBy is the record whose dispatch closed the run in clawboo's
	// closed-run guard (-1 when none), ClosedByRun the run that record was.
	ClosedBy    int
	ClosedByRun string
	// Status is the agent's status after the run's terminal step.
	Status string
	// Ghost: after the run ended, its agent was left idle or in error but
	// still holding a run id or streamed text (GhostI: where it started,
	// GhostWhat: what it held); Bubble: clawboo's chat store still shows
	// the session's streaming text at the end of the capture.
	Ghost     bool
	GhostI    int
	GhostT    int64
	GhostWhat string
	// GhostPane is the session whose pane still follows the run, when the
	// ghost is a pane's (Layout.Panes) rather than a fleet store's.
	GhostPane string
	Bubble    string
	// Bills counts the turns billed for the run (clawboo bills on
	// commitChat; Billing is false for a UI that bills nothing).
	Bills   int32
	Billing bool
	BillI   int // the first bill's record
	// NotBilled says why the UI read a turn's cost and recorded nothing
	// ("" when it did not).
	NotBilled string
	// ErrorText is the text a write that put the run's agent in error
	// gave it to show (clawboo's chat error sets streamText to the error
	// message): shown on purpose, not a stream left behind.
	ErrorText string
	// UI is the UI model that replayed the run, set when the table lets
	// the run go.
	UI replay.UI

	seen bool // a replay step named the run: the fields above are its
}

// MaxText clips the reply kept per run.
const MaxText = 200

// Ledger follows the runs of one replay, in a field of the pass's run
// table.
type Ledger struct {
	table   *runs.Table
	field   runs.Field[Run]
	latest  map[string]*Run      // agent → its run the replay saw last
	recent  map[string][]string  // agent → normalized texts committed lately
	pending map[string][]waiting // agent → the replies not committed yet
	ui      replay.UI
	// closer remembers, per run, the record that closed it in the guard.
	closer map[string]closing
	// stepRuns: the runs whose terminal this step was.
	stepRuns []*Run
	// buf holds a text normalised for a comparison (normed): most texts
	// are not normal already, and most comparisons keep nothing.
	buf []byte
}

// waiting is a run whose reply waits for the transcript line that
// commits it, with the reply as the transcript would show it.
type waiting struct {
	run     *Run
	norm    string
	clipped bool // the reply was longer than its clip: a line that starts with it is it
}

type closing struct {
	i   int
	run string
}

// New returns a ledger that keeps its runs in t, before t's first run
// is born. The pass tells it of each run t lets go (LetGo).
func New(t *runs.Table) *Ledger {
	return &Ledger{table: t, field: runs.NewField[Run](t), latest: map[string]*Run{}, recent: map[string][]string{}, pending: map[string][]waiting{}, closer: map[string]closing{}}
}

// UI is the UI the replay modelled.
func (t *Ledger) UI() replay.UI { return t.ui }

// Of is what the replay made of a run the table holds, nil when no
// replay step named it.
func (t *Ledger) Of(r *runs.Run) *Run {
	if o := t.field.Peek(r); o != nil && o.seen {
		return o
	}
	return nil
}

// run is the outcome of the step's run, started at its first step.
func (t *Ledger) run(tr *runs.Run, ev *bridge.Event, i int) *Run {
	r := t.field.Of(tr)
	if !r.seen {
		*r = Run{ID: tr.ID, AgentID: ev.AgentID, Session: ev.SessionKey, FirstI: i, TerminalI: -1, EndI: -1, CommitI: -1, ClosedBy: -1, GhostI: -1, BillI: -1, seen: true}
		if r.AgentID != "" {
			t.latest[r.AgentID] = r
		}
	}
	if r.AgentID == "" && ev.AgentID != "" {
		r.AgentID = ev.AgentID
		t.latest[r.AgentID] = r
	}
	if r.Session == "" {
		r.Session = ev.SessionKey
	}
	return r
}

// bills reports whether the UI the replay models bills a turn per commit.
func (t *Ledger) bills() bool { return t.ui.Version.Bills }

// LetGo is what the replay made of a run the table lets go, judged as
// it stands (nil when no step named it); the ledger forgets it and what
// else refers to it.
func (t *Ledger) LetGo(tr *runs.Run) *Run {
	r := t.Of(tr)
	if r == nil {
		return nil
	}
	r.UI, r.Billing = t.ui, t.bills()
	if t.latest[r.AgentID] == r {
		delete(t.latest, r.AgentID)
	}
	delete(t.closer, r.ID)
	if list := t.pending[r.AgentID]; len(list) > 0 {
		t.pending[r.AgentID] = slices.DeleteFunc(list, func(w waiting) bool { return w.run == r })
	}
	return r
}

// Step follows one replay step; tr is the run the step's record names
// in the table (nil for a timer's step).
func (t *Ledger) Step(s *replay.Step, tr *runs.Run) {
	if s.State != nil {
		t.ui = s.State.UI()
	}
	t.stepRuns = t.stepRuns[:0]
	var r *Run
	if ev := s.Event; tr != nil && ev != nil && ev.RunID != "" && (ev.Kind == bridge.RuntimeChat || ev.Kind == bridge.RuntimeAgent) {
		r = t.run(tr, ev, s.I)
		if r.Conn == 0 && s.Rec != nil {
			r.Conn = s.Rec.Conn
		}
		t.frame(r, s, ev)
	}
	for k := range s.Effects {
		t.effect(s, &s.Effects[k], r)
	}
	t.ghosts(s)
}

// frame notes a chat terminal and its reply.
func (t *Ledger) frame(r *Run, s *replay.Step, ev *bridge.Event) {
	if ev.Kind != bridge.RuntimeChat {
		if ev.Stream == "lifecycle" && (ev.Phase == "end" || ev.Phase == "error") {
			t.stepRuns = append(t.stepRuns, r)
			r.EndI, r.EndT = s.I, s.T
		}
		return
	}
	switch ev.State {
	case "final", "aborted", "error":
	default:
		return
	}
	t.stepRuns = append(t.stepRuns, r)
	r.EndI, r.EndT = s.I, s.T
	first := r.Terminal == ""
	r.Terminal, r.TerminalI, r.TerminalT = ev.State, s.I, s.T
	if !first {
		return
	}
	// Only the first terminal reads who closed the run.
	defer delete(t.closer, r.ID)
	if ev.State != "final" {
		return
	}
	// The text the Policy read for this final, derived once per event.
	if text, ok := ev.MessageText(nil); ok && strings.TrimSpace(text) != "" {
		r.HasReply = true
		if len(t.recent[r.AgentID]) > 0 && t.recentHas(r.AgentID, text) {
			t.commit(r, s.I)
		} else {
			r.Reply = clip(text)
			t.wait(r, len(r.Reply) < len(text))
		}
		t.dropCause(r, s)
	}
}

// dropCause notes why the step did not commit the final, if it says.
func (t *Ledger) dropCause(r *Run, s *replay.Step) {
	for k := range s.Effects {
		e := &s.Effects[k]
		if e.Type == replay.EffGuard && e.Action == ui.GuardDropped && e.RunID == r.ID {
			r.Dropped = "guard"
			if c, ok := t.closer[r.ID]; ok {
				r.ClosedBy, r.ClosedByRun = c.i, c.run
			}
			return
		}
	}
	for _, in := range s.Intents {
		if in.IntentKind() == ui.IgnoreKind {
			b := in.AppendJSONAt(nil, 0)
			if reason := jsonReason(b); reason != "" {
				r.Dropped = reason
			}
		}
	}
}

// effect follows what the UI did: commits, bills, the guard's closings.
func (t *Ledger) effect(s *replay.Step, e *replay.Effect, r *Run) {
	switch e.Type {
	case replay.EffAppend, replay.EffHistory:
		t.appended(s, e)
	case replay.EffBill:
		if r != nil && e.Action == replay.BillNotRecorded {
			r.NotBilled = e.Reason
		} else if r != nil {
			r.Bills++
			if r.BillI < 0 {
				r.BillI = s.I
			}
		}
	case replay.EffWrite:
		if status, _ := e.Patch.Status.Value(); r != nil && status == "error" {
			r.ErrorText, _ = e.Patch.StreamText.Value()
		}
	case replay.EffGuard:
		if e.Action == ui.GuardClosed || e.Action == ui.GuardHazard {
			t.closer[e.RunID] = closing{s.I, e.Incoming}
		}
	}
}

// appended reads the lines an append put into the transcript and commits
// the runs whose reply they are.
func (t *Ledger) appended(s *replay.Step, e *replay.Effect) {
	if s.State == nil || e.Count <= 0 {
		return
	}
	a := s.State.Agent(e.AgentID)
	if a == nil {
		return
	}
	n := a.NumLines()
	from := n - int(e.Count)
	if e.ID != "" { // an upsert by entryId: find the entry
		for i := n - 1; i >= 0; i-- {
			if a.Line(i).EntryID == e.ID {
				from, n = i, i+1
				break
			}
		}
	}
	for i := max(from, 0); i < n; i++ {
		raw := a.Line(i).Text
		text, already := t.normed(raw)
		kept := "" // text as a string of its own, when a waiting reply is it
		list := t.pending[e.AgentID]
		for k := 0; k < len(list); k++ {
			w := list[k]
			if string(text) == w.norm || w.clipped && len(text) >= len(w.norm) && string(text[:len(w.norm)]) == w.norm {
				if len(w.norm) == len(text) {
					kept = w.norm
				}
				t.commit(w.run, s.I)
				list = slices.Delete(list, k, k+1)
				k--
			}
		}
		t.pending[e.AgentID] = list
		switch {
		case kept != "":
		case already:
			kept = raw
		default:
			kept = string(text)
		}
		t.remember(e.AgentID, kept)
	}
}

// wait has a run's reply wait for the transcript line that commits it.
// An agent's oldest waiting reply gives way past maxPending: a reply not
// committed that many finals later stays lost.
func (t *Ledger) wait(r *Run, clipped bool) {
	list := t.pending[r.AgentID]
	if len(list) >= maxPending {
		// Drop the oldest from the front: append moves the list to a new
		// array now and then, not on every reply (as shifting it would).
		list[0] = waiting{} // the array holds nothing of a run let go
		list = list[1:]
	}
	t.pending[r.AgentID] = append(list, waiting{r, norm(r.Reply), clipped})
}

// commit notes that the run's reply reached the transcript, which holds
// its text from then on.
func (t *Ledger) commit(r *Run, i int) {
	r.Reply = ""
	if !r.Committed {
		r.Committed, r.CommitI = true, i
	}
}

func (t *Ledger) remember(agent, text string) {
	list := t.recent[agent]
	if len(list) >= recentTexts {
		list = list[1:]
	}
	t.recent[agent] = append(list, text)
}

// recentHas reports whether the agent's recent transcript lines hold text,
// normalised.
func (t *Ledger) recentHas(agent, text string) bool {
	n, _ := t.normed(text)
	for _, x := range t.recent[agent] {
		if x == string(n) {
			return true
		}
	}
	return false
}

// ghosts looks at the agents of the runs this step ended: an agent left
// idle or in error that still holds a run id or streamed text is a ghost.
func (t *Ledger) ghosts(s *replay.Step) {
	if s.State == nil {
		return
	}
	for _, r := range t.stepRuns {
		a := s.State.Agent(r.AgentID)
		if a == nil {
			continue
		}
		r.Status = a.Status.V
		t.checkGhost(r, a, s.I, s.T)
	}
	// A timer step (a late frame flush) can make a ghost of an ended run.
	if s.Timer != "" {
		for _, id := range s.State.AgentIDs() {
			if r := t.lastEnded(id); r != nil {
				t.checkGhost(r, s.State.Agent(id), s.I, s.T)
			}
		}
	}
}

func (t *Ledger) checkGhost(r *Run, a *replay.Agent, i int, ts int64) {
	if r.Ghost || r.EndI < 0 {
		return
	}
	if a.Status.Valid && a.Status.V == "running" {
		return
	}
	var what []string
	if a.RunID.Valid {
		what = append(what, "runId "+a.RunID.V)
	}
	if a.StreamText.Valid && !(a.Status.V == "error" && a.StreamText.V == r.ErrorText && r.ErrorText != "") {
		what = append(what, "streamText "+quote(a.StreamText.V))
	}
	if len(what) > 0 {
		r.Ghost, r.GhostI, r.GhostT, r.GhostWhat = true, i, ts, strings.Join(what, " and ")
	}
}

// lastEnded is the agent's latest run, if it ended; nil when it is live
// or there is none.
func (t *Ledger) lastEnded(agent string) *Run {
	if r := t.latest[agent]; r != nil && r.EndI >= 0 {
		return r
	}
	return nil
}

// Finish looks at the state the replay left at the end of the capture:
// ghosts still there, clawboo's streaming bubbles, and which UI bills.
func (t *Ledger) Finish(st *replay.State) {
	t.ui = st.UI()
	for _, id := range st.AgentIDs() {
		if r := t.lastEnded(id); r != nil {
			t.checkGhost(r, st.Agent(id), r.TerminalI, r.TerminalT)
		}
	}
	for _, key := range st.ChatKeys() {
		c := st.Chat(key)
		// A pane still following a run that ended shows it busy: a ghost
		// of the run (Layout.Panes).
		if r := t.held(c.RunID.V); c.RunID.Valid && r != nil && r.EndI >= 0 && !r.Ghost {
			r.Ghost, r.GhostI, r.GhostT = true, r.EndI, r.EndT
			r.GhostPane, r.GhostWhat = key, "busy"
			if c.Stop() {
				r.GhostWhat = "busy, the Stop button shown"
			}
		}
		if !c.StreamText.Valid {
			continue
		}
		agent := bridge.SessionAgentID(key)
		if r := t.lastEnded(agent); r != nil && r.Session == key {
			r.Bubble = clip(c.StreamText.V)
		}
	}
}

// held is the outcome of the run the table holds under id, or nil.
func (t *Ledger) held(id string) *Run {
	if tr := t.table.Lookup(id); tr != nil {
		return t.Of(tr)
	}
	return nil
}

// norm compares transcript text as Claw3D's display normalisation does:
// line ends and runs of blank space do not count.
func norm(s string) string {
	if isNorm(s) {
		return s
	}
	return string(appendNorm(make([]byte, 0, len(s)), s))
}

// normed is norm(s) for a comparison, in t.buf until the next call: no
// copy is made for a text nobody keeps. already reports that s was
// normal as it was (so s itself can be kept).
func (t *Ledger) normed(s string) (b []byte, already bool) {
	if isNorm(s) {
		t.buf = append(t.buf[:0], s...)
		return t.buf, true
	}
	t.buf = appendNorm(t.buf[:0], s)
	return t.buf, false
}

// appendNorm appends strings.Join(strings.Fields(s), " ") to b.
func appendNorm(b []byte, s string) []byte {
	start := len(b)
	gap := false
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf { // ASCII: most of any text
			if c == ' ' || asciiBlank(c) {
				gap = len(b) > start
			} else {
				if gap {
					b = append(b, ' ')
					gap = false
				}
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			gap = len(b) > start
		} else {
			if gap {
				b = append(b, ' ')
				gap = false
			}
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return b
}

// isNorm: s has no blank space but single spaces between words (the
// common case, which norm then need not copy).
func isNorm(s string) bool {
	prevSpace := true // no leading space
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= utf8.RuneSelf:
			return false // let strings.Fields judge Unicode spaces
		case c == ' ':
			if prevSpace {
				return false
			}
			prevSpace = true
		case asciiBlank(c):
			return false
		default:
			prevSpace = false
		}
	}
	return !prevSpace || s == ""
}

// asciiBlank reports whether c is ASCII blank space other than ' ': what
// unicode.IsSpace says of \t, \n, \v, \f and \r.
func asciiBlank(c byte) bool { return c-'\t' <= '\r'-'\t' }

// clip is s's first MaxText bytes (whole runes), copied: a run keeps
// its clip to the end of the capture, not the whole text behind it.
func clip(s string) string {
	if len(s) <= MaxText {
		return s
	}
	cut := MaxText
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return strings.Clone(s[:cut])
}

func quote(s string) string {
	q := clip(s)
	if len(q) > 60 {
		q = q[:57] + "…"
	}
	return `"` + q + `"`
}

// LostWhy says why a run's reply did not reach the transcript, naming the
// records; "" when it did (or there was none).
func (r *Run) LostWhy() string {
	if !r.HasReply || r.Committed {
		return ""
	}
	var why string
	switch {
	case r.Dropped == "guard" && r.ClosedByRun == r.ID && r.ClosedBy >= 0:
		why = fmt.Sprintf("its chat final (record %d) came after the run's own lifecycle end (record %d) had closed it, so the closed-run guard dropped the final's commitChat: the text never reached the transcript, the turn was never billed", r.TerminalI, r.ClosedBy)
		if r.Bubble != "" {
			why += ", and the streaming bubble stayed on screen"
		}
	case r.Dropped == "guard" && r.ClosedBy >= 0:
		why = fmt.Sprintf("its chat final (record %d) was dropped by the closed-run guard, which run %s's terminal (record %d) had set for this run", r.TerminalI, orNone(r.ClosedByRun), r.ClosedBy)
	case r.Dropped == "guard":
		why = fmt.Sprintf("its chat final (record %d) was dropped by the closed-run guard", r.TerminalI)
	case r.Dropped != "":
		why = fmt.Sprintf("it ignored the chat final (record %d, %s) and nothing else committed the text", r.TerminalI, r.Dropped)
	default:
		why = fmt.Sprintf("its chat final (record %d) did not reach the transcript", r.TerminalI)
	}
	return why
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
