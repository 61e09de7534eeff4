package check

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/human"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/replay"
	"github.com/clawtap/clawtap/pkg/runs"
)

// Defaults for Options.
const (
	DefaultSlowMs  = 5000
	DefaultIdleMs  = 30_000
	DefaultGraceMs = 20_000
)

// Size limits of the gateway (gateway-protocol §1).
const (
	PreAuthMaxBytes   = 64 << 10
	DefaultMaxPayload = 25 << 20
)

// Caps on the live tables. The runs are the pass's run table's.
const (
	maxReqs      = 4096 // pending requests per connection
	maxTools     = 4096 // tool call ids remembered per connection
	maxApprovals = 4096
	maxUnknown   = 256 // distinct unknown event names remembered
	maxVictims   = 256
)

// Options tune an Analyzer.
type Options struct {
	// SlowMs: a response later than this after its request is slow, and a
	// request older than this at the end of the capture is unanswered.
	// 0 means DefaultSlowMs.
	SlowMs int64
	// IdleMs: a run without a terminal that was silent this long before
	// the capture ended is unterminated rather than in flight. 0 means
	// DefaultIdleMs.
	IdleMs int64
	// GraceMs: how long after a lifecycle end a chat terminal may still
	// come (v3 holds lifecycle errors for 15 s). 0 means DefaultGraceMs.
	GraceMs int64
	// Only, if not empty, selects the rules to run (rules that are off by
	// default can be selected); Skip removes rules. Unknown ids are an
	// error from New.
	Only []string
	Skip []string
	// NoReplay turns off the replay of the capture through the UI pipeline
	// that the rules about the UI's state need. Which UI the replay models
	// is the pass's choice (pipeline.Options.Replay.UI).
	NoReplay bool
}

// Analyzer checks a capture record by record.
type Analyzer struct {
	opts    Options
	enabled map[string]bool

	conns    map[int]*connState
	lastConn *connState // the connection looked up last
	// What check knows of a run is a field of it in the pass's run table:
	// a state per connection that saw it (each client is sent its own
	// terminals and seq).
	table *runs.Table
	runs  runs.Field[connRuns]
	cur   *runs.Run            // the record's run, during After
	live  map[runKey]*runState // the runs' states with no terminal yet
	kept  []*runState          // the states of the runs held to the end, for End

	approvals map[string]*approval
	apOrder   []string
	minExpiry int64

	unknown map[string]bool

	noChat []*runState // runs whose lifecycle ended without a chat terminal yet, in time order

	replay  bool              // a rule reads the replay (dropped-final, the state rules)
	states  bool              // a state rule runs: it reads the pass's run table
	victims map[string]string // live run recorded closed by a hazard → the stale run that caused it

	firstT, lastT int64
	lastI         int
	sum           Summary

	texts jsonx.StrMemo // the last streamed text decoded, shared by the agent and chat streams

	wire *wireState // the rules of the post-2026.9.6 wire (wire.go)

	// names names a UI in a sentence: its title ("clawboo"), or with its
	// version when several are checked (Multi).
	names func(replay.UI) string

	// OnFinding, when set, takes every finding as it is made, instead of
	// the pass's FindingObservers: for an embedder that handles them
	// itself (check.Multi merges several UIs' findings first). Its first
	// error ends the pass (see err).
	OnFinding func(f *Finding) error
	report    func(f *Finding) error // the pass's (SetReport)
	err       error
}

type runKey struct {
	conn int
	id   string
}

type connState struct {
	n          int
	started    bool // its start (open marker, challenge or connect) is in the capture
	hello      bool
	protocol   int
	version    string
	maxPayload int64
	closed     bool
	closeCode  int
	closeT     int64
	reqs       map[string]reqInfo
	reqOrder   []string
	tools      map[string]uint8
	toolOrder  []string
}

type reqInfo struct {
	method string
	i      int
	t      int64
}

