package stats

import "slices"

// Result finishes the summary. Call it once, after the pass ended.
func (c *Collector) Result() *Stats {
	s := &c.st
	c.events.flush()
	c.chatStates.flush()
	c.agentStreams.flush()
	if s.Capture.End >= s.Capture.Start && s.Capture.Start > 0 {
		s.Capture.DurationMs = s.Capture.End - s.Capture.Start
	}
	for _, id := range slices.Clone(c.runOrder) {
		r := c.runs[id]
		switch r.lifeOutcome {
		case "":
			c.finish(r, "unterminated")
		default:
			c.finish(r, r.lifeOutcome) // lifecycle ended, no chat terminal (agent-only run)
		}
	}
	s.Runs.DurationMs = distribution(c.durations)
	s.Runs.FirstDeltaMs = distribution(c.firstDelta)
	for _, rt := range []*Rate{&s.Deltas.Agent, &s.Deltas.Chat} {
		if rt.intervals > 0 {
			rt.MeanIntervalMs = round1(float64(rt.spanMs) / float64(rt.intervals))
			if rt.MeanIntervalMs > 0 {
				rt.PerSecond = round1(1000 / rt.MeanIntervalMs)
			}
		}
	}
	s.Approvals.Unresolved = len(c.pendAp)
	for _, calls := range s.Methods {
		if len(calls.lat) > 0 {
			d := distribution(calls.lat)
			calls.P50Ms, calls.MaxMs = d.P50, d.Max
		}
	}
	s.Gaps = c.gaps
	s.Gateway.Versions = sortedKeys(c.versions)
	s.Gateway.Protocols = sortedKeys(c.protocols)
	s.Gateway.BootIDs = len(c.boots)
	s.Connections = s.Connections[:0]
	conns := sortedKeys(c.conns)
	for _, n := range conns {
		ci := c.conns[n]
		cc := ci.c
		rel := func(p *int64) *int64 {
			if p == nil {
				return nil
			}
			v := *p - s.Capture.Start
			return &v
		}
		end := ci.last
		if cc.ClosedMs != nil {
			end = *cc.ClosedMs
		}
		if end >= ci.first && ci.first > 0 {
			cc.LifetimeMs = end - ci.first
		}
		cc.OpenedMs, cc.ClosedMs = rel(cc.OpenedMs), rel(cc.ClosedMs)
		s.Connections = append(s.Connections, cc)
	}
	if s.Connections == nil {
		s.Connections = []Connection{}
	}
	return s
}

// ExtraConnections is the number of connections past the per-connection
// table's cap (counted in the totals, not listed).
func (c *Collector) ExtraConnections() int { return c.extra }

func round1(f float64) float64 { return float64(int64(f*10+0.5)) / 10 }

func sortedKeys[K int | string, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// distribution sorts d in place and returns nearest-rank percentiles.
func distribution(d []int64) Distribution {
	if len(d) == 0 {
		return Distribution{}
	}
	slices.Sort(d)
	var sum int64
	for _, v := range d {
		sum += v
	}
	rank := func(p int) int64 {
		k := (p*len(d) + 99) / 100
		if k < 1 {
			k = 1
		}
		return d[k-1]
	}
	return Distribution{Count: len(d), P50: rank(50), P90: rank(90), P99: rank(99), Max: d[len(d)-1], Mean: sum / int64(len(d))}
}
