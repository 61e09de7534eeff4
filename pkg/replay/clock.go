package replay

import (
	"math/bits"
)

// scheduler is the fake clock and its timers. Time only moves when the
// engine advances it to the next record's t (or, at the end, to the next
// due timer); timers fire in order of due time, then creation order.
type scheduler struct {
	now  int64
	heap []*timer
	seq  uint64
	free []*timer // fired timers, reused
}

// timer is one pending callback.
type timer struct {
	due  int64
	seq  uint64
	name string
	fn   func()
	idx  int    // position in the heap; -1 when not scheduled
	gen  uint64 // bumped on reuse, so a stale cancel is inert
}

func (s *scheduler) less(a, b *timer) bool {
	if a.due != b.due {
		return a.due < b.due
	}
	return a.seq < b.seq
}

func (s *scheduler) up(i int) {
	h := s.heap
	for i > 0 {
		p := (i - 1) / 2
		if !s.less(h[i], h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		h[i].idx, h[p].idx = i, p
		i = p
	}
}

func (s *scheduler) down(i int) {
	h := s.heap
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && s.less(h[r], h[l]) {
			m = r
		}
		if !s.less(h[m], h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		h[i].idx, h[m].idx = i, m
		i = m
	}
}

// at schedules fn at due (never before now).
func (s *scheduler) at(due int64, name string, fn func()) *timer {
	if due < s.now {
		due = s.now
	}
	s.seq++
	var t *timer
	if n := len(s.free); n > 0 {
		t = s.free[n-1]
		s.free = s.free[:n-1]
		t.gen++
	} else {
		t = &timer{}
	}
	t.due, t.seq, t.name, t.fn, t.idx = due, s.seq, name, fn, len(s.heap)
	s.heap = append(s.heap, t)
	s.up(t.idx)
	return t
}

// cancel removes t if it is still scheduled.
func (s *scheduler) cancel(t *timer) {
	if t == nil || t.idx < 0 {
		return
	}
	i := t.idx
	last := len(s.heap) - 1
	if i != last {
		s.heap[i] = s.heap[last]
		s.heap[i].idx = i
	}
	s.heap[last] = nil
	s.heap = s.heap[:last]
	if i != last {
		s.down(i)
		s.up(i)
	}
	t.idx = -1
}

// cancelGen cancels t if it is still the timer that was scheduled as gen.
func (s *scheduler) cancelGen(t *timer, gen uint64) {
	if t.gen == gen {
		s.cancel(t)
	}
}

// release returns a fired timer for reuse.
func (s *scheduler) release(t *timer) {
	if t.idx >= 0 || len(s.free) >= 8 {
		return
	}
	t.fn = nil
	s.free = append(s.free, t)
}

// next returns the earliest timer due at or before limit, removed from the
// heap, or nil.
func (s *scheduler) next(limit int64) *timer {
	if len(s.heap) == 0 || s.heap[0].due > limit {
		return nil
	}
	t := s.heap[0]
	s.cancel(t)
	return t
}

func (s *scheduler) pending() int { return len(s.heap) }

// frameClock places animation frames on the fake clock: frame k (k ≥ 1)
// is at t0 + ceil(k·num/den) ms, vsync boundaries aligned to the capture's
// first record, and requestAnimationFrame called at time now fires at the
// first boundary strictly after now. That mirrors a browser, where a
// callback requested during a frame runs at the next vsync, and a request
// made exactly on a boundary (after that boundary's callbacks ran) waits for
// the following one.
type frameClock struct {
	t0       int64
	num, den uint64 // period = num/den ms, reduced
}

// DefaultFrameNum / DefaultFrameDen give 60 Hz: 1000/60 ms.
const (
	DefaultFrameNum = 1000
	DefaultFrameDen = 60
)

func newFrameClock(t0 int64, num, den uint64) frameClock {
	if num == 0 || den == 0 {
		num, den = DefaultFrameNum, DefaultFrameDen
	}
	g := gcd(num, den)
	return frameClock{t0: t0, num: num / g, den: den / g}
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// boundary returns t0 + ceil(k·num/den).
func (f frameClock) boundary(k uint64) int64 {
	hi, lo := bits.Mul64(k, f.num)
	if hi >= f.den {
		return int64(^uint64(0) >> 1) // beyond any capture
	}
	q, r := bits.Div64(hi, lo, f.den)
	if r != 0 {
		q++
	}
	return f.t0 + int64(q)
}

// next returns the first frame boundary strictly after now.
func (f frameClock) next(now int64) int64 {
	if now < f.t0 {
		return f.boundary(1)
	}
	el := uint64(now - f.t0)
	// k = floor(el·den/num) + 1 is the first k with k·num/den > el.
	hi, lo := bits.Mul64(el, f.den)
	if hi >= f.num {
		return int64(^uint64(0) >> 1)
	}
	k, _ := bits.Div64(hi, lo, f.num)
	return f.boundary(k + 1)
}
