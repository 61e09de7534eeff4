// Package synth builds realistic, deterministic OpenClaw gateway sessions
// as clawtap capture records, for fixtures, tests and benchmarks.
//
// A Session owns a fake clock and the gateway-side state that shapes the
// frames: connections with their own frame seq counters, the boot id, the
// presence/health state versions and the runs in flight. Builders emit the
// frame shapes seen on openclaw 2026.9.6 (protocol 4):
//
//	s := synth.New(1)
//	c := s.Open(synth.ConnOptions{Caps: []string{"tool-events"}})
//	r := c.ChatSend("agent:main:main", "hello")
//	r.Prepare()
//	r.Say("Hi")
//	r.Say(" there.")
//	r.Finish()
//	recs := s.Records()
//
// Every time comes from the Session's clock, which starts at Epoch, and
// every id comes from a generator seeded by New's seed, so the same calls
// give byte-identical records on every run. Frame JSON is built with ordered
// appends, never from maps.
package synth

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"time"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
)

// Epoch is where every Session's clock starts: 2026-11-22T03:23:55Z, in
// unix milliseconds.
const Epoch int64 = 1795317835000

// Redacted replaces credentials in synthetic captures, which stand for
// captures that were redacted before they touched disk.
const Redacted = "__CLAWTAP_REDACTED__"

// Gateway identity written into handshakes.
const (
	GatewayVersion = "2026.9.6"
	GatewayBuildID = "2026.9.6-release-eb377ac"
	Protocol       = 4
	DefaultURL     = "ws://127.0.0.1:18789"
	ProfileID      = "gateway-owner" // recipientProfileId on ui-mode connections
)

// Tool is written into synthetic captures' headers.
const Tool = "clawtap synth"

// ErrStop may be returned by a stream sink to end generation early without
// it counting as a failure.
var ErrStop = errors.New("synth: stop")

// Session is a synthetic gateway plus the capture being recorded from it.
// It is not safe for concurrent use.
type Session struct {
	t     int64
	ids   uint64 // splitmix64 state for ids
	rng   uint64 // splitmix64 state for choices (Large)
	recs  []capture.Record
	nrec  int
	sink  func(*capture.Record) error
	err   error
	conns []*Conn
	nconn int

	bootID string
	bootAt int64
	svPres int64
	svHeal int64
	nSess  int64
	pres   []prow // presence rows besides the gateway's own

	pb, fb []byte // scratch: payload, frame
	rec    capture.Record
}

// New returns a Session whose clock is at Epoch and whose ids derive from
// seed. Records are kept in memory; see Records.
func New(seed int64) *Session {
	st := uint64(seed) ^ 0x632BE59BD9B4E019
	s := &Session{t: Epoch}
	s.ids = splitmix(&st)
	s.rng = splitmix(&st)
	s.bootID = s.uuid()
	s.bootAt = s.t - 11_100 // "[gateway] ready" about 11 s after start
	s.svPres, s.svHeal = 1, 3
	s.nSess = 1
	return s
}

// NewStream is New for big captures: each record is handed to fn instead
// of being kept, and the record (with its Frame) is only valid during the
// call. The first error fn returns stops the Session; see Err.
func NewStream(seed int64, fn func(*capture.Record) error) *Session {
	s := New(seed)
	s.sink = fn
	return s
}

// Now returns the clock, in unix milliseconds.
func (s *Session) Now() int64 { return s.t }

// Advance moves the clock forward by ms milliseconds.
func (s *Session) Advance(ms int64) *Session {
	if ms > 0 {
		s.t += ms
	}
	return s
}

// Records returns the records emitted so far (nil for a stream Session).
func (s *Session) Records() []capture.Record { return s.recs }

// Err returns the first error a stream sink returned, or nil.
func (s *Session) Err() error { return s.err }

// BootID returns the current gateway boot id.
func (s *Session) BootID() string { return s.bootID }

// Conns returns the connections opened so far, in order.
func (s *Session) Conns() []*Conn { return s.conns }

