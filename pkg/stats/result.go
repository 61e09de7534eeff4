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
	s.Runs.DurationMs = c.durations.distribution()
	s.Runs.FirstDeltaMs = c.firstDelta.distribution()
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
		if calls.lat.len() > 0 {
			d := calls.lat.distribution()
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
