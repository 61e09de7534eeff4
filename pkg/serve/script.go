package serve

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
)

// ItemKind says what a timeline item is.
type ItemKind uint8

const (
	// ItemFrame is a recorded gateway→client event frame (or a non-JSON
	// message), streamed to every client.
	ItemFrame ItemKind = iota
	// ItemSend marks where a client sent chat.send in the capture. With
	// --on-send next-run the stream waits there for the client's chat.send.
	ItemSend
	// ItemSendResponse is a recorded response to the chat.send of the
	// ItemSend numbered Send. It is streamed only with --on-send next-run,
	// re-addressed to the client's chat.send id.
	ItemSendResponse
)

// Item is one step of the timeline a client is served.
type Item struct {
	Kind  ItemKind
	Index int   // the record's index in the capture
	T     int64 // recorded time, unix ms (0 when unknown)
	Frame []byte
	Text  bool // a non-JSON message, sent as recorded

	// Seq is the recorded frame seq; SeqAt is the span of its value in
	// Frame, so it can be rewritten in place.
	Seq    int64
	HasSeq bool
	SeqAt  span

	Event string // event name, for ItemFrame
	Send  int    // the chat.send number, for ItemSend and ItemSendResponse
	RunID string // for ItemSend: the recorded run's id (its idempotencyKey)
}

// Recorded is a request of the capture with the responses it got.
type Recorded struct {
	Index     int
	Conn      int
	Method    string
	Key       string // the params that select what is asked; see MatchKey
	Responses [][]byte
	Send      int // its chat.send number, or -1
}

// Script is everything serve needs from a capture, read once and shared
// read-only by every client.
type Script struct {
	Conn     int   // the connection being served
	Conns    []int // every connection of the capture
	Protocol int   // the recorded negotiated protocol; 0 when unknown

	Hello          []byte // the recorded hello-ok payload, nil when absent
	HelloFromConn  int    // the connection the hello came from
	ChallengeCaps  []byte // the recorded connect.challenge's payload.capabilities
	ServerVersion  string // gateway version from the hello, marker or header
	StartT         int64  // the time origin of the timeline: the hello's t
	Items          []Item
	Frames         int // ItemFrame items
	Sends          int // ItemSend items
	Requests       map[string][]*Recorded
	EventNames     []string
	RecordedMethod []string

	// Close is how the recorded connection ended, when the capture says:
	// the gateway closed it, or it broke. Nil when it was still open at the
	// end of the capture or the client side closed it.
	Close *Closing
	// Next is the script of the connection the recorded client opened
	// after this one ended (LoadOptions.Reconnects), or nil.
	Next *Script
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

// LoadOptions tune Load.
type LoadOptions struct {
	Conn       int  // 0 means the first connection of the capture
	Reconnects bool // also load the connections that followed it (Script.Next)
	OnWarning  func(capture.Warning)
}

// LoadFile reads the capture at path ("-" for standard input).
func LoadFile(path string, opts LoadOptions) (*Script, error) {
	r, err := capture.Open(path, capture.Options{OnWarning: opts.OnWarning})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return Load(r, opts)
}

type connID struct {
	conn int
	id   string
}

// Load reads a capture and builds the script for one connection; with
// opts.Reconnects also the scripts of the connections that followed it
// (see Script.Next).
func Load(r *capture.Reader, opts LoadOptions) (*Script, error) {
	c, err := readCapture(r)
	if err != nil {
		return nil, err
	}
	conn := opts.Conn
	if conn == 0 {
		conn = c.conns[0]
	} else if _, ok := c.firstIdx[conn]; !ok {
		return nil, fmt.Errorf("capture has no connection %d (it has %s)", conn, joinInts(c.conns))
	}
	first := c.build(conn)
	for s := first; opts.Reconnects && s.Close != nil; s = s.Next {
		next := c.after(s.Conn)
		if next == 0 {
			break
		}
		s.Next = c.build(next)
	}
	return first, nil
}

// loaded is a capture read into memory, ready to build scripts from.
type loaded struct {
	header     *capture.Header
	recs       []*capture.Record
	conns      []int       // in order of first record
	firstIdx   map[int]int // each connection's first record
	protoMark  map[int]int
	serverMark map[int]string
	framed     map[int]bool            // connections with frames
	ends       map[int]*capture.Record // each connection's close or error marker
}

func readCapture(r *capture.Reader) (*loaded, error) {
	c := &loaded{
		header: r.Header(), firstIdx: map[int]int{}, protoMark: map[int]int{},
		serverMark: map[int]string{}, framed: map[int]bool{}, ends: map[int]*capture.Record{},
	}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if rec.Malformed {
			continue
		}
		if _, seen := c.firstIdx[rec.Conn]; !seen {
			c.conns = append(c.conns, rec.Conn)
			c.firstIdx[rec.Conn] = rec.Index
		}
		switch rec.Mark {
		case "":
			c.recs = append(c.recs, rec.Clone())
			c.framed[rec.Conn] = true
		case capture.MarkHello:
			c.protoMark[rec.Conn] = rec.Protocol
			c.serverMark[rec.Conn] = rec.Server
		case capture.MarkClose, capture.MarkError:
			if _, dup := c.ends[rec.Conn]; !dup {
				c.ends[rec.Conn] = rec.Clone()
			}
		}
	}
	if len(c.conns) == 0 {
		return nil, errors.New("capture has no records")
	}
	return c, nil
}

