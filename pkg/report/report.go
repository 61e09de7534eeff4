// Package report turns a capture into a compact, deterministic timeline
// model — connections as bands, one lane per agent/session with every run
// as a bar, ticks for deltas, tool calls, approvals and seq gaps, check
// findings pinned where they happened, and per-record details from the
// replay engine — and writes it as one self-contained HTML file or as a
// Chrome Trace Event file.
//
// The model is built in one streaming pass: the Builder is an observer of
// a pipeline.Pass (Before, Step and After for every record, then End), a
// peer of the observers it shows the work of. It reads the pass's run
// table (pkg/runs): a run is born, numbered and let go there, and the
// Builder writes each run's bar once, when the pass lets the run go. It
// takes the findings the pass's Reporters make (check, validate) as they
// are made (pipeline.FindingObserver), and the header's numbers from a
// stats peer (Options.Stats). Put it last in its pass: a finding made at a
// record then reaches it before the record's details are kept.
//
// Output size is bounded by Options.MaxBytes as far as the timeline allows:
// the timeline skeleton (connections, lanes, runs, approvals, gaps,
// findings, and one small row per record while rows fit in 30% of the
// limit; rows of key records always) is never elided; the bodies (each
// frame's text, its intents, the replay effects and state diff, the
// committed transcripts) are kept in capture order until the limit is
// reached and elided after that, with a note. Records that matter most for
// a bug report (markers, run starts and terminals, approvals, tool calls,
// failed responses, gaps, replay guard decisions) keep their bodies longer
// than plain deltas. The bodies, the runs let go, the findings with their
// messages, the runs' transcripts and the packed rows wait in temporary
// files, not on the heap, so memory holds the pass's state, the runs the
// pass holds, and a few bytes per run. See docs/report.md.
//
// Nothing reads the wall clock and nothing iterates a map unsorted: the
// same capture (with the same Options) always gives the same bytes.
package report

import (
	"fmt"
	"iter"

	"github.com/clawtap/clawtap/pkg/finding"
	"github.com/clawtap/clawtap/pkg/jsonx"
)

// DefaultMaxBytes is the default bound on the embedded data: 20 MB.
const DefaultMaxBytes = 20_000_000

// MinMaxBytes is the smallest limit accepted; below it, only a bare
// skeleton would fit.
const MinMaxBytes = 64 << 10

// MaxFrameText bounds one frame's text in the report; a longer frame is cut
// with a note (the capture keeps it whole).
const MaxFrameText = 64 << 10

// MaxLineText bounds one transcript line in the report.
const MaxLineText = 16 << 10

// FormatVersion is the version of the embedded data's shape ("report" key).
const FormatVersion = 1

// Tick types: what a row is on the timeline. The HTML's script and the
// trace writer use the same numbers.
const (
	TypeOther       = 0  // a run's other frames: status phases, usage, items
	TypeAgentDelta  = 1  // agent assistant or reasoning stream text
	TypeChatDelta   = 2  // chat delta
	TypeTool        = 3  // agent tool start
	TypeToolResult  = 4  // agent tool result
	TypeApprovalReq = 5  // exec.approval.requested / pending
	TypeApprovalRes = 6  // exec.approval.resolved
	TypeFinal       = 7  // chat final
	TypeAborted     = 8  // chat aborted
	TypeError       = 9  // chat error
	TypeLifecycle   = 10 // agent lifecycle (start, end, error, other phases)
	TypeSend        = 11 // chat.send request or its response
	TypeMarker      = 12 // capture marker: open, hello, close, error
	TypeTraffic     = 13 // any other frame: tick, health, presence, requests...
	TypeInvalid     = 14 // not JSON, malformed line, unknown frame type
)

// TypeNames names the tick types, indexed by type.
var TypeNames = []string{
	"other", "agent-delta", "chat-delta", "tool", "tool-result",
	"approval-requested", "approval-resolved", "final", "aborted", "error",
	"lifecycle", "send", "marker", "traffic", "invalid",
}

// Terminals of a run.
const (
	TermFinal          = "final"
	TermAborted        = "aborted"
	TermError          = "error"
	TermLifecycleEnd   = "lifecycle-end"   // lifecycle end without any chat terminal
	TermLifecycleError = "lifecycle-error" // lifecycle error without any chat terminal
	TermNone           = ""                // never finished: the bar runs to the capture's end
)

