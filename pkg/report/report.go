// Package report turns a capture into a compact, deterministic timeline
// model — connections as bands, one lane per agent/session with every run
// as a bar, ticks for deltas, tool calls, approvals and seq gaps, check
// findings pinned where they happened, and per-record details from the
// replay engine — and writes it as one self-contained HTML file or as a
// Chrome Trace Event file.
//
// The model is built in one streaming pass: the Builder is an observer of
// a pipeline.Pass (Before, Step and After for every record, then End).
// Output size is bounded by Options.MaxBytes as far as the timeline allows:
// the timeline skeleton (connections, lanes, runs, approvals, gaps,
// findings, and one small row per record while rows fit in 30% of the
// limit; rows of key records always) is never elided; the bodies (each
// frame's text, its intents, the replay effects and state diff, the
// committed transcripts) are kept in capture order until the limit is
// reached and elided after that, with a note. Records that matter most for
// a bug report (markers, run starts and terminals, approvals, tool calls,
// failed responses, gaps, replay guard decisions) keep their bodies longer
// than plain deltas. The bodies, the findings and their messages, the
// runs' transcripts, the packed rows and the runs the pass has moved on
// from wait in temporary files, not on the heap, so memory holds the
// pass's state and a few dozen bytes per run and finding. See
// docs/report.md.
//
// Nothing reads the wall clock and nothing iterates a map unsorted: the
// same capture (with the same Options) always gives the same bytes.
package report

import (
	"fmt"

	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/pipeline"
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
	// Checker finds the problems pinned on the timeline. Nil runs
	// pkg/check with its default rules (see NewCheck).
	Checker Checker
	// Stats gives the header's numbers. Nil runs pkg/stats (see NewStats).
	Stats StatsSource
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
}

// Finding is one problem pinned on the timeline: the shape of a check
// finding.
type Finding struct {
	Rule       string
	Severity   string // info, warn, error
	I          int    // record index; -1 for the whole capture
	T          int64  // unix ms; 0 when unknown
	Conn       int
	RunID      string
	AgentID    string
	SessionKey string
	Message    string
}

// Checker finds problems in the same pass as the report: an observer of
// the pass that the report feeds. Before the pass, the report hands it
// the function that takes each finding as it is made (Sink), so that a
// finding goes to the report's spool at once rather than waiting on the
// heap; one made while a record goes through the pass is pinned on that
// record. pkg/check plugs in through NewCheck; a test or another tool may
// bring its own.
type Checker interface {
	pipeline.Observer
	Sink(func(Finding))
}

// StatsSource gives the header's numbers: an observer of the pass that
// the report feeds, which returns a JSON object at the end. pkg/stats
// plugs in through NewStats; the page reads its documented keys
// (docs/report.md).
type StatsSource interface {
	pipeline.Observer
	JSON() ([]byte, error)
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
// moved on (Report.Run reads it).
type Run struct {
	ID                   string // runId
	Lane, Track          int
	Conns                []int // the connections that carried it, sorted (set when the pass ends)
	Start, End, Last     int64 // relative ms; End is the terminal's time, or the capture's end
	FirstI, LastI, TermI int
	Terminal             string
	// Counts, in 32 bits: the report holds a Run for every run of the
	// capture.
	Terminals               int32 // chat terminals seen on one connection (a second one is a bug)
	Frames                  int32
	AgentDeltas, ChatDeltas int32
	Tools, Approvals, Late  int32
	TranscriptElided        int32

	conns      []connTerm    // while the pass runs: the chat terminals on each connection
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

// Gap is a frame-seq finding of the gaps tracker.
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

// PinnedFinding is a finding placed on the timeline (Report.Finding reads
// it): a Finding without its message, which waits in the report's spool
// (Report.Message reads it).
type PinnedFinding struct {
	Rule       string
	Severity   string
	I          int
	T          int64
	Conn       int
	RunID      string
	AgentID    string
	SessionKey string
	Lane, Run  int

	msg span // the message as a JSON string
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
	Stats     []byte   // the StatsSource's JSON object (nil: none)
	View      [2]int64 // the time range the page opens on (outliers left out)

	spool *spool    // where the bodies' and timer steps' JSON wait
	text  *spool    // where the runs' texts and the runs let go wait
	runs  *runStore // the runs (NumRuns, Run)
	finds *findingStore
}

// NumFindings is the number of findings.
func (r *Report) NumFindings() int { return r.finds.len() }

// Finding returns finding k (0 ≤ k < NumFindings): in capture order (those
// of the whole capture last), then by rule. Findings wait in a temporary
// file, not on the heap: one that could not be read back is reported by
// Err.
func (r *Report) Finding(k int) (PinnedFinding, error) {
	p := r.finds.pins.at(k)
	f := r.finds.read(p)
	f.Run, f.Lane = int(p.run), int(p.lane)
	switch {
	case f.Run >= 0 && r.runs.lanes != nil:
		f.Lane, _ = r.runs.place(f.Run)
	case f.Run < 0 && f.Lane >= 0: // a lane without a run, as the rows' are
		f.Lane = int(r.Rows.remapped(p.lane))
	}
	return f, r.finds.sp.err
}

// NumRuns is the number of runs.
func (r *Report) NumRuns() int { return r.runs.len() }

// Run returns run k (0 ≤ k < NumRuns), in the order the runs appeared.
// Most runs wait in a temporary file, not on the heap: a run that could
// not be read back is reported by Err.
func (r *Report) Run(k int) (Run, error) {
	x := r.runs.final(k)
	return x, r.text.err
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

// Message reads a finding's message back from where it waits.
func (r *Report) Message(f *PinnedFinding) (string, error) { return str(r.finds.sp, f.msg) }

// Transcript reads run k's transcript back from where it waits.
func (r *Report) Transcript(k int) ([]Line, error) {
	var lines []Line
	run := r.runs.view(k)
	for _, l := range run.transcript {
		text, err := str(r.text, l.text.at)
		if err != nil {
			return nil, err
		}
		lines = append(lines, Line{Kind: l.Kind, T: l.T, Text: text, Via: l.Via})
	}
	return lines, nil
}

// Output reads the output lines of run k's first chat terminal back from
// where they wait: what the gateway said, whether or not the UI committed
// it; nil when the run had no chat terminal.
func (r *Report) Output(k int) ([]string, error) {
	run := r.runs.view(k)
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

// spools are where the report's details, texts and findings wait.
func (r *Report) spools() []*spool {
	s := []*spool{r.spool, r.text, r.Rows.sp}
	if r.finds != nil {
		s = append(s, r.finds.sp)
	}
	return s
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
