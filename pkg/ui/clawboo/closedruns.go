package clawboo

import "github.com/clawtap/clawtap/pkg/ui"

// closedRuns is the reference's Map<runId, expiry>: an insertion-ordered
// map. Setting an existing key updates its expiry but keeps its position,
// as a JavaScript Map does, so eviction order is first-insertion order.
//
// Pruning scans only when the earliest expiry may have passed (minExp is a
// lower bound), so the common call is O(1) even with 500 entries.
type closedRuns struct {
	idx        map[string]*closedNode
	head, tail *closedNode
	free       *closedNode
	n          int
	minExp     int64 // lower bound of all expiries; valid when n > 0
}

type closedNode struct {
	run        string
	exp        int64
	prev, next *closedNode
}

func (c *closedRuns) init() { c.idx = make(map[string]*closedNode) }

func (c *closedRuns) len() int { return c.n }

func (c *closedRuns) get(run string) (int64, bool) {
	if c.n == 0 {
		return 0, false
	}
	nd, ok := c.idx[run]
	if !ok {
		return 0, false
	}
	return nd.exp, true
}

func (c *closedRuns) set(run string, exp int64) {
	if nd, ok := c.idx[run]; ok {
		nd.exp = exp
		if exp < c.minExp {
			c.minExp = exp
		}
		return
	}
	nd := c.free
	if nd != nil {
		c.free = nd.next
		*nd = closedNode{}
	} else {
		nd = &closedNode{}
	}
	nd.run, nd.exp = run, exp
	nd.prev = c.tail
	if c.tail != nil {
		c.tail.next = nd
	} else {
		c.head = nd
	}
	c.tail = nd
	c.idx[run] = nd
	if c.n == 0 || exp < c.minExp {
		c.minExp = exp
	}
	c.n++
}

func (c *closedRuns) remove(nd *closedNode) {
	if nd.prev != nil {
		nd.prev.next = nd.next
	} else {
		c.head = nd.next
	}
	if nd.next != nil {
		nd.next.prev = nd.prev
	} else {
		c.tail = nd.prev
	}
	delete(c.idx, nd.run)
	c.n--
	nd.prev, nd.run = nil, ""
	nd.next = c.free
	c.free = nd
}

// pruneExpired deletes every entry with now > expiry, in insertion order.
func (c *closedRuns) pruneExpired(now int64, fn func(run string, exp int64)) {
	if c.n == 0 || now <= c.minExp {
		return
	}
	var min int64
	first := true
	for nd := c.head; nd != nil; {
		next := nd.next
		if now > nd.exp {
			run, exp := nd.run, nd.exp
			c.remove(nd)
			fn(run, exp)
		} else if first || nd.exp < min {
			min, first = nd.exp, false
		}
		nd = next
	}
	c.minExp = min
}

func (c *closedRuns) evictOldest() (string, int64) {
	nd := c.head
	run, exp := nd.run, nd.exp
	c.remove(nd)
	return run, exp
}

func (c *closedRuns) reset() {
	for c.head != nil {
		c.remove(c.head)
	}
	c.minExp = 0
}

func (c *closedRuns) list(dst []ui.ClosedRun) []ui.ClosedRun {
	for nd := c.head; nd != nil; nd = nd.next {
		dst = append(dst, ui.ClosedRun{RunID: nd.run, Expiry: nd.exp})
	}
	return dst
}