type textTrack struct {
	s        string
	set      bool
	doubled  int // length before a reported doubling, 0 if none
	reported bool
}

type runState struct {
	key             runKey
	n               int // the run's number in the pass's run table
	agent, session  string
	firstI, lastI   int
	firstT, lastT   int64
	lifeStarted     bool
	lifeTerm        string // "", "end", "error"
	lifeAborted     bool
	lifeTermI       int
	lifeTermT       int64
	chatTerm        string // "", "final", "aborted", "error"
	chatTermI       int
	chatTermT       int64
	chatErrors      int
	failed          bool
	waiting         map[string]bool // approvals the run waits for
	chat, asst, thk textTrack
	// a lifecycle model phase (the run calls the model again) came since
	// the agent stream's last assistant or thinking text
	asstCall, thkCall bool
	callI             int  // that phase's record
	callReported      bool // a text started over at a new call was reported
	hasChatDelta      bool
	lateReported      bool
	leakReported      bool
	staleReported     bool
	noChatQueued      bool
	dupReported       bool
	gone              bool // let go by the run table before the end
}

// connRuns is a run's state on each connection that saw it.
type connRuns []*runState

func (c connRuns) on(conn int) *runState {
	for _, r := range c {
		if r.key.conn == conn {
			return r
		}
	}
	return nil
}

func (r *runState) live() bool { return r.chatTerm == "" && r.lifeTerm == "" }
func (r *runState) done() bool { return r.chatTerm != "" }

type approval struct {
	id                    string
	i                     int
	t                     int64
	conn                  int
	expires               int64
	run, agent, session   string
	command, kind, source string
}

// New returns an Analyzer.
func New(opts Options) (*Analyzer, error) {
	if opts.SlowMs <= 0 {
		opts.SlowMs = DefaultSlowMs
	}
	if opts.IdleMs <= 0 {
		opts.IdleMs = DefaultIdleMs
	}
	if opts.GraceMs <= 0 {
		opts.GraceMs = DefaultGraceMs
	}
	en := make(map[string]bool)
	for _, r := range rules {
		en[r.ID] = r.Default && len(opts.Only) == 0
	}
	for _, id := range opts.Only {
		if _, ok := LookupRule(id); !ok {
			return nil, fmt.Errorf("unknown rule %q", id)
		}
		en[id] = true
	}
	for _, id := range opts.Skip {
		if _, ok := LookupRule(id); !ok {
			return nil, fmt.Errorf("unknown rule %q", id)
		}
		en[id] = false
	}
	a := &Analyzer{
		opts:      opts,
		enabled:   en,
		conns:     make(map[int]*connState),
		live:      make(map[runKey]*runState),
		approvals: make(map[string]*approval),
		unknown:   make(map[string]bool),
		victims:   make(map[string]string),
		lastI:     -1,
		wire:      newWireState(),
	}
	a.sum.ByRule = make(map[string]int)
	state := false
	for _, id := range stateRules {
		state = state || en[id]
	}
	hazard := false
	for _, id := range hazardRules {
		hazard = hazard || en[id]
	}
	a.replay = (en[RuleDroppedFinal] || state || hazard) && !opts.NoReplay
	a.wire.judge = a.replay
	if state && !opts.NoReplay {
		// The pass's run table judges its runs as it lets them go
		// (RunDone): memory stays flat.
		a.states = true
	}
	return a, nil
}

// Enabled reports whether a rule runs.
func (a *Analyzer) Enabled(id string) bool { return a.enabled[id] }

// Summary returns the counts so far.
func (a *Analyzer) Summary() Summary { return a.sum }

// add records a finding if its rule is on.
func (a *Analyzer) add(rule string, sev Severity, i int, t int64, conn int, run *runState, runID, agent, session, msg string) {
	if sev == 0 {
		sev = defaultSeverity(rule)
	}
	f := Finding{Rule: rule, Severity: sev, I: i, T: t, Conn: conn, RunID: runID, AgentID: agent, SessionKey: session, Message: msg}
	if run != nil {
		f.RunID, f.AgentID, f.SessionKey, f.Run = run.key.id, run.agent, run.session, run.n
		if f.Conn == 0 {
			f.Conn = run.key.conn
		}
	}
	a.record(&f)
}

