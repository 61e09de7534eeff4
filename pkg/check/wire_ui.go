package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/finding"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/release"
	"github.com/clawtap/clawtap/pkg/replay"
)

// What each UI's replay shows of the post-2026.9.6 hazards. The replay's
// steps are watched for the runs live on the connection it follows: what
// the UI shows of each (its streaming bubble, the agent's live text, its
// status, the pane's error banner, the transcript's length) before and
// after each record. When the frames show a hazard (wire.go), the UI's
// verdict comes from what it showed around that record, and the finding
// says whether this UI shows the hazard (warn) or not (info); with several
// UIs checked, Multi merges the verdicts into one finding that lists them.

// uiSnap is what a UI shows of one run.
type uiSnap struct {
	agent, session string
	// their stores, once the UI made them (a store is never removed: the
	// next snapshot reads it without a look-up)
	agentStore *replay.Agent
	chatStore  *replay.ChatSession
	bubble     string // the streaming bubble: the chat store's, or the pane's while it follows the run
	hasBubble  bool
	inChat     bool   // the session has a chat store: the bubble's path is bubblePath
	text       string // the agent store's live text, while the agent runs the run
	hasText    bool
	status     string
	banner     string
	lines      int
	lastLine   string // the transcript's last line
}

// live is the text the UI shows for the run, and whether it is the
// bubble (else the agent's live text). The paths are built only for a
// finding (bubblePath, textPath): this runs at every replay step.
func (s *uiSnap) live() (text string, bubble, ok bool) {
	switch {
	case s.hasBubble:
		return s.bubble, true, true
	case s.hasText:
		return s.text, false, true
	}
	return "", false, false
}

// at is the path in the replay's state of what live returned.
func (s *uiSnap) at(bubble bool) string {
	if bubble {
		return s.bubblePath()
	}
	return s.textPath()
}

func (s *uiSnap) bubblePath() string {
	if !s.inChat {
		return ""
	}
	return "chat." + s.session + ".streamText"
}

func (s *uiSnap) textPath() string { return "agents." + s.agent + ".streamText" }

// lost says which store of the UI lost text of the run from before to
// after, or "".
func lost(before, after *uiSnap) (at, was, now string) {
	if before.hasBubble && before.bubble != "" && (!after.hasBubble || len(after.bubble) < len(before.bubble)) {
		return before.bubblePath(), before.bubble, shownValue(after.bubble, after.hasBubble)
	}
	if before.hasText && before.text != "" && (!after.hasText || len(after.text) < len(before.text)) {
		return before.textPath(), before.text, shownValue(after.text, after.hasText)
	}
	return "", "", ""
}

func shownValue(s string, ok bool) string {
	if !ok {
		return "null"
	}
	return clipQuote(s, 40)
}

// snapOf is what the UI shows of run, whose stores are agent's and
// session's, read afresh (tests: the reference a step's kept snapshots are
// held to).
func snapOf(st *replay.State, run, agent, session string) uiSnap {
	p := storesShown{snap: uiSnap{agent: agent, session: session}}
	p.take(st, 0, true)
	return p.of(run)
}

// stepObs is what the UI showed of a record's run around its step.
type stepObs struct {
	i             int
	run           string
	seen          bool
	before, after uiSnap
}

// wireStep watches a replay step. The snapshot of a run's stores is
// taken again only when the step wrote them (the step's diff names them),
// once for all the runs they hold.
func (a *Analyzer) wireStep(s *replay.Step) {
	w := a.wire
	if s.State == nil {
		return
	}
	w.ui = s.State.UI()
	w.steps++
	if s.Conn != w.followed {
		w.followed = s.Conn
		w.shown.reset()
	}
	w.touched = w.touched[:0]
	if ev := s.Event; s.Timer == "" && ev != nil && ev.RunID != "" && s.Rec != nil && s.Rec.Conn == s.Conn &&
		(ev.Kind == bridge.RuntimeChat || ev.Kind == bridge.RuntimeAgent) {
		// a run's event: its snapshot is taken whatever the step wrote
		obs := stepObs{i: s.I, run: ev.RunID, seen: true}
		r := w.shown.get(ev.RunID)
		if r != nil {
			obs.before = r.snap()
		} else {
			r = w.shown.add(ev.RunID)
		}
		p := w.shown.place(r, ev.AgentID, ev.SessionKey, s.State, w.steps)
		if p.step != w.steps {
			p.take(s.State, w.steps, w.everyStep)
		}
		obs.after = p.of(ev.RunID)
		w.step = obs
		a.took(r)
	}
	for k := range s.Diff {
		var ps []*storesShown
		if id, ok := s.Diff[k].Path.Agent(); ok {
			ps = w.shown.byAgent[id]
		} else if key, ok := s.Diff[k].Path.ChatSession(); ok {
			ps = w.shown.byChat[key]
		}
		for _, p := range ps {
			if p.written == w.steps {
				continue
			}
			p.written = w.steps
			if p.step != w.steps { // not taken for the record's run
				p.take(s.State, w.steps, false)
			}
			for _, r := range p.runs {
				if r.step != w.steps {
					a.took(r)
				}
			}
		}
	}
	if w.everyStep {
		a.everyStep(s.State)
	}
	if w.verify {
		w.shown.verify(s, w.touched, w.steps)
	}
	w.stepI, w.stepT = s.I, s.T
	if s.Timer != "" {
		a.watch(true)
		return
	}
	// The record in hand is not in the wire's text yet: watch after it is
	// (wireAfter).
	w.watchAfter = true
}

