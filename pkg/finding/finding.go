// Package finding is what every observer of a pass that judges a capture
// makes and what every observer that shows one reads: a finding, with its
// rule, severity, record and run. check and validate make findings; the
// pass hands each one, as it is made, to the observers that take them
// (check's printer, stats, report, the OpenTelemetry export), which are
// peers: none owns another to get at its findings.
package finding

import (
	"fmt"

	"github.com/clawtap/clawtap/pkg/jsonx"
)

// Severity of a finding.
type Severity uint8

// Severities, in increasing order.
const (
	Info Severity = iota + 1
	Warn
	Error
)

func (s Severity) String() string {
	switch s {
	case Info:
		return "info"
	case Warn:
		return "warn"
	case Error:
		return "error"
	}
	return "unknown"
}

// ParseSeverity reads info, warn (or warning) and error.
func ParseSeverity(s string) (Severity, error) {
	switch s {
	case "info":
		return Info, nil
	case "warn", "warning":
		return Warn, nil
	case "error":
		return Error, nil
	}
	return 0, fmt.Errorf("unknown severity %q (use info, warn or error)", s)
}

// Finding is one problem found in a capture.
type Finding struct {
	Rule       string
	Severity   Severity
	I          int   // record index (from 0); -1 when it concerns the whole capture
	T          int64 // record time, unix ms; 0 when unknown
	Conn       int   // 0 when it concerns no connection
	RunID      string
	AgentID    string
	SessionKey string
	Message    string // one sentence with the evidence

	// Run is the number the pass's run table gave the run (runs.Run.N),
	// 0 when the finding concerns no run the table held. It is the pass's
	// own name for the run, not part of the finding's JSON.
	Run int

	// Set by schema validation (pkg/validate) only, and rendered only when
	// set: the event or method of the frame, the definition it was checked
	// against, the JSON pointer of the offending field within the frame,
	// the schema keyword that failed, what the schema expected and what
	// the frame holds.
	Event    string
	Method   string
	Schema   string
	Pointer  string // "" is the whole frame: rendered whenever Schema is set
	Keyword  string
	Expected string
	Actual   string
	// Count is how many frames a finding stands for when it reports many
	// at once (validate's schema drift, once per field); 0 for a finding
	// of one record.
	Count int

	// Set when several UI versions were checked (check.Multi), for the
	// rules that depend on the UI: the versions whose replay shows the
	// finding, and those whose replay does not.
	UIs    []string
	NotUIs []string

	// Hazard is set on the findings each UI's replay makes of a hazard of
	// the wire (check's rules of the releases after 2026.9.6): whether
	// this UI shows it. Not in the JSON: check.Multi turns it into UIs
	// and NotUIs. 0 on every other finding.
	Hazard Hazard
}

// Hazard says whether a UI's replay shows a wire hazard the frames hold.
type Hazard uint8

// Hazard values; 0 is no hazard judged (the frames alone).
const (
	HazardShown Hazard = iota + 1
	HazardNotShown
)

// AppendJSON appends the finding as one JSON object (no newline). Empty
// optional fields are left out; the keys are documented in
// docs/check-rules.md and only ever added to.
func (f *Finding) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"rule":`...)
	dst = jsonx.AppendString(dst, f.Rule)
	dst = append(dst, `,"severity":`...)
	dst = jsonx.AppendString(dst, f.Severity.String())
	dst = append(dst, `,"i":`...)
	dst = jsonx.AppendInt(dst, int64(f.I))
	dst = append(dst, `,"t":`...)
	dst = jsonx.AppendInt(dst, f.T)
	if f.Conn != 0 {
		dst = append(dst, `,"conn":`...)
		dst = jsonx.AppendInt(dst, int64(f.Conn))
	}
	dst = jsonx.AppendOptStr(dst, "runId", f.RunID)
	dst = jsonx.AppendOptStr(dst, "agentId", f.AgentID)
	dst = jsonx.AppendOptStr(dst, "sessionKey", f.SessionKey)
	dst = jsonx.AppendOptStr(dst, "event", f.Event)
	dst = jsonx.AppendOptStr(dst, "method", f.Method)
	if f.Schema != "" {
		dst = jsonx.AppendOptStr(dst, "schema", f.Schema)
		dst = append(dst, `,"pointer":`...)
		dst = jsonx.AppendString(dst, f.Pointer)
	}
	dst = jsonx.AppendOptStr(dst, "keyword", f.Keyword)
	dst = jsonx.AppendOptStr(dst, "expected", f.Expected)
	dst = jsonx.AppendOptStr(dst, "actual", f.Actual)
	if f.Count > 0 {
		dst = append(dst, `,"count":`...)
		dst = jsonx.AppendInt(dst, int64(f.Count))
	}
	dst = append(dst, `,"message":`...)
	dst = jsonx.AppendString(dst, f.Message)
	if f.UIs != nil {
		dst = appendNames(dst, "uis", f.UIs)
		dst = appendNames(dst, "notUis", f.NotUIs)
	}
	return append(dst, '}')
}

func appendNames(dst []byte, key string, names []string) []byte {
	dst = append(dst, ',', '"')
	dst = append(dst, key...)
	dst = append(dst, `":[`...)
	for i, n := range names {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonx.AppendString(dst, n)
	}
	return append(dst, ']')
}
