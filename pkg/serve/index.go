package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
)

// The pre-pass reads the capture once, in the background, and keeps what
// serve must know beyond the record a client is at: each connection's
// facts, and an index of the recorded requests that got a response. Its
// memory grows with the number of connections and of answered requests,
// never with the frames; the responses and hellos themselves go to the
// spool. Clients never wait for it to finish unless they need something
// only the whole capture can tell (request matching, the chain of
// reconnects, the counts of the summary).

// connFacts is what the pre-pass knows of one connection. Fields are
// guarded by index.mu.
type connFacts struct {
	conn   int
	first  int  // index of its first record
	framed bool // it has frames; a failed attempt has only markers

	// Its end: the first close or error marker. Records of the connection
	// after it are not played.
	ended    bool
	endIndex int
	closing  *Closing // how to play the end; nil for a close by the client side

	hasHello     bool
	hello        ref // the hello-ok payload, spooled
	helloT       int64
	helloProto   int
	helloVersion string
	protoMark    int    // from the hello marker
	serverMark   string // from the hello marker
	caps         []byte // the recorded connect.challenge's payload.capabilities
	connectIDs   []string

	// The timeline: frames streamed to the connection, the chat.send run
	// boundaries (from any connection) inside its life and the responses
	// to them. A boundary or response counts once an item of the
	// connection itself follows it; until then it is pending.
	firstItemT           int64
	lastItem             int // index of its last own item, -1 before
	frames, items, sends int
	pendItems, pendSends int
	events               map[string]bool
}

// maxEventNames bounds the event names kept per connection (for a hello
// serve has to make up), whatever a hostile capture holds.
const maxEventNames = 256

// recorded is a request of the capture that got at least one response.
type recorded struct {
	index  int
	conn   int
	method string
	key    string
	resp   []ref
	sendAt int // its own index for a chat.send, else -1
}

type reqKey struct {
	conn int
	id   string
}

// maxPendingRequests bounds the requests remembered for their responses:
// one id may get two responses (an "accepted" ack, then the result), so an
// id is kept until newer ones push it out.
const maxPendingRequests = 4096

// index is the pre-pass's result, filled in while clients already play.
type index struct {
	stats   capture.Stats // what the reader saw, once done
	mu      sync.Mutex
	cond    *sync.Cond
	done    bool
	ready   chan struct{} // closed when done
	records int           // records read so far
	err     error         // trouble that cut the pre-pass short

	header   *capture.Header
	conns    []*connFacts // in order of their first records
	byConn   map[int]*connFacts
	requests map[string][]*recorded // answered requests, by method
	sessions map[string]string      // the session keys the capture shows, by their lower-case form
	sp       *spool

	// Only the pre-pass goroutine touches these.
	active   []*connFacts // connections started and not ended
	pending  map[reqKey]*recorded
	order    []reqKey // FIFO ring of pending, for eviction
	next     int
	interned map[string]string
}

func newIndex(h *capture.Header, sp *spool) *index {
	x := &index{
		ready: make(chan struct{}), header: h, byConn: map[int]*connFacts{},
		requests: map[string][]*recorded{}, sessions: map[string]string{}, sp: sp,
		pending: map[reqKey]*recorded{}, interned: map[string]string{},
	}
	x.cond = sync.NewCond(&x.mu)
	return x
}

// run reads the capture to its end (or until ctx is done), then marks the
// index done.
func (x *index) run(ctx context.Context, r *capture.Reader) {
	defer r.Close()
	var err error
	for ctx.Err() == nil {
		var rec *capture.Record
		if rec, err = r.Next(); err != nil {
			break
		}
		if rec.Malformed {
			continue // reported by the reader's warning; nothing to play
		}
		x.mu.Lock()
		notable := x.record(rec)
		x.records++
		if notable || x.records%256 == 0 {
			x.cond.Broadcast()
		}
		x.mu.Unlock()
	}
	if errors.Is(err, io.EOF) {
		err = nil
	} else if err == nil {
		err = ctx.Err()
	}
	if ferr := x.sp.flush(); ferr != nil && err == nil {
		err = fmt.Errorf("the recorded responses could not be kept (they are answered as not in capture): %w", ferr)
	}
	x.mu.Lock()
	for _, list := range x.requests {
		slices.SortStableFunc(list, func(a, b *recorded) int { return a.index - b.index })
	}
	x.err = err
	x.stats = r.Stats()
	x.done = true
	x.active, x.pending, x.order, x.interned = nil, nil, nil, nil
	x.cond.Broadcast()
	x.mu.Unlock()
	close(x.ready)
}

