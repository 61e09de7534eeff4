package replay

import (
	"slices"
	"strconv"
	"strings"

	"github.com/clawtap/clawtap/pkg/ui"
)

// Line kinds in the transcript, as the host's appendOutputLines assigns them.
const (
	LineAssistant = "assistant"
	LineTool      = "tool"
	LineMeta      = "meta"
)

// NStr is a nullable string; the zero value is null.
type NStr struct {
	Valid bool
	V     string
}

// NInt is a nullable integer (unix ms for times); the zero value is null.
type NInt struct {
	Valid bool
	V     int64
}

// NBool is a nullable boolean; the zero value is null.
type NBool struct {
	Valid bool
	V     bool
}

// NNum is a nullable JavaScript number (a token count); the zero value is
// null.
type NNum struct {
	Valid bool
	V     float64
}

// NStrOf, NIntOf and NBoolOf read a patch's value: null when the patch
// leaves the key alone or clears it.
func NStrOf(s ui.Str) NStr    { return NStr{Valid: s.Set && !s.Null, V: s.V} }
func NIntOf(s ui.Int) NInt    { return NInt{Valid: s.Set && !s.Null, V: s.V} }
func NBoolOf(b ui.Bool) NBool { return NBool{Valid: b.Set && !b.Null, V: b.V} }

// Line is one committed transcript entry.
type Line struct {
	Text string
	Kind string // assistant, tool or meta (clawboo); plus user and thinking (Claw3D)
	TS   int64  // the entry's timestampMs: the stream-start anchor, else the time it was appended

	// Claw3D's transcript entries also carry these (and clawboo's after
	// 1211c16 a role, its run and session).
	EntryID    string // run:<id>:assistant:final and friends, or a fingerprint id
	Role       string
	RunID      string
	SessionKey string
	Confirmed  bool // confirmed by a chat final or history (a lifecycle fallback is not)
}

// meta renders what a Claw3D entry carries besides its text, or "" for a
// clawboo line.
func (l *Line) meta() string {
	if l.EntryID == "" {
		return ""
	}
	b := append([]byte(`{"entryId":`), appendJSONString(nil, l.EntryID)...)
	b = append(b, `,"kind":`...)
	b = appendJSONString(b, l.Kind)
	if l.RunID != "" {
		b = append(b, `,"runId":`...)
		b = appendJSONString(b, l.RunID)
	}
	b = append(b, `,"confirmed":`...)
	b = strconv.AppendBool(b, l.Confirmed)
	return string(append(b, '}'))
}

// Agent is one agent's slice of the UI stores: the fleet store's live
// fields and the chat store's committed transcript.
type Agent struct {
	ID             string
	Status         NStr
	RunID          NStr
	RunStartedAt   NInt
	StreamText     NStr
	ThinkingTrace  NStr
	LastActivityAt NInt

	// The fields only Claw3D's agent store has.
	SessionCreated         NBool
	LatestPreview          NStr
	LastUserMessage        NStr
	LastResult             NStr
	LastAssistantMessageAt NInt

	lines   []Line // ring buffer of at most the state's transcript cap
	start   int    // index of the oldest entry in lines
	n       int
	dropped int64 // lines dropped by the cap; a line's number minus dropped is its index

	approvals int // pending approvals for this agent
}

// Lines returns the committed transcript, oldest first.
func (a *Agent) Lines() []Line {
	out := make([]Line, 0, a.n)
	for i := 0; i < a.n; i++ {
		out = append(out, a.line(i))
	}
	return out
}

// NumLines is the number of lines held.
func (a *Agent) NumLines() int { return a.n }

// Line returns the i-th line held, oldest first.
func (a *Agent) Line(i int) Line { return a.line(i) }

// LinesDropped is how many of the oldest lines the cap has dropped.
func (a *Agent) LinesDropped() int64 { return a.dropped }

// PendingApprovals is the number of approvals pending for the agent.
func (a *Agent) PendingApprovals() int { return a.approvals }

func (a *Agent) line(i int) Line { return a.lines[(a.start+i)%len(a.lines)] }

// lineByNumber returns the line with absolute number n (0 = first ever).
func (a *Agent) lineByNumber(n int64) (Line, bool) {
	i := n - a.dropped
	if i < 0 || i >= int64(a.n) {
		return Line{}, false
	}
	return a.line(int(i)), true
}

