package claw3d

// Claw3D's historyRefreshRequestedByRun is one of the six per-run maps
// that clearRunTracking empties, but a chat final clears the run's
// tracking and then requests its history refresh, which adds the run
// back: in the UI that set gains a run per final and is never emptied.
// The replay keeps those runs (whose other tracking is gone) apart, the
// last maxRefreshed of them, so its memory stays flat: only a duplicate
// final arriving that many runs later would request its refresh again.

// maxRefreshed bounds the untracked runs whose refresh requests are kept.
const maxRefreshed = 8192

// refreshed holds the history-refresh bits of runs without tracking.
type refreshed struct {
	bits  map[string]refreshBits
	order []refreshKey // in the order they were added; a stale key is skipped
	head  int
	gen   uint64
}

type refreshBits struct {
	bits uint8
	gen  uint64
}

type refreshKey struct {
	run string
	gen uint64
}

// has reports whether the run's refresh for bit was requested.
func (r *refreshed) has(run string, bit uint8) bool { return r.bits[run].bits&bit != 0 }

// add records the run's request for bit, forgetting the oldest run past
// maxRefreshed.
func (r *refreshed) add(run string, bit uint8) {
	if r.bits == nil {
		r.bits = map[string]refreshBits{}
	}
	if e, ok := r.bits[run]; ok {
		e.bits |= bit
		r.bits[run] = e
		return
	}
	for len(r.bits) >= maxRefreshed && r.head < len(r.order) {
		k := r.order[r.head]
		r.order[r.head] = refreshKey{}
		r.head++
		if e, ok := r.bits[k.run]; ok && e.gen == k.gen {
			delete(r.bits, k.run)
		}
	}
	if r.head > len(r.order)/2 && r.head > 1024 {
		r.order = append(r.order[:0], r.order[r.head:]...)
		r.head = 0
	}
	r.gen++
	r.bits[run] = refreshBits{bits: bit, gen: r.gen}
	r.order = append(r.order, refreshKey{run, r.gen})
}

// take removes the run and returns its bits: the run is tracked again.
func (r *refreshed) take(run string) uint8 {
	e, ok := r.bits[run]
	if !ok {
		return 0
	}
	delete(r.bits, run)
	return e.bits
}

// reset forgets every run.
func (r *refreshed) reset() { *r = refreshed{} }

// len is the number of runs held.
func (r *refreshed) len() int { return len(r.bits) }