// record takes one record into the index; x.mu is held. It reports whether
// a waiter may care at once (a new connection, a hello, an end).
func (x *index) record(rec *capture.Record) bool {
	f := x.byConn[rec.Conn]
	notable := false
	if f == nil {
		f = &connFacts{conn: rec.Conn, first: rec.Index, lastItem: -1}
		x.byConn[rec.Conn] = f
		x.conns = append(x.conns, f)
		x.active = append(x.active, f)
		notable = true
	}
	switch {
	case f.ended && rec.Mark != "":
		return notable
	case f.ended:
		// Nothing of the connection plays after its end, but its requests
		// are still recorded requests, and a chat.send a run boundary.
	case rec.Mark == "":
		f.framed = true
	case rec.Mark == capture.MarkHello:
		f.protoMark, f.serverMark = rec.Protocol, rec.Server
		return notable
	case rec.Mark == capture.MarkClose || rec.Mark == capture.MarkError:
		f.ended, f.endIndex, f.closing = true, rec.Index, closingOf(rec)
		x.active = slices.DeleteFunc(x.active, func(g *connFacts) bool { return g == f })
		return true
	default:
		return notable
	}
	if rec.IsRaw {
		if rec.Dir != capture.DirOut && !f.ended {
			x.ownItem(f, rec.Index, rec.T)
			f.frames++
		}
		return notable
	}
	if rec.Frame == nil {
		return notable
	}
	frame := jsonx.TrimSpace(rec.Frame)
	h := readHead(frame)
	switch h.typ {
	case frameReq:
		if rec.Dir != capture.DirIn {
			x.request(f, rec, frame, &h)
		}
	case frameRes:
		if rec.Dir != capture.DirOut {
			return x.response(f, rec, frame, &h) || notable
		}
	default: // events, and frames of no known type the gateway sent
		if rec.Dir == capture.DirOut || f.ended {
			return notable
		}
		event := h.event
		if h.typ != frameEvent {
			event = nil
		}
		if strIs(event, "connect.challenge") {
			if f.caps == nil {
				if caps, ok := jsonx.GetPath(frame, "payload", "capabilities"); ok {
					f.caps = append([]byte(nil), caps...)
				}
			}
			return notable
		}
		x.ownItem(f, rec.Index, rec.T)
		f.frames++
		if sessionEvent(event) {
			x.session(jsonx.GetPath(frame, "payload", "sessionKey"))
		}
		if name, ok := jsonx.Str(event); ok && name != "" && (f.events[name] || len(f.events) < maxEventNames) {
			if f.events == nil {
				f.events = map[string]bool{}
			}
			f.events[name] = true
		}
	}
	return notable
}

func (x *index) request(f *connFacts, rec *capture.Record, frame []byte, h *head) {
	id := h.id()
	if strIs(h.method, "connect") {
		if len(f.connectIDs) < 16 {
			f.connectIDs = append(f.connectIDs, id)
		}
		return
	}
	method, _ := jsonx.Str(h.method)
	if id == "" || method == "" {
		return
	}
	params, _ := jsonx.Get(frame, "params")
	q := &recorded{index: rec.Index, conn: rec.Conn, method: x.intern(method), key: x.intern(MatchKey(params)), sendAt: -1}
	if method == "chat.send" {
		x.session(jsonx.Get(params, "sessionKey"))
		q.sendAt = rec.Index
		for _, g := range x.active { // a run boundary in every live timeline
			g.pendSends++
			g.pendItems++
		}
	}
	x.remember(reqKey{rec.Conn, id}, q)
}