// set replaces the line with absolute number n (an upsert by entryId);
// it reports whether that line is still held.
func (a *Agent) set(n int64, l Line) bool {
	i := n - a.dropped
	if i < 0 || i >= int64(a.n) {
		return false
	}
	a.lines[(a.start+int(i))%len(a.lines)] = l
	return true
}

// push appends a line, dropping the oldest past the cap; it reports
// whether one was dropped.
func (a *Agent) push(l Line, limit int) bool {
	if a.n < len(a.lines) { // a line was removed: the ring has room
		a.lines[(a.start+a.n)%len(a.lines)] = l
		a.n++
		return false
	}
	if len(a.lines) < limit {
		a.lines = append(a.lines, l)
		a.n++
		return false
	}
	// Full ring (n == TranscriptCap): overwrite the oldest.
	a.lines[a.start] = l
	a.start = (a.start + 1) % len(a.lines)
	a.dropped++
	return true
}

// Approval is a pending exec approval, keyed by payload.id.
type Approval struct {
	ID        string
	AgentID   string
	Command   NStr
	CreatedAt NInt // payload.createdAtMs
	ExpiresAt NInt // payload.expiresAtMs; without it the approval never expires
}

// Cost is what an agent was billed for one model.
type Cost struct {
	Turns        int64   // commitChats that billed
	InputTokens  float64 // known input tokens: a sum of JavaScript numbers, as the host adds them
	InputUnknown int64   // turns whose input count was unknown (the host estimates it)
	OutputTokens float64
}

// ChatSession is what a chat store keeps per session key beside the
// transcript: clawboo's streaming text (the bubble), set by every live
// patch and cleared only when a commitChat is applied. A UI whose chat
// state lives in a session's pane (Layout.Panes: the Control UI) keeps the
// run it follows there too.
type ChatSession struct {
	StreamText NStr
	// The pane's run: the run it adopted (busy; the Stop button), the
	// status its last terminal left (done, interrupted) until it clears,
	// and the error banner.
	RunID     NStr
	RunStatus NStr
	RunError  NStr
	// Tools is the number of tool cards shown.
	Tools int64
}

// Stop reports whether the pane shows a Stop button: a run is adopted and
// no done or interrupted status is showing.
func (c *ChatSession) Stop() bool {
	return c.RunID.Valid && !(c.RunStatus.Valid && (c.RunStatus.V == "done" || c.RunStatus.V == "interrupted"))
}

// Requests counts one kind of request the UI would make.
type Requests struct {
	Count  int64
	LastAt NInt
}

// Request kinds.
const (
	ReqSummaryReload    = "summaryReload"
	ReqHeartbeatRefresh = "heartbeatRefresh"
	ReqHistoryRefresh   = "historyRefresh"
	// ReqHeartbeatTick is Claw3D's bumpHeartbeatTick (a store counter, not
	// a request to the gateway, counted beside them).
	ReqHeartbeatTick = "heartbeatTick"
)

// RequestKinds lists the request kinds of the state's UI, in output order.
func (s *State) RequestKinds() []string { return s.layout.RequestKinds }

// State is the UI state model: what the web app's stores hold. Its writes
// (store.go) track each path they change, for the step's diff.
type State struct {
	ui        UI     // the UI modelled
	layout    Layout // its stores
	agents    map[string]*Agent
	agentIDs  []string // sorted, while no agent is added (AgentIDs)
	chat      map[string]*ChatSession
	approvals map[string]*Approval
	cost      map[string]map[string]*Cost
	requests  map[string]*Requests
	metrics   map[string]int64

	tr diffLog
}

func newState(u UI) State {
	return State{
		ui:        u,
		layout:    u.Layout(),
		agents:    make(map[string]*Agent),
		chat:      make(map[string]*ChatSession),
		approvals: make(map[string]*Approval),
		cost:      make(map[string]map[string]*Cost),
		requests:  make(map[string]*Requests),
		metrics:   make(map[string]int64),
	}
}

// UI is the UI the state models.
func (s *State) UI() UI { return s.ui }

// Layout is how the UI's stores look.
func (s *State) Layout() Layout { return s.layout }

// Chat returns a chat session's store, or nil.
func (s *State) Chat(sessionKey string) *ChatSession { return s.chat[sessionKey] }

