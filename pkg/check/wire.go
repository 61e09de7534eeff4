package check

import (
	"fmt"
	"slices"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/release"
	"github.com/clawtap/clawtap/pkg/replay"
)

// The rules of the gateway releases after 2026.9.6 (gateway-protocol §11):
// what a capture of their wire shows, each naming the release that brought
// it. Five of them are hazards a UI may or may not show: each UI's replay
// says whether it did (wire_ui.go), and with several UIs checked the
// finding says which show it (Multi). The others (announce-double-answer,
// idempotency-conflict, wire-release-mismatch, live-text-baseline-missing)
// are about the frames alone.

// Rule ids of the post-2026.9.6 wire.
const (
	RuleLiveTextFrozen       = "live-text-frozen"
	RuleBaselineMissing      = "live-text-baseline-missing"
	RuleLifecycleRestart     = "lifecycle-restart"
	RuleErrorAfterAborted    = "error-after-aborted"
	RuleStatusMidTurn        = "status-mid-turn"
	RuleRetractionVisible    = "retraction-visible-text"
	RuleAnnounceDoubleAnswer = "announce-double-answer"
	RuleIdempotencyConflict  = "idempotency-conflict"
	RuleReleaseMismatch      = "wire-release-mismatch"
)

// hazardRules are the rules whose findings every UI's replay makes, each
// saying whether that UI shows the hazard (Finding.hazard).
var hazardRules = []string{RuleLiveTextFrozen, RuleLifecycleRestart, RuleErrorAfterAborted, RuleStatusMidTurn, RuleRetractionVisible}

// Caps of the wire rules' tables.
const (
	maxWireRuns  = 1024 // runs per connection
	maxSends     = 1024 // the latest idempotency keys remembered, as many as the run table holds runs
	maxPendingUI = 64   // runs whose UI text is followed
)

// wireState is what the wire rules keep.
type wireState struct {
	conns map[int]*wireConn
	// the UI's replay, as its steps showed it (wire_ui.go)
	followed   int         // the connection the replay follows
	shown      shownRuns   // the followed connection's live runs (shown.go)
	steps      int         // the replay's steps so far
	touched    []*shownRun // the runs whose snapshot the step in hand took again
	everyStep  bool        // tests: take every run's snapshot at every step, as if every store changed (everyStep)
	verify     bool        // tests: hold each step's snapshots and watched runs to their definition (shownRuns.verify)
	stepI      int         // the record of the step in hand
	stepT      int64       // its time
	watchAfter bool        // a record step to watch once the record is in the wire's text
	step       stepObs     // what the record step in hand did
	judge      bool        // the replay runs: hazards are judged per UI
	ui         replay.UI   // the UI the replay models
	// chat.send and announce runs across the capture (wire_sends.go)
	sends     map[string]*sendInfo // by idempotency key
	sendOrder []string
	announce  map[string]announceRun // live announce runs, by session
	empties   []*announceFinal       // empty finals waiting for the reply under another run
	mismatch  map[string]bool        // conn/change reported
	// the capture header's gateway release, for connections without a hello
	headerRelease string
}

type wireConn struct {
	runs  map[string]*wireRun
	order []string
	reqs  map[string]reqParams // chat.send requests waiting for their response, by id
	// the runs with a retraction waiting for the UI's verdict, which the
	// watch looks at every step (the verdict waits on the clock)
	retracting []string
}

// wireRun is one run on one connection, as its client would rebuild it.
type wireRun struct {
	gone           bool // forgotten (shownRun.wire: look the id up again)
	agent, session string
	text           string // the live chat text the connection rebuilt
	agentText      string // the assistant item's text the connection rebuilt
	agentPrev      string // ... before the last assistant event
	hasText        bool   // a baseline: a snapshot came since the last reset
	snap           string // the last snapshot (a delta with its message)
	snapI          int
	appends        int       // chat deltas without message since the snapshot
	appendI        int       // the first of them
	recent         [4]string // the rebuilt text after the last appends, newest first
	recentN        int

	appendsAll int // chat deltas without message in the run
	firstSnap  string
	firstSnapI int
	hasSnap    bool

	started, retrying, retracted bool // since the last lifecycle start
	startI                       int
	aborted                      bool
	abortedI                     int
	retraction                   *retraction // a retraction waiting for the UI's verdict

	// What the UI's replay showed of the run (wire_ui.go): whether it ever
	// showed text for it, and the first time its live text did not follow
	// the append-only deltas.
	uiShown bool
	frozen  *uiObs
}