func (x *index) response(f *connFacts, rec *capture.Record, frame []byte, h *head) bool {
	if p, ok := jsonx.Get(frame, "payload"); ok {
		if t, _ := jsonx.GetStr(p, "type"); t == "hello-ok" {
			if f.hasHello || f.ended {
				return false
			}
			r, ok := x.sp.put(p)
			if !ok || x.sp.flush() != nil {
				return false
			}
			f.hasHello, f.hello, f.helloT = true, r, rec.T
			if n, ok := jsonx.GetInt(p, "protocol"); ok {
				f.helloProto = int(n)
			}
			if v, ok := jsonx.GetPath(p, "server", "version"); ok {
				f.helloVersion, _ = jsonx.Str(v)
			}
			return true
		}
	}
	id := h.id()
	if slices.Contains(f.connectIDs, id) {
		return false // a failed connect's answer
	}
	q := x.pending[reqKey{rec.Conn, id}]
	if q == nil {
		return false
	}
	r, ok := x.sp.put(frame)
	if !ok {
		return false
	}
	if len(q.resp) == 0 {
		x.requests[q.method] = append(x.requests[q.method], q)
	}
	q.resp = append(q.resp, r)
	if q.sendAt < 0 {
		return false
	}
	// The answer to a chat.send is an item of every timeline the send is
	// in, and an own item of the connection that got it.
	for _, g := range x.active {
		switch {
		case g == f:
			x.ownItem(g, rec.Index, rec.T)
		case g.first <= q.sendAt:
			g.pendItems++
		}
	}
	return false
}

// ownItem notes an item of f's own at idx: it confirms the boundaries and
// responses pending before it.
func (x *index) ownItem(f *connFacts, idx int, t int64) {
	f.lastItem = idx
	f.items += f.pendItems + 1
	f.sends += f.pendSends
	f.pendItems, f.pendSends = 0, 0
	if t > 0 && f.firstItemT == 0 {
		f.firstItemT = t
	}
}

func (x *index) remember(k reqKey, q *recorded) {
	if _, ok := x.pending[k]; !ok {
		if len(x.order) < maxPendingRequests {
			x.order = append(x.order, k)
		} else {
			delete(x.pending, x.order[x.next])
			x.order[x.next] = k
			x.next = (x.next + 1) % maxPendingRequests
		}
	}
	x.pending[k] = q
}

// maxSessions bounds the session keys kept, whatever a capture holds.
const maxSessions = 4096

// session notes a session key the capture shows (a raw JSON value).
func (x *index) session(v []byte, ok bool) {
	if !ok {
		return
	}
	key, ok := jsonx.Str(v)
	if !ok || key == "" || len(x.sessions) >= maxSessions {
		return
	}
	low := strings.ToLower(strings.TrimSpace(key))
	if _, seen := x.sessions[low]; !seen {
		x.sessions[low] = key
	}
}

// sessionEvent reports whether an event's payload names a session:
// chat, agent and the session events.
func sessionEvent(event []byte) bool {
	name, ok := jsonx.Str(event)
	return ok && (name == "chat" || name == "agent" || strings.HasPrefix(name, "session"))
}

func (x *index) intern(s string) string {
	if v, ok := x.interned[s]; ok {
		return v
	}
	if len(x.interned) < 1<<16 {
		x.interned[s] = s
	}
	return s
}

// wait blocks until pred holds or the pre-pass is over; x.mu is held.
func (x *index) wait(pred func() bool) {
	for !x.done && !pred() {
		x.cond.Wait()
	}
}

// itemAfter reports whether connection f has an item of its own after the
// record at idx, waiting for the pre-pass to know.
func (x *index) itemAfter(f *connFacts, idx int) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.wait(func() bool { return f.lastItem > idx || f.ended })
	return f.lastItem > idx
}

// lastItem returns the index of f's last own item once it is final.
func (x *index) lastItem(f *connFacts) (int, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return f.lastItem, x.done || f.ended
}

// whenDone runs fn with x.mu held once the pre-pass is over.
func (x *index) whenDone(fn func()) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.wait(func() bool { return false })
	fn()
}