// everyStep (tests) takes every run's snapshot at every step, as if every
// store changed.
func (a *Analyzer) everyStep(st *replay.State) {
	w := a.wire
	for _, p := range w.shown.stores {
		if p.step != w.steps {
			p.take(st, w.steps, true)
		}
	}
	for _, r := range w.shown.order {
		if r.stores != nil && r.step != w.steps {
			a.took(r)
		}
	}
}

// took notes that the step in hand took a run's snapshot.
func (a *Analyzer) took(r *shownRun) {
	r.step = a.wire.steps
	a.wire.touched = append(a.wire.touched, r)
}

// untrack stops watching a run that ended.
func (a *Analyzer) untrack(id string) { a.wire.shown.remove(id) }

// seen is what the UI showed of a run before and after the record in
// hand; ok is false when the UI's replay did not take it (another
// connection, or no replay).
func (a *Analyzer) seen(rec *capture.Record, run string) (before, after uiSnap, ok bool) {
	w := a.wire
	if !w.judge || w.step.i != rec.Index || !w.step.seen || w.step.run != run {
		return uiSnap{}, uiSnap{}, false
	}
	return w.step.before, w.step.after, true
}

func (a *Analyzer) uiName() string {
	if a.names != nil {
		return a.names(a.wire.ui)
	}
	return a.wire.ui.Title()
}

// hazard makes a hazard finding: of severity sevShown when this UI shows
// it, else info (errorAfterAborted's notShown says otherwise).
func (a *Analyzer) hazard(rule string, shown bool, sevShown Severity, i int, t int64, conn int, run, agent, session, msg string) {
	a.hazardSev(rule, shown, sevShown, Info, i, t, conn, run, agent, session, msg)
}

func (a *Analyzer) hazardSev(rule string, shown bool, sevShown, sevNot Severity, i int, t int64, conn int, run, agent, session, msg string) {
	sev := sevNot
	flag := HazardNotShown
	if shown {
		sev, flag = sevShown, HazardShown
	}
	if !a.wire.judge {
		flag = 0 // no UI replayed: the frames alone
	}
	f := Finding{Rule: rule, Severity: sev, I: i, T: t, Conn: conn, RunID: run, AgentID: agent, SessionKey: session, Message: msg, Hazard: flag}
	a.record(&f)
}

// The Finding.Hazard values.
const (
	HazardShown    = finding.HazardShown
	HazardNotShown = finding.HazardNotShown
)

