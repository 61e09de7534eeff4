package otlp_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/otlp"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/stats"
)

// RunsMatchStats says whether spans' runs are what stats says of the same
// capture: as many run spans as runs, by agent, by outcome, and the same
// durations (stats keeps their distribution: count, nearest-rank
// percentiles, max, mean, of the runs that ended). e2e uses it on a
// capture it records.
func runsMatchStats(t *testing.T, spans []jspan, st *stats.Stats) {
	t.Helper()
	var durs []int64
	agents, outcomes := map[string]int{}, map[string]int{}
	for k := range spans {
		s := &spans[k]
		if s.Name != "openclaw.run" {
			continue
		}
		agent := s.attr("gen_ai.agent.id")
		if agent == "" {
			agent = "(none)"
		}
		agents[agent]++
		oc := s.attr("openclaw.outcome")
		outcomes[oc]++
		if oc != "" && s.Start != "0" { // stats times only runs whose records have times
			durs = append(durs, s.durMs())
		}
	}
	r := st.Runs
	if n := agents; r.Count != sum(n) || !mapsEqual(n, r.ByAgent) {
		t.Errorf("run spans by agent %v, stats %d runs %v", n, r.Count, r.ByAgent)
	}
	if outcomes["completed"] != r.Completed || outcomes["aborted"] != r.Aborted || outcomes["error"] != r.Failed || outcomes[""] != r.Unterminated {
		t.Errorf("outcomes %v, stats completed %d aborted %d failed %d unterminated %d", outcomes, r.Completed, r.Aborted, r.Failed, r.Unterminated)
	}
	if d := distribution(durs); d != r.DurationMs {
		t.Errorf("span durations %v: %+v, stats %+v", durs, d, r.DurationMs)
	}
}

// distribution is stats' of durs: nearest-rank percentiles.
func distribution(durs []int64) stats.Distribution {
	if len(durs) == 0 {
		return stats.Distribution{}
	}
	s := slices.Sorted(slices.Values(durs))
	n := int64(len(s))
	rank := func(p int64) int64 { return s[max((p*n+99)/100, 1)-1] }
	var total int64
	for _, v := range s {
		total += v
	}
	return stats.Distribution{Count: len(s), P50: rank(50), P90: rank(90), P99: rank(99), Max: s[len(s)-1], Mean: total / n}
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func statsOf(t *testing.T, path string) *stats.Stats {
	t.Helper()
	r, err := capture.Open(path, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c := stats.New()
	if err := pipeline.New(pipeline.Options{}, c).Run(pipeline.Records(r)); err != nil {
		t.Fatal(err)
	}
	return c.Result()
}

// A capture recorded from a real gateway exports run spans whose count,
// agents, outcomes and durations are stats' of it; so do the fixtures,
// where one client's view of a run is the run's (see docs/otlp.md for
// where the two can part).
func TestRunSpansMatchStats(t *testing.T) {
	for _, path := range fixtures(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			out, _ := exportFile(t, path, otlp.Options{})
			runsMatchStats(t, parse(t, out, 0), statsOf(t, path))
		})
	}
}
