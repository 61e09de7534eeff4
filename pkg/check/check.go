package check

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/clawtap/clawtap/internal/human"
	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/gaps"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/message"
	"github.com/clawtap/clawtap/pkg/outcome"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/replay"
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

// Caps on the live tables.
const (
	maxRuns      = 8192 // runs tracked per capture (live and recently ended)
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

	conns map[int]*connState
	runs  map[runKey]*runState
	live  map[runKey]*runState // runs with no terminal yet
	order []runKey             // runs in creation order, for the cap
	head  int                  // order[head:] are live entries

	approvals map[string]*approval
	apOrder   []string
	minExpiry int64

	unknown map[string]bool

	noChat []runKey // runs whose lifecycle ended without a chat terminal yet, in time order

	replay   bool              // a rule reads the replay (dropped-final, the state rules)
	outcomes *outcome.Tracker  // the state rules' view of the replay
	victims  map[string]string // live run recorded closed by a hazard → the stale run that caused it

	firstT, lastT int64
	lastI         int
	sum           Summary

	// OnFinding receives every finding as it is made; its first error ends
	// the pass (see err).
	OnFinding func(f *Finding) error
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
	hasChatDelta    bool
	lateReported    bool
	leakReported    bool
	staleReported   bool
	noChatQueued    bool
	dupReported     bool
	evicted         bool
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
		runs:      make(map[runKey]*runState),
		live:      make(map[runKey]*runState),
		approvals: make(map[string]*approval),
		unknown:   make(map[string]bool),
		victims:   make(map[string]string),
		lastI:     -1,
	}
	a.sum.ByRule = make(map[string]int)
	state := false
	for _, id := range stateRules {
		state = state || en[id]
	}
	a.replay = (en[RuleDroppedFinal] || state) && !opts.NoReplay
	if state && !opts.NoReplay {
		a.outcomes = outcome.New()
	}
	return a, nil
}

// Enabled reports whether a rule runs.
func (a *Analyzer) Enabled(id string) bool { return a.enabled[id] }

// Summary returns the counts so far.
func (a *Analyzer) Summary() Summary { return a.sum }

// add records a finding if its rule is on.
func (a *Analyzer) add(rule string, sev Severity, i int, t int64, conn int, run *runState, runID, agent, session, msg string) {
	if !a.enabled[rule] {
		return
	}
	if sev == 0 {
		sev = defaultSeverity(rule)
	}
	f := Finding{Rule: rule, Severity: sev, I: i, T: t, Conn: conn, RunID: runID, AgentID: agent, SessionKey: session, Message: msg}
	if run != nil {
		f.RunID, f.AgentID, f.SessionKey = run.key.id, run.agent, run.session
		if f.Conn == 0 {
			f.Conn = run.key.conn
		}
	}
	switch sev {
	case Error:
		a.sum.Errors++
	case Warn:
		a.sum.Warnings++
	default:
		a.sum.Infos++
	}
	a.sum.ByRule[rule]++
	if a.OnFinding != nil && a.err == nil {
		a.err = a.OnFinding(&f)
	}
}

func (a *Analyzer) addRun(rule string, sev Severity, i int, t int64, r *runState, msg string) {
	a.add(rule, sev, i, t, 0, r, "", "", "", msg)
}

func (a *Analyzer) conn(n int) *connState {
	cs := a.conns[n]
	if cs == nil {
		cs = &connState{n: n, maxPayload: DefaultMaxPayload, reqs: make(map[string]reqInfo), tools: make(map[string]uint8)}
		a.conns[n] = cs
		a.sum.Connections++
	}
	return cs
}