// frozenVerdict: a run got chat deltas without message; did the UI's live
// text follow them? Judged at the run's chat terminal, from what the
// replay's steps showed while the deltas came (watch).
func (a *Analyzer) frozenVerdict(rec *capture.Record, ev *bridge.Event, r *wireRun) {
	since := release.Since(release.AppendOnly)
	head := fmt.Sprintf("Run %s's live text came as %d chat delta(s) without message on connection %d after the snapshot %s (record %d): append-only live text, the %s wire; the connection's text grew to %s.",
		ev.RunID, r.appendsAll, rec.Conn, clipQuote(r.firstSnap, 40), r.firstSnapI, since, clipQuote(r.text, 60))
	others := "a UI that reads only message or data.text freezes it on the snapshot until the final"
	if !a.wire.judge {
		a.hazard(RuleLiveTextFrozen, false, Warn, rec.Index, rec.T, rec.Conn, ev.RunID, r.agent, r.session, head+" "+capitalize(others)+".")
		return
	}
	ui := a.uiName()
	switch o := r.frozen; {
	case o != nil && o.frozen:
		a.hazard(RuleLiveTextFrozen, true, Warn, rec.Index, rec.T, rec.Conn, ev.RunID, r.agent, r.session, fmt.Sprintf(
			"%s froze run %s's live text on %s (%s, at record %d): the chat deltas after it came without message (append-only live text, %s), and it reads only message (and data.text), so it showed the snapshot while the connection's text grew (%d deltas) to %s, until the chat %s at record %d%s.",
			ui, ev.RunID, clipQuote(o.text, 40), o.at, o.i, since, r.appendsAll, clipQuote(r.text, 60), ev.State, rec.Index, a.committedSnapshot(rec, ev, o)))
	case o != nil:
		a.hazard(RuleLiveTextFrozen, true, Warn, rec.Index, rec.T, rec.Conn, ev.RunID, r.agent, r.session, fmt.Sprintf(
			"%s showed %s for run %s (%s, at record %d) where the connection's text was %s: the chat deltas came without message (append-only live text, %s), and what it made of them is not the text; the final at record %d replaces it.",
			ui, clipQuote(o.text, 60), ev.RunID, o.at, o.i, clipQuote(o.want, 60), since, rec.Index))
	case rec.Conn != a.wire.followed:
		a.hazard(RuleLiveTextFrozen, false, Warn, rec.Index, rec.T, rec.Conn, ev.RunID, r.agent, r.session, fmt.Sprintf("%s %s's replay follows connection %d, not this one; %s.", head, ui, a.wire.followed, others))
	case !r.uiShown:
		a.hazard(RuleLiveTextFrozen, false, Warn, rec.Index, rec.T, rec.Conn, ev.RunID, r.agent, r.session, fmt.Sprintf("%s %s showed no live text for the run; %s.", head, ui, others))
	default:
		a.hazard(RuleLiveTextFrozen, false, Warn, rec.Index, rec.T, rec.Conn, ev.RunID, r.agent, r.session, fmt.Sprintf("%s %s followed it; %s.", head, ui, others))
	}
}

// committedSnapshot says, as a clause, when the terminal made the UI keep
// the frozen text as the turn's reply (a UI that keeps the live text of a
// turn that ends without one: clawboo's prose recovery).
func (a *Analyzer) committedSnapshot(rec *capture.Record, ev *bridge.Event, o *uiObs) string {
	before, after, ok := a.seen(rec, ev.RunID)
	if !ok || after.lines <= before.lines || !same(after.lastLine, o.text) {
		return ""
	}
	return "; and at the chat " + ev.State + " it kept " + clipQuote(o.text, 40) + " in the transcript as the turn's reply: the rest of the text is lost"
}

// watch compares what the UI shows of the followed connection's runs with
// the text the connection rebuilt, after every replay step: the first
// time the live text does not follow the append-only deltas, and the
// first time withdrawn text is on screen after a retraction.
func (a *Analyzer) watch(timer bool) {
	w := a.wire
	c := w.conns[w.followed]
	if c == nil {
		return
	}
	// What the UI shows changed only for the runs the step wrote, and the
	// text the connection rebuilt only for the record's run (one of them);
	// a retraction's verdict also waits on the clock.
	for _, r := range w.touched {
		if !r.gone {
			a.watchRun(c, r, timer)
		}
	}
	for _, id := range c.retracting {
		if wr := c.runs[id]; wr == nil || wr.retraction == nil {
			continue
		}
		if r := w.shown.get(id); r != nil && r.step != w.steps {
			a.watchRun(c, r, timer)
		}
	}
}

// watchRun compares what the UI shows of one run with the text its
// connection rebuilt.
func (a *Analyzer) watchRun(c *wireConn, sr *shownRun, timer bool) {
	w := a.wire
	r := sr.wire
	if r == nil || r.gone || w.everyStep { // tests: the reference looks it up every time
		r = c.runs[sr.id]
		sr.wire = r
		if r == nil {
			return
		}
	}
	// Nothing left to see of the run: it showed text, its frozen text is
	// known or it has no appends to freeze, and no retraction waits.
	if r.uiShown && (r.frozen != nil || r.appends < 2) && (r.retraction == nil || r.retraction.seen != nil) && !w.everyStep { // tests: the reference looks
		return
	}
	sn := sr.snap()
	text, bubble, has := sn.live()
	if !has {
		return
	}
	if strings.TrimSpace(text) != "" {
		r.uiShown = true
	}
	if r.frozen == nil && r.appends >= 2 && !follows(text, r) {
		r.frozen = &uiObs{i: w.stepI, text: text, at: sn.at(bubble), want: r.text, frozen: text == r.snap}
	}
	// What a timer step (a UI's frame) shows is on screen; a record
	// step may show a store its frame has not flushed yet.
	if rt := r.retraction; rt != nil && rt.seen == nil && (timer || w.stepT-rt.t >= retractLagMs) && text != "" && strings.Contains(text, rt.text) && !same(text, r.text) && !same(text, r.agentText) {
		rt.seen = &uiObs{i: w.stepI, text: text, at: sn.at(bubble)}
	}
}