// after returns the connection the client opened once conn had ended: the
// first one that starts after conn's end and has frames (attempts that
// failed are skipped), or 0.
func (c *loaded) after(conn int) int {
	end := c.ends[conn]
	if end == nil {
		return 0
	}
	for _, n := range c.conns { // in order of their first records
		if c.firstIdx[n] > end.Index && c.framed[n] {
			return n
		}
	}
	return 0
}

// build makes the script of one connection.
func (c *loaded) build(conn int) *Script {
	s := &Script{Conn: conn, Conns: c.conns, Requests: map[string][]*Recorded{}}
	if h := c.header; h != nil {
		s.ServerVersion = h.Source.GatewayVersion
		s.Protocol = h.Source.Protocol
	}
	recs, firstIdx, protoMark, serverMark := c.recs, c.firstIdx, c.protoMark, c.serverMark
	connectIDs := map[connID]bool{}
	helloT := map[int]int64{}
	hellos := map[int][]byte{}
	s.Close = closingOf(c.ends[conn])

	reqs := map[connID]*Recorded{}
	sendItem := map[int]int{} // chat.send number → its ItemSend in s.Items
	events := map[string]bool{}
	methods := map[string]bool{}
	for _, rec := range recs {
		if rec.IsRaw {
			if rec.Conn == s.Conn && rec.Dir != capture.DirOut {
				s.Items = append(s.Items, Item{Kind: ItemFrame, Index: rec.Index, T: rec.T, Frame: rec.Raw, Text: true})
				s.Frames++
			}
			continue
		}
		if rec.Frame == nil {
			continue
		}
		frame := jsonx.TrimSpace(rec.Frame)
		ev := bridge.Classify(frame, rec.T)
		switch ev.Kind {
		case bridge.Request:
			if rec.Dir == capture.DirIn {
				continue
			}
			if ev.Method == "connect" {
				connectIDs[connID{rec.Conn, ev.ID}] = true
				continue
			}
			if ev.ID == "" || ev.Method == "" {
				continue
			}
			params, _ := jsonx.Get(frame, "params")
			q := &Recorded{Index: rec.Index, Conn: rec.Conn, Method: ev.Method, Key: MatchKey(params), Send: -1}
			if ev.Method == "chat.send" {
				q.Send = s.Sends
				s.Sends++
				runID, _ := jsonx.GetStr(params, "idempotencyKey") // the gateway's runId
				sendItem[q.Send] = len(s.Items)
				s.Items = append(s.Items, Item{Kind: ItemSend, Index: rec.Index, T: rec.T, Send: q.Send, RunID: runID})
			}
			reqs[connID{rec.Conn, ev.ID}] = q
			s.Requests[ev.Method] = append(s.Requests[ev.Method], q)
		case bridge.Response:
			if rec.Dir == capture.DirOut {
				continue
			}
			if p, ok := jsonx.Get(frame, "payload"); ok {
				if t, _ := jsonx.GetStr(p, "type"); t == "hello-ok" {
					if _, dup := hellos[rec.Conn]; !dup {
						hellos[rec.Conn] = p
						helloT[rec.Conn] = rec.T
					}
					continue
				}
			}
			if connectIDs[connID{rec.Conn, ev.ID}] {
				continue // a failed connect's answer
			}
			q := reqs[connID{rec.Conn, ev.ID}]
			if q == nil {
				continue
			}
			q.Responses = append(q.Responses, frame)
			if q.Send >= 0 {
				// The response names the run; it wins over the key sent.
				if runID, _ := jsonx.GetPath(frame, "payload", "runId"); jsonx.KindOf(runID) == jsonx.String {
					if id, ok := jsonx.Str(runID); ok && id != "" {
						s.Items[sendItem[q.Send]].RunID = id
					}
				}
				s.Items = append(s.Items, Item{Kind: ItemSendResponse, Index: rec.Index, T: rec.T, Frame: frame, Send: q.Send})
			}
		default: // events, and frames of no known type the gateway sent
			if rec.Conn != s.Conn || rec.Dir == capture.DirOut {
				continue
			}
			if ev.Event == "connect.challenge" {
				if s.ChallengeCaps == nil {
					if p, ok := jsonx.Get(frame, "payload"); ok {
						s.ChallengeCaps, _ = jsonx.Get(p, "capabilities")
					}
				}
				continue
			}
			it := Item{Kind: ItemFrame, Index: rec.Index, T: rec.T, Frame: frame, Event: ev.Event}
			if ev.Kind != bridge.Invalid {
				if _, v, ok := member(frame, "seq"); ok {
					if n, ok := jsonx.Int(frame[v.start:v.end]); ok {
						it.Seq, it.HasSeq, it.SeqAt = n, true, v
					}
				}
			}
			if ev.Event != "" {
				events[ev.Event] = true
			}
			s.Items = append(s.Items, it)
			s.Frames++
		}
	}

	// The hello: the served connection's, else another connection's (the
	// same gateway), else none and one is synthesized per client.
	if p, ok := hellos[s.Conn]; ok {
		s.Hello, s.HelloFromConn = p, s.Conn
		s.StartT = helloT[s.Conn]
	} else {
		for _, c := range s.Conns {
			if p, ok := hellos[c]; ok {
				s.Hello, s.HelloFromConn = p, c
				break
			}
		}
	}
	if s.Hello != nil {
		if n, ok := jsonx.GetInt(s.Hello, "protocol"); ok {
			s.Protocol = int(n)
		}
		if v, ok := jsonx.GetPath(s.Hello, "server", "version"); ok {
			if str, ok := jsonx.Str(v); ok && str != "" {
				s.ServerVersion = str
			}
		}
	}
	if p := protoMark[s.Conn]; p != 0 && s.Hello == nil {
		s.Protocol = p
	}
	if v := serverMark[s.Conn]; v != "" && s.ServerVersion == "" {
		s.ServerVersion = v
	}

	s.trimSends(firstIdx[s.Conn])
	if s.StartT == 0 {
		for _, it := range s.Items {
			if it.T > 0 {
				s.StartT = it.T
				break
			}
		}
	}
	for _, q := range reqs {
		if len(q.Responses) > 0 {
			methods[q.Method] = true
		}
	}
	// Requests that got no response cannot be answered from the capture.
	for m, list := range s.Requests {
		keep := list[:0]
		for _, q := range list {
			if len(q.Responses) > 0 {
				keep = append(keep, q)
			}
		}
		if len(keep) == 0 {
			delete(s.Requests, m)
		} else {
			s.Requests[m] = keep
		}
	}
	s.EventNames = sortedKeys(events)
	s.RecordedMethod = sortedKeys(methods)
	return s
}