// Options tune a Builder.
type Options struct {
	// Name is the capture's name shown in the report (a base file name,
	// "stdin"); it is part of the output, so keep it stable.
	Name string
	// MaxBytes bounds the embedded data; 0 means DefaultMaxBytes.
	MaxBytes int
	// Stats gives the header's numbers as a JSON object (the page reads
	// the keys docs/report.md names): the report does not count them
	// itself, a peer of it in the pass does (pkg/stats). It is called once,
	// in the Builder's End, so that peer must come before the Builder in
	// the pass. Nil: no header numbers.
	Stats func() ([]byte, error)
	// NoBodies builds the timeline only: no frame text, replay details or
	// transcripts (what a trace needs).
	NoBodies bool
	// TempDir is where the kept details wait until the page is written, in
	// a file removed at once (or by Report.Close where the system cannot
	// remove an open file); "" is os.TempDir(). When no file can be made
	// there they wait in memory.
	TempDir string
	// The capture was written without redaction (redact.Unredacted), and
	// its credentials were redacted as it was read (RedactedOnRead) or
	// kept at the user's request (ShowsCredentials): the banner says which.
	RedactedOnRead, ShowsCredentials bool
	// UIs names the UI versions the pass's check ran under when they are
	// several (check.Multi): the page lists them, and each finding the
	// ones that show it (Finding.UIs, Finding.NotUIs). The replay the
	// report shows is the pass's, the first UI's.
	UIs []string
}

// Meta is what the capture says about itself.
type Meta struct {
	Name           string
	CreatedAt      string
	Tool           string
	Mode           string
	URL            string
	GatewayVersion string
	Protocol       int
	Notes          string
	HasRedaction   bool // the header has a redaction section
	Credentials    bool // credentials were redacted
	Content        bool // content was redacted
	Marker         string
	NoRedact       bool   // the report may show credentials: the capture was written without redaction, and they were kept
	RedactedOnRead bool   // the capture was written without redaction; its credentials were redacted as it was read
	Truncated      bool   // the capture ends early
	UI             string // the UI model the replay ran (clawboo, claw3d)
	// UIs are the UI versions the findings were checked under when they
	// were several (Options.UIs); the replay is UI's, the first of them.
	UIs []string
}

// Summary is the header: counts over the whole capture.
type Summary struct {
	Records, Frames, FramesIn, FramesOut, Markers, Invalid int
	Start, End                                             int64 // first and last record time, relative to T0
	Connections, Reconnects, Closes                        int
	Lanes, Agents                                          int
	Runs, RunsFinal, RunsAborted, RunsError                int
	RunsLifecycleOnly, RunsUnfinished                      int
	AgentDeltas, ChatDeltas, ToolCalls                     int
	ApprovalsRequested, ApprovalsResolved                  int
	Gaps, Duplicates, Backwards, GatewayGaps               int
	Missing                                                int64
	FindingsError, FindingsWarn, FindingsInfo              int
	Bodies, BodiesElided, FramesCut, RowsElided            int
	TimersElided                                           int
	MaxBytes                                               int
	// Skeleton is the size of the data without bodies, timer steps and
	// transcripts, when that alone is more than MaxBytes (0 otherwise):
	// the timeline is never elided, so the report is larger than asked.
	Skeleton int
}

// Conn is one connection's life: a band on the timeline.
type Conn struct {
	ID                   int
	URL, Peer            string
	Open, Close, Last    int64 // relative ms; Open is the first record's when there is no open marker
	HasOpen, HasClose    bool
	Code                 int
	Reason, Err          string
	Server               string
	Protocol             int
	ConnID, BootID       string
	Reconnect            bool  // opened after an earlier connection closed
	NewBoot              bool  // the gateway's boot id changed since the previous connection
	FirstSeq             int64 // -1 when no frame carried a seq
	In, Out              int
	firstI, lastI, hello int
}

// Lane is one agent/session: the runs of a chat session.
type Lane struct {
	AgentID, SessionKey string
	Runs                int
	Tracks              int // overlapping runs stack in tracks
	First               int64
}