type retraction struct {
	i    int
	t    int64
	text string // what had to vanish
	seen *uiObs // the first time the UI showed it after the retraction
}

// uiObs is what the UI showed at one replay step.
type uiObs struct {
	i      int    // the step's record
	text   string // what it showed
	at     string // where (a path in the replay's state)
	want   string // the text the connection had then
	frozen bool   // it was the run's snapshot
}

func newWireState() *wireState {
	return &wireState{conns: map[int]*wireConn{}, shown: newShownRuns(), sends: map[string]*sendInfo{},
		announce: map[string]announceRun{}, mismatch: map[string]bool{}, followed: -1}
}

func (w *wireState) conn(n int) *wireConn {
	c := w.conns[n]
	if c == nil {
		c = &wireConn{runs: map[string]*wireRun{}, reqs: map[string]reqParams{}}
		w.conns[n] = c
	}
	return c
}

func (c *wireConn) run(id, agent, session string) *wireRun {
	r := c.runs[id]
	if r == nil {
		if len(c.runs) >= maxWireRuns && len(c.order) > 0 {
			old := c.order[0]
			if o := c.runs[old]; o != nil {
				o.gone = true
			}
			delete(c.runs, old)
			c.order = c.order[1:]
			c.retracting = slices.DeleteFunc(c.retracting, func(o string) bool { return o == old })
		}
		r = &wireRun{agent: agent, session: session}
		c.runs[id] = r
		c.order = append(c.order, id)
	}
	if r.agent == "" {
		r.agent = agent
	}
	if r.session == "" {
		r.session = session
	}
	return r
}

func (c *wireConn) forget(id string) {
	r, ok := c.runs[id]
	if !ok {
		return
	}
	r.gone = true
	delete(c.runs, id)
	c.retracting = slices.DeleteFunc(c.retracting, func(o string) bool { return o == id })
	for k, o := range c.order {
		if o == id {
			c.order = append(c.order[:k], c.order[k+1:]...)
			break
		}
	}
}

// wireAfter runs the wire rules on a record, after the replay took it.
func (a *Analyzer) wireAfter(cs *connState, rec *capture.Record, ev *bridge.Event) {
	w := a.wire
	defer func() {
		if w.watchAfter {
			w.watchAfter = false
			a.watch(false)
		}
	}()
	switch ev.Kind {
	case bridge.Marker:
		if rec.Mark == capture.MarkOpen || rec.Mark == capture.MarkClose {
			if c := w.conns[rec.Conn]; c != nil {
				for _, r := range c.runs {
					r.gone = true
				}
			}
			delete(w.conns, rec.Conn)
		}
		return
	case bridge.Request:
		a.wireRequest(cs, rec, ev)
		return
	case bridge.Response:
		a.wireResponse(cs, rec, ev)
		return
	case bridge.RuntimeChat:
		a.wireChat(cs, rec, ev)
	case bridge.RuntimeAgent:
		a.wireAgent(cs, rec, ev)
	case bridge.Unknown:
		if ev.Event == "session.narration" {
			a.mismatch(cs, rec, release.NewValues, "a session.narration event")
		}
	}
	a.announceFrame(rec, ev)
}

// Header takes the capture's header: its gateway release stands for the
// connections whose hello the capture does not hold.
func (a *Analyzer) Header(h *capture.Header) {
	if h != nil {
		a.wire.headerRelease = h.Source.GatewayVersion
	}
}