// Header returns a capture header for this Session: mode "generate",
// credentials redacted with Redacted, notes as a JSON string, created at
// Epoch.
func (s *Session) Header(notes string) capture.Header {
	return NewHeader(notes)
}

// NewHeader returns the header every synthetic capture carries.
func NewHeader(notes string) capture.Header {
	h := capture.NewHeader(time.UnixMilli(Epoch), capture.Source{
		Tool:           Tool,
		Mode:           "generate",
		URL:            DefaultURL,
		GatewayVersion: GatewayVersion,
		Protocol:       Protocol,
	})
	h.Redaction = &capture.Redaction{Credentials: true, Marker: Redacted}
	if notes != "" {
		b, _ := json.Marshal(notes)
		h.Notes = b
	}
	return h
}

// WriteTo writes the header and every record to w.
func (s *Session) WriteTo(w *capture.Writer, notes string) error {
	if err := w.WriteHeader(s.Header(notes)); err != nil {
		return err
	}
	for i := range s.recs {
		if err := w.Write(&s.recs[i]); err != nil {
			return err
		}
	}
	return nil
}

// Encode returns the capture as file bytes, zstd-compressed if asked.
func (s *Session) Encode(notes string, compress bool) ([]byte, error) {
	var buf bytes.Buffer
	w, err := capture.NewWriter(&buf, compress)
	if err != nil {
		return nil, err
	}
	if err := s.WriteTo(w, notes); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func (s *Session) emit(rec *capture.Record) {
	if s.err != nil {
		return
	}
	rec.Index = s.nrec
	s.nrec++
	if s.sink != nil {
		s.err = s.sink(rec)
		return
	}
	c := *rec
	if c.Frame != nil {
		c.Frame = bytes.Clone(c.Frame)
	}
	if c.Raw != nil {
		c.Raw = bytes.Clone(c.Raw)
	}
	s.recs = append(s.recs, c)
}

// --- ids -----------------------------------------------------------------

func splitmix(state *uint64) uint64 {
	*state += 0x9E3779B97F4A7C15
	z := *state
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

const hexd = "0123456789abcdef"

// uuid returns a deterministic version-4-shaped UUID.
func (s *Session) uuid() string {
	a, b := splitmix(&s.ids), splitmix(&s.ids)
	a = a&^(0xF<<12) | 0x4<<12         // version nibble
	b = b&^(0x3<<62) | uint64(0x2)<<62 // variant
	var out [36]byte
	i := 0
	put := func(v uint64, bits int) {
		for sh := bits - 4; sh >= 0; sh -= 4 {
			if i == 8 || i == 13 || i == 18 || i == 23 {
				out[i] = '-'
				i++
			}
			out[i] = hexd[(v>>uint(sh))&0xF]
			i++
		}
	}
	put(a, 64)
	put(b, 64)
	return string(out[:])
}

// hexID returns n deterministic lowercase hex digits.
func (s *Session) hexID(n int) string {
	out := make([]byte, 0, n)
	for len(out) < n {
		v := splitmix(&s.ids)
		for k := 0; k < 16 && len(out) < n; k++ {
			out = append(out, hexd[v&0xF])
			v >>= 4
		}
	}
	return string(out)
}

// b64ID returns n deterministic base64url characters.
func (s *Session) b64ID(n int) string {
	const alpha = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	out := make([]byte, 0, n)
	for len(out) < n {
		v := splitmix(&s.ids)
		for k := 0; k < 10 && len(out) < n; k++ {
			out = append(out, alpha[v&63])
			v >>= 6
		}
	}
	return string(out)
}

// Intn returns a deterministic number in [0, n) from the Session's choice
// generator (separate from the id generator).
func (s *Session) Intn(n int) int {
	if n <= 1 {
		return 0
	}
	return int(splitmix(&s.rng) % uint64(n))
}

// Between returns a deterministic number in [lo, hi].
func (s *Session) Between(lo, hi int64) int64 {
	if hi <= lo {
		return lo
	}
	return lo + int64(splitmix(&s.rng)%uint64(hi-lo+1))
}

// --- connections -----------------------------------------------------------

// ConnOptions describe the client of one connection. The zero value is a
// token-only cli/cli operator with all four operator scopes and no caps.
type ConnOptions struct {
	ClientID    string   // default "cli"
	Mode        string   // default "cli"; "ui" adds a device identity, presence and recipientProfileId
	DisplayName string   // default "clawtap"
	Caps        []string // e.g. "tool-events", "approvals"
	URL         string   // default DefaultURL
}

// Conn is one WebSocket connection of the capture.
type Conn struct {
	s      *Session
	N      int // connection number in the capture, from 1
	Opts   ConnOptions
	ConnID string
	BootID string

	seq     int64
	req     int
	drop    int
	open    bool
	nonce   string
	devID   string
	instID  string
	lastReq string
}

// Seq returns the last frame seq the gateway assigned on this connection.
func (c *Conn) Seq() int64 { return c.seq }

// IsOpen reports whether the connection is still open.
func (c *Conn) IsOpen() bool { return c.open }

// Has reports whether the connection declared the cap.
func (c *Conn) Has(capName string) bool { return slices.Contains(c.Opts.Caps, capName) }

func (c *Conn) ui() bool { return c.Opts.Mode == "ui" }

// Open records a new connection: the open marker, connect.challenge (no
// seq), the client's connect request (token redacted), hello-ok, and the
// hello marker. A ui-mode client is then announced with a presence
// broadcast, as the gateway tracks non-ephemeral clients.
func (s *Session) Open(o ConnOptions) *Conn {
	if o.ClientID == "" {
		o.ClientID = "cli"
	}
	if o.Mode == "" {
		o.Mode = "cli"
	}
	if o.DisplayName == "" {
		o.DisplayName = "clawtap"
	}
	if o.URL == "" {
		o.URL = DefaultURL
	}
	s.nconn++
	c := &Conn{s: s, N: s.nconn, Opts: o, open: true, BootID: s.bootID}
	c.ConnID = s.uuid()
	c.nonce = s.uuid()
	c.instID = s.uuid()
	if c.ui() {
		c.devID = s.hexID(64)
	}
	s.conns = append(s.conns, c)

	s.mark(&capture.Record{Conn: c.N, Mark: capture.MarkOpen, URL: o.URL})
	s.Advance(1)
	chTS := s.t
	w := jw{b: s.pb[:0]}
	w.open()
	w.str("nonce", c.nonce)
	w.int("ts", chTS)
	w.strs("capabilities", "model-catalog-snapshot")
	w.close()
	s.pb = w.b
	c.frame(capture.DirIn, c.eventFrame("connect.challenge", s.pb, false, false))

	s.Advance(3)
	id := c.nextID("connect")
	w = jw{b: s.pb[:0]}
	w.open()
	w.int("minProtocol", 3)
	w.int("maxProtocol", 4)
	w.obj("client")
	w.str("id", o.ClientID)
	w.str("displayName", o.DisplayName)
	w.str("version", "0.1.0")
	w.str("platform", "linux")
	w.str("mode", o.Mode)
	w.close()
	w.str("role", "operator")
	w.strs("scopes", operatorScopes...)
	w.strs("caps", o.Caps...)
	w.obj("auth")
	w.str("token", Redacted)
	w.close()
	w.str("locale", "en-US")
	w.str("userAgent", "clawtap/0.1.0")
	if c.ui() {
		w.obj("device")
		w.str("id", c.devID)
		w.str("publicKey", s.b64ID(43))
		w.str("signature", Redacted)
		w.int("signedAt", chTS)
		w.str("nonce", Redacted)
		w.close()
	}
	w.close()
	s.pb = w.b
	c.Req(id, "connect", s.pb)

	s.Advance(22)
	w = jw{b: s.pb[:0]}
	w.open()
	w.str("type", "hello-ok")
	w.int("protocol", Protocol)
	w.obj("server")
	w.str("version", GatewayVersion)
	w.str("buildId", GatewayBuildID)
	w.str("bootId", s.bootID)
	w.str("controlUiBuildSource", "bundled")
	w.str("connId", c.ConnID)
	w.close()
	w.obj("features")
	w.strs("methods", helloMethods...)
	w.strs("events", helloEvents...)
	w.strs("capabilities", "approvals", "session-scoped-events", "tool-events")
	w.close()
	w.obj("snapshot")
	w.obj("suspension")
	w.str("phase", "accepting")
	w.close()
	w.arr("presence")
	s.presenceRows(&w)
	w.closeArr()
	w.obj("health")
	w.bool("ok", true)
	w.int("ts", s.t-1_500)
	w.close()
	w.obj("stateVersion")
	w.int("presence", s.svPres)
	w.int("health", s.svHeal)
	w.close()
	w.int("uptimeMs", s.t-s.bootAt)
	w.obj("sessionDefaults")
	w.str("defaultAgentId", "main")
	w.str("mainKey", "main")
	w.str("mainSessionKey", "agent:main:main")
	w.close()
	w.str("authMode", "token")
	w.close()
	w.obj("auth")
	w.str("method", "token")
	w.str("role", "operator")
	w.strs("scopes", operatorScopes...)
	w.str("recoveryScope", Redacted)
	if c.ui() {
		w.str("deviceToken", Redacted)
		w.int("issuedAtMs", s.t)
	}
	w.close()
	w.obj("policy")
	w.int("maxPayload", 26214400)
	w.int("maxBufferedBytes", 52428800)
	w.int("tickIntervalMs", 30000)
	w.obj("attachments")
	w.int("maxBytes", 19464192)
	w.int("maxImageBytes", 6291456)
	w.close()
	w.close()
	w.close()
	s.pb = w.b
	c.Res(id, true, s.pb)
	s.mark(&capture.Record{Conn: c.N, Mark: capture.MarkHello, Protocol: Protocol, Server: GatewayVersion, ConnID: c.ConnID, BootID: s.bootID})

	if c.ui() {
		s.pres = append(s.pres, prow{conn: c.N, mode: o.Mode, devID: c.devID, instID: c.instID, ts: s.t})
		s.Advance(2)
		s.Presence()
	}
	return c
}

var operatorScopes = []string{"operator.admin", "operator.read", "operator.write", "operator.approvals"}

var helloMethods = []string{
	"agents.list", "chat.abort", "chat.history", "chat.send", "connect", "exec.approval.resolve",
	"health", "last-heartbeat", "logs.tail", "models.list", "sessions.list", "sessions.subscribe",
	"status", "system-presence",
}

var helloEvents = []string{
	"agent", "chat", "chat.metadata.changed", "connect.challenge", "cron", "device.pair.resolved",
	"exec.approval.requested", "exec.approval.resolved", "health", "heartbeat", "presence",
	"sessions.changed", "shutdown", "skills.changed", "tick", "update.available",
}

func (s *Session) mark(rec *capture.Record) {
	rec.T = s.t
	s.emit(rec)
}

func (c *Conn) nextID(method string) string {
	c.req++
	return "r" + strconv.Itoa(c.req) + "-" + method
}

// frame emits one frame record on this connection at the current time.
func (c *Conn) frame(dir string, frame []byte) {
	s := c.s
	s.rec = capture.Record{T: s.t, Conn: c.N, Dir: dir, Frame: frame}
	s.emit(&s.rec)
}

// eventFrame builds an event frame into the Session's frame scratch buffer.
// withSeq assigns the next frame seq (and returns nil if that seq is being
// dropped); sv adds the presence/health stateVersion.
func (c *Conn) eventFrame(name string, payload []byte, withSeq, sv bool) []byte {
	s := c.s
	b := append(s.fb[:0], `{"type":"event","event":`...)
	w := jw{b: b}
	w.b = jsonx.AppendString(w.b, name)
	if payload != nil {
		w.raw("payload", payload)
	}
	if withSeq {
		c.seq++
		if c.drop > 0 {
			c.drop--
			s.fb = w.b
			return nil
		}
		w.int("seq", c.seq)
	}
	if sv {
		w.obj("stateVersion")
		w.int("presence", s.svPres)
		w.int("health", s.svHeal)
		w.close()
	}
	if withSeq && c.ui() {
		w.str("recipientProfileId", ProfileID)
	}
	w.close()
	s.fb = w.b
	return s.fb
}

// Event sends an event frame with the next frame seq to this connection
// only (a targeted send; since 2026.8.1 those carry a seq too). payload is
// raw JSON, or nil for none.
func (c *Conn) Event(name string, payload []byte) {
	if !c.open {
		return
	}
	if f := c.eventFrame(name, payload, true, false); f != nil {
		c.frame(capture.DirIn, f)
	}
}

// EventNoSeq sends an event frame without a seq, as the gateway does for
// connect.challenge and direct per-socket sends.
func (c *Conn) EventNoSeq(name string, payload []byte) {
	if !c.open {
		return
	}
	c.frame(capture.DirIn, c.eventFrame(name, payload, false, false))
}

// Drop makes the gateway drop the next n seq-carrying event frames for this
// connection, as it does for droppable frames when the client is slow: the
// seqs are used up, the frames never arrive, and the client sees a gap.
func (c *Conn) Drop(n int) { c.drop += n }

// Req records a request frame sent by the client and returns its id. An
// empty id picks the next "r<n>-<method>". params is raw JSON or nil.
func (c *Conn) Req(id, method string, params []byte) string {
	if id == "" {
		id = c.nextID(method)
	}
	c.lastReq = id
	w := jw{b: c.s.fb[:0]}
	w.open()
	w.str("type", "req")
	w.str("id", id)
	w.str("method", method)
	if params != nil {
		w.raw("params", params)
	}
	w.close()
	c.s.fb = w.b
	c.frame(capture.DirOut, c.s.fb)
	return id
}

// Res records a response frame from the gateway: payload when ok, else
// payload is the error object.
func (c *Conn) Res(id string, ok bool, payload []byte) {
	w := jw{b: c.s.fb[:0]}
	w.open()
	w.str("type", "res")
	w.str("id", id)
	w.bool("ok", ok)
	if payload != nil {
		if ok {
			w.raw("payload", payload)
		} else {
			w.raw("error", payload)
		}
	}
	w.close()
	c.s.fb = w.b
	c.frame(capture.DirIn, c.s.fb)
}

// Frame records an arbitrary message on this connection. Invalid JSON is
// written by the capture writer as a raw record.
func (c *Conn) Frame(dir string, msg []byte) { c.frame(dir, msg) }

// Raw records a message that was not JSON.
func (c *Conn) Raw(dir, msg string) {
	s := c.s
	s.rec = capture.Record{T: s.t, Conn: c.N, Dir: dir, Raw: []byte(msg), IsRaw: true}
	s.emit(&s.rec)
}

// Close records the connection's close marker. A ui client leaving is
// announced to the others with a presence broadcast.
func (c *Conn) Close(code int, reason string) {
	if !c.open {
		return
	}
	c.open = false
	c.s.mark(&capture.Record{Conn: c.N, Mark: capture.MarkClose, Code: code, Reason: reason})
	if c.s.dropPresence(c.N) {
		c.s.Advance(3)
		c.s.Presence()
	}
}

// --- broadcasts ------------------------------------------------------------

// Broadcast sends an event to every open connection, each with its own
// frame seq. payload is raw JSON.
func (s *Session) Broadcast(name string, payload []byte) {
	s.broadcast(name, payload, false, nil)
}

func (s *Session) broadcast(name string, payload []byte, sv bool, only func(*Conn) bool) {
	for _, c := range s.conns {
		if !c.open || (only != nil && !only(c)) {
			continue
		}
		if f := c.eventFrame(name, payload, true, sv); f != nil {
			c.frame(capture.DirIn, f)
		}
	}
}

// Tick broadcasts the 30 s tick.
func (s *Session) Tick() {
	w := jw{b: s.pb[:0]}
	w.open()
	w.int("ts", s.t)
	w.close()
	s.pb = w.b
	s.broadcast("tick", s.pb, false, nil)
}

// Health broadcasts a (small) health snapshot with a new health state
// version.
func (s *Session) Health() {
	s.svHeal++
	w := jw{b: s.pb[:0]}
	w.open()
	w.bool("ok", true)
	w.int("ts", s.t)
	w.int("durationMs", 3+s.svHeal%5)
	w.arr("agents")
	for _, a := range []string{"main", "ops", "research"} {
		w.open()
		w.str("agentId", a)
		w.bool("isDefault", a == "main")
		w.close()
	}
	w.closeArr()
	w.obj("sessions")
	w.int("count", s.nSess)
	w.close()
	w.int("heartbeatSeconds", 0)
	w.str("defaultAgentId", "main")
	w.close()
	s.pb = w.b
	s.broadcast("health", s.pb, true, nil)
}

// Presence broadcasts the presence list (the gateway itself plus every
// open ui client) with a new presence state version.
func (s *Session) Presence() {
	s.svPres++
	w := jw{b: s.pb[:0]}
	w.open()
	w.arr("presence")
	s.presenceRows(&w)
	w.closeArr()
	w.close()
	s.pb = w.b
	s.broadcast("presence", s.pb, true, nil)
}

type prow struct {
	conn          int // 0 for a client the capture does not see
	mode          string
	devID, instID string
	ts            int64
}

func (s *Session) dropPresence(conn int) bool {
	for i, p := range s.pres {
		if p.conn == conn {
			s.pres = slices.Delete(s.pres, i, i+1)
			return true
		}
	}
	return false
}

// ClientJoined makes a ui client the capture does not see connect: the
// gateway broadcasts the new presence list.
func (s *Session) ClientJoined() {
	s.pres = append(s.pres, prow{mode: "ui", devID: s.hexID(64), instID: s.uuid(), ts: s.t})
	s.Presence()
}

// ClientLeft makes the earliest such client disconnect, with a presence
// broadcast. It does nothing when there is none.
func (s *Session) ClientLeft() {
	if s.dropPresence(0) {
		s.Presence()
	}
}

func (s *Session) presenceRows(w *jw) {
	w.open()
	w.str("host", "gateway")
	w.str("version", GatewayVersion)
	w.str("platform", "linux")
	w.str("mode", "gateway")
	w.str("reason", "self")
	w.int("ts", s.bootAt)
	w.close()
	for _, p := range s.pres {
		w.open()
		w.str("host", "workstation")
		w.str("version", "0.1.0")
		w.str("platform", "linux")
		w.str("mode", p.mode)
		w.str("reason", "connect")
		w.int("ts", p.ts)
		w.str("deviceId", p.devID)
		w.strs("roles", "operator")
		w.strs("scopes", operatorScopes...)
		w.str("instanceId", p.instID)
		w.close()
	}
}

// Heartbeat broadcasts an agent heartbeat result (not a keepalive).
func (s *Session) Heartbeat(status string) {
	w := jw{b: s.pb[:0]}
	w.open()
	w.int("ts", s.t)
	w.str("status", status)
	w.int("durationMs", 600+s.t%700)
	w.bool("silent", status != "sent")
	w.str("indicatorType", "ok")
	w.close()
	s.pb = w.b
	s.broadcast("heartbeat", s.pb, false, nil)
}

// Shutdown broadcasts the shutdown event, closes every open connection with
// 1012 "service restart" a few ms later, and boots a new gateway: the next
// connection's hello-ok carries a new boot id.
func (s *Session) Shutdown() {
	w := jw{b: s.pb[:0]}
	w.open()
	w.str("reason", "gateway stopping")
	w.int("restartExpectedMs", 15000)
	w.close()
	s.pb = w.b
	s.broadcast("shutdown", s.pb, false, nil)
	s.Advance(4)
	for _, c := range s.conns {
		if c.open {
			c.open = false
			s.dropPresence(c.N)
			s.mark(&capture.Record{Conn: c.N, Mark: capture.MarkClose, Code: 1012, Reason: "service restart"})
		}
	}
	s.pres = s.pres[:0]
	s.bootID = s.uuid()
	s.bootAt = s.t + 1_000
	s.svPres, s.svHeal = 1, 1
}