// retractLagMs is how long after a retraction a record step may still
// show the text it withdrew: a few animation frames (a UI patches its
// stores once a frame), so that a bubble waiting for its frame is not
// reported; a timer step (the frame) shows what is on screen.
const retractLagMs = 100

// follows reports whether what a UI shows is the run's text as its
// connection rebuilt it, at most a few deltas behind, or the agent
// stream's (a step ahead of the chat stream, or one behind: a UI patches
// its stores once a frame).
func follows(text string, r *wireRun) bool {
	for _, t := range r.recent[:r.recentN] {
		if same(text, t) {
			return true
		}
	}
	return same(text, r.agentText) || same(text, r.agentPrev)
}

// same compares texts as UIs show them: trimmed.
func same(a, b string) bool { return strings.TrimSpace(a) == strings.TrimSpace(b) }

// lifecycleRestart: a second lifecycle start on a run that did not end.
func (a *Analyzer) lifecycleRestart(rec *capture.Record, ev *bridge.Event, r *wireRun) {
	sev := Warn
	head := fmt.Sprintf("Run %s started again (lifecycle start at record %d; the first at record %d) with no lifecycle end or chat terminal between: %s continues a run after an unfinished-plan check this way.",
		ev.RunID, rec.Index, r.startI, release.Since(release.LifecycleRestart))
	if r.retrying || r.retracted {
		sev = Info
		head = fmt.Sprintf("Run %s started again (lifecycle start at record %d; the first at record %d) after a retrying run_status or a retraction: the gateway's retry attempt, which reuses the run id.", ev.RunID, rec.Index, r.startI)
	}
	a.verdictLost(RuleLifecycleRestart, sev, rec, ev, r, head, "treats the start as a new run", "a UI keyed on \"lifecycle start = new run\" resets or duplicates the bubble")
}

// statusMidTurn: a chat status after the run showed text.
func (a *Analyzer) statusMidTurn(rec *capture.Record, ev *bridge.Event, r *wireRun) {
	what := "a chat status"
	if ph, ok := jsonx.Str(mustGet(ev.Payload, "phase")); ok {
		what += " (phase " + ph + ")"
	}
	if re, ok := ev.Member("retry"); ok {
		what += " with retry " + clip(string(re), 80)
	}
	head := fmt.Sprintf("Run %s got %s at record %d after its live text %s: since %s a status comes mid-turn, after text or tools, while the provider waits or retries.",
		ev.RunID, what, rec.Index, clipQuote(r.text, 40), release.Since(release.StatusMidTurn))
	a.verdictLost(RuleStatusMidTurn, Warn, rec, ev, r, head, "treats the status as a run start", "a UI that treats status as a run start restarts the bubble")
}

// verdictLost judges a hazard whose harm is live text lost at its record.
func (a *Analyzer) verdictLost(rule string, sev Severity, rec *capture.Record, ev *bridge.Event, r *wireRun, head, does, others string) {
	before, after, ok := a.seen(rec, ev.RunID)
	if !a.wire.judge || !ok {
		a.hazard(rule, false, sev, rec.Index, rec.T, rec.Conn, ev.RunID, r.agent, r.session, head+" "+capitalize(others)+".")
		return
	}
	ui := a.uiName()
	if at, was, now := lost(&before, &after); at != "" {
		a.hazard(rule, true, sev, rec.Index, rec.T, rec.Conn, ev.RunID, r.agent, r.session, fmt.Sprintf("%s %s %s: %s went from %s to %s, so the answer so far vanished from the live text.", head, ui, does, at, clipQuote(was, 40), now))
		return
	}
	a.hazard(rule, false, sev, rec.Index, rec.T, rec.Conn, ev.RunID, r.agent, r.session, fmt.Sprintf("%s %s kept the live text; %s.", head, ui, others))
}

