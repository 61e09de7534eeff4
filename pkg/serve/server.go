package serve

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/webguard"
	"github.com/gorilla/websocket"
)

// Options configure a Server.
type Options struct {
	Token string // required in connect's auth.token when set
	// AllowOrigins are the browser origins (as ParseOrigin gives them),
	// beyond loopback pages, whose WebSocket upgrades are accepted; others
	// get 403. Requests without an Origin (non-browser clients) are
	// always accepted.
	AllowOrigins []string
	// AllowHosts are more names a request's Host may give, beyond this
	// machine's loopback names and the address a connection came in on
	// (webguard.Guard): a page on a foreign name that DNS rebinding points
	// here is refused, the --ui pages included.
	AllowHosts []string
	Pacing     Pacing
	Loop       bool
	OnSend     OnSend
	// Once makes Done close when the first client that completed the
	// handshake has been sent the whole stream, or has gone, and Grace has
	// passed since (once.go).
	Once bool
	// Grace is how long, with Once, requests are still answered after the
	// first client's stream is over (and a client that left has to come
	// back) before Done closes. 0 closes it at once.
	Grace time.Duration
	// Lead is an extra wait before the first frame after hello-ok of a
	// client's first connection (StreamOptions.Lead).
	Lead time.Duration
	// FromStart plays every connection the capture from the start. By
	// default a client that comes back (known by its connect params, as
	// with Reconnects) resumes where its earlier connection left off, and
	// one that was sent the whole capture gets the handshake and answers
	// only (once.go).
	FromStart bool
	// Reconnects plays the end of the recorded connection (its close code,
	// or a dropped connection) at its recorded time, and gives the client
	// that then reconnects the connection the recorded client opened next
	// (Script.Next). A client is known again by its connect params:
	// client.instanceId, else device.id, else client.id and mode. With
	// Once, the first client's whole chain of connections counts.
	Reconnects bool

	HandshakeTimeout time.Duration // for the connect request; 0 means 15 s
	WriteTimeout     time.Duration // per frame; 0 means 10 s

	Clock Clock     // pacing clock and challenge ts; nil means the wall clock
	Rand  io.Reader // nonces and connIds; nil means crypto/rand

	// Logf, when set, gets one line per client event (connect, reject,
	// stream end, disconnect).
	Logf func(format string, args ...any)
	// LogRequests also logs every client request and how it was answered.
	LogRequests bool
	// HTTP answers plain HTTP requests (not WebSocket upgrades); nil means
	// a short text page.
	HTTP http.Handler
	// ConfiguredUI marks hello-ok's server.controlUiBuildSource as
	// "configured" (when the recorded hello has a buildId or a
	// controlUiBuildSource), as a gateway does for a Control UI served from
	// a configured root. The Control UI then skips its "server updated,
	// reload" check, which would otherwise compare the capture's gateway
	// build with its own. Set it when HTTP serves a Control UI build.
	ConfiguredUI bool
}

// Server plays a Script to every client that connects, each with its own
// handshake, pacing and seq. It is an http.Handler.
type Server struct {
	script *Script
	opts   Options
	up     websocket.Upgrader

	randMu sync.Mutex

	mu       sync.Mutex
	clients  map[int]*client
	nextID   int
	total    int // clients that completed the handshake
	rejected int
	finished int64 // frames sent to clients that are gone
	first    int   // id of the first client that completed the handshake
	firstKey string
	resume   map[string]resumption // with Reconnects: who reconnects to what
	visits   map[string]visit      // where clients that left had got to (once.go)
	fin      finishTimer           // with Once: Done after the grace period
	closed   bool
	wg       sync.WaitGroup

	done     chan struct{}
	doneOnce sync.Once
}

// New returns a server of s.
func New(s *Script, opts Options) *Server {
	if opts.HandshakeTimeout <= 0 {
		opts.HandshakeTimeout = 15 * time.Second
	}
	if opts.WriteTimeout <= 0 {
		opts.WriteTimeout = 10 * time.Second
	}
	if opts.Clock == nil {
		opts.Clock = WallClock{}
	}
	if opts.Rand == nil {
		opts.Rand = rand.Reader
	}
	if opts.OnSend == "" {
		opts.OnSend = OnSendReply
	}
	return &Server{
		script:  s,
		opts:    opts,
		clients: map[int]*client{},
		resume:  map[string]resumption{},
		visits:  map[string]visit{},
		done:    make(chan struct{}),
		up: websocket.Upgrader{
			ReadBufferSize:  64 << 10,
			WriteBufferSize: 64 << 10,
			// ServeHTTP has checked the Origin already, and said why it
			// refused one.
			CheckOrigin: func(*http.Request) bool { return true },
		},
	}
}