// ChatKeys returns the chat sessions' keys, sorted.
func (s *State) ChatKeys() []string { return sortedKeys(s.chat) }

// Metrics returns how often each of the UI's metrics was logged, by name.
func (s *State) Metric(name string) int64 { return s.metrics[name] }

// MetricNames returns the metrics logged, sorted.
func (s *State) MetricNames() []string { return sortedKeys(s.metrics) }

// Agent returns an agent's state, or nil if the agent was never written.
func (s *State) Agent(id string) *Agent { return s.agents[id] }

// AgentIDs returns every agent id, sorted. The slice is the state's own,
// kept until an agent is added (observers ask for it at every step): the
// caller must not change it.
func (s *State) AgentIDs() []string {
	if len(s.agentIDs) != len(s.agents) { // agents are only ever added
		s.agentIDs = sortedKeys(s.agents)
	}
	return s.agentIDs
}

// Approval returns a pending approval, or nil.
func (s *State) Approval(id string) *Approval { return s.approvals[id] }

// ApprovalIDs returns the pending approvals' ids, sorted.
func (s *State) ApprovalIDs() []string { return sortedKeys(s.approvals) }

// Cost returns what agentID was billed for model, or nil.
func (s *State) Cost(agentID, model string) *Cost { return s.cost[agentID][model] }

// Requests returns the count of one request kind (ReqSummaryReload, ...).
func (s *State) Requests(kind string) Requests {
	if r := s.requests[kind]; r != nil {
		return *r
	}
	return Requests{}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// ---- paths and values for the diff ----

// Sections of the state, in output order.
const (
	secAgents uint8 = iota + 1
	secChat
	secApprovals
	secCost
	secRequests
	secMetrics
)

// Agent fields, in output order.
const (
	fStatus uint8 = iota + 1
	fRunID
	fRunStartedAt
	fStreamText
	fThinkingTrace
	fLastActivityAt
	fSessionCreated
	fLatestPreview
	fLastUserMessage
	fLastResult
	fLastAssistantMessageAt
	fLine
	fLineMeta
	// cost fields
	fTurns
	fInputTokens
	fInputUnknown
	fOutputTokens
	// request fields
	fCount
	fLastAt
	// a pane's fields (chat; streamText is field 0 there, as before panes)
	fRunStatus
	fRunError
	fTools
)

var fieldNames = [...]string{
	fStatus: "status", fRunID: "runId", fRunStartedAt: "runStartedAt", fStreamText: "streamText",
	fThinkingTrace: "thinkingTrace", fLastActivityAt: "lastActivityAt",
	fSessionCreated: "sessionCreated", fLatestPreview: "latestPreview", fLastUserMessage: "lastUserMessage",
	fLastResult: "lastResult", fLastAssistantMessageAt: "lastAssistantMessageAt",
	fLine: "outputLines", fLineMeta: "outputMeta",
	fTurns: "turns", fInputTokens: "inputTokens", fInputUnknown: "inputTokensUnknown", fOutputTokens: "outputTokens",
	fCount: "count", fLastAt: "lastAt",
	fRunStatus: "runStatus", fRunError: "runError", fTools: "tools",
}

// Path names one scalar of the state.
type Path struct {
	sec   uint8
	key   string // agent id, approval id, request kind
	key2  string // model (cost)
	field uint8
	n     int64 // line number (outputLines)
}

func comparePath(a, b Path) int {
	if a.sec != b.sec {
		return int(a.sec) - int(b.sec)
	}
	if c := strings.Compare(a.key, b.key); c != 0 {
		return c
	}
	if c := strings.Compare(a.key2, b.key2); c != 0 {
		return c
	}
	if a.field != b.field {
		return int(a.field) - int(b.field)
	}
	switch {
	case a.n < b.n:
		return -1
	case a.n > b.n:
		return 1
	}
	return 0
}

// Agent says whether the path is in an agent's store, and whose.
func (p Path) Agent() (id string, ok bool) { return p.key, p.sec == secAgents }

// ChatSession says whether the path is in a chat session's store, and
// whose.
func (p Path) ChatSession() (key string, ok bool) { return p.key, p.sec == secChat }

// String renders the path: agents.main.status, agents.main.outputLines.3,
// approvals.<id>, cost.main.<model>.turns, requests.summaryReload.count.
// A key that is not a plain identifier is written as ["key"].
func (p Path) String() string { return string(p.append(nil)) }

func (p Path) append(dst []byte) []byte {
	switch p.sec {
	case secAgents:
		dst = append(dst, "agents"...)
		dst = appendKey(dst, p.key)
		dst = append(dst, '.')
		dst = append(dst, fieldNames[p.field]...)
		if p.field == fLine || p.field == fLineMeta {
			dst = append(dst, '.')
			dst = appendInt(dst, p.n)
		}
	case secChat:
		dst = append(dst, "chat"...)
		dst = appendKey(dst, p.key)
		if p.field == 0 {
			dst = append(dst, ".streamText"...)
		} else {
			dst = append(dst, '.')
			dst = append(dst, fieldNames[p.field]...)
		}
	case secApprovals:
		dst = append(dst, "approvals"...)
		dst = appendKey(dst, p.key)
	case secCost:
		dst = append(dst, "cost"...)
		dst = appendKey(dst, p.key)
		dst = appendKey(dst, p.key2)
		dst = append(dst, '.')
		dst = append(dst, fieldNames[p.field]...)
	case secRequests:
		dst = append(dst, "requests"...)
		dst = appendKey(dst, p.key)
		dst = append(dst, '.')
		dst = append(dst, fieldNames[p.field]...)
	case secMetrics:
		dst = append(dst, "metrics"...)
		dst = appendKey(dst, p.key)
	}
	return dst
}

func plainKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == ':' || c == '@' || c == '/' || c == '+') {
			return false
		}
	}
	return true
}