// record counts a finding and hands it on, if its rule is on; a finding
// of a run the pass's table holds (held still, or being let go) gets its
// number.
func (a *Analyzer) record(f *Finding) {
	if !a.enabled[f.Rule] {
		return
	}
	if f.Run == 0 && f.RunID != "" {
		if tr := a.table.Lookup(f.RunID); tr != nil {
			f.Run = tr.N
		}
	}
	switch f.Severity {
	case Error:
		a.sum.Errors++
	case Warn:
		a.sum.Warnings++
	default:
		a.sum.Infos++
	}
	a.sum.ByRule[f.Rule]++
	switch {
	case a.err != nil:
	case a.OnFinding != nil:
		a.err = a.OnFinding(f)
	case a.report != nil:
		a.err = a.report(f)
	}
}

// SetReport takes the pass's report function: the findings go to the
// pass's FindingObservers (unless OnFinding takes them).
func (a *Analyzer) SetReport(report func(*Finding) error) { a.report = report }

func (a *Analyzer) addRun(rule string, sev Severity, i int, t int64, r *runState, msg string) {
	a.add(rule, sev, i, t, 0, r, "", "", "", msg)
}

func (a *Analyzer) conn(n int) *connState {
	if cs := a.lastConn; cs != nil && cs.n == n { // mostly the last record's
		return cs
	}
	cs := a.conns[n]
	if cs == nil {
		cs = &connState{n: n, maxPayload: DefaultMaxPayload, reqs: make(map[string]reqInfo), tools: make(map[string]uint8)}
		a.conns[n] = cs
		a.sum.Connections++
	}
	a.lastConn = cs
	return cs
}

// Needs is what the rules read from the pass: the run table, frame-seq
// gaps when a gap rule runs (the lanes of a check under several UIs run
// none), the replay when the dropped-final rule runs, and the runs'
// outcomes when a state rule (lost-reply, ghost-stream, billing) does.
func (a *Analyzer) Needs() pipeline.Needs {
	n := pipeline.Runs
	if slices.ContainsFunc(gapRules, func(id string) bool { return a.enabled[id] }) {
		n |= pipeline.Gaps
	}
	switch {
	case a.states:
		n |= pipeline.Outcomes
	case a.replay:
		n |= pipeline.Replay
	}
	return n
}

// Table takes the pass's run table, before the pass starts.
func (a *Analyzer) Table(t *runs.Table) {
	a.table, a.runs = t, runs.NewField[connRuns](t)
}

// Before counts the record and expires the approvals due before it.
func (a *Analyzer) Before(f *pipeline.Frame) error {
	rec := f.Rec
	a.sum.Records++
	if rec.T > 0 && a.firstT == 0 {
		a.firstT = rec.T
	}
	if rec.T > a.lastT {
		a.lastT = rec.T
	}
	a.lastI = rec.Index
	a.expire(rec.T, rec.Index)
	return a.err
}

