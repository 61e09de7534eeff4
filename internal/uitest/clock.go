package uitest

// Clock is a clock with timers that fire only when a test advances it.
type Clock struct {
	now    int64
	seq    int
	timers []*timer
}

type timer struct {
	due  int64
	seq  int
	fn   func()
	dead bool
}

// NewClock returns a clock at now.
func NewClock(now int64) *Clock { return &Clock{now: now} }

// Now is the clock's time.
func (c *Clock) Now() int64 { return c.now }

// AfterFunc calls fn ms from now, when the clock is advanced past it; the
// function returned cancels it.
func (c *Clock) AfterFunc(ms int64, fn func()) func() {
	c.seq++
	t := &timer{due: c.now + ms, seq: c.seq, fn: fn}
	c.timers = append(c.timers, t)
	return func() { t.dead = true }
}

// SetTimeout is AfterFunc by the name JavaScript gives it.
func (c *Clock) SetTimeout(ms int64, fn func()) func() { return c.AfterFunc(ms, fn) }

// Live is how many timers wait.
func (c *Clock) Live() int {
	n := 0
	for _, t := range c.timers {
		if !t.dead {
			n++
		}
	}
	return n
}

// Advance moves the clock to t, firing the timers due by then in (due,
// creation) order, each at its due time; the clock never goes back.
func (c *Clock) Advance(t int64) {
	for {
		var next *timer
		for _, tm := range c.timers {
			if !tm.dead && tm.due <= t && (next == nil || tm.due < next.due || tm.due == next.due && tm.seq < next.seq) {
				next = tm
			}
		}
		if next == nil {
			break
		}
		next.dead = true
		if next.due > c.now {
			c.now = next.due
		}
		next.fn()
	}
	if t > c.now {
		c.now = t
	}
}

// Set puts the clock at t without firing a timer: a test that drives the
// timers itself.
func (c *Clock) Set(t int64) { c.now = t }