func appendKey(dst []byte, k string) []byte {
	if plainKey(k) {
		dst = append(dst, '.')
		return append(dst, k...)
	}
	dst = append(dst, '[')
	dst = appendJSONString(dst, k)
	return append(dst, ']')
}

// Value kinds.
const (
	vNull uint8 = iota
	vStr
	vInt
	vTime // an absolute time, rendered as an offset from the capture's start
	vApproval
	vNum  // a JavaScript number (token counts)
	vBool // n is 0 or 1
)

// Val is a diff value.
type Val struct {
	k uint8
	s string
	n int64
	f float64   // vNum
	a *Approval // vApproval: a snapshot
}

func strVal(s NStr) Val {
	if !s.Valid {
		return Val{}
	}
	return Val{k: vStr, s: s.V}
}

func timeVal(n NInt) Val {
	if !n.Valid {
		return Val{}
	}
	return Val{k: vTime, n: n.V}
}

func intVal(n int64) Val { return Val{k: vInt, n: n} }

func boolVal(b NBool) Val {
	switch {
	case !b.Valid:
		return Val{}
	case b.V:
		return Val{k: vBool, n: 1}
	}
	return Val{k: vBool}
}

func numVal(f float64) Val { return Val{k: vNum, f: f} }

func (v Val) equal(w Val) bool {
	if v.k != w.k {
		return false
	}
	switch v.k {
	case vNull:
		return true
	case vStr:
		return v.s == w.s
	case vInt, vTime, vBool:
		return v.n == w.n
	case vNum:
		return v.f == w.f || (v.f != v.f && w.f != w.f)
	case vApproval:
		return *v.a == *w.a
	}
	return false
}

// IsNull reports whether v is null.
func (v Val) IsNull() bool { return v.k == vNull }

// get reads the current value at p.
func (s *State) get(p Path) Val {
	switch p.sec {
	case secAgents:
		if a := s.agents[p.key]; a != nil {
			return a.val(p)
		}
	case secChat:
		if c := s.chat[p.key]; c != nil {
			switch p.field {
			case fRunID:
				return strVal(c.RunID)
			case fRunStatus:
				return strVal(c.RunStatus)
			case fRunError:
				return strVal(c.RunError)
			case fTools:
				return intVal(c.Tools)
			}
			return strVal(c.StreamText)
		}
	case secMetrics:
		if n, ok := s.metrics[p.key]; ok {
			return intVal(n)
		}
	case secApprovals:
		if a := s.approvals[p.key]; a != nil {
			c := *a
			return Val{k: vApproval, a: &c}
		}
	case secCost:
		c := s.cost[p.key][p.key2]
		if c == nil {
			return Val{}
		}
		switch p.field {
		case fTurns:
			return intVal(c.Turns)
		case fInputTokens:
			return numVal(c.InputTokens)
		case fInputUnknown:
			return intVal(c.InputUnknown)
		case fOutputTokens:
			return numVal(c.OutputTokens)
		}
	case secRequests:
		r := s.requests[p.key]
		if r == nil {
			r = &Requests{} // counts start at 0
		}
		switch p.field {
		case fCount:
			return intVal(r.Count)
		case fLastAt:
			return timeVal(r.LastAt)
		}
	}
	return Val{}
}