// After checks the record, once the replay took it.
func (a *Analyzer) After(f *pipeline.Frame) error {
	rec, ev := f.Rec, f.Event
	a.cur = f.Run
	cs := a.conn(rec.Conn)
	for k := range f.Gaps {
		a.gapFinding(cs, &f.Gaps[k])
	}

	switch ev.Kind {
	case bridge.Marker:
		a.marker(cs, rec)
		a.wireAfter(cs, rec, ev)
		return a.err
	case bridge.Invalid:
		what := ev.Reason
		if rec.Malformed {
			what = "line " + strconv.Itoa(rec.Line) + " is not a capture record"
			if rec.Err != "" {
				what += ": " + rec.Err
			}
		}
		a.add(RuleInvalidFrame, 0, rec.Index, rec.T, rec.Conn, nil, "", "", "", capitalize(what)+" ("+strconv.Itoa(rawLen(rec))+" bytes, "+clipQuote(string(rawBytes(rec)), 40)+").")
	}
	a.size(cs, rec)
	if ev.Kind == bridge.Invalid {
		return a.err
	}
	a.sum.Frames++
	switch ev.Kind {
	case bridge.Request:
		a.request(cs, rec, ev)
	case bridge.Response:
		a.response(cs, rec, ev)
	case bridge.RuntimeChat:
		a.chat(cs, rec, ev)
	case bridge.RuntimeAgent:
		a.agent(cs, rec, ev)
	case bridge.Approval:
		a.approvalEvent(rec, ev)
	case bridge.Unknown, bridge.SummaryRefresh:
		a.other(cs, rec, ev)
	}
	if ev.Type == "event" && ev.Event == "connect.challenge" {
		cs.started = true
	}
	a.wireAfter(cs, rec, ev)
	return a.err
}

func rawBytes(rec *capture.Record) []byte {
	if rec.Frame != nil {
		return rec.Frame
	}
	return rec.Raw
}

func rawLen(rec *capture.Record) int { return len(rawBytes(rec)) }

// End runs the end-of-capture checks.
func (a *Analyzer) End(e *pipeline.End) error {
	truncated := e.Stats.Truncated
	end, endI := a.lastT, a.lastI
	// Lifecycle ends still waiting for their chat terminal.
	for _, r := range a.noChat {
		if !r.gone && end-r.lifeTermT > a.opts.GraceMs {
			a.noChatCheck(r)
		}
	}
	a.noChat = nil
	// Runs without a terminal, in the order they started.
	var live []*runState
	ended := make(map[string]bool)
	for _, r := range a.kept {
		if r.chatTerm != "" || r.lifeTerm != "" {
			ended[r.key.id] = true
		} else {
			live = append(live, r)
		}
	}
	slices.SortFunc(live, func(x, y *runState) int { return x.firstI - y.firstI })
	for _, r := range live {
		cs := a.conns[r.key.conn]
		horizon := end
		if cs != nil && cs.closed {
			if ended[r.key.id] {
				continue // its terminal arrived on another connection
			}
			if end-cs.closeT > a.opts.IdleMs {
				a.addRun(RuleRunUnterminated, 0, r.lastI, r.lastT, r, fmt.Sprintf("Run %s (started at record %d) never got a terminal: connection %d closed%s while it was live, and in the %s of capture after that no connection saw it end.", r.key.id, r.firstI, cs.n, codeNote(cs.closeCode), ms(end-cs.closeT)))
				continue
			}
			horizon = cs.closeT
		}
		idle := horizon - r.lastT
		switch {
		case len(r.waiting) > 0:
			a.addRun(RuleRunInFlight, 0, r.lastI, r.lastT, r, fmt.Sprintf("Run %s was waiting for an approval when the capture ended.", r.key.id))
		case idle <= a.opts.IdleMs:
			a.addRun(RuleRunInFlight, 0, r.lastI, r.lastT, r, fmt.Sprintf("Run %s was still live when the capture ended (last event %s before the end).", r.key.id, ms(idle)))
		default:
			a.addRun(RuleRunUnterminated, 0, r.lastI, r.lastT, r, fmt.Sprintf("Run %s (started at record %d) never got a terminal: silent for %s before the capture ended, so a UI shows it running forever.", r.key.id, r.firstI, ms(idle)))
		}
	}
	// Approvals.
	for _, id := range slices.Clone(a.apOrder) {
		ap := a.approvals[id]
		if ap.expires > 0 && end > ap.expires {
			a.expired(ap, endI, end)
			continue
		}
		what := ap.kind + " approval " + ap.id
		if ap.command != "" {
			what += " (" + clipQuote(ap.command, 60) + ")"
		}
		a.add(RuleApprovalPending, 0, ap.i, ap.t, ap.conn, nil, ap.run, ap.agent, ap.session, fmt.Sprintf("%s was still unresolved when the capture ended, %s after it was requested.", capitalize(what), ms(end-ap.t)))
	}
	// Requests.
	conns := make([]int, 0, len(a.conns))
	for n := range a.conns {
		conns = append(conns, n)
	}
	slices.Sort(conns)
	for _, n := range conns {
		cs := a.conns[n]
		for _, id := range cs.reqOrder {
			rq, ok := cs.reqs[id]
			if !ok || end-rq.t <= a.opts.SlowMs {
				continue
			}
			a.add(RuleRequestUnanswered, 0, rq.i, rq.t, n, nil, "", "", "", fmt.Sprintf("Request %s (%s) got no response in the %s until the capture ended.", id, method(rq.method), ms(end-rq.t)))
		}
	}
	switch {
	case truncated && e.Stats.Corrupt:
		a.add(RuleCaptureTruncated, 0, endI, end, 0, nil, "", "", "", fmt.Sprintf("The capture's zstd stream is corrupt after record %d (the file was damaged after it was written); what follows is lost.", endI))
	case truncated:
		a.add(RuleCaptureTruncated, 0, endI, end, 0, nil, "", "", "", fmt.Sprintf("The capture is cut off after record %d (a recorder killed mid-write); what follows is lost.", endI))
	}
	a.wireEnd()
	return a.err
}

