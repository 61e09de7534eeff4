package check

import (
	"slices"

	"github.com/clawtap/clawtap/pkg/finding"
)

// Finding is one problem found in a capture (pkg/finding): check's
// findings, schema validation's, in one shape.
type Finding = finding.Finding

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
