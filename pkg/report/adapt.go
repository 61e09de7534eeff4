package report

import (
	"encoding/json"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/check"
	"github.com/clawtap/clawtap/pkg/stats"
)

// checkAdapter runs pkg/check's Analyzer as the report's Checker.
type checkAdapter struct {
	an  *check.Analyzer
	buf []check.Finding
	out []Finding
}

// NewCheck returns a Checker backed by pkg/check's Analyzer (nil: the
// default rules).
func NewCheck(an *check.Analyzer) Checker {
	if an == nil {
		an, _ = check.New(check.Options{}) // the default options are valid
	}
	return &checkAdapter{an: an}
}

func (c *checkAdapter) convert(fs []check.Finding) []Finding {
	if len(fs) == 0 {
		return nil
	}
	c.out = c.out[:0]
	for _, f := range fs {
		c.out = append(c.out, Finding{Rule: f.Rule, Severity: f.Severity.String(), I: f.I, T: f.T, Conn: f.Conn,
			RunID: f.RunID, AgentID: f.AgentID, SessionKey: f.SessionKey, Message: f.Message})
	}
	return c.out
}

func (c *checkAdapter) Record(rec *capture.Record, _ *bridge.Event) []Finding {
	c.buf = c.an.Record(c.buf[:0], rec)
	return c.convert(c.buf)
}

func (c *checkAdapter) Finish(truncated bool) []Finding {
	c.buf = c.an.End(c.buf[:0], truncated)
	return c.convert(c.buf)
}

// statsAdapter runs pkg/stats' Collector as the report's StatsSource.
type statsAdapter struct{ c *stats.Collector }

// NewStats returns a StatsSource backed by pkg/stats.
func NewStats() StatsSource { return &statsAdapter{c: stats.New()} }

func (s *statsAdapter) Header(h *capture.Header) {
	if h != nil {
		s.c.Header(h)
	}
}

func (s *statsAdapter) Record(rec *capture.Record) { s.c.Record(rec) }

// JSON marshals the summary: struct fields in order, map keys sorted, so
// the bytes are deterministic.
func (s *statsAdapter) JSON(truncated bool) ([]byte, error) {
	return json.Marshal(s.c.Result(truncated))
}