// val is the agent's value at p, a path in its section.
func (a *Agent) val(p Path) Val {
	switch p.field {
	case fStatus:
		return strVal(a.Status)
	case fRunID:
		return strVal(a.RunID)
	case fRunStartedAt:
		return timeVal(a.RunStartedAt)
	case fStreamText:
		return strVal(a.StreamText)
	case fThinkingTrace:
		return strVal(a.ThinkingTrace)
	case fLastActivityAt:
		return timeVal(a.LastActivityAt)
	case fSessionCreated:
		return boolVal(a.SessionCreated)
	case fLatestPreview:
		return strVal(a.LatestPreview)
	case fLastUserMessage:
		return strVal(a.LastUserMessage)
	case fLastResult:
		return strVal(a.LastResult)
	case fLastAssistantMessageAt:
		return timeVal(a.LastAssistantMessageAt)
	case fLine:
		if l, ok := a.lineByNumber(p.n); ok {
			return Val{k: vStr, s: l.Text}
		}
	case fLineMeta:
		if l, ok := a.lineByNumber(p.n); ok && l.EntryID != "" {
			return Val{k: vStr, s: l.meta()}
		}
	}
	return Val{}
}

// Change is one entry of a step's diff.
type Change struct {
	Path Path
	From Val
	To   Val
}

// diffLog records, for each path written during a step, its value before
// the first write, so a step's diff costs only what the step touched.
type diffLog struct {
	idx   map[Path]int
	dirty []tracked
}

// tracked is a touched path; agent, when set, is the agent the path is in,
// read directly rather than looked up again (agents are never removed).
type tracked struct {
	Change
	agent *Agent
}

func (t *diffLog) touch(s *State, p Path) {
	if t.seen(p) {
		return
	}
	t.dirty = append(t.dirty, tracked{Change: Change{Path: p, From: s.get(p)}})
}

// touchAgent is touch for a path of agent a.
func (t *diffLog) touchAgent(a *Agent, p Path) {
	if t.seen(p) {
		return
	}
	t.dirty = append(t.dirty, tracked{Change: Change{Path: p, From: a.val(p)}, agent: a})
}

// seen reports whether p was touched already this step, and indexes it
// when it was not.
func (t *diffLog) seen(p Path) bool {
	// A step touches a handful of paths: a linear scan beats hashing two
	// strings; the map takes over for big steps.
	if t.idx != nil {
		if _, ok := t.idx[p]; ok {
			return true
		}
		t.idx[p] = len(t.dirty)
		return false
	}
	for i := range t.dirty {
		if t.dirty[i].Path == p {
			return true
		}
	}
	if len(t.dirty) >= 32 {
		t.idx = make(map[Path]int, 64)
		for i := range t.dirty {
			t.idx[t.dirty[i].Path] = i
		}
		t.idx[p] = len(t.dirty)
	}
	return false
}

// diff appends the changes of the step to dst, sorted by path, and resets.
func (t *diffLog) diff(s *State, dst []Change) []Change {
	if len(t.dirty) == 0 {
		return dst
	}
	for i := range t.dirty {
		c := &t.dirty[i]
		if c.agent != nil {
			c.To = c.agent.val(c.Path)
		} else {
			c.To = s.get(c.Path)
		}
		if !c.From.equal(c.To) {
			dst = append(dst, c.Change)
		}
	}
	if len(dst) > 1 {
		slices.SortFunc(dst, func(a, b Change) int { return comparePath(a.Path, b.Path) })
	}
	t.idx = nil
	clear(t.dirty)
	t.dirty = t.dirty[:0]
	return dst
}

// CostAgents returns the agents that were billed, sorted.
func (s *State) CostAgents() []string { return sortedKeys(s.cost) }

// CostModels returns the models agentID was billed for, sorted.
func (s *State) CostModels(agentID string) []string { return sortedKeys(s.cost[agentID]) }