// Run is one run: a bar from its first frame to its terminal. Its
// transcript and output wait in the report's spool (Report.Transcript and
// Report.Output read them), and so does the run itself once the pass has
// let it go (Report.Runs reads it).
type Run struct {
	N                    int    // the run's number in the pass's run table (runs.Run.N): the page lists runs by it, from 1
	ID                   string // runId
	Lane, Track          int
	Conns                []int // the connections that carried it, sorted (set when it is read back)
	Start, End, Last     int64 // relative ms; End is the terminal's time, or the capture's end
	FirstI, LastI, TermI int
	Terminal             string
	// Reopened: its run id was seen again after the pass had let an
	// earlier run of that id go (runs.Run.Reopened): the same id, a bar
	// of its own.
	Reopened bool
	// Counts, in 32 bits.
	Terminals               int32 // chat terminals seen on one connection (a second one is a bug)
	Frames                  int32
	AgentDeltas, ChatDeltas int32
	Tools, Approvals, Late  int32
	TranscriptElided        int32

	conns      []connTerm    // the chat terminals on each connection
	transcript []spooledLine // committed by the replayed UI
	output     []spooledText // the output lines of the run's first chat terminal
	hasOutput  bool          // it had a chat terminal whose lines were read (output may be empty)
	hasChat    bool          // Terminal, End and TermI are its first chat terminal's
	hasLife    bool          // … or, without one, its first lifecycle end or error's
	laneFixed  bool          // the lane came from a frame with a session key
}

// Line is one committed transcript line of a run.
type Line struct {
	Kind string // assistant, tool, meta
	T    int64  // relative ms
	Text string
	Via  string // "history": merged when the UI's history refresh came back
}

// spooledText is a text that waits in the report's spool as a JSON
// string; n is its length in bytes, unescaped.
type spooledText struct {
	at span
	n  int
}

// spooledLine is a transcript Line whose text waits in the spool.
type spooledLine struct {
	Kind string
	T    int64
	Via  string
	text spooledText
}

// Approval is one exec approval: requested, then resolved (or not).
type Approval struct {
	ID         string
	Lane, Run  int
	Req, Res   int64 // relative ms; Res is -1 when never resolved
	ReqI, ResI int
	Command    string
	Decision   string
}

// Gap is a frame-seq finding of the gaps detector.
type Gap struct {
	Kind               string
	I                  int
	T                  int64
	Conn               int
	Expected, Received int64
	RunID              string
	Lane, Run          int
}

// Row is one record on the timeline.
type Row struct {
	I     int
	T     int64
	Conn  int32
	Dir   int8 // 0 in, 1 out, -1 none (markers, invalid)
	Type  int8
	Label int32 // index into Report.Labels
	Lane  int32 // -1 none
	Run   int32 // -1 none
	Seq   int64 // frame seq; -1 none
}

// PinnedFinding is a finding placed on the timeline: on its run
// (Finding.Run, the run's number, 0 for none) or else on the lane of its
// agent and session (Lane, -1 for none).
type PinnedFinding struct {
	finding.Finding
	Lane int
}

// Report is the whole model.
type Report struct {
	Meta      Meta
	Summary   Summary
	T0        int64 // unix ms of the first record; every other time is relative to it
	Labels    []string
	Conns     []Conn
	Lanes     []Lane
	Approvals []Approval
	Gaps      []Gap
	Rows      Rows
	Bodies    []Body  // sorted by record index
	Timers    []Timer // replay timer steps that changed something, per agent
	Follow    int     // the connection replay followed first
	Notes     []string
	Stats     []byte   // Options.Stats' JSON object (nil: none)
	View      [2]int64 // the time range the page opens on (outliers left out)

	spool *spool // where the bodies' and timer steps' JSON wait
	text  *spool // where the runs' texts wait
	runs  *runList
	finds *findingStore
}

// NumFindings is the number of findings.
func (r *Report) NumFindings() int { return r.finds.n }

// Findings yields the findings in the order the page lists them: by
// record (those of the whole capture last), then by rule. They wait in a
// temporary file, not on the heap: one that could not be read back is
// reported by Err.
func (r *Report) Findings() iter.Seq[PinnedFinding] {
	return func(yield func(PinnedFinding) bool) {
		r.finds.each(func(p *pinned) bool {
			f := r.pin(p)
			f.Message, _ = jsonx.Str(p.msg)
			return yield(f)
		})
	}
}