// Needs is what the rules read from the pass: frame-seq gaps, and the
// replay when the dropped-final rule runs.
func (a *Analyzer) Needs() pipeline.Needs {
	if a.replay {
		return pipeline.Gaps | pipeline.Replay
	}
	return pipeline.Gaps
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
	cs := a.conn(rec.Conn)
	for k := range f.Gaps {
		a.gapFinding(cs, &f.Gaps[k])
	}

	switch ev.Kind {
	case bridge.Marker:
		a.marker(cs, rec)
		return a.err
	case bridge.Invalid:
		what := ev.Reason
		if rec.Malformed {
			what = "line " + strconv.Itoa(rec.Line) + " is not a capture record"
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
	return a.err
}

func rawBytes(rec *capture.Record) []byte {
	if rec.Frame != nil {
		return rec.Frame
	}
	return rec.Raw
}

func rawLen(rec *capture.Record) int { return len(rawBytes(rec)) }

// ---- seq ----

func (a *Analyzer) gapFinding(cs *connState, g *gaps.Finding) {
	known, perConn := cs.perConnSeq()
	switch g.Kind {
	case gaps.Gap:
		sev := Error
		msg := fmt.Sprintf("Frame seq jumped from %d to %d on connection %d: %d frame(s) lost.", g.Expected-1, g.Received, g.Conn, g.Missing())
		if known && !perConn {
			sev = Warn
			msg = fmt.Sprintf("Frame seq jumped from %d to %d on connection %d (%d number(s) unseen); gateway %s shares one seq counter, so events this client may not see also leave holes.", g.Expected-1, g.Received, g.Conn, g.Missing(), cs.version)
		}
		a.add(RuleSeqGap, sev, g.I, g.T, g.Conn, nil, "", "", "", msg)
	case gaps.Duplicate:
		a.add(RuleSeqDuplicate, 0, g.I, g.T, g.Conn, nil, "", "", "", fmt.Sprintf("Frame seq %d arrived twice on connection %d.", g.Received, g.Conn))
	case gaps.Backwards:
		a.add(RuleSeqBackwards, 0, g.I, g.T, g.Conn, nil, "", "", "", fmt.Sprintf("Frame seq went back from %d to %d on connection %d.", g.Expected-1, g.Received, g.Conn))
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
		a.add(RuleSeqNotRestarted, sev, g.I, g.T, g.Conn, nil, "", "", "", msg)
	case gaps.GatewayGap:
		a.add(RuleGatewaySeqGap, 0, g.I, g.T, g.Conn, a.lookupRun(g.Conn, g.RunID), g.RunID, "", "", fmt.Sprintf("The gateway reported a seq gap for run %s: expected payload seq %d, received %d.", g.RunID, g.Expected, g.Received))
	case gaps.RunSeqJump:
		a.add(RuleRunSeqJump, 0, g.I, g.T, g.Conn, a.lookupRun(g.Conn, g.RunID), g.RunID, "", "", fmt.Sprintf("Payload seq of run %s jumped from %d to %d.", g.RunID, g.Expected-1, g.Received))
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

// ---- markers and connections ----

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
		a.add(RuleRequestUnanswered, 0, rq.i, rq.t, cs.n, nil, "", "", "", fmt.Sprintf("Request %s (%s) got no response before connection %d %s.", id, orNone(rq.method), cs.n, how))
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

// ---- requests ----

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
			a.add(RuleSlowResponse, 0, rec.Index, rec.T, rec.Conn, nil, "", "", "", fmt.Sprintf("Request %s (%s) was answered after %s (record %d), over --slow-ms %d.", ev.ID, orNone(rq.method), ms(d), rq.i, a.opts.SlowMs))
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
		code := orNone(ev.Code)
		if detail != "" {
			code += "/" + detail
		}
		a.add(RuleRequestFailed, 0, rec.Index, rec.T, rec.Conn, nil, "", "", "", fmt.Sprintf("Request %s (%s) failed with %s: %s", ev.ID, orNone(ev.Method), code, endSentence(clip(msg, 160))))
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

// ---- runs ----

func (a *Analyzer) lookupRun(conn int, id string) *runState {
	if id == "" {
		return nil
	}
	return a.runs[runKey{conn, id}]
}

func (a *Analyzer) run(rec *capture.Record, ev *bridge.Event) *runState {
	k := runKey{rec.Conn, ev.RunID}
	r := a.runs[k]
	if r == nil {
		if len(a.order)-a.head >= maxRuns {
			a.evictOldest()
		}
		r = &runState{key: k, firstI: rec.Index, firstT: rec.T}
		a.runs[k] = r
		a.live[k] = r
		a.order = append(a.order, k)
		a.sum.Runs++
	}
	r.lastI, r.lastT = rec.Index, rec.T
	if r.agent == "" {
		r.agent = ev.AgentID
	}
	if r.session == "" {
		r.session = ev.SessionKey
	}
	return r
}

func (a *Analyzer) evictOldest() {
	for a.head < len(a.order) {
		k := a.order[a.head]
		a.order[a.head] = runKey{}
		a.head++
		if r, ok := a.runs[k]; ok {
			if !r.done() {
				a.sum.Evicted++
				r.evicted = true
			}
			delete(a.runs, k)
			delete(a.live, k)
			break
		}
	}
	if a.head > len(a.order)/2 && a.head > 1024 {
		a.order = append(a.order[:0], a.order[a.head:]...)
		a.head = 0
	}
}

// late reports an event for a run after its terminal, once per run.
func (a *Analyzer) late(rec *capture.Record, r *runState, what string) {
	if r.lateReported {
		return
	}
	r.lateReported = true
	after, at := "", 0
	switch {
	case r.chatTerm != "":
		after, at = "chat "+r.chatTerm, r.chatTermI
	default:
		after, at = "lifecycle "+r.lifeTerm, r.lifeTermI
	}
	a.addRun(RuleLateEvent, 0, rec.Index, rec.T, r, fmt.Sprintf("%s for run %s arrived %s after its %s (record %d).", capitalize(what), r.key.id, ms(rec.T-termT(r)), after, at))
}

func termT(r *runState) int64 {
	if r.chatTerm != "" {
		return r.chatTermT
	}
	return r.lifeTermT
}

// stale reports a terminal of run r arriving while another run of the same
// session is live on the connection.
func (a *Analyzer) stale(rec *capture.Record, r *runState, what string) {
	if r.staleReported || r.session == "" {
		return
	}
	var other *runState
	for _, o := range a.live {
		if o == r || o.key.conn != r.key.conn || o.session != r.session || !o.live() {
			continue
		}
		if other == nil || o.firstI < other.firstI {
			other = o
		}
	}
	if other == nil {
		return
	}
	r.staleReported = true
	a.addRun(RuleStaleTerminal, 0, rec.Index, rec.T, r, fmt.Sprintf("%s for run %s arrived while run %s of session %s was live (since record %d); a UI fenced on the agent's current run applies it to the wrong run.", capitalize(what), r.key.id, other.key.id, r.session, other.firstI))
}

func (a *Analyzer) chat(cs *connState, rec *capture.Record, ev *bridge.Event) {
	p := ev.Payload
	if ev.State == "status" && ev.RunID != "" {
		a.run(rec, ev)
		return
	}
	var cp bridge.ChatPayload // from the members the classifier captured
	if !ev.Chat(&cp) {
		a.add(RuleMalformedPayload, 0, rec.Index, rec.T, rec.Conn, nil, ev.RunID, "", ev.SessionKey, "Chat event "+chatProblem(p)+"; UIs drop it as a malformed chat payload.")
		return
	}
	r := a.run(rec, ev)
	switch ev.State {
	case "delta":
		if r.done() {
			a.late(rec, r, "chat delta")
			return
		}
		r.hasChatDelta = true
		replace := jsonx.Truthy(mustGet(p, "replace")) // any truthy value, as for agent events
		var next string
		have := false
		if jsonx.KindOf(cp.Message) == jsonx.Object {
			next, have = message.Text(cp.Message)
		}
		if !have {
			if dt, ok := cp.DeltaTextString(); ok {
				if replace {
					next, have = dt, true
				} else {
					next, have = r.chat.s+dt, true
				}
			}
		}
		if replace {
			a.addRun(RuleReplaceDelta, 0, rec.Index, rec.T, r, fmt.Sprintf("Chat delta with replace:true rewrote the streamed text of run %s (%d → %d chars).", r.key.id, len(r.chat.s), len(next)))
		}
		if have {
			a.trackText(rec, r, &r.chat, "chat", next, replace)
		}
	case "final", "aborted", "error":
		a.chatTerminal(rec, r, ev.State, p)
	}
}

func chatProblem(p []byte) string {
	if jsonx.KindOf(p) != jsonx.Object {
		return "payload is not an object"
	}
	if s, _ := jsonx.GetStr(p, "runId"); s == "" {
		return "has no runId"
	}
	if s, _ := jsonx.GetStr(p, "sessionKey"); s == "" {
		return "has no sessionKey"
	}
	st, _ := jsonx.GetStr(p, "state")
	return "has unknown state " + strconv.Quote(st)
}

func (a *Analyzer) chatTerminal(rec *capture.Record, r *runState, state string, p []byte) {
	if r.chatTerm != "" {
		if state == "error" && r.chatTerm == "error" && r.chatErrors == 1 && isDispatchError(p) {
			r.chatErrors++
			a.addRun(RuleDoubleError, 0, rec.Index, rec.T, r, fmt.Sprintf("Second chat error for run %s, %s after the first: the gateway's dispatch-failure copy (2026.9.6 sends two per failed run); a UI without a closed-run guard shows the error twice.", r.key.id, ms(rec.T-r.chatTermT)))
			return
		}
		if !r.dupReported {
			r.dupReported = true
			same := ""
			if state == r.chatTerm {
				same = " again"
			}
			a.addRun(RuleDuplicateTerminal, 0, rec.Index, rec.T, r, fmt.Sprintf("Chat %s%s for run %s, %s after its chat %s (record %d): a UI without a closed-run guard commits the turn twice.", state, same, r.key.id, ms(rec.T-r.chatTermT), r.chatTerm, r.chatTermI))
		}
		return
	}
	a.stale(rec, r, "chat "+state)
	r.chatTerm, r.chatTermI, r.chatTermT = state, rec.Index, rec.T
	delete(a.live, r.key)
	if state == "error" {
		r.chatErrors = 1
	}
	msgRaw, hasMsg := jsonx.Get(p, "message")
	hasMsg = hasMsg && jsonx.KindOf(msgRaw) == jsonx.Object
	switch state {
	case "final":
		if hasMsg {
			a.leak(rec, r, msgRaw, "chat final")
		}
		a.finalText(rec, r, msgRaw, hasMsg)
	case "aborted":
		if hasMsg {
			a.leak(rec, r, msgRaw, "chat aborted")
		}
		stop, _ := jsonx.GetStr(p, "stopReason")
		a.addRun(RuleRunAborted, 0, rec.Index, rec.T, r, fmt.Sprintf("Run %s was aborted (stopReason %s) after %s.", r.key.id, orNone(stop), ms(rec.T-r.firstT)))
	case "error":
		if !r.failed {
			r.failed = true
			em, _ := jsonx.GetStr(p, "errorMessage")
			kind, _ := jsonx.GetStr(p, "errorKind")
			a.addRun(RuleRunFailed, 0, rec.Index, rec.T, r, fmt.Sprintf("Run %s failed (chat error%s): %s", r.key.id, kindNote(kind), endSentence(clip(orNone(em), 160))))
		}
	}
	// A terminal run keeps no text.
	r.chat, r.asst, r.thk = textTrack{}, textTrack{}, textTrack{}
	r.waiting = nil
}

func kindNote(kind string) string {
	if kind == "" {
		return ""
	}
	return ", errorKind " + kind
}

// isDispatchError recognises the second chat error of a failed run on
// 2026.9.6: payload seq 1, no agentId, "Agent failed before reply".
func isDispatchError(p []byte) bool {
	if _, ok := jsonx.Get(p, "agentId"); !ok {
		return true
	}
	if n, ok := jsonx.GetInt(p, "seq"); ok && n == 1 {
		return true
	}
	em, _ := jsonx.GetStr(p, "errorMessage")
	return strings.Contains(em, "Agent failed before reply")
}

func (a *Analyzer) agent(cs *connState, rec *capture.Record, ev *bridge.Event) {
	p := ev.Payload
	if ev.RunID == "" {
		if ev.Stream == "error" {
			return // the gateway's seq-gap event; the gaps tracker reports it
		}
		a.add(RuleMalformedPayload, 0, rec.Index, rec.T, rec.Conn, nil, "", ev.AgentID, ev.SessionKey, "Agent event (stream "+orNone(ev.Stream)+") has no runId; UIs drop it as a malformed agent payload.")
		return
	}
	r := a.run(rec, ev)
	data, _ := jsonx.Get(p, "data")
	switch ev.Stream {
	case "lifecycle":
		a.lifecycle(rec, r, ev.Phase, data)
		return
	case "error":
		return
	case "tool":
		if id := toolCallID(p, data); id != "" {
			a.tool(cs, rec, r, id, 1)
		}
	}
	if r.done() {
		a.late(rec, r, "agent "+ev.Stream+" event")
		return
	}
	if r.lifeTerm != "" && ev.Stream != "run_status" {
		a.late(rec, r, "agent "+ev.Stream+" event")
		return
	}
	switch {
	case ev.Stream == "assistant":
		replace := jsonx.Truthy(mustGet(data, "replace"))
		next, ok := jsonx.GetStr(data, "text")
		if !ok {
			d, dok := jsonx.GetStr(data, "delta")
			if !dok {
				return
			}
			if replace {
				next = d
			} else {
				next = r.asst.s + d
			}
		}
		if replace {
			a.addRun(RuleReplaceDelta, 0, rec.Index, rec.T, r, fmt.Sprintf("Agent assistant event with replace:true rewrote the text of run %s (%d → %d chars).", r.key.id, len(r.asst.s), len(next)))
		}
		a.trackText(rec, r, &r.asst, "agent assistant", next, replace)
	case bridge.IsReasoningStream(ev.Stream):
		if next, ok := jsonx.GetStr(data, "text"); ok {
			a.trackText(rec, r, &r.thk, "agent "+ev.Stream, next, jsonx.Truthy(mustGet(data, "replace")))
		}
	}
}

func toolCallID(p, data []byte) string {
	if s, ok := jsonx.GetStr(data, "toolCallId"); ok {
		return s
	}
	s, _ := jsonx.GetStr(p, "toolCallId")
	return s
}

func (a *Analyzer) lifecycle(rec *capture.Record, r *runState, phase string, data []byte) {
	switch phase {
	case "start":
		if r.done() {
			a.late(rec, r, "lifecycle start")
			return
		}
		// A retry or fallback may reuse the runId after a lifecycle error.
		r.lifeStarted = true
		r.lifeTerm, r.lifeAborted = "", false
		a.live[r.key] = r
		r.asst, r.thk = textTrack{}, textTrack{}
	case "waiting-approval":
		if id, ok := jsonx.GetStr(data, "approvalId"); ok && id != "" {
			if r.waiting == nil {
				r.waiting = make(map[string]bool)
			}
			r.waiting[id] = true
			a.trackApproval(rec, id, 0, r.key.id, r.agent, r.session, "", "exec", "lifecycle waiting-approval")
		}
	case "approval-resolved":
		if id, ok := jsonx.GetStr(data, "approvalId"); ok {
			delete(r.waiting, id)
			a.resolveApproval(id)
		}
	case "end", "error":
		aborted := jsonx.Truthy(mustGet(data, "aborted"))
		if st, _ := jsonx.GetStr(data, "status"); st == "cancelled" {
			aborted = true
		}
		errText, _ := jsonx.GetStr(data, "error")
		abortRelated := r.lifeAborted || r.chatTerm == "aborted" || aborted || strings.Contains(strings.ToLower(errText), "aborted")
		if r.chatTerm != "" {
			// After a chat aborted or error the lifecycle may still end
			// (2026.5.7 and 2026.9.6 send end and then error on abort).
			if r.chatTerm == "final" && !abortRelated {
				a.late(rec, r, "lifecycle "+phase)
			}
			return
		}
		if r.lifeTerm != "" {
			if !abortRelated && !r.dupReported {
				r.dupReported = true
				a.addRun(RuleDuplicateTerminal, 0, rec.Index, rec.T, r, fmt.Sprintf("Lifecycle %s for run %s, %s after its lifecycle %s (record %d), with no abort between.", phase, r.key.id, ms(rec.T-r.lifeTermT), r.lifeTerm, r.lifeTermI))
			}
			return
		}
		a.stale(rec, r, "lifecycle "+phase)
		r.lifeTerm, r.lifeTermI, r.lifeTermT, r.lifeAborted = phase, rec.Index, rec.T, aborted
		delete(a.live, r.key)
		if phase == "error" && !abortRelated && !r.failed {
			r.failed = true
			kind, _ := jsonx.GetStr(data, "errorKind")
			a.addRun(RuleRunFailed, 0, rec.Index, rec.T, r, fmt.Sprintf("Run %s failed (lifecycle error%s): %s", r.key.id, kindNote(kind), endSentence(clip(orNone(errText), 160))))
		}
		if r.asst.set {
			a.leakText(rec, r, r.asst.s, "agent assistant text")
		}
		if !r.noChatQueued {
			r.noChatQueued = true
			a.noChat = append(a.noChat, r.key)
		}
	}
}

// tool remembers a tool call id on a connection: bit 1 from an agent tool
// event, bit 2 from session.tool.
func (a *Analyzer) tool(cs *connState, rec *capture.Record, r *runState, id string, bit uint8) {
	old, seen := cs.tools[id]
	if !seen {
		if len(cs.toolOrder) >= maxTools {
			delete(cs.tools, cs.toolOrder[0])
			cs.toolOrder = cs.toolOrder[1:]
		}
		cs.toolOrder = append(cs.toolOrder, id)
	}
	now := old | bit
	cs.tools[id] = now
	if old&3 != 3 && now == 3 {
		cs.tools[id] = now | 4
		runID, agent, sess := "", "", ""
		if r != nil {
			runID, agent, sess = r.key.id, r.agent, r.session
		}
		a.add(RuleToolAmplified, 0, rec.Index, rec.T, rec.Conn, nil, runID, agent, sess, fmt.Sprintf("Tool call %s reached connection %d both as an agent tool event and as session.tool: the same data twice.", id, rec.Conn))
	}
}

// ---- other events ----

func (a *Analyzer) other(cs *connState, rec *capture.Record, ev *bridge.Event) {
	name := ev.Event
	switch {
	case name == "session.tool":
		data, _ := jsonx.Get(ev.Payload, "data")
		if id := toolCallID(ev.Payload, data); id != "" {
			runID, _ := jsonx.GetStr(ev.Payload, "runId")
			a.tool(cs, rec, a.lookupRun(rec.Conn, runID), id, 2)
		}
	case name == "plugin.approval.requested":
		a.approvalEvent(rec, ev)
	case name == "plugin.approval.resolved":
		a.approvalEvent(rec, ev)
	}
	if ev.Type == "event" && !knownEvent(name) {
		if !a.unknown[name] && len(a.unknown) < maxUnknown {
			a.unknown[name] = true
			a.add(RuleUnknownEvent, 0, rec.Index, rec.T, rec.Conn, nil, "", "", "", fmt.Sprintf("Unknown event %s (first occurrence); no gateway release advertises it.", strconv.Quote(clip(name, 80))))
		}
	}
}

func (a *Analyzer) approvalEvent(rec *capture.Record, ev *bridge.Event) {
	p := ev.Payload
	id, _ := jsonx.GetStr(p, "id")
	if id == "" {
		return
	}
	kind := "exec"
	if strings.HasPrefix(ev.Event, "plugin.") {
		kind = "plugin"
	}
	switch {
	case strings.HasSuffix(ev.Event, ".requested") || strings.HasSuffix(ev.Event, ".pending"):
		exp, _ := numInt(p, "expiresAtMs")
		req, _ := jsonx.Get(p, "request")
		cmd, _ := jsonx.GetStr(req, "command")
		if cmd == "" {
			cmd, _ = jsonx.GetStr(req, "title")
		}
		run, _ := jsonx.GetStr(req, "runId")
		agent := ev.AgentID
		if agent == "" {
			agent, _ = jsonx.GetStr(req, "agentId")
		}
		sess, _ := jsonx.GetStr(req, "sessionKey")
		a.trackApproval(rec, id, exp, run, agent, sess, cmd, kind, ev.Event)
	case strings.HasSuffix(ev.Event, ".resolved"):
		a.resolveApproval(id)
	}
}

func numInt(obj []byte, key string) (int64, bool) {
	v, ok := jsonx.Get(obj, key)
	if !ok {
		return 0, false
	}
	f, ok := jsonx.Num(v)
	if !ok || f != f || f > 1e17 || f < -1e17 {
		return 0, false
	}
	return int64(f), true
}

func (a *Analyzer) trackApproval(rec *capture.Record, id string, exp int64, run, agent, sess, cmd, kind, source string) {
	ap := a.approvals[id]
	if ap == nil {
		if len(a.apOrder) >= maxApprovals {
			delete(a.approvals, a.apOrder[0])
			a.apOrder = a.apOrder[1:]
		}
		ap = &approval{id: id, i: rec.Index, t: rec.T, conn: rec.Conn, kind: kind, source: source}
		a.approvals[id] = ap
		a.apOrder = append(a.apOrder, id)
	}
	if exp > 0 {
		ap.expires = exp
		if a.minExpiry == 0 || exp < a.minExpiry {
			a.minExpiry = exp
		}
	}
	if ap.run == "" {
		ap.run = run
	}
	if ap.agent == "" {
		ap.agent = agent
	}
	if ap.session == "" {
		ap.session = sess
	}
	if ap.command == "" {
		ap.command = cmd
	}
}

func (a *Analyzer) resolveApproval(id string) {
	if _, ok := a.approvals[id]; !ok {
		return
	}
	delete(a.approvals, id)
	if k := slices.Index(a.apOrder, id); k >= 0 {
		a.apOrder = slices.Delete(a.apOrder, k, k+1)
	}
}

// expire runs the checks that wait for time to pass: approvals past their
// expiry, runs whose lifecycle ended with no chat terminal within the grace.
func (a *Analyzer) expire(now int64, i int) {
	if a.minExpiry != 0 && now > a.minExpiry {
		a.minExpiry = 0
		for _, id := range slices.Clone(a.apOrder) {
			ap := a.approvals[id]
			if ap.expires == 0 {
				continue
			}
			if now > ap.expires {
				a.expired(ap, i, now)
				continue
			}
			if a.minExpiry == 0 || ap.expires < a.minExpiry {
				a.minExpiry = ap.expires
			}
		}
	}
	for len(a.noChat) > 0 {
		r := a.runs[a.noChat[0]]
		if r != nil && now-r.lifeTermT <= a.opts.GraceMs {
			break
		}
		a.noChat = a.noChat[1:]
		if r != nil {
			a.noChatCheck(r)
		}
	}
}

func (a *Analyzer) expired(ap *approval, i int, now int64) {
	a.resolveApproval(ap.id)
	what := ap.kind + " approval " + ap.id
	if ap.command != "" {
		what += " (" + clipQuote(ap.command, 60) + ")"
	}
	a.add(RuleApprovalExpired, 0, i, now, ap.conn, nil, ap.run, ap.agent, ap.session, fmt.Sprintf("%s, requested at record %d, expired %s later with no resolved event; the run waits until the UI sweeps it.", capitalize(what), ap.i, ms(ap.expires-ap.t)))
}

func (a *Analyzer) noChatCheck(r *runState) {
	if r.chatTerm != "" || r.lifeTerm == "" {
		return
	}
	r.noChatQueued = false
	a.addRun(RuleRunNoChatTerminal, 0, r.lifeTermI, r.lifeTermT, r, fmt.Sprintf("Run %s's lifecycle %s was not followed by a chat final, aborted or error (an agent-only or channel run); UIs that wait for the chat terminal keep it running.", r.key.id, r.lifeTerm))
}

// End runs the end-of-capture checks.
func (a *Analyzer) End(e *pipeline.End) error {
	if a.outcomes != nil {
		_ = a.outcomes.End(e)
		a.stateFindings()
	}
	truncated := e.Stats.Truncated
	end, endI := a.lastT, a.lastI
	// Lifecycle ends still waiting for their chat terminal.
	for _, k := range a.noChat {
		if r := a.runs[k]; r != nil && end-r.lifeTermT > a.opts.GraceMs {
			a.noChatCheck(r)
		}
	}
	a.noChat = nil
	// Runs without a terminal, in the order they started.
	var live []*runState
	ended := make(map[string]bool)
	for _, r := range a.runs {
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
			a.add(RuleRequestUnanswered, 0, rq.i, rq.t, n, nil, "", "", "", fmt.Sprintf("Request %s (%s) got no response in the %s until the capture ended.", id, orNone(rq.method), ms(end-rq.t)))
		}
	}
	if truncated {
		a.add(RuleCaptureTruncated, 0, endI, end, 0, nil, "", "", "", fmt.Sprintf("The capture is cut off after record %d (a recorder killed mid-write); what follows is lost.", endI))
	}
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
	if a.outcomes != nil {
		_ = a.outcomes.Step(s)
	}
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
func clip(s string, n int) string { return human.Clip(human.Flat(s), n) }

func clipQuote(s string, n int) string { return strconv.Quote(clip(s, n)) }
