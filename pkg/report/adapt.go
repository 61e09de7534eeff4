package report

import (
	"encoding/json"

	"github.com/clawtap/clawtap/pkg/check"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/stats"
)

// checkAdapter runs pkg/check's Analyzer as the report's Checker.
type checkAdapter struct {
	*check.Analyzer
	sink func(Finding)
}

// NewCheck returns a Checker backed by pkg/check's Analyzer (nil: the
// default rules).
func NewCheck(an *check.Analyzer) Checker {
	if an == nil {
		an, _ = check.New(check.Options{}) // the default options are valid
	}
	c := &checkAdapter{Analyzer: an}
	an.OnFinding = func(f *check.Finding) error {
		if c.sink != nil {
			c.sink(Finding{Rule: f.Rule, Severity: f.Severity.String(), I: f.I, T: f.T, Conn: f.Conn,
				RunID: f.RunID, AgentID: f.AgentID, SessionKey: f.SessionKey, Message: f.Message})
		}
		return nil
	}
	return c
}

// Sink sets where the findings go as they are made.
func (c *checkAdapter) Sink(fn func(Finding)) { c.sink = fn }

// statsAdapter runs pkg/stats' Collector as the report's StatsSource.
type statsAdapter struct{ *stats.Collector }

// NewStats returns a StatsSource backed by pkg/stats.
func NewStats() StatsSource { return statsAdapter{stats.New()} }

// JSON marshals the summary: struct fields in order, map keys sorted, so
// the bytes are deterministic.
func (s statsAdapter) JSON() ([]byte, error) { return json.Marshal(s.Result()) }

var _ pipeline.Observer = statsAdapter{}