// Done is closed, with Options.Once, when the first client's stream is over.
func (sv *Server) Done() <-chan struct{} { return sv.done }

func (sv *Server) finish() { sv.doneOnce.Do(func() { close(sv.done) }) }

type client struct {
	id     int
	conn   *websocket.Conn
	remote string
	name   string // client.id/mode from connect
	key    string // who the client is, to know it when it reconnects
	sc     *Script
	st     *Streamer
	wmu    sync.Mutex
	wt     time.Duration
	bad    int
	fixed  int            // frames sent with invalid UTF-8 replaced (under wmu)
	missed map[string]int // methods answered "not in capture", by count
	closed string         // how the client closed, when it did
	ended  atomic.Bool    // the stream was sent to the end
	handed atomic.Bool    // closed as recorded; its reconnect plays on
	asRec  atomic.Bool    // the stream ended as the recorded connection did
	idle   bool           // came back after its whole stream: no stream to play
	known  bool           // its connect names an instance or a device (knownAgain)
	synth  map[string]int // methods answered by synthesis, by count
}

// write sends one text message. A browser drops the connection (1006) on
// a text message that is not valid UTF-8, so invalid bytes, which only a
// damaged capture holds, are sent as U+FFFD and counted.
func (c *client) write(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if fixed, changed := validText(b); changed {
		b = fixed
		c.fixed++
	}
	_ = c.conn.SetWriteDeadline(time.Now().Add(c.wt))
	return c.conn.WriteMessage(websocket.TextMessage, b)
}

// closeWith sends a close frame; the read loop then sees the client's
// answer (or a timeout) and the connection is torn down.
func (c *client) closeWith(code int, reason string) {
	reason = closeReason(reason)
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_ = c.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(time.Second))
	_ = c.conn.SetReadDeadline(time.Now().Add(2 * time.Second))
}

func (sv *Server) logf(format string, args ...any) {
	if sv.opts.Logf != nil {
		sv.opts.Logf(format, args...)
	}
}

func (sv *Server) uuid() (string, error) {
	sv.randMu.Lock()
	defer sv.randMu.Unlock()
	return newUUID(sv.opts.Rand)
}

