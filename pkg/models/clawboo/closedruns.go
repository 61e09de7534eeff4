package clawboo

import "github.com/clawtap/clawtap/pkg/ui"

// closedRuns is the reference's Map<runId, expiry> (after 1211c16,
// Map<runId, {expiresAt, byCommit}>): an insertion-ordered map. Setting an
// existing key updates its value but keeps its position, as a JavaScript
// Map does, so eviction order is first-insertion order.
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
	by         closedBy
	prev, next *closedNode
}

// closedBy is what closed a run: 1211c16 does not say (closedByAny); the
// guard after it tells a commit from a lifecycle terminal.
type closedBy uint8

const (
	closedByAny closedBy = iota
	closedByLifecycle
	closedByCommit
)

// String is the ClosedBy of decisions and closed runs: "" for 1211c16.
func (b closedBy) String() string {
	switch b {
	case closedByLifecycle:
		return "lifecycle"
	case closedByCommit:
		return "commit"
	}
	return ""
}

func (c *closedRuns) init() { c.idx = make(map[string]*closedNode) }

func (c *closedRuns) len() int { return c.n }

func (c *closedRuns) get(run string) (int64, closedBy, bool) {
	if c.n == 0 {
		return 0, 0, false
	}
	nd, ok := c.idx[run]
	if !ok {
		return 0, 0, false
	}
	return nd.exp, nd.by, true
}

func (c *closedRuns) set(run string, exp int64, by closedBy) {
	if nd, ok := c.idx[run]; ok {
		nd.exp, nd.by = exp, by
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
	nd.run, nd.exp, nd.by = run, exp, by
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
		dst = append(dst, ui.ClosedRun{RunID: nd.run, Expiry: nd.exp, ClosedBy: nd.by.String()})
	}
	return dst
}