// trimSends drops the chat.send marks that lie outside the served
// connection's life: before its first record (a send on an earlier
// connection) or with nothing of it after them (a send on a later one), so
// a stream never waits for a send whose run it does not hold. It renumbers
// the remaining sends 0..n-1 in timeline order.
func (s *Script) trimSends(first int) {
	last := -1
	for i, it := range s.Items {
		if it.Kind != ItemSend {
			last = i
		}
	}
	keep := s.Items[:0]
	renum := map[int]int{}
	for i, it := range s.Items {
		if it.Kind == ItemSend || it.Kind == ItemSendResponse {
			if _, kept := renum[it.Send]; it.Kind == ItemSendResponse && !kept {
				continue // the answer to a dropped send
			}
		}
		if it.Kind == ItemSend {
			if i > last || it.Index < first {
				continue
			}
			renum[it.Send] = len(renum)
		}
		keep = append(keep, it)
	}
	s.Items = keep
	for i := range s.Items {
		if s.Items[i].Kind == ItemSend || s.Items[i].Kind == ItemSendResponse {
			s.Items[i].Send = renum[s.Items[i].Send]
		}
	}
	s.Sends = len(renum)
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
// one before it. It returns nil when the capture has none.
func (s *Script) Match(method string, params []byte, pos int) *Recorded {
	list := s.Requests[method]
	if len(list) == 0 {
		return nil
	}
	key := MatchKey(params)
	var before *Recorded
	for _, q := range list {
		if q.Key != key {
			continue
		}
		if q.Index > pos {
			return q
		}
		before = q
	}
	return before
}

// Methods lists the methods the capture can answer, sorted.
func (s *Script) Methods() []string { return s.RecordedMethod }

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
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