// release is the connection's gateway release: what its hello named, else
// the capture's header.
func (a *Analyzer) release(cs *connState) (release.Version, string) {
	name := cs.version
	if name == "" {
		name = a.wire.headerRelease
	}
	v, _ := release.Parse(name)
	return v.Core(), name
}

// mismatch reports, once per connection and change, a frame of a wire
// change newer than the release the connection's hello named.
func (a *Analyzer) mismatch(cs *connState, rec *capture.Record, change, what string) {
	c, _ := release.Lookup(change)
	v, name := a.release(cs)
	if !v.Before(c.Since) {
		return
	}
	key := fmt.Sprint(rec.Conn, "/", change)
	if a.wire.mismatch[key] || len(a.wire.mismatch) >= maxUnknown {
		return
	}
	a.wire.mismatch[key] = true
	a.add(RuleReleaseMismatch, 0, rec.Index, rec.T, rec.Conn, nil, "", "", "", fmt.Sprintf(
		"Connection %d's gateway says it is %s, but record %d is %s, which came with %s: the capture's release is wrong (a version overridden with OPENCLAW_VERSION, a capture edited by hand) or the frame is not the gateway's; clawtap reads the frames as they are, not as %s would have sent them.",
		rec.Conn, name, rec.Index, what, c.Since, name))
}

// wireChat follows a chat frame: the live text as the connection's
// client rebuilds it, status and retraction hazards, terminals.
func (a *Analyzer) wireChat(cs *connState, rec *capture.Record, ev *bridge.Event) {
	if ev.RunID == "" {
		return
	}
	c := a.wire.conn(rec.Conn)
	p := ev.Payload
	r := c.run(ev.RunID, ev.AgentID, ev.SessionKey)
	switch ev.State {
	case "status":
		if jsonx.KindOf(mustGet(p, "retry")) == jsonx.Object {
			a.mismatch(cs, rec, release.StatusMidTurn, "a chat status with retry")
		}
		if ph, _ := jsonx.GetStr(p, "phase"); ph == "waiting_for_state" {
			a.mismatch(cs, rec, release.NewValues, "a chat status of phase waiting_for_state")
		}
		if r.hasText && r.text != "" {
			a.statusMidTurn(rec, ev, r)
		}
		return
	case "delta":
	case "final", "aborted", "error":
		a.wireTerminal(cs, rec, ev, c, r)
		return
	default:
		return
	}
	msg, hasMsg := ev.Member("message")
	replaceRaw, _ := ev.Member("replace")
	replace := jsonx.Truthy(replaceRaw)
	// deltaText is read only when it counts: a delta with message (every
	// delta before 2026.9.7) uses it only as a retraction's empty text.
	dt, dtOK := "", false
	if !hasMsg || replace {
		dtRaw, _ := ev.Member("deltaText")
		dt, dtOK = jsonx.Str(dtRaw)
	}
	before, had := r.text, r.hasText
	switch {
	case hasMsg:
		text, _, _, _ := ev.MessageTextAndThinking(&a.texts)
		if jsonx.KindOf(msg) != jsonx.Object {
			r.hasText, r.text = false, ""
		} else {
			r.text, r.hasText = text, true
		}
		r.snap, r.snapI, r.appends, r.recentN = r.text, rec.Index, 0, 0
		if !r.hasSnap {
			r.firstSnap, r.firstSnapI, r.hasSnap = r.text, rec.Index, true
		}
	case !dtOK:
		return
	default:
		a.mismatch(cs, rec, release.AppendOnly, "a chat delta without message (append-only live text)")
		switch {
		case replace:
			r.text, r.hasText = dt, true
			r.snap, r.snapI, r.appends, r.recentN = dt, rec.Index, 0, 0
		case dt == "":
			return
		case !had:
			a.addRun(RuleBaselineMissing, 0, rec.Index, rec.T, a.lookupRun(rec.Conn, ev.RunID), fmt.Sprintf(
				"Chat delta for run %s has no message and connection %d holds none of the run's text to append %s to (no earlier delta since the connection opened, the run's last terminal or a reset): the official client drops it and reconnects (close 4000 \"chat stream baseline missing\"); %s gateways send the whole text first.",
				ev.RunID, rec.Conn, clipQuote(dt, 40), release.Since(release.AppendOnly)))
			return
		default:
			r.text += dt
			if r.appends == 0 {
				r.appendI = rec.Index
			}
			r.appends++
			r.appendsAll++
			copy(r.recent[1:], r.recent[:len(r.recent)-1])
			r.recent[0] = r.text
			r.recentN = min(r.recentN+1, len(r.recent))
		}
	}
	if replace && dtOK && dt == "" && had && before != "" {
		a.mismatch(cs, rec, release.Retraction, "a retraction delta (replace:true, deltaText \"\")")
		if r.retraction != nil {
			a.retractionVerdict(rec, ev, r)
		}
		r.retraction = &retraction{i: rec.Index, t: rec.T, text: before}
		if !slices.Contains(c.retracting, ev.RunID) {
			c.retracting = append(c.retracting, ev.RunID)
		}
	}
}

