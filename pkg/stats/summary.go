package stats

import (
	"github.com/clawtap/clawtap/pkg/finding"
	"github.com/clawtap/clawtap/pkg/gaps"
)

// Stats is the summary. Its JSON form is documented in docs/stats.md;
// keys are only ever added.
type Stats struct {
	Capture     Capture           `json:"capture"`
	Gateway     Gateway           `json:"gateway"`
	Connections []Connection      `json:"connections"`
	Frames      Frames            `json:"frames"`
	Runs        Runs              `json:"runs"`
	Deltas      Deltas            `json:"deltas"`
	Approvals   Approvals         `json:"approvals"`
	Gaps        gaps.Summary      `json:"gaps"`
	Errors      Errors            `json:"errors"`
	Methods     map[string]*Calls `json:"methods"`
	// Findings counts the findings made in the same pass (check's, a
	// schema's), when a Reporter was there: report's header reads them.
	Findings *Findings `json:"findings,omitempty"`
}

// Findings counts findings by severity and rule.
type Findings struct {
	Error int            `json:"error"`
	Warn  int            `json:"warn"`
	Info  int            `json:"info"`
	Rules map[string]int `json:"rules"`
}

// Capture describes the file.
type Capture struct {
	Records    int    `json:"records"`
	Frames     int    `json:"frames"`
	Markers    int    `json:"markers"`
	Invalid    int    `json:"invalid"`
	Bytes      int64  `json:"frameBytes"`
	Start      int64  `json:"start"` // unix ms of the first record with a time
	End        int64  `json:"end"`
	DurationMs int64  `json:"durationMs"`
	Truncated  bool   `json:"truncated"`
	Source     string `json:"source,omitempty"` // header source.mode
	Tool       string `json:"tool,omitempty"`
	CreatedAt  string `json:"createdAt,omitempty"`
}

// Gateway is what the handshakes said.
type Gateway struct {
	Versions  []string `json:"versions"`
	Protocols []int    `json:"protocols"`
	BootIDs   int      `json:"bootIds"` // distinct boot ids: more than one means the gateway restarted
}

// Connection is one connection of the capture.
type Connection struct {
	Conn        int    `json:"conn"`
	OpenedMs    *int64 `json:"openedMs"` // offset from the capture's start; null when the open is not in the capture
	ClosedMs    *int64 `json:"closedMs"`
	LifetimeMs  int64  `json:"lifetimeMs"` // open (or first record) to close (or last record)
	CloseCode   int    `json:"closeCode,omitempty"`
	CloseReason string `json:"closeReason,omitempty"`
	Protocol    int    `json:"protocol,omitempty"`
	Version     string `json:"version,omitempty"`
	Client      string `json:"client,omitempty"` // connect params client.id/mode
	FramesIn    int    `json:"framesIn"`
	FramesOut   int    `json:"framesOut"`
}

// Frames counts frames by what they are.
type Frames struct {
	In           int            `json:"in"`
	Out          int            `json:"out"`
	Requests     int            `json:"requests"`
	Responses    int            `json:"responses"`
	Events       map[string]int `json:"events"`
	AgentStreams map[string]int `json:"agentStreams"`
	ChatStates   map[string]int `json:"chatStates"`
	Lifecycle    map[string]int `json:"lifecyclePhases"`
}

// Calls counts one method's requests and responses.
type Calls struct {
	Requests int   `json:"requests"`
	OK       int   `json:"ok"`
	Failed   int   `json:"failed"`
	P50Ms    int64 `json:"p50Ms"`
	MaxMs    int64 `json:"maxMs"`
	lat      sample
}

// Runs summarises agent runs.
type Runs struct {
	Count        int            `json:"count"`
	Completed    int            `json:"completed"`
	Aborted      int            `json:"aborted"`
	Failed       int            `json:"failed"`
	Unterminated int            `json:"unterminated"`
	DurationMs   Distribution   `json:"durationMs"`
	FirstDeltaMs Distribution   `json:"firstDeltaMs"`
	Tokens       Tokens         `json:"tokens"`
	ByAgent      map[string]int `json:"byAgent"`
}

// Distribution is a set of durations by nearest-rank percentile.
type Distribution struct {
	Count int   `json:"count"`
	P50   int64 `json:"p50"`
	P90   int64 `json:"p90"`
	P99   int64 `json:"p99"`
	Max   int64 `json:"max"`
	Mean  int64 `json:"mean"`
}

// Tokens sums the usage the gateway reported.
type Tokens struct {
	RunsWithUsage int   `json:"runsWithUsage"`
	Input         int64 `json:"input"`
	Output        int64 `json:"output"`
	Total         int64 `json:"total"`
}

// Deltas compares the agent assistant stream with the paced chat stream.
type Deltas struct {
	Agent Rate `json:"agent"`
	Chat  Rate `json:"chat"`
}

// Rate is how often a stream delivered text while runs streamed.
type Rate struct {
	Events         int     `json:"events"`
	Runs           int     `json:"runs"`
	MeanIntervalMs float64 `json:"meanIntervalMs"`
	PerSecond      float64 `json:"perSecond"`
	spanMs         int64
	intervals      int
}

// Approvals counts exec and plugin approvals.
type Approvals struct {
	Requested  int            `json:"requested"`
	Resolved   int            `json:"resolved"`
	ByDecision map[string]int `json:"byDecision"`
	Unresolved int            `json:"unresolved"`
}

// Errors counts what went wrong.
type Errors struct {
	Responses      map[string]int `json:"responses"`  // ok:false by error.code
	ChatErrors     map[string]int `json:"chatErrors"` // by errorKind ("unknown" when none)
	LifecycleError int            `json:"lifecycleErrors"`
	Invalid        int            `json:"invalidRecords"`
}

// add counts one finding; past maxNames rules, a new one counts as
// "(other)".
func (f *Findings) add(x *finding.Finding) {
	switch x.Severity {
	case finding.Error:
		f.Error++
	case finding.Warn:
		f.Warn++
	default:
		f.Info++
	}
	countName(f.Rules, x.Rule)
}