// ServeHTTP upgrades WebSocket requests on any path and plays the capture
// on them; other requests go to Options.HTTP.
func (sv *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	guard := webguard.Guard{AllowOrigins: sv.opts.AllowOrigins, AllowHosts: sv.opts.AllowHosts}
	if !guard.HostAllowed(r) {
		sv.mu.Lock()
		sv.rejected++
		sv.mu.Unlock()
		sv.logf("refused a request from %s: Host %q does not name this listener (allow it with --allow-host)", r.RemoteAddr, r.Host)
		http.Error(w, "clawtap serve: host not allowed", http.StatusForbidden)
		return
	}
	if !websocket.IsWebSocketUpgrade(r) {
		if sv.opts.HTTP != nil {
			sv.opts.HTTP.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintf(w, "clawtap serve: a recorded OpenClaw gateway session, played back over WebSocket.\nConnect a gateway client to ws://%s/\n", r.Host)
		return
	}
	if origin := r.Header.Get("Origin"); !originAllowed(origin, sv.opts.AllowOrigins) {
		sv.mu.Lock()
		sv.rejected++
		sv.mu.Unlock()
		sv.logf("refused a WebSocket from %s: browser origin %q is not a loopback page (allow it with --allow-origin)", r.RemoteAddr, origin)
		http.Error(w, "clawtap serve: origin not allowed", http.StatusForbidden)
		return
	}
	sv.mu.Lock()
	if sv.closed {
		sv.mu.Unlock()
		http.Error(w, "clawtap serve is shutting down", http.StatusServiceUnavailable)
		return
	}
	sv.wg.Add(1)
	sv.mu.Unlock()
	defer sv.wg.Done()
	conn, err := sv.up.Upgrade(w, r, nil)
	if err != nil {
		return // Upgrade has answered
	}
	sv.serveConn(conn, r.RemoteAddr)
}

func (sv *Server) register(conn *websocket.Conn, remote string) *client {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	sv.nextID++
	c := &client{id: sv.nextID, conn: conn, remote: remote, wt: sv.opts.WriteTimeout}
	sv.clients[c.id] = c
	return c
}

func (sv *Server) serveConn(conn *websocket.Conn, remote string) {
	defer conn.Close()
	c := sv.register(conn, remote)
	authed := false
	defer func() {
		sv.mu.Lock()
		delete(sv.clients, c.id)
		if c.st != nil {
			_, _, _, sent, _ := c.st.Position()
			sv.finished += sent
			c.st.release()
		}
		first := sv.isFirst(c)
		if authed {
			sv.remember(c)
		}
		sv.mu.Unlock()
		if authed {
			sv.logf("client %d gone (%s)", c.id, c.summary())
		}
		if first && sv.opts.Once && !c.handed.Load() {
			sv.finishAfterGrace()
		}
	}()

	proto, req, ok := sv.handshake(c)
	if !ok {
		sv.mu.Lock()
		sv.rejected++
		sv.mu.Unlock()
		drain(conn)
		return
	}
	connID, err := sv.uuid()
	if err != nil {
		c.closeWith(1011, "internal error")
		drain(conn)
		return
	}
	conn.SetReadLimit(MaxPayload)
	_ = conn.SetReadDeadline(time.Time{})
	sv.mu.Lock()
	c.key, c.sc = clientKey(req.params), sv.script
	c.known = knownAgain(req.params)
	resumed := false
	var from *capture.Reader
	sopts := StreamOptions{Pacing: sv.opts.Pacing, Loop: sv.opts.Loop, OnSend: sv.opts.OnSend, Clock: sv.opts.Clock, PlayClose: sv.opts.Reconnects}
	back, revisit := sv.visits[c.key]
	switch next, ok := sv.resume[c.key]; {
	case ok && sv.opts.Reconnects:
		c.sc, from, resumed = next.sc, next.from, true
		delete(sv.resume, c.key)
		sopts.from = from
	case revisit && c.known && !sv.opts.FromStart:
		delete(sv.visits, c.key)
		c.sc, c.idle = back.sc, back.ended
		sopts.Resume, sopts.After, sopts.AfterT = true, back.pos, back.t
	default:
		revisit = false
		sopts.Lead = sv.opts.Lead
	}
	st := NewStreamer(c.sc, sopts)
	c.st = st
	sv.total++
	if sv.first == 0 {
		sv.first, sv.firstKey = c.id, c.key
	}
	if sv.isFirst(c) && !c.idle {
		sv.fin.cancel() // the first client is back, and its stream goes on
	}
	sv.mu.Unlock()
	if err := c.write(sv.helloFrame(c.sc, req.id, proto, connID, req.params)); err != nil {
		return
	}
	authed = true
	switch {
	case resumed:
		sv.logf("client %d reconnected from %s (%s, protocol %d): plays recorded connection %d", c.id, c.remote, c.name, proto, c.sc.Conn)
	case revisit && c.idle:
		c.ended.Store(true)
		sv.logf("client %d reconnected from %s (%s, protocol %d): it was sent the whole capture already, so it gets answers and no frames (--from-start plays it again)", c.id, c.remote, c.name, proto)
	case revisit:
		sv.logf("client %d reconnected from %s (%s, protocol %d): resumes after record %d, where its earlier connection left off (--from-start plays it from the start)", c.id, c.remote, c.name, proto, back.pos)
	default:
		sv.logf("client %d connected from %s (%s, protocol %d)", c.id, c.remote, c.name, proto)
	}

	ctx, cancel := context.WithCancel(context.Background())
	streamDone := make(chan struct{})
	go func() {
		defer close(streamDone)
		if c.idle {
			return // nothing left to play to it
		}
		err := st.Run(ctx, c.write)
		var end *EndError
		switch {
		case err == nil:
			c.ended.Store(true)
			sv.mu.Lock()
			first := sv.isFirst(c)
			sv.mu.Unlock()
			if first && sv.opts.Once && sv.opts.Grace > 0 {
				sv.logf("client %d: end of capture after %d frames; --once: requests are answered for %s more (--grace), then serve stops", c.id, st.sent.Load(), sv.opts.Grace)
			} else {
				sv.logf("client %d: end of capture after %d frames", c.id, st.sent.Load())
			}
			if first && sv.opts.Once {
				sv.finishAfterGrace()
			}
		case errors.As(err, &end):
			sv.endAsRecorded(c, end)
		case errors.Is(err, context.Canceled):
		default:
			conn.Close() // the client stopped reading; end its read loop too
		}
	}()
	for {
		typ, msg, err := conn.ReadMessage()
		if err != nil {
			var ce *websocket.CloseError
			if errors.As(err, &ce) {
				c.closed = fmt.Sprintf("closed by the client: %d %s", ce.Code, ce.Text)
			}
			break
		}
		sv.handle(c, typ, msg)
	}
	cancel()
	<-streamDone
}

// isFirst reports whether c is the first client, or the first client come
// back. sv.mu is held.
func (sv *Server) isFirst(c *client) bool {
	return sv.first == c.id || sv.first != 0 && c.key == sv.firstKey
}

// endAsRecorded ends a client's connection the way the recorded one ended,
// and remembers what it gets when it reconnects.
func (sv *Server) endAsRecorded(c *client, end *EndError) {
	c.asRec.Store(true)
	next := c.sc.Next() // may wait for the pre-pass: not under sv.mu
	from := c.st.leftover()
	sv.mu.Lock()
	if next != nil {
		sv.park(c.key, resumption{next, from})
		c.handed.Store(true)
	} else if from != nil {
		from.Close()
	}
	first := sv.isFirst(c)
	sv.mu.Unlock()
	what := fmt.Sprintf("closes it with %d %q", end.Code, end.Reason)
	if end.Code == 0 {
		what = "drops it without a close frame"
	}
	if next != nil {
		what += fmt.Sprintf("; when it reconnects it gets recorded connection %d", next.Conn)
	}
	sv.logf("client %d: recorded connection %d ended here after %d frames: serve %s", c.id, c.sc.Conn, c.st.sent.Load(), what)
	if first && sv.opts.Once && next == nil {
		sv.finishAfterGrace()
	}
	if end.Code == 0 {
		_ = c.conn.NetConn().Close() // as a gateway that died: no close frame
		return
	}
	c.closeWith(end.Code, end.Reason)
}

// resumption is what a client gets when it reconnects after its recorded
// connection ended: the next connection's script, and the reader its
// stream ended with, which saves reading the capture again up to there.
type resumption struct {
	sc   *Script
	from *capture.Reader
}

// maxParkedReaders bounds the readers kept for clients that may come back
// (each holds a decompressor); the others read from the start again.
const maxParkedReaders = 4

// park remembers what key reconnects to; sv.mu is held.
func (sv *Server) park(key string, r resumption) {
	if old, ok := sv.resume[key]; ok && old.from != nil {
		old.from.Close()
	}
	parked := 0
	for _, p := range sv.resume {
		if p.from != nil {
			parked++
		}
	}
	if r.from != nil && (parked >= maxParkedReaders || sv.closed) {
		r.from.Close()
		r.from = nil
	}
	sv.resume[key] = r
}

// knownAgain reports whether a client's connect names it well enough to
// resume its stream when it comes back: a client.instanceId (the Control
// UI's) or a device.id (a paired client's, clawtap record's). client.id
// and mode alone name a kind of client (every CLI), not one.
func knownAgain(params []byte) bool {
	id, _ := strOr(getPath(params, "client", "instanceId"))
	dev, _ := strOr(getPath(params, "device", "id"))
	return id != "" || dev != ""
}

// clientKey names a client so that it is known again when it reconnects:
// its client.instanceId, else its device.id, else client.id and mode.
func clientKey(params []byte) string {
	if id, ok := strOr(getPath(params, "client", "instanceId")); ok && id != "" {
		return "instance:" + id
	}
	if id, ok := strOr(getPath(params, "device", "id")); ok && id != "" {
		return "device:" + id
	}
	id, _ := strOr(getPath(params, "client", "id"))
	mode, _ := strOr(getPath(params, "client", "mode"))
	return "client:" + id + "/" + mode
}

// handshake sends connect.challenge and checks the client's connect. It
// answers and closes a client it turns away.
func (sv *Server) handshake(c *client) (int, request, bool) {
	conn := c.conn
	nonce, err := sv.uuid()
	if err != nil {
		c.closeWith(1011, "internal error")
		return 0, request{}, false
	}
	conn.SetReadLimit(MaxPreauthPayload)
	if err := c.write(challengeFrame(nonce, sv.opts.Clock.Now().UnixMilli(), sv.script.ChallengeCaps)); err != nil {
		return 0, request{}, false
	}
	_ = conn.SetReadDeadline(time.Now().Add(sv.opts.HandshakeTimeout))
	typ, msg, err := conn.ReadMessage()
	if err != nil {
		var ne net.Error
		switch {
		case errors.As(err, &ne) && ne.Timeout():
			sv.logf("client %d from %s: no connect within %s", c.id, c.remote, sv.opts.HandshakeTimeout)
			c.closeWith(closePolicy, "handshake timeout")
		case errors.Is(err, websocket.ErrReadLimit):
			sv.logf("client %d from %s: connect frame over %d bytes", c.id, c.remote, MaxPreauthPayload)
		default:
			sv.logf("client %d from %s: left before connect", c.id, c.remote)
		}
		return 0, request{}, false
	}
	req, proto, rej := sv.checkConnect(msg, typ == websocket.TextMessage)
	if rej != nil {
		sv.logf("client %d from %s: rejected: %s", c.id, c.remote, rej.why)
		if rej.res != nil {
			_ = c.write(rej.res)
		}
		c.closeWith(rej.code, rej.reason)
		return 0, request{}, false
	}
	id, _ := strOr(getPath(req.params, "client", "id"))
	mode, _ := strOr(getPath(req.params, "client", "mode"))
	c.name = id + "/" + mode
	if c.name == "/" {
		c.name = "unnamed client"
	}
	return proto, req, true
}

func strOr(v []byte) (string, bool) {
	if v == nil {
		return "", false
	}
	s, ok := jsonStr(v)
	return s, ok
}

// drain reads until the client answers our close frame or the deadline
// set by closeWith passes, so the close reaches the client cleanly.
func drain(conn *websocket.Conn) {
	_ = conn.SetReadDeadline(time.Now().Add(2 * time.Second))
	for {
		if _, _, err := conn.ReadMessage(); err != nil {
			return
		}
	}
}

// handle answers one client frame after the handshake.
func (sv *Server) handle(c *client, typ int, msg []byte) {
	req, ok := parseRequest(msg)
	if typ != websocket.TextMessage || !ok || !req.valid() {
		c.bad++
		if ok && req.id != nil {
			_ = c.write(errorRes(req.id, "INVALID_REQUEST", "invalid request frame", nil))
		}
		return
	}
	switch {
	case req.method == "connect":
		_ = c.write(errorRes(req.id, "INVALID_REQUEST", "connect is only valid as the first request", nil))
	case req.method == "chat.send" && sv.opts.OnSend == OnSendNextRun:
		key, _ := jsonx.GetStr(req.params, "idempotencyKey")
		if !c.st.Send(req.id, key) {
			c.miss(req.method)
			sv.logReq(c, req, "not in capture (no run left)")
			_ = c.write(notInCapture(req.id))
			return
		}
		sv.logReq(c, req, "plays the next run")
	default:
		q, err := c.sc.Match(req.method, req.params, c.st.Pos())
		if err != nil {
			sv.logf("client %d: %s %s: %v", c.id, req.method, req.id, err)
		}
		if q == nil {
			if res, what := sv.synthesize(c, req); res != nil {
				c.synthesized(req.method)
				sv.logf("client %d: %s %s → synthesized from the capture: %s", c.id, req.method, req.id, what)
				_ = c.write(res)
				return
			}
			c.miss(req.method)
			sv.logReq(c, req, "not in capture")
			_ = c.write(notInCapture(req.id))
			return
		}
		sv.logReq(c, req, fmt.Sprintf("%d recorded response(s) (record %d)", len(q.Responses), q.Index))
		for _, r := range q.Responses {
			if err := c.write(readdress(r, req.id)); err != nil {
				return
			}
		}
	}
}

func (sv *Server) logReq(c *client, req request, answer string) {
	if sv.opts.LogRequests {
		sv.logf("client %d: %s %s → %s", c.id, req.method, req.id, answer)
	}
}

func (c *client) synthesized(method string) {
	if c.synth == nil {
		c.synth = map[string]int{}
	}
	c.synth[method]++
}

func (c *client) miss(method string) {
	if c.missed == nil {
		c.missed = map[string]int{}
	}
	if len(c.missed) < 64 || c.missed[method] > 0 {
		c.missed[method]++
	}
}

func (c *client) summary() string {
	if c.st == nil {
		return "no stream"
	}
	_, _, pass, sent, _ := c.st.Position()
	s := fmt.Sprintf("%d frames sent", sent)
	if pass > 0 {
		s += fmt.Sprintf(", pass %d", pass+1)
	}
	switch {
	case c.asRec.Load():
		s += ", ended as recorded"
	case c.ended.Load():
		s += ", end of capture"
	}
	if c.bad > 0 {
		s += fmt.Sprintf(", %d bad frames ignored", c.bad)
	}
	c.wmu.Lock()
	if c.fixed > 0 {
		s += fmt.Sprintf(", %d frame(s) held invalid UTF-8, sent as U+FFFD", c.fixed)
	}
	c.wmu.Unlock()
	if c.closed != "" {
		s += ", " + strings.TrimSpace(c.closed)
	}
	if len(c.missed) > 0 {
		names := make([]string, 0, len(c.missed))
		n := 0
		for m, k := range c.missed {
			names = append(names, m)
			n += k
		}
		sort.Strings(names)
		s += fmt.Sprintf(", %d request(s) not in capture: %s", n, strings.Join(names, " "))
	}
	if len(c.synth) > 0 {
		names := make([]string, 0, len(c.synth))
		n := 0
		for m, k := range c.synth {
			names = append(names, m)
			n += k
		}
		sort.Strings(names)
		s += fmt.Sprintf(", %d answer(s) synthesized: %s", n, strings.Join(names, " "))
	}
	return s
}

// ClientStats describes one connected client.
type ClientStats struct {
	ID      int
	Name    string
	Item    int // timeline items done in the current pass
	Pass    int
	Sent    int64
	Waiting bool // waiting for a chat.send (--on-send next-run)
	Ended   bool
}

// Stats is a snapshot of what the server is doing.
type Stats struct {
	Active   int   // clients past the handshake, connected now
	Total    int   // clients that completed the handshake
	Rejected int   // clients turned away during the handshake
	Sent     int64 // frames sent to all clients
	Items    int   // the timeline's length
	Clients  []ClientStats
}

// Stats returns a snapshot.
func (sv *Server) Stats() Stats {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	s := Stats{Total: sv.total, Rejected: sv.rejected, Sent: sv.finished, Items: sv.script.Items(sv.opts.OnSend == OnSendNextRun)}
	for _, c := range sv.clients {
		if c.st == nil {
			continue
		}
		_, item, pass, sent, waiting := c.st.Position()
		s.Active++
		s.Sent += sent
		s.Clients = append(s.Clients, ClientStats{ID: c.id, Name: c.name, Item: int(item), Pass: int(pass), Sent: sent, Waiting: waiting, Ended: c.ended.Load() || c.asRec.Load()})
	}
	sort.Slice(s.Clients, func(i, j int) bool { return s.Clients[i].ID < s.Clients[j].ID })
	return s
}

// Close ends every client with 1001 (going away), waits up to the
// context's deadline for their connections to end, and turns new ones away.
func (sv *Server) Close(ctx context.Context) error {
	return sv.CloseWith(ctx, websocket.CloseGoingAway, "clawtap serve is shutting down")
}

// CloseWith ends every client with the given close code and reason.
func (sv *Server) CloseWith(ctx context.Context, code int, reason string) error {
	sv.mu.Lock()
	sv.closed = true
	list := make([]*client, 0, len(sv.clients))
	for _, c := range sv.clients {
		list = append(list, c)
	}
	sv.mu.Unlock()
	for _, c := range list {
		c.closeWith(code, reason)
	}
	waited := make(chan struct{})
	go func() {
		sv.wg.Wait()
		sv.mu.Lock()
		for key, p := range sv.resume {
			if p.from != nil {
				p.from.Close()
				p.from = nil
				sv.resume[key] = p
			}
		}
		sv.mu.Unlock()
		close(waited)
	}()
	select {
	case <-waited:
		return nil
	case <-ctx.Done():
		sv.mu.Lock()
		for _, c := range sv.clients {
			c.conn.Close()
		}
		sv.mu.Unlock()
		<-waited
		return ctx.Err()
	}
}
