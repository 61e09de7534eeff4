package shrink

import (
	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
)

// A capture is not shrunk record by record: a frame replays only after its
// connection's handshake, so the pieces shrink keeps or drops are units.
//
//   - A connection's handshake — its open and hello markers, the
//     connect.challenge event, the connect request and its response — is
//     pinned: it is kept exactly when the connection is kept, and is never
//     a unit of its own.
//   - Every other frame, raw message or unreadable line is a body unit of
//     one record. Keeping one keeps its connection (and so its handshake).
//   - Every other marker (close, error, oversize) is a unit that needs its
//     connection kept by something else: a marker alone never keeps a
//     connection, and a dropped connection takes its markers with it.
//   - A connection with no body at all (a handshake that failed, an open
//     that only errored) is one unit, handshake and markers together, so
//     it can still be kept or dropped whole.

// unit is one piece shrink keeps or drops.
type unit struct {
	recs []int // the unit's own records, increasing
	conn int   // the connection's ordinal in plan.conns
	// keeps: keeping the unit keeps its connection; false for a marker
	// that is kept only along with something else of its connection.
	keeps bool
	run   int // ordinal of the run its record belongs to, -1 for none
}

// connPlan is one connection of the capture.
type connPlan struct {
	n      int   // the connection number
	pinned []int // its handshake records, increasing
	units  []int // its units, increasing
}

// plan is a capture cut into units.
type plan struct {
	n     int // records in the capture
	units []unit
	conns []connPlan
	runs  int // number of distinct runs
}

// what a record is to the plan.
type role uint8

const (
	roleBody   role = iota // a unit of its own that keeps its connection
	rolePinned             // kept with its connection
	roleMarker             // a unit kept only along with its connection
)

// newPlan cuts recs into units. Records are classified in capture order,
// as the pipeline does, so a response knows its request's method.
func newPlan(recs []capture.Record) *plan {
	p := &plan{n: len(recs)}
	cls := bridge.NewClassifier()
	connOf := map[int]int{} // connection number → ordinal
	runOf := map[runKey]int{}
	roles := make([]role, len(recs))
	runs := make([]int, len(recs))
	body := []int{} // body record count per connection ordinal
	for i := range recs {
		rec := &recs[i]
		c, ok := connOf[rec.Conn]
		if !ok {
			c = len(p.conns)
			connOf[rec.Conn] = c
			p.conns = append(p.conns, connPlan{n: rec.Conn})
			body = append(body, 0)
		}
		ev := cls.Record(rec)
		roles[i], runs[i] = roleOf(rec, &ev), -1
		switch roles[i] {
		case rolePinned:
			p.conns[c].pinned = append(p.conns[c].pinned, i)
		case roleBody:
			body[c]++
			if ev.RunID != "" {
				k := runKey{c, ev.RunID}
				r, ok := runOf[k]
				if !ok {
					r = len(runOf)
					runOf[k] = r
				}
				runs[i] = r
			}
		}
	}
	p.runs = len(runOf)
	whole := make([]int, len(p.conns)) // the unit of a connection with no body, once made
	for c := range whole {
		whole[c] = -1
	}
	for i := range recs {
		c := connOf[recs[i].Conn]
		if body[c] == 0 {
			// A connection with no body is one unit.
			if whole[c] < 0 {
				whole[c] = p.add(unit{conn: c, keeps: true, run: -1})
			}
			u := &p.units[whole[c]]
			u.recs = append(u.recs, i)
			continue
		}
		switch roles[i] {
		case roleBody:
			p.add(unit{recs: []int{i}, conn: c, keeps: true, run: runs[i]})
		case roleMarker:
			p.add(unit{recs: []int{i}, conn: c, run: -1})
		}
	}
	return p
}

type runKey struct {
	conn int
	id   string
}

// add appends a unit and lists it under its connection.
func (p *plan) add(u unit) int {
	k := len(p.units)
	p.units = append(p.units, u)
	p.conns[u.conn].units = append(p.conns[u.conn].units, k)
	return k
}

// roleOf says what a record is to its connection.
func roleOf(rec *capture.Record, ev *bridge.Event) role {
	switch {
	case rec.Mark == capture.MarkOpen || rec.Mark == capture.MarkHello:
		return rolePinned
	case rec.Mark != "":
		return roleMarker
	case ev.Type == "event" && ev.Event == "connect.challenge":
		return rolePinned
	case ev.Kind == bridge.Request && ev.Method == "connect":
		return rolePinned
	case ev.Kind == bridge.Response && (ev.Method == "connect" || helloOK(ev.Payload)):
		return rolePinned
	}
	return roleBody
}

func helloOK(payload []byte) bool {
	s, ok := jsonx.GetStr(payload, "type")
	return ok && s == "hello-ok"
}

// expand returns the records that the kept units stand for, increasing:
// their own, the handshake of every connection a kept unit keeps, and the
// markers of kept connections. mask is scratch space of p.n bools.
func (p *plan) expand(kept []int, mask []bool) []int {
	clear(mask)
	alive := make([]bool, len(p.conns))
	for _, k := range kept {
		if u := &p.units[k]; u.keeps {
			alive[u.conn] = true
		}
	}
	for _, k := range kept {
		if u := &p.units[k]; alive[u.conn] {
			for _, i := range u.recs {
				mask[i] = true
			}
		}
	}
	for c, ok := range alive {
		if ok {
			for _, i := range p.conns[c].pinned {
				mask[i] = true
			}
		}
	}
	var out []int
	for i, ok := range mask {
		if ok {
			out = append(out, i)
		}
	}
	return out
}
