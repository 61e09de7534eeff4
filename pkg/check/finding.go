package check

import (
	"slices"

	"github.com/clawtap/clawtap/pkg/jsonx"
)

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
	// Count is how many frames a schema finding stands for (validate
	// reports a field the schema does not declare once, with its count);
	// 0 for a finding of one record.
	Count int

	// Set when several UI versions were checked (Multi), for the rules
	// that depend on the UI: the versions whose replay shows the finding,
	// and those whose replay does not.
	UIs    []string
	NotUIs []string

	// hazard: a finding every UI's replay makes, saying whether this UI
	// shows the hazard (hazardShown) or not (hazardNotShown); Multi lists
	// the UIs that show it. 0 for every other finding.
	hazard uint8
}

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

// Summary counts what an Analyzer saw and found.
type Summary struct {
	Records     int            `json:"records"`
	Frames      int            `json:"frames"`
	Connections int            `json:"connections"`
	Runs        int            `json:"runs"`
	Errors      int            `json:"error"`
	Warnings    int            `json:"warn"`
	Infos       int            `json:"info"`
	ByRule      map[string]int `json:"rules"`
	// Evicted counts runs dropped from the bounded run table while still
	// tracked (a capture with more live runs than the cap).
	Evicted int `json:"evictedRuns,omitempty"`
}

// Count returns how many findings of at least severity s were made.
func (s *Summary) Count(min Severity) int {
	n := 0
	if min <= Error {
		n += s.Errors
	}
	if min <= Warn {
		n += s.Warnings
	}
	if min <= Info {
		n += s.Infos
	}
	return n
}

// RuleIDs returns the ids of the rules that fired, sorted.
func (s *Summary) RuleIDs() []string {
	ids := make([]string, 0, len(s.ByRule))
	for id := range s.ByRule {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}
