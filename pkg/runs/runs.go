// Package runs is the pass's run table: the one place where a run is
// born, ends and is let go, and where it gets its number.
//
// A run is named by its run id alone. The gateway gives a run one id
// for its whole life, and a UI follows it by that id across its
// connections: a client that reconnects mid-run sees the same run go on,
// and the replay follows it there (see docs/architecture.md, "One run
// table"). What differs per connection (the frame seq, a terminal each
// client is sent) stays a view of the run that the observer who needs it
// keeps in its own Field, keyed by connection.
//
// A run is born at the first frame that names it: a chat, agent or
// approval event with a runId, or a chat.send response that gives one. It
// ends at its first terminal (a chat final, aborted or error, a lifecycle
// end or error) on any connection. It is let go, in the order runs were
// born, when MaxRuns newer runs crowd it out, and at the end of the
// capture: nothing the pass reads later changes it, and every observer is
// told once (OnLetGo), in the order of the runs' numbers. A run id seen
// again after its run was let go is a new run, marked Reopened.
//
// Observers keep what they know of a run in a Field of it, not in tables
// of their own, so a frame's run is looked up once for every observer and
// every observer lets it go at the same record.
package runs

import (
	"hash/fnv"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/recent"
)

// DefaultMax is how many runs the table holds unless told otherwise: live
// runs and those ended lately. A run held costs about a kilobyte across
// the observers' fields, and a thousand is far more than a gateway runs
// at once, so a run is let go long after its last frame; more only makes
// the memory larger.
const DefaultMax = 1024

// goneMemory is how many runs let go, times the table's size, the table
// remembers (as a hash of the id) to mark a run id seen again Reopened.
const goneMemory = 4

// Run is one run of the capture.
type Run struct {
	// N numbers the runs from 1 in the order they were born: the pass's
	// name for a run, which findings and exports carry.
	N       int
	ID      string
	Agent   string // the first agent id its frames named (or their session key did)
	Session string // the first session key its frames named
	Conn    int    // the connection it was born on

	FirstI int // the record it was born at
	FirstT int64
	LastI  int // its latest frame's record
	LastT  int64
	// EndI and EndT are its first terminal of either stream on any
	// connection; EndI is -1 while it has none.
	EndI int
	EndT int64

	// Reopened: a run of this id was let go before this one was born.
	Reopened bool
	// Kept: the run was held to the end of the capture (let go by
	// Finish), not crowded out by newer runs.
	Kept bool

	fields []any
}

// Ended reports whether the run has had a terminal.
func (r *Run) Ended() bool { return r.EndI >= 0 }

// Table holds the runs of one pass.
type Table struct {
	max     int
	held    []*Run // in the order born; held[head:] are held
	head    int
	byID    map[string]*Run
	last    recent.Cache[string, *Run] // the runs looked up last: the frames of interleaved runs
	born    int
	crowded int // runs let go before the end
	fields  int
	gone    goneSet

	// OnLetGo, when set, is told of each run the table lets go, once, in
	// the order of the runs' numbers, just before the table forgets it.
	OnLetGo func(*Run)
}

// New returns an empty table holding up to max runs (DefaultMax when max
// is 0 or less).
func New(max int) *Table {
	if max <= 0 {
		max = DefaultMax
	}
	return &Table{max: max, byID: map[string]*Run{}, gone: newGoneSet(max * goneMemory)}
}

// Max is how many runs the table holds.
func (t *Table) Max() int { return t.max }

// Born is how many runs were born so far.
func (t *Table) Born() int { return t.born }

// Crowded is how many runs were let go before the end of the capture.
func (t *Table) Crowded() int { return t.crowded }

// Len is how many runs the table holds.
func (t *Table) Len() int { return len(t.held) - t.head }

// Lookup returns the run held under id, or nil (also on a nil table).
func (t *Table) Lookup(id string) *Run {
	if t == nil || id == "" {
		return nil
	}
	if r, ok := t.last.Get(id); ok {
		return r
	}
	r := t.byID[id]
	if r != nil {
		t.last.Put(id, r)
	}
	return r
}

// Each calls fn for every run held, in the order they were born, until
// fn returns false.
func (t *Table) Each(fn func(*Run) bool) {
	for _, r := range t.held[t.head:] {
		if !fn(r) {
			return
		}
	}
}