// pin is a finding as the page places it: a run's on its run's final
// lane, another on its lane as compacted.
func (r *Report) pin(p *pinned) PinnedFinding {
	f := PinnedFinding{Finding: finding.Finding{Rule: p.rule, Severity: p.sev, I: p.i, T: p.t, Conn: p.conn,
		RunID: p.runID, AgentID: p.agentID, SessionKey: p.session, Run: p.run + 1, UIs: p.uis, NotUIs: p.notUIs}, Lane: -1}
	switch {
	case p.run >= r.runs.n: // a run never born: a Reporter's slip, shown without it
		f.Run = 0
	case p.run >= 0:
		f.Lane = int(r.runs.lanes[p.run])
	case p.lane >= 0:
		f.Lane = int(r.Rows.remapped(int32(p.lane)))
	}
	return f
}

// NumRuns is the number of runs.
func (r *Report) NumRuns() int { return r.runs.n }

// Runs yields the runs in the order of their numbers, as the page shows
// them. They wait in a temporary file, not on the heap: one that could
// not be read back is reported by Err.
func (r *Report) Runs() iter.Seq[Run] {
	return func(yield func(Run) bool) {
		r.runs.each(func(x *Run) bool { return yield(*x) })
	}
}

// Body is one record's details, already serialised (Report.BodyJSON
// reads them).
type Body struct {
	I    int
	Prio int8 // who is elided first when the budget runs short
	at   span
}

// Timer is a replay timer step (an animation-frame flush, the summary
// refresh, the approval sweep) narrowed to one agent, already serialised
// (Report.TimerJSON reads it).
type Timer struct {
	After int // the record it followed
	Agent string
	at    span
	step  int // the timer step it is a part of, numbered from 1
}

// BodyJSON reads a body's JSON object back from where it waits.
func (r *Report) BodyJSON(b Body) ([]byte, error) { return read(r.spool, b.at) }

// TimerJSON reads a timer step's JSON object back from where it waits.
func (r *Report) TimerJSON(t Timer) ([]byte, error) { return read(r.spool, t.at) }

// Transcript reads a run's transcript back from where it waits.
func (r *Report) Transcript(run *Run) ([]Line, error) {
	var lines []Line
	for _, l := range run.transcript {
		text, err := str(r.text, l.text.at)
		if err != nil {
			return nil, err
		}
		lines = append(lines, Line{Kind: l.Kind, T: l.T, Text: text, Via: l.Via})
	}
	return lines, nil
}

// Output reads the output lines of a run's first chat terminal back from
// where they wait: what the gateway said, whether or not the UI committed
// it; nil when the run had no chat terminal.
func (r *Report) Output(run *Run) ([]string, error) {
	if !run.hasOutput {
		return nil, nil
	}
	out := []string{}
	for _, l := range run.output {
		text, err := str(r.text, l.at)
		if err != nil {
			return nil, err
		}
		out = append(out, text)
	}
	return out, nil
}

// str reads a JSON string back from a spool.
func str(s *spool, sp span) (string, error) {
	js, err := read(s, sp)
	if err != nil || len(js) == 0 {
		return "", err
	}
	text, ok := jsonx.Str(js)
	if !ok {
		return "", fmt.Errorf("report: a spooled text is not a JSON string: %.40q", js)
	}
	return text, nil
}

func read(s *spool, sp span) ([]byte, error) {
	if s == nil {
		return nil, nil
	}
	js := s.appendTo(nil, sp)
	return js, s.err
}

// spools are where the report's details, texts, runs and findings wait.
func (r *Report) spools() []*spool {
	return []*spool{r.spool, r.text, r.Rows.sp, r.runs.sp, r.finds.sp}
}

// Err reports a failure to keep or read back what waits in the spools
// (details, messages, transcripts): a page written meanwhile lacks it.
// WriteHTML, WriteData and WriteTrace return it.
func (r *Report) Err() error {
	r.Rows.wait()
	for _, s := range r.spools() {
		if s != nil && s.err != nil {
			return s.err
		}
	}
	return nil
}

// Close releases what holds the details, messages and transcripts until
// the page is written (temporary files): call it once the report is
// written.
func (r *Report) Close() error {
	r.Rows.wait()
	var err error
	for _, s := range r.spools() {
		if s != nil {
			if cerr := s.close(); err == nil {
				err = cerr
			}
		}
	}
	return err
}
