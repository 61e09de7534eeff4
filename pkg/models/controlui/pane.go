package controlui

import (
	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/jsstr"
)

// Run statuses of the pane's projection.
const (
	runStreaming = "streaming"
	runCompleted = "completed"
	runAborted   = "aborted"
	runError     = "error"
	runTimeout   = "timeout"
	runYielded   = "yielded"
)

// Phases the pane shows when its run ends, for statusMs.
const (
	phaseDone        = "done"
	phaseInterrupted = "interrupted"
)

// statusMs is how long a done or interrupted status shows (and hides the
// Stop button of a run adopted meanwhile).
const statusMs = 5000

// maxRuns bounds each pane's run projection, oldest first out.
const maxRuns = 256

// projRun is what the pane's projection knows of a run.
type projRun struct {
	status   string
	accepted []string // identities of the finals it accepted
	errText  string   // the banner text its error set
	text     string   // its projected message's text, trimmed
	// its projected message's content key (key): while the run streams, a
	// copy of the message, worked out when a row asks (every delta brings
	// a message, few are asked for); the key itself once a terminal's
	// message is noted
	msg    []byte
	sum    textKey
	summed bool
}

// pane is one session's chat pane.
type pane struct {
	key, agent string
	stream     *string // the streaming bubble; nil shows none
	runID      string  // the adopted run; "" none
	status     string  // done, interrupted, or "": showing for statusMs
	statusGen  uint64
	runError   string // the error banner; "" none
	lastEnded  string // the run whose terminal the pane applied last
	runs       map[string]*projRun
	order      []string
	tools      map[string]bool // tool cards, by run:toolCallId
	toolOrder  []string
	history    func()   // cancels the chat.history reloads armed
	entries    []*entry // the messages it shows, in its list's order
	entriesGen uint64   // counts the changes of entries (rowsFor's cache)
	rows       []string // rowsFor's answer for rowsRun at rowsGen
	rowsRun    string
	rowsGen    uint64
	rowsOK     bool
	persisted  string // the stream's start the run's transcript rows hold
	reload     bool   // a session.message's reload waits for the run's end
}

func newPane(key, agent string) *pane {
	return &pane{key: key, agent: agent, runs: map[string]*projRun{}, tools: map[string]bool{}}
}

func (p *pane) run(id string) *projRun {
	r := p.runs[id]
	if r == nil {
		if len(p.order) >= maxRuns {
			delete(p.runs, p.order[0])
			p.order = p.order[1:]
		}
		r = &projRun{}
		p.runs[id] = r
		p.order = append(p.order, id)
	}
	return r
}

// noteMessage makes a frame's message the run's projected message (what a
// transcript row without a run id is matched against).
func (r *projRun) noteMessage(f *chatFrame) {
	r.text, r.msg, r.sum, r.summed = "", r.msg[:0], textKey{}, true
	if !f.msg.ok {
		return
	}
	r.text = jsstr.Trim(f.msg.text)
	if terminal(r.status) {
		r.sum, r.msg = contentKey(f.raw, "assistant"), nil
		return
	}
	r.msg, r.summed = append(r.msg, f.raw...), false
}

// key is the projected message's content key, the zero key with none.
func (r *projRun) key() textKey {
	if !r.summed {
		r.sum, r.summed, r.msg = contentKey(r.msg, "assistant"), true, nil
	}
	return r.sum
}

func terminal(status string) bool { return status != "" && status != runStreaming }

// chatFrame is a chat payload as the pane reads it.
type chatFrame struct {
	runID        string
	hasRun       bool
	state        string
	msg          message
	deltaText    string
	hasDelta     bool
	replace      bool
	errorMessage string
	hasError     bool
	stopReason   string
	errorKind    string
	yielded      bool
	raw          []byte // the message, when the frame has the member
	hasRaw       bool
	messageID    string // the envelope's messageId and messageSeq
	messageSeq   int64
}