func codeNote(code int) string {
	if code == 0 {
		return ""
	}
	return " (" + strconv.Itoa(code) + ")"
}

// Step watches the replay for the hazard and the final it costs, and
// follows the runs for the state rules.
func (a *Analyzer) Step(s *replay.Step) error {
	a.wireStep(s)
	for k := range s.Effects {
		e := &s.Effects[k]
		if e.Type != replay.EffGuard {
			continue
		}
		switch e.Action {
		case "hazard":
			if len(a.victims) < maxVictims {
				a.victims[e.RunID] = e.Incoming
			}
		case "dropped-closed-run":
			stale, ok := a.victims[e.RunID]
			if !ok || e.Intent != "commitChat" {
				continue
			}
			delete(a.victims, e.RunID)
			t := s.T
			if s.Rec != nil {
				t = s.Rec.T
			}
			a.add(RuleDroppedFinal, 0, s.I, t, s.Conn, nil, e.RunID, e.AgentID, "", fmt.Sprintf("Replay: run %s's terminal was dropped by the closed-run guard, because run %s's late terminal had recorded %s closed; the UI loses this turn's final.", e.RunID, stale, e.RunID))
		}
	}
	return a.err
}

// ---- helpers ----

func mustGet(obj []byte, key string) []byte {
	v, _ := jsonx.Get(obj, key)
	return v
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// method names a request's method in the parentheses after its id:
// "Request 9 (method unknown) failed", never "Request 9 ((none))".
func method(m string) string {
	if m == "" {
		return "method unknown"
	}
	return m
}

func ms(d int64) string {
	if d < 0 {
		d = 0
	}
	if d < 1000 {
		return strconv.FormatInt(d, 10) + " ms"
	}
	return strconv.FormatFloat(float64(d)/1000, 'f', 1, 64) + " s"
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	if c := s[0]; c >= 'a' && c <= 'z' {
		return string(c-32) + s[1:]
	}
	return s
}

func endSentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return "(no message)."
	}
	if strings.HasSuffix(s, ".") || strings.HasSuffix(s, "…") || strings.HasSuffix(s, "!") || strings.HasSuffix(s, "?") {
		return s
	}
	return s + "."
}

// clip keeps a quoted value on one line and short.
func clip(s string, n int) string { return human.FlatClip(s, n) }

func clipQuote(s string, n int) string { return strconv.Quote(clip(s, n)) }
