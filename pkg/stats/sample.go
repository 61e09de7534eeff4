package stats

import "slices"

// sample is a multiset of durations (ms) from which exact nearest-rank
// percentiles are read. Durations repeat: a long capture has as many runs
// as it likes, but its runs last some thousands of distinct milliseconds.
// So a sample keeps each distinct value once, with its count, and its
// memory grows with the distinct values, not with the runs: a list of
// every duration grew by 8 bytes a run (1.4 MB for 180,000 runs).
type sample struct {
	pend   []int64 // added since the last merge, unsorted
	counts []int64 // how many times each of vals was added
	vals   []int64 // distinct values, ascending
	n      int64
	sum    int64
	once   []int64 // scratch: each pending value's count, as merge walks them
}

// pendMax is how many values wait before they are merged into vals: a
// merge costs a walk over the distinct values.
const pendMax = 4096

func (s *sample) add(v int64) {
	s.pend = append(s.pend, v)
	s.n++
	s.sum += v
	if len(s.pend) == pendMax {
		s.merge()
	}
}

// merge sorts the pending values into vals and counts, in place: vals
// grows by the values it did not have, and is filled from its end.
func (s *sample) merge() {
	if len(s.pend) == 0 {
		return
	}
	slices.Sort(s.pend)
	// the pending values once each (over pend itself), with their counts
	u, uc := s.pend[:0], s.once[:0]
	for _, v := range s.pend {
		if k := len(u) - 1; k >= 0 && u[k] == v {
			uc[k]++
			continue
		}
		u, uc = append(u, v), append(uc, 1)
	}
	fresh, i := 0, 0
	for _, v := range u {
		for i < len(s.vals) && s.vals[i] < v {
			i++
		}
		if i == len(s.vals) || s.vals[i] != v {
			fresh++
		}
	}
	n := len(s.vals)
	s.vals = slices.Grow(s.vals, fresh)[:n+fresh]
	s.counts = slices.Grow(s.counts, fresh)[:n+fresh]
	i, j := n-1, len(u)-1
	for w := n + fresh - 1; j >= 0; w-- {
		switch {
		case i >= 0 && s.vals[i] > u[j]:
			s.vals[w], s.counts[w] = s.vals[i], s.counts[i]
			i--
		case i >= 0 && s.vals[i] == u[j]:
			s.vals[w], s.counts[w] = s.vals[i], s.counts[i]+uc[j]
			i, j = i-1, j-1
		default:
			s.vals[w], s.counts[w] = u[j], uc[j]
			j--
		}
	}
	s.pend, s.once = s.pend[:0], uc[:0]
}

// len is how many values were added.
func (s *sample) len() int { return int(s.n) }

// distribution returns the nearest-rank percentiles, the largest value
// and the mean (rounded towards zero).
func (s *sample) distribution() Distribution {
	if s.n == 0 {
		return Distribution{}
	}
	s.merge()
	rank := func(p int64) int64 {
		k := max((p*s.n+99)/100, 1) // the k-th smallest value
		for i, c := range s.counts {
			if k <= c {
				return s.vals[i]
			}
			k -= c
		}
		return s.vals[len(s.vals)-1]
	}
	return Distribution{Count: int(s.n), P50: rank(50), P90: rank(90), P99: rank(99), Max: s.vals[len(s.vals)-1], Mean: s.sum / s.n}
}