// wireAgent follows an agent frame: lifecycle restarts and the 2026.9.7
// assistant events without data.text.
func (a *Analyzer) wireAgent(cs *connState, rec *capture.Record, ev *bridge.Event) {
	if ev.RunID == "" {
		return
	}
	c := a.wire.conn(rec.Conn)
	r := c.run(ev.RunID, ev.AgentID, ev.SessionKey)
	switch ev.Stream {
	case "assistant":
		r.agentPrev = r.agentText
		if t, ok := ev.DataTextString(&a.texts); ok {
			r.agentText = t
		} else if d, dOK := jsonx.Str(dataMember(ev, "delta")); dOK {
			a.mismatch(cs, rec, release.AppendOnly, "an agent assistant event without data.text (append-only live text)")
			if rv, _ := ev.DataMember("replace"); jsonx.Truthy(rv) {
				r.agentText = d
			} else {
				r.agentText += d
			}
		}
	case "run_status":
		if ev.Phase == "retrying" {
			r.retrying = true
		}
	case "lifecycle":
		switch ev.Phase {
		case "start":
			if r.started {
				a.lifecycleRestart(rec, ev, r)
			}
			r.started, r.startI, r.retrying, r.retracted = true, rec.Index, false, false
		case "end", "error":
			r.started = false
		}
	}
}

// dataMember is the payload's data.name (data.text and data.replace come
// from the bridge's walk: DataMember).
func dataMember(ev *bridge.Event, name string) []byte {
	data, _ := ev.Member("data")
	return mustGet(data, name)
}

// wireTerminal follows a chat terminal: the second terminal of 2026.9.7
// (an error after an abort), the frozen text's verdict, and the run's end.
func (a *Analyzer) wireTerminal(cs *connState, rec *capture.Record, ev *bridge.Event, c *wireConn, r *wireRun) {
	p := ev.Payload
	if k, _ := jsonx.GetStr(p, "errorKind"); k == "state_contention" {
		a.mismatch(cs, rec, release.NewValues, "a chat error of errorKind state_contention")
	}
	if r.retraction != nil {
		a.retractionVerdict(rec, ev, r)
	}
	if r.appendsAll > 0 {
		a.frozenVerdict(rec, ev, r)
	}
	switch ev.State {
	case "aborted":
		if !r.aborted {
			r.aborted, r.abortedI = true, rec.Index
			r.appends, r.appendsAll, r.recentN, r.hasText, r.text, r.frozen = 0, 0, 0, false, "", nil
			return // the run may still get its error (2026.9.7)
		}
	case "error":
		if stop, _ := jsonx.GetStr(p, "stopReason"); stop == "aborted-partial-persistence-failed" {
			a.mismatch(cs, rec, release.ErrorAfterAborted, "a chat error with stopReason aborted-partial-persistence-failed")
		}
		if r.aborted {
			a.errorAfterAborted(rec, ev, r)
		}
	}
	c.forget(ev.RunID)
	a.untrack(ev.RunID)
}
