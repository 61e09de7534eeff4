package serve

import (
	"sort"
	"sync"
	"time"
)

// Clock is the streamer's only source of time. The server uses the wall
// clock; tests pass a FakeClock so pacing is checked without sleeping.
type Clock interface {
	Now() time.Time
	NewTimer(d time.Duration) Timer
}

// Timer is the part of time.Timer the streamer needs.
type Timer interface {
	C() <-chan time.Time
	Stop() bool
}

// WallClock is the real clock.
type WallClock struct{}

// Now returns time.Now().
func (WallClock) Now() time.Time { return time.Now() }

// NewTimer returns a real timer.
func (WallClock) NewTimer(d time.Duration) Timer { return wallTimer{time.NewTimer(d)} }

type wallTimer struct{ t *time.Timer }

func (w wallTimer) C() <-chan time.Time { return w.t.C }
func (w wallTimer) Stop() bool          { return w.t.Stop() }

// FakeClock is a manual clock for tests. Time moves only when Advance or
// AdvanceToNext is called; timers fire when time reaches them.
type FakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
	added  chan struct{}
}

// NewFakeClock returns a fake clock that reads start.
func NewFakeClock(start time.Time) *FakeClock {
	return &FakeClock{now: start, added: make(chan struct{}, 1)}
}

type fakeTimer struct {
	c    *FakeClock
	at   time.Time
	ch   chan time.Time
	done bool
}

func (t *fakeTimer) C() <-chan time.Time { return t.ch }

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	if t.done {
		return false
	}
	t.done = true
	t.c.remove(t)
	return true
}

// Now returns the fake time.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// NewTimer starts a timer that fires when the fake time reaches now+d.
func (c *FakeClock) NewTimer(d time.Duration) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, at: c.now.Add(d), ch: make(chan time.Time, 1)}
	if d <= 0 {
		t.done = true
		t.ch <- c.now
		return t
	}
	c.timers = append(c.timers, t)
	select {
	case c.added <- struct{}{}:
	default:
	}
	return t
}

// TimerAdded is signalled (coalesced) whenever a timer starts waiting.
func (c *FakeClock) TimerAdded() <-chan struct{} { return c.added }

// Pending returns the number of timers waiting to fire.
func (c *FakeClock) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// Advance moves the fake time forward by d, firing every timer due by then
// in deadline order.
func (c *FakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.fire()
}

// AdvanceToNext moves the fake time to the earliest pending timer and fires
// it. It reports false when no timer is pending.
func (c *FakeClock) AdvanceToNext() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.timers) == 0 {
		return false
	}
	next := c.timers[0].at
	for _, t := range c.timers[1:] {
		if t.at.Before(next) {
			next = t.at
		}
	}
	if next.After(c.now) {
		c.now = next
	}
	c.fire()
	return true
}

func (c *FakeClock) fire() {
	sort.SliceStable(c.timers, func(i, j int) bool { return c.timers[i].at.Before(c.timers[j].at) })
	keep := c.timers[:0]
	for _, t := range c.timers {
		if !t.at.After(c.now) {
			t.done = true
			t.ch <- c.now
			continue
		}
		keep = append(keep, t)
	}
	for i := len(keep); i < len(c.timers); i++ {
		c.timers[i] = nil
	}
	c.timers = keep
}

func (c *FakeClock) remove(t *fakeTimer) {
	for i, x := range c.timers {
		if x == t {
			c.timers = append(c.timers[:i], c.timers[i+1:]...)
			return
		}
	}
}