func readChat(ev *bridge.Event, texts *jsonx.StrMemo) chatFrame {
	var f chatFrame
	f.runID, f.hasRun = ev.MemberStr("runId")
	f.state, _ = ev.MemberStr("state")
	if v, ok := ev.Member("message"); ok {
		f.msg = readMessage(v, texts)
		f.raw, f.hasRaw = v, true
	}
	if f.state != "delta" {
		// The members the bridge did not capture, in one walk: only a
		// terminal reads them (showTerminal, projected), and a delta,
		// most frames, is none.
		var more [4][]byte
		jsonx.Members(ev.Payload, chatMembers, more[:])
		f.messageID = trimmedStr(more[0])
		f.messageSeq = positiveSeq(more[1])
		f.errorKind, _ = jsonx.Str(more[2])
		f.yielded = string(more[3]) == "true"
	}
	if f.state == "final" && f.msg.ok {
		f.msg.id = identity(f.raw) // what tells one final from another
	}
	if v, ok := ev.Member("deltaText"); ok {
		f.deltaText, f.hasDelta = jsonx.Str(v)
	}
	if v, ok := ev.Member("replace"); ok {
		f.replace = string(v) == "true"
	}
	if v, ok := ev.Member("errorMessage"); ok {
		f.errorMessage, f.hasError = jsonx.Str(v)
	}
	if v, ok := ev.Member("stopReason"); ok {
		f.stopReason, _ = jsonx.Str(v)
	}
	return f
}

// chatMembers are the chat payload's members readChat reads in one walk.
var chatMembers = []string{"messageId", "messageSeq", "errorKind", "yielded"}

// projected is the run status a frame of state gives (reduceSessionProjectionRunEvent);
// "" for a state that gives none.
func (f *chatFrame) projected() string {
	switch f.state {
	case "delta":
		return runStreaming
	case "aborted":
		return runAborted
	case "error":
		if f.errorKind == "timeout" {
			return runTimeout
		}
		return runError
	case "final":
		switch {
		case f.yielded && f.stopReason == "end_turn":
			return runYielded
		case f.stopReason == "error":
			return runError
		}
		return runCompleted
	}
	return ""
}

// nextStream is the bubble's text after a delta (resolveDeltaChatStreamText);
// ok is false when the delta carries none.
func nextStream(cur *string, f *chatFrame) (string, bool) {
	snap, hasSnap := f.msg.text, f.msg.ok
	if !f.hasDelta {
		return snap, hasSnap
	}
	switch {
	case f.replace:
		return f.deltaText, true
	case hasSnap:
		// The cumulative message wins where it differs from the text
		// with the delta appended, and is that text where it does not:
		// the message, either way, without building the other to compare.
		return snap, true
	case cur == nil:
		return f.deltaText, true
	}
	return *cur + f.deltaText, true
}

// streamShown reports whether a delta's text reaches the bubble: not
// NO_REPLY, not a heartbeat acknowledgement.
func streamShown(text string, f *chatFrame) bool {
	if jsstr.Trim(text) == "NO_REPLY" {
		return false
	}
	return !(f.msg.ok && f.msg.hidden)
}

// setEntries makes next the list the pane shows.
func (p *pane) setEntries(next []*entry) {
	p.entries = next
	p.entriesGen++
}

// rowsFor is the texts of the run's durable assistant rows the pane shows,
// in order: worked out again only when the list changed (a stream's every
// delta asks, and the list holds up to the transcript's cap).
func (p *pane) rowsFor(run string) []string {
	if p.rowsOK && p.rowsRun == run && p.rowsGen == p.entriesGen {
		return p.rows
	}
	p.rows = p.rows[:0]
	for _, e := range p.entries {
		if e.role == "assistant" && e.id != "" && !e.imported && e.runID == run {
			p.rows = append(p.rows, e.text)
		}
	}
	p.rowsRun, p.rowsGen, p.rowsOK = run, p.entriesGen, true
	return p.rows
}
