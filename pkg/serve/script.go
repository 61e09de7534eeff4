package serve

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
)

// Capture is a capture being served: its source, read again by every
// client, and the index its pre-pass builds in the background.
type Capture struct {
	src    *Source
	x      *index
	sp     *spool
	cancel context.CancelFunc
	ended  chan struct{} // the pre-pass goroutine has returned
	once   sync.Once
}

// Open starts reading src: the header at once, the rest in the background
// (the pre-pass). Warnings of the reader go to warn, once.
func Open(src *Source, warn func(capture.Warning)) (*Capture, error) {
	r, err := src.reader(warn)
	if err != nil {
		return nil, err
	}
	sp, err := newSpool()
	if err != nil {
		r.Close()
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Capture{src: src, x: newIndex(r.Header(), sp), sp: sp, cancel: cancel, ended: make(chan struct{})}
	go func() {
		defer close(c.ended)
		c.x.run(ctx, r)
	}()
	return c, nil
}

// Ready is closed when the pre-pass has read the whole capture.
func (c *Capture) Ready() <-chan struct{} { return c.x.ready }

// Stats is what the pre-pass's reader saw; valid once Ready.
func (c *Capture) Stats() capture.Stats {
	c.x.mu.Lock()
	defer c.x.mu.Unlock()
	return c.x.stats
}

// ErrEmpty is returned for a capture that holds no record at all.
var ErrEmpty = errors.New("capture has no records")

// Err is what cut the pre-pass short, if anything; valid once Ready.
func (c *Capture) Err() error {
	c.x.mu.Lock()
	defer c.x.mu.Unlock()
	return c.x.err
}

// Close stops the pre-pass and releases the spool and the source.
func (c *Capture) Close() error {
	var err error
	c.once.Do(func() {
		c.cancel()
		<-c.ended
		err = errors.Join(c.sp.close(), c.src.Close())
	})
	return err
}

// LoadOptions tune Load.
type LoadOptions struct {
	Conn       int  // 0 means the first connection of the capture
	Reconnects bool // also follow the connections that came after it (Script.Next)
	OnWarning  func(capture.Warning)
}

// LoadFile opens the capture at path ("-" for standard input) and returns
// the script of one of its connections. Its Capture stays open for the
// life of the process.
func LoadFile(path string, opts LoadOptions) (*Script, error) {
	var src *Source
	var err error
	if path == "-" {
		src, err = SpoolSource(os.Stdin)
	} else {
		src, err = OpenSource(path)
	}
	if err != nil {
		return nil, err
	}
	return Load(src, opts)
}

// Load opens src and returns the script of one of its connections.
func Load(src *Source, opts LoadOptions) (*Script, error) {
	c, err := Open(src, opts.OnWarning)
	if err != nil {
		return nil, err
	}
	s, err := c.Script(opts)
	if err != nil {
		c.Close()
		return nil, err
	}
	return s, nil
}

// Script returns the script of the connection opts.Conn. It waits only
// until the pre-pass has read that connection's hello-ok, which comes in
// its first records; the whole capture is read when the connection has
// none (another connection's hello is used then, or one is made up).
func (c *Capture) Script(opts LoadOptions) (*Script, error) {
	x := c.x
	x.mu.Lock()
	defer x.mu.Unlock()
	served := func() *connFacts {
		if opts.Conn == 0 && len(x.conns) > 0 {
			return x.conns[0]
		}
		return x.byConn[opts.Conn]
	}
	x.wait(func() bool {
		f := served()
		return f != nil && f.hasHello && (f.helloT > 0 || f.firstItemT > 0 || f.ended)
	})
	f := served()
	switch {
	case len(x.conns) == 0 && x.err != nil:
		return nil, x.err
	case len(x.conns) == 0:
		return nil, ErrEmpty
	case f == nil:
		conns := make([]int, len(x.conns))
		for i, g := range x.conns {
			conns[i] = g.conn
		}
		return nil, fmt.Errorf("capture has no connection %d (it has %s)", opts.Conn, joinInts(conns))
	}
	return c.scriptOf(f, opts.Reconnects)
}

// Script is one connection of a capture, ready to be played to any number
// of clients. The fields are known when Load returns; the methods that need
// the whole capture (the counts, the end, the next connection, request
// matching) wait for the pre-pass.
type Script struct {
	Conn          int
	Protocol      int    // the recorded negotiated protocol; 0 when unknown
	Hello         []byte // the recorded hello-ok payload, nil when absent
	HelloFromConn int    // the connection the hello came from
	ChallengeCaps []byte // the recorded connect.challenge's payload.capabilities
	ServerVersion string // gateway version from the hello, marker or header
	StartT        int64  // the time origin of the timeline: the hello's t

	c          *Capture
	f          *connFacts
	reconnects bool
	nextOnce   sync.Once
	next       *Script
}

// scriptOf builds the script of f; c.x.mu is held.
func (c *Capture) scriptOf(f *connFacts, reconnects bool) (*Script, error) {
	x := c.x
	s := &Script{Conn: f.conn, c: c, f: f, reconnects: reconnects, ChallengeCaps: f.caps}
	if h := x.header; h != nil {
		s.ServerVersion = h.Source.GatewayVersion
		s.Protocol = h.Source.Protocol
	}
	// The hello: the connection's own, else another connection's (the same
	// gateway), else none and one is made up per client.
	from := f
	if !f.hasHello {
		from = nil
		for _, g := range x.conns {
			if g.hasHello {
				from = g
				break
			}
		}
	}
	if from != nil {
		hello, err := c.sp.get(from.hello)
		if err != nil {
			return nil, err
		}
		s.Hello, s.HelloFromConn = hello, from.conn
		if from == f {
			s.StartT = f.helloT
		}
		if from.helloProto != 0 {
			s.Protocol = from.helloProto
		}
		if from.helloVersion != "" {
			s.ServerVersion = from.helloVersion
		}
	}
	if f.protoMark != 0 && s.Hello == nil {
		s.Protocol = f.protoMark
	}
	if f.serverMark != "" && s.ServerVersion == "" {
		s.ServerVersion = f.serverMark
	}
	if s.StartT == 0 {
		s.StartT = f.firstItemT
	}
	return s, nil
}

// Ready is closed when the pre-pass is over and every method answers at
// once.
func (s *Script) Ready() <-chan struct{} {
	if s.c == nil {
		return closedChan
	}
	return s.c.x.ready
}

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// facts runs fn on the connection's facts once the pre-pass is over.
func (s *Script) facts(fn func(x *index, f *connFacts)) {
	if s.c == nil {
		return
	}
	s.c.x.whenDone(func() { fn(s.c.x, s.f) })
}

// Conns lists every connection of the capture, in order of first record.
func (s *Script) Conns() []int {
	var out []int
	s.facts(func(x *index, _ *connFacts) {
		for _, g := range x.conns {
			out = append(out, g.conn)
		}
	})
	return out
}

// Frames is the number of gateway frames the connection streams.
func (s *Script) Frames() (n int) {
	s.facts(func(_ *index, f *connFacts) { n = f.frames })
	return n
}

// Sends is the number of chat.send run boundaries in its timeline.
func (s *Script) Sends() (n int) {
	s.facts(func(_ *index, f *connFacts) { n = f.sends })
	return n
}

// Items is the length of its timeline: the frames, and with runs the
// chat.send boundaries and their responses. It does not wait: it is 0
// until the pre-pass is over.
func (s *Script) Items(runs bool) int {
	if s.c == nil {
		return 0
	}
	x := s.c.x
	x.mu.Lock()
	defer x.mu.Unlock()
	switch {
	case !x.done:
		return 0
	case runs:
		return s.f.items
	}
	return s.f.frames
}

// End is how the recorded connection ended, when the capture says: the
// gateway closed it, or it broke. Nil when it was still open at the end of
// the capture or the client side closed it.
func (s *Script) End() (c *Closing) {
	if s.c == nil {
		return nil
	}
	x := s.c.x
	x.mu.Lock()
	defer x.mu.Unlock()
	x.wait(func() bool { return s.f.ended })
	return s.f.closing
}

// Next is the script of the connection the recorded client opened after
// this one ended (with LoadOptions.Reconnects), or nil: the first one that
// starts after the end and completed its handshake (has its own hello-ok).
// The attempts before it that failed are skipped: refused dials (an error
// marker alone) and connects a restarting gateway turned away (the
// challenge, the connect and its UNAVAILABLE answer, then error and close
// markers), so a client that reconnects gets the attempt that succeeded.
func (s *Script) Next() *Script {
	if s.c == nil || !s.reconnects || s.End() == nil {
		return nil
	}
	s.nextOnce.Do(func() {
		s.facts(func(x *index, f *connFacts) {
			for _, g := range x.conns { // in order of their first records
				if g.first > f.endIndex && g.framed && g.hasHello {
					s.next, _ = s.c.scriptOf(g, true)
					return
				}
			}
		})
	})
	return s.next
}

// Methods lists the methods the capture can answer, sorted.
func (s *Script) Methods() []string {
	var out []string
	s.facts(func(x *index, _ *connFacts) {
		for m := range x.requests {
			out = append(out, m)
		}
	})
	sort.Strings(out)
	return out
}

// EventNames lists the event names the connection streams, sorted.
func (s *Script) EventNames() []string {
	var out []string
	s.facts(func(_ *index, f *connFacts) {
		for e := range f.events {
			out = append(out, e)
		}
	})
	sort.Strings(out)
	return out
}

// Closing is the recorded end of a connection, played to the client with
// --reconnects.
type Closing struct {
	T      int64 // recorded time, unix ms
	Code   int   // close code; 0 when the connection broke without one
	Reason string
}

// closingOf reads a close or error marker: what the gateway did to the
// connection. A close by the client side (dir out: the recorder stopping,
// the proxied client leaving) is not something to play back.
func closingOf(m *capture.Record) *Closing {
	switch {
	case m == nil:
		return nil
	case m.Mark == capture.MarkError:
		return &Closing{T: m.T, Reason: m.Err}
	case m.Dir == capture.DirOut:
		return nil
	case m.Code == 1005 || m.Code == 1006 || m.Code == 1015 || m.Code == 0:
		return &Closing{T: m.T, Reason: m.Reason} // no close frame was received
	}
	return &Closing{T: m.T, Code: m.Code, Reason: m.Reason}
}

// Recorded is a request of the capture with the responses it got.
type Recorded struct {
	Index     int
	Conn      int
	Method    string
	Key       string // the params that select what is asked; see MatchKey
	Responses [][]byte
}

// Selector params: the request params that say *what* is asked for, and so
// must be equal for a client's request to match a recorded one. Everything
// else (idempotencyKey, limit, message, cursor, ...) is ignored.
var selectorParams = []string{"sessionKey", "key", "agentId", "runId", "id"}

// MatchKey renders the selector params of a request's params.
func MatchKey(params []byte) string {
	if jsonx.KindOf(params) != jsonx.Object {
		return ""
	}
	var b strings.Builder
	for _, name := range selectorParams {
		v, ok := jsonx.Get(params, name)
		if !ok {
			continue
		}
		b.WriteString(name)
		b.WriteByte('=')
		if str, ok := jsonx.Str(v); ok {
			b.Write(jsonx.AppendString(nil, str))
		} else {
			b.Write(v)
		}
		b.WriteByte(';')
	}
	return b.String()
}

// Match finds the recorded request that answers a client's request for
// method with params, given pos, the capture index of the last item the
// client was sent (-1 before the first): the first matching recorded
// request after pos (what the recorded client asked next), else the last
// one before it. It returns nil when the capture has none. It waits for
// the pre-pass, and reads the responses back from the spool.
func (s *Script) Match(method string, params []byte, pos int) (*Recorded, error) {
	key := MatchKey(params)
	var q *recorded
	s.facts(func(x *index, _ *connFacts) {
		for _, r := range x.requests[method] {
			if r.key != key {
				continue
			}
			q = r
			if r.index > pos {
				break
			}
		}
	})
	if q == nil {
		return nil, nil
	}
	out := &Recorded{Index: q.index, Conn: q.conn, Method: q.method, Key: q.key}
	for _, r := range q.resp {
		b, err := s.c.sp.get(r)
		if err != nil {
			return nil, err
		}
		out.Responses = append(out.Responses, b)
	}
	return out, nil
}

func joinInts(xs []int) string {
	var b strings.Builder
	for i, x := range xs {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, x)
	}
	return b.String()
}