// errorAfterAborted: a chat error for a run already aborted.
func (a *Analyzer) errorAfterAborted(rec *capture.Record, ev *bridge.Event, r *wireRun) {
	em, _ := jsonx.GetStr(ev.Payload, "errorMessage")
	stop, _ := jsonx.GetStr(ev.Payload, "stopReason")
	why, notSev := "a second terminal", Info
	if stop == "aborted-partial-persistence-failed" {
		why, notSev = "the stopped reply could not be saved to history", Warn
	}
	head := fmt.Sprintf("Chat error for run %s after its chat aborted (record %d): %s sends it when %s (%s).", ev.RunID, r.abortedI, release.Since(release.ErrorAfterAborted), why, clipQuote(em, 100))
	before, after, ok := a.seen(rec, ev.RunID)
	if !a.wire.judge || !ok {
		a.hazardSev(RuleErrorAfterAborted, false, Warn, notSev, rec.Index, rec.T, rec.Conn, ev.RunID, r.agent, r.session, head+" A UI shows it as a second terminal (a duplicated error, an error over the aborted turn) or drops the warning.")
		return
	}
	ui := a.uiName()
	shows := ""
	switch {
	case after.banner != before.banner && after.banner != "":
		shows = "its error banner now reads " + clipQuote(after.banner, 60)
	case after.status == "error" && before.status != "error":
		shows = "agent " + r.agent + "'s status went to error"
	case after.lines > before.lines:
		shows = "it added a transcript line"
	}
	if shows != "" {
		a.hazardSev(RuleErrorAfterAborted, true, Warn, notSev, rec.Index, rec.T, rec.Conn, ev.RunID, r.agent, r.session, fmt.Sprintf("%s %s shows it: %s, over a turn that stays aborted (the warning belongs beside it, not in place of it).", head, ui, shows))
		return
	}
	a.hazardSev(RuleErrorAfterAborted, false, Warn, notSev, rec.Index, rec.T, rec.Conn, ev.RunID, r.agent, r.session, fmt.Sprintf("%s %s dropped it (the run was closed at the abort): the user never sees that the stopped reply was not saved.", head, ui))
}

// retractionVerdict: after a retraction, did the withdrawn text stay on
// screen? Judged at the run's chat terminal (or the next retraction, or
// the end), from what the replay's steps showed since (watch).
func (a *Analyzer) retractionVerdict(rec *capture.Record, ev *bridge.Event, r *wireRun) {
	rt := r.retraction
	r.retraction = nil
	r.retracted = true
	head := fmt.Sprintf("Run %s's live text %s was withdrawn by a retraction delta (replace:true, empty deltaText; %s) at record %d.", ev.RunID, clipQuote(rt.text, 40), release.Since(release.Retraction), rt.i)
	// The finding is where it is judged (the run's terminal, or the next
	// retraction), so that the records up to it show it; at the end of
	// the capture, at the retraction.
	conn, i, t := 0, rt.i, rt.t
	if rec != nil {
		conn, i, t = rec.Conn, rec.Index, rec.T
	}
	others := "a UI that ignores empty deltas, or keeps the longest text, leaves it on screen"
	if !a.wire.judge {
		a.hazard(RuleRetractionVisible, false, Warn, i, t, conn, ev.RunID, r.agent, r.session, head+" "+capitalize(others)+".")
		return
	}
	ui := a.uiName()
	if o := rt.seen; o != nil {
		a.hazard(RuleRetractionVisible, true, Warn, i, t, conn, ev.RunID, r.agent, r.session, fmt.Sprintf("%s %s showed %s (%s) at record %d, after it: the text the gateway withdrew came back on screen.", head, ui, clipQuote(o.text, 60), o.at, o.i))
		return
	}
	a.hazard(RuleRetractionVisible, false, Warn, i, t, conn, ev.RunID, r.agent, r.session, fmt.Sprintf("%s %s cleared it; %s.", head, ui, others))
}

// wireEnd judges what waits at the end of the capture.
func (a *Analyzer) wireEnd() {
	w := a.wire
	conns := make([]int, 0, len(w.conns))
	for n := range w.conns {
		conns = append(conns, n)
	}
	slices.Sort(conns)
	for _, n := range conns {
		c := w.conns[n]
		for _, id := range c.order {
			r := c.runs[id]
			if r == nil {
				continue
			}
			ev := &bridge.Event{RunID: id, State: "end of the capture"}
			if r.retraction != nil {
				a.retractionVerdict(nil, ev, r)
			}
		}
	}
	a.announceEnd()
}