// Record follows one record: the run it names, born if new, with its
// latest frame and terminal noted. It returns nil for a record that
// names no run.
func (t *Table) Record(rec *capture.Record, ev *bridge.Event) *Run {
	id, ok := runOf(ev)
	if !ok {
		return nil
	}
	r := t.Lookup(id)
	if r == nil {
		r = t.birth(id, rec, ev)
	}
	r.LastI, r.LastT = rec.Index, rec.T
	if r.Agent == "" {
		r.Agent = ev.AgentID
		if r.Agent == "" && r.Session == "" && ev.Session() != "" {
			r.Agent = bridge.SessionAgentID(ev.Session())
		}
	}
	if r.Session == "" {
		r.Session = ev.Session()
	}
	if r.EndI < 0 && terminal(ev) {
		r.EndI, r.EndT = rec.Index, rec.T
	}
	return r
}

func (t *Table) birth(id string, rec *capture.Record, ev *bridge.Event) *Run {
	if t.Len() >= t.max {
		t.letGo(false)
	}
	t.born++
	r := &Run{N: t.born, ID: id, Conn: rec.Conn, FirstI: rec.Index, FirstT: rec.T, EndI: -1, Reopened: t.gone.has(id)}
	if t.fields > 0 {
		r.fields = make([]any, t.fields)
	}
	t.byID[id] = r
	t.last.Put(id, r)
	t.held = append(t.held, r)
	return r
}

// letGo lets the oldest run held go.
func (t *Table) letGo(atEnd bool) {
	r := t.held[t.head]
	t.held[t.head] = nil
	t.head++
	r.Kept = atEnd
	if !atEnd {
		t.crowded++
	}
	if t.OnLetGo != nil {
		t.OnLetGo(r)
	}
	delete(t.byID, r.ID)
	t.last.Forget(r.ID)
	t.gone.add(r.ID)
	clear(r.fields) // what observers kept of it goes with it
	if t.head > len(t.held)/2 && t.head >= 64 {
		n := copy(t.held, t.held[t.head:])
		clear(t.held[n:])
		t.held, t.head = t.held[:n], 0
	}
}

// Finish lets every run still held go, in the order they were born: the
// end of the capture.
func (t *Table) Finish() {
	for t.Len() > 0 {
		t.letGo(true)
	}
}

// runOf is the run id a record names, if any: a chat, agent or approval
// event's runId, or the runId of a chat.send response.
func runOf(ev *bridge.Event) (string, bool) {
	switch ev.Kind {
	case bridge.RuntimeChat, bridge.RuntimeAgent, bridge.Approval:
		return ev.RunID, ev.RunID != ""
	case bridge.Response:
		if ev.Method == "chat.send" {
			id, _ := jsonx.GetStr(ev.Payload, "runId")
			return id, id != ""
		}
	}
	return "", false
}

// terminal reports whether the event ends its run: a chat final, aborted
// or error, or a lifecycle end or error.
func terminal(ev *bridge.Event) bool {
	switch ev.Kind {
	case bridge.RuntimeChat:
		return ev.State == "final" || ev.State == "aborted" || ev.State == "error"
	case bridge.RuntimeAgent:
		return ev.Stream == "lifecycle" && (ev.Phase == "end" || ev.Phase == "error")
	}
	return false
}

// goneSet remembers the hashes of the last ids let go, up to a bound.
type goneSet struct {
	set  map[uint64]int32 // hash → how many of the ring hold it
	ring []uint64
	next int
	full bool
}

func newGoneSet(n int) goneSet {
	return goneSet{set: map[uint64]int32{}, ring: make([]uint64, n)}
}

func hashID(id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64()
}

func (g *goneSet) add(id string) {
	if len(g.ring) == 0 {
		return
	}
	h := hashID(id)
	if g.full {
		old := g.ring[g.next]
		if g.set[old]--; g.set[old] <= 0 {
			delete(g.set, old)
		}
	}
	g.ring[g.next] = h
	g.set[h]++
	g.next++
	if g.next == len(g.ring) {
		g.next, g.full = 0, true
	}
}

func (g *goneSet) has(id string) bool {
	if len(g.set) == 0 {
		return false
	}
	_, ok := g.set[hashID(id)]
	return ok
}
