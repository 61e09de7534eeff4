package shrink

import (
	"slices"

	"github.com/clawtap/clawtap/pkg/check"
)

// search is one delta-debugging run: the plan, the test it runs on record
// sets, the cache of what it learnt and the bound on how much it may ask.
type search struct {
	plan *plan
	// test reports whether the records (indices, increasing) still show
	// the finding, and the finding when they do.
	test     func(recs []int) (bool, *check.Finding, error)
	maxTests int // 0: no bound

	tests     int
	exhausted bool
	err       error
	cache     map[string]verdict
	mask      []bool
	key       []byte

	kept     []int // the smallest passing unit set so far, increasing
	keptRecs int
	found    check.Finding
	progress func(stage string)
}

type verdict struct {
	ok      bool
	finding check.Finding
}

// stopped reports that the search must end now: the bound is reached or
// a test failed to run.
func (s *search) stopped() bool { return s.exhausted || s.err != nil }

// try tests the units base ∪ items and, when the records they stand for
// still show the finding, makes them the current best. Record sets seen
// before are answered from the cache without counting as a test.
func (s *search) try(base []int, items [][]int) bool {
	if s.stopped() {
		return false
	}
	units := slices.Clone(base)
	for _, it := range items {
		units = append(units, it...)
	}
	slices.Sort(units)
	recs := s.plan.expand(units, s.mask)
	if len(recs) == 0 {
		return false
	}
	key := s.keyOf(recs)
	v, seen := s.cache[key]
	if !seen {
		if s.maxTests > 0 && s.tests >= s.maxTests {
			s.exhausted = true
			return false
		}
		s.tests++
		ok, f, err := s.test(recs)
		if err != nil {
			s.err = err
			return false
		}
		v.ok = ok
		if ok {
			v.finding = *f
		}
		s.cache[key] = v
	}
	if v.ok && len(recs) <= s.keptRecs {
		s.kept, s.keptRecs, s.found = units, len(recs), v.finding
	}
	return v.ok
}

// keyOf is a record set as a bitmap, the cache's key.
func (s *search) keyOf(recs []int) string {
	s.key = s.key[:0]
	for range (s.plan.n + 7) / 8 {
		s.key = append(s.key, 0)
	}
	for _, i := range recs {
		s.key[i/8] |= 1 << (i % 8)
	}
	return string(s.key)
}

// ddmin is Zeller and Hildebrandt's minimizing delta debugging over items
// (each a set of units), with base kept throughout: it returns a subset of
// items that still passes, from which no single item can be removed. It
// splits the items into n contiguous parts and tests each part, then each
// complement; a pass restarts on what passed, else the parts are halved
// until they are single items. base ∪ items must pass on entry.
func (s *search) ddmin(base []int, items [][]int) [][]int {
	if len(base) > 0 && len(items) > 0 && s.try(base, nil) {
		return nil // everything here can go
	}
	c, n := items, 2
	for len(c) >= 2 && !s.stopped() {
		parts := split(c, n)
		reduced := false
		for _, p := range parts {
			if s.try(base, p) {
				c, n, reduced = p, 2, true
				break
			}
		}
		if !reduced {
			for i := range parts {
				comp := complement(parts, i)
				if s.try(base, comp) {
					c, n, reduced = comp, max(n-1, 2), true
					break
				}
			}
		}
		if !reduced {
			if n >= len(c) {
				break
			}
			n = min(len(c), 2*n)
		}
	}
	return c
}

// split cuts c into n contiguous parts whose sizes differ by at most one.
func split(c [][]int, n int) [][][]int {
	parts := make([][][]int, 0, n)
	start := 0
	for k := range n {
		end := start + (len(c)-start)/(n-k)
		parts = append(parts, c[start:end])
		start = end
	}
	return parts
}

// complement is every part but parts[i], flattened into one item list.
func complement(parts [][][]int, i int) [][]int {
	var out [][]int
	for k, p := range parts {
		if k != i {
			out = append(out, p...)
		}
	}
	return out
}

// flatten joins items into one unit list, increasing.
func flatten(items [][]int) []int {
	var out []int
	for _, it := range items {
		out = append(out, it...)
	}
	slices.Sort(out)
	return out
}
