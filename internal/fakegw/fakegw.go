// Package fakegw is a fake OpenClaw gateway for clawtap's tests: a gorilla
// WebSocket server that does the real connect handshake (challenge, connect,
// hello-ok) and checks device signatures with crypto/ed25519 the way the
// gateway does, rebuilding the signed string on its own. Tests script what
// it does after hello-ok.
package fakegw

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

// Config sets how the fake gateway behaves.
type Config struct {
	Token         string // shared token the gateway expects; "" with Password "" accepts anything
	Password      string
	RequireDevice bool   // reject connects without a device identity
	Protocol      int    // negotiated protocol (default 4)
	ServerVersion string // default "2026.9.6-fake"
	// PairingRequired rejects any device not yet approved, as a remote
	// gateway does; Approve marks a device id approved.
	PairingRequired bool
	// Unavailable is how many connects get a retryable UNAVAILABLE
	// ("gateway starting") before one succeeds.
	Unavailable int
	// RequiredScope, when set, must be among the requested scopes or the
	// connect fails with MISSING_SCOPE.
	RequiredScope string
	// IssueDeviceTokens hands out a device token in hello-ok.
	IssueDeviceTokens bool
	// Now returns the challenge ts in unix ms; time.Now when nil.
	Now func() int64
	// OnHello runs after hello-ok on the connection's goroutine; when it
	// returns, the server keeps reading until the client leaves.
	OnHello func(c *Conn)
	// OnRequest answers requests after the handshake. Nil answers ok with
	// an empty payload.
	OnRequest func(c *Conn, req Request)
}

// Request is a req frame the fake received.
type Request struct {
	ID     string          `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// Connect is what the fake learned from one connect request.
type Connect struct {
	Params        json.RawMessage
	ClientID      string
	ClientMode    string
	Scopes        []string
	Caps          []string
	MinProtocol   int
	MaxProtocol   int
	Token         string
	Password      string
	DeviceToken   string
	DeviceID      string
	SignatureOK   bool   // a device was sent and its v3 signature verified
	SignedPayload string // the string the fake verified
	Accepted      bool
}

// Server is a running fake gateway.
type Server struct {
	URL  string // ws://127.0.0.1:port
	HTTP *httptest.Server
	cfg  Config

	mu        sync.Mutex
	connects  []Connect
	approved  map[string]bool
	tokens    map[string]string // device token → device id
	conns     map[*Conn]bool
	boot      string
	unavail   int
	connCount atomic.Int64
}

// New starts a fake gateway on loopback.
func New(cfg Config) *Server {
	return start(cfg, nil)
}

// NewAt starts a fake gateway on the given address (e.g. the address of a
// gateway that was closed, to play a restart), retrying for a moment while
// the port is still held.
func NewAt(addr string, cfg Config) (*Server, error) {
	var ln net.Listener
	var err error
	for i := 0; i < 50; i++ {
		if ln, err = net.Listen("tcp", addr); err == nil {
			return start(cfg, ln), nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil, err
}

// Addr is the host:port the server listens on.
func (s *Server) Addr() string { return s.HTTP.Listener.Addr().String() }

func start(cfg Config, ln net.Listener) *Server {
	if cfg.Protocol == 0 {
		cfg.Protocol = 4
	}
	if cfg.ServerVersion == "" {
		cfg.ServerVersion = "2026.9.6-fake"
	}
	s := &Server{cfg: cfg, approved: map[string]bool{}, tokens: map[string]string{}, conns: map[*Conn]bool{}, unavail: cfg.Unavailable}
	s.boot = "boot-1"
	s.HTTP = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	if ln != nil {
		s.HTTP.Listener.Close()
		s.HTTP.Listener = ln
	}
	s.HTTP.Start()
	s.URL = "ws" + strings.TrimPrefix(s.HTTP.URL, "http")
	return s
}

// Close stops the server and cuts every connection.
func (s *Server) Close() {
	s.mu.Lock()
	for c := range s.conns {
		c.ws.NetConn().Close()
	}
	s.mu.Unlock()
	s.HTTP.Close()
}

// Restart cuts every connection (as a crash would) and changes the boot id.
func (s *Server) Restart() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		c.ws.NetConn().Close()
	}
	n, _ := strconv.Atoi(strings.TrimPrefix(s.boot, "boot-"))
	s.boot = "boot-" + strconv.Itoa(n+1)
}

// Approve marks a device id as paired.
func (s *Server) Approve(deviceID string) {
	s.mu.Lock()
	s.approved[deviceID] = true
	s.mu.Unlock()
}

// Connects returns every connect request seen so far.
func (s *Server) Connects() []Connect {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Connect(nil), s.connects...)
}

// Conns returns the live connections.
func (s *Server) Conns() []*Conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*Conn
	for c := range s.conns {
		out = append(out, c)
	}
	return out
}

// Conn is one client connection on the fake gateway.
type Conn struct {
	ws   *websocket.Conn
	srv  *Server
	wmu  sync.Mutex
	seq  int64
	N    int64 // connection number on this server, from 1
	Hell Connect
}

// Event sends an event with the next frame seq.
func (c *Conn) Event(name string, payload any) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.seq++
	b, err := json.Marshal(map[string]any{"type": "event", "event": name, "payload": payload, "seq": c.seq})
	if err != nil {
		return err
	}
	return c.ws.WriteMessage(websocket.TextMessage, b)
}

// Raw sends a message as is.
func (c *Conn) Raw(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.ws.WriteMessage(websocket.TextMessage, b)
}

// PreparedRaw sends a prepared message (fast path for benchmarks).
func (c *Conn) PreparedRaw(pm *websocket.PreparedMessage) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.ws.WritePreparedMessage(pm)
}

// Respond answers a request.
func (c *Conn) Respond(id string, ok bool, payload any, errShape any) error {
	m := map[string]any{"type": "res", "id": id, "ok": ok}
	if payload != nil {
		m["payload"] = payload
	}
	if errShape != nil {
		m["error"] = errShape
	}
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return c.Raw(b)
}

// CloseWith sends a close frame and cuts the connection shortly after.
func (c *Conn) CloseWith(code int, reason string) {
	c.wmu.Lock()
	_ = c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(time.Second))
	c.wmu.Unlock()
	time.AfterFunc(200*time.Millisecond, func() { c.ws.NetConn().Close() })
}

// Cut drops the TCP connection without a close frame (the client sees 1006).
func (c *Conn) Cut() { c.ws.NetConn().Close() }

var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

func (s *Server) now() int64 {
	if s.cfg.Now != nil {
		return s.cfg.Now()
	}
	return time.Now().UnixMilli()
}

type connectJSON struct {
	MinProtocol int `json:"minProtocol"`
	MaxProtocol int `json:"maxProtocol"`
	Client      struct {
		ID           string `json:"id"`
		Mode         string `json:"mode"`
		Platform     string `json:"platform"`
		DeviceFamily string `json:"deviceFamily"`
	} `json:"client"`
	Role   string   `json:"role"`
	Scopes []string `json:"scopes"`
	Caps   []string `json:"caps"`
	Auth   struct {
		Token       string `json:"token"`
		Password    string `json:"password"`
		DeviceToken string `json:"deviceToken"`
	} `json:"auth"`
	Device *struct {
		ID        string `json:"id"`
		PublicKey string `json:"publicKey"`
		Signature string `json:"signature"`
		SignedAt  int64  `json:"signedAt"`
		Nonce     string `json:"nonce"`
	} `json:"device"`
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	ws, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	ws.SetReadLimit(64 << 20)
	c := &Conn{ws: ws, srv: s, N: s.connCount.Add(1)}
	s.mu.Lock()
	s.conns[c] = true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		ws.Close()
	}()

	nonce := fmt.Sprintf("nonce-%d-%d", c.N, time.Now().UnixNano())
	ts := s.now()
	ch, _ := json.Marshal(map[string]any{"type": "event", "event": "connect.challenge",
		"payload": map[string]any{"nonce": nonce, "ts": ts}})
	if c.Raw(ch) != nil {
		return
	}
	_ = ws.SetReadDeadline(time.Now().Add(15 * time.Second))
	_, msg, err := ws.ReadMessage()
	if err != nil {
		return
	}
	_ = ws.SetReadDeadline(time.Time{})
	var req Request
	if json.Unmarshal(msg, &req) != nil || req.Method != "connect" {
		_ = c.Respond(req.ID, false, nil, map[string]any{"code": "INVALID_REQUEST", "message": "invalid handshake: first request must be connect"})
		c.CloseWith(1008, "invalid handshake: first request must be connect")
		return
	}
	var p connectJSON
	_ = json.Unmarshal(req.Params, &p)
	info := Connect{Params: req.Params, ClientID: p.Client.ID, ClientMode: p.Client.Mode, Scopes: p.Scopes, Caps: p.Caps,
		MinProtocol: p.MinProtocol, MaxProtocol: p.MaxProtocol, Token: p.Auth.Token, Password: p.Auth.Password, DeviceToken: p.Auth.DeviceToken}
	reject := func(code, detail, message string, extra map[string]any, closeCode int) {
		details := map[string]any{"code": detail}
		for k, v := range extra {
			details[k] = v
		}
		e := map[string]any{"code": code, "message": message, "details": details}
		if code == "UNAVAILABLE" {
			e["retryable"] = true
			e["retryAfterMs"] = 50
			details["reason"] = "startup-sidecars"
			delete(details, "code")
		}
		_ = c.Respond(req.ID, false, nil, e)
		s.record(info)
		if closeCode != 0 {
			c.CloseWith(closeCode, message)
		}
	}

	s.mu.Lock()
	unavailable := s.unavail > 0
	if unavailable {
		s.unavail--
	}
	s.mu.Unlock()
	if unavailable {
		reject("UNAVAILABLE", "", "gateway starting; retry shortly", nil, 1013)
		return
	}
	if p.MaxProtocol < s.cfg.Protocol || p.MinProtocol > s.cfg.Protocol {
		reject("INVALID_REQUEST", "PROTOCOL_MISMATCH", "protocol mismatch",
			map[string]any{"expectedProtocol": s.cfg.Protocol, "clientMinProtocol": p.MinProtocol, "clientMaxProtocol": p.MaxProtocol}, 1002)
		return
	}

	// Device signature, checked like the gateway: id = sha256(raw key),
	// nonce and signedAt from the challenge, v3 string signed with Ed25519.
	if p.Device != nil {
		info.DeviceID = p.Device.ID
		pub, err := base64.RawURLEncoding.DecodeString(p.Device.PublicKey)
		sum := sha256.Sum256(pub)
		sigToken := p.Auth.Token
		if sigToken == "" {
			sigToken = p.Auth.DeviceToken
		}
		lower := func(v string) string { return strings.ToLower(strings.TrimSpace(v)) }
		signed := "v3|" + p.Device.ID + "|" + p.Client.ID + "|" + p.Client.Mode + "|" + p.Role + "|" +
			strings.Join(p.Scopes, ",") + "|" + strconv.FormatInt(p.Device.SignedAt, 10) + "|" + sigToken + "|" +
			p.Device.Nonce + "|" + lower(p.Client.Platform) + "|" + lower(p.Client.DeviceFamily)
		info.SignedPayload = signed
		sig, serr := base64.RawURLEncoding.DecodeString(p.Device.Signature)
		switch {
		case err != nil || len(pub) != ed25519.PublicKeySize:
			reject("INVALID_REQUEST", "DEVICE_AUTH_PUBLIC_KEY_INVALID", "device public key invalid", nil, 1008)
			return
		case hex.EncodeToString(sum[:]) != p.Device.ID:
			reject("INVALID_REQUEST", "DEVICE_AUTH_DEVICE_ID_MISMATCH", "device id mismatch", nil, 1008)
			return
		case p.Device.Nonce != nonce:
			reject("INVALID_REQUEST", "DEVICE_AUTH_NONCE_MISMATCH", "device nonce mismatch", nil, 1008)
			return
		case p.Device.SignedAt != ts:
			reject("INVALID_REQUEST", "DEVICE_AUTH_SIGNATURE_EXPIRED", "device signature stale", nil, 1008)
			return
		case serr != nil || !ed25519.Verify(pub, []byte(signed), sig):
			reject("INVALID_REQUEST", "DEVICE_AUTH_SIGNATURE_INVALID", "device signature invalid", nil, 1008)
			return
		}
		info.SignatureOK = true
	} else if s.cfg.RequireDevice {
		reject("INVALID_REQUEST", "DEVICE_IDENTITY_REQUIRED", "device identity required", nil, 1008)
		return
	}

	// Auth: the shared secret, or a device token this server issued.
	s.mu.Lock()
	tokenDevice, tokenKnown := s.tokens[p.Auth.DeviceToken]
	s.mu.Unlock()
	authed := s.cfg.Token == "" && s.cfg.Password == ""
	if s.cfg.Token != "" && p.Auth.Token == s.cfg.Token || s.cfg.Password != "" && p.Auth.Password == s.cfg.Password {
		authed = true
	}
	if p.Auth.DeviceToken != "" && tokenKnown && p.Device != nil && tokenDevice == p.Device.ID {
		authed = true
	}
	if !authed {
		switch {
		case p.Auth.DeviceToken != "" && p.Auth.Token == "" && p.Auth.Password == "":
			reject("INVALID_REQUEST", "AUTH_DEVICE_TOKEN_MISMATCH", "unauthorized: device token mismatch (rotate/reissue device token)", nil, 1008)
		case p.Auth.Token == "" && p.Auth.Password == "":
			reject("INVALID_REQUEST", "AUTH_TOKEN_MISSING", "unauthorized: gateway token missing (set gateway.remote.token)", nil, 1008)
		case s.cfg.Password != "":
			reject("INVALID_REQUEST", "AUTH_PASSWORD_MISMATCH", "unauthorized: gateway password mismatch", nil, 1008)
		default:
			reject("INVALID_REQUEST", "AUTH_TOKEN_MISMATCH", "unauthorized: gateway token mismatch (use this gateway's gateway.auth.token or pair the device)",
				map[string]any{"authReason": "token_mismatch", "canRetryWithDeviceToken": true, "recommendedNextStep": "retry_with_device_token"}, 1008)
		}
		return
	}
	if s.cfg.PairingRequired && p.Device != nil {
		s.mu.Lock()
		ok := s.approved[p.Device.ID]
		s.mu.Unlock()
		if !ok {
			reject("NOT_PAIRED", "PAIRING_REQUIRED", "pairing required: device is not approved yet",
				map[string]any{"reason": "not-paired", "requestId": "req-" + p.Device.ID[:8]}, 1008)
			return
		}
	}
	if s.cfg.RequiredScope != "" && !contains(p.Scopes, s.cfg.RequiredScope) {
		reject("INVALID_REQUEST", "MISSING_SCOPE", "missing scope: "+s.cfg.RequiredScope,
			map[string]any{"missingScope": s.cfg.RequiredScope, "requiredScopes": []string{s.cfg.RequiredScope}}, 1008)
		return
	}

	info.Accepted = true
	c.Hell = info
	s.record(info)
	auth := map[string]any{"role": p.Role, "scopes": p.Scopes, "method": "token"}
	if s.cfg.IssueDeviceTokens && p.Device != nil {
		tok := "devtok-" + p.Device.ID[:12]
		s.mu.Lock()
		s.tokens[tok] = p.Device.ID
		s.mu.Unlock()
		auth["deviceToken"] = tok
	}
	s.mu.Lock()
	boot := s.boot
	s.mu.Unlock()
	hello := map[string]any{
		"type": "hello-ok", "protocol": s.cfg.Protocol,
		"server":   map[string]any{"version": s.cfg.ServerVersion, "connId": fmt.Sprintf("conn-%d", c.N), "bootId": boot},
		"features": map[string]any{"methods": []string{"chat.send", "sessions.subscribe"}, "events": []string{"chat", "agent", "tick"}},
		"snapshot": map[string]any{"uptimeMs": 1},
		"auth":     auth,
		"policy":   map[string]any{"maxPayload": 26214400, "maxBufferedBytes": 52428800, "tickIntervalMs": 30000},
	}
	if err := c.Respond(req.ID, true, hello, nil); err != nil {
		return
	}
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		for {
			_, msg, err := ws.ReadMessage()
			if err != nil {
				return
			}
			var r Request
			if json.Unmarshal(msg, &r) != nil || r.Method == "" {
				continue
			}
			if s.cfg.OnRequest != nil {
				s.cfg.OnRequest(c, r)
			} else {
				_ = c.Respond(r.ID, true, map[string]any{}, nil)
			}
		}
	}()
	if s.cfg.OnHello != nil {
		s.cfg.OnHello(c)
	}
	<-readDone
}

func (s *Server) record(info Connect) {
	s.mu.Lock()
	s.connects = append(s.connects, info)
	s.mu.Unlock()
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// ChatBurst sends a small streamed run on the main session: its lifecycle
// start, two chat deltas ("Hel", "lo") and the final "Hello".
func (c *Conn) ChatBurst(run string) {
	_ = c.Event("agent", map[string]any{"runId": run, "stream": "lifecycle", "data": map[string]any{"phase": "start"}})
	_ = c.Event("chat", map[string]any{"runId": run, "sessionKey": "agent:main:main", "state": "delta", "deltaText": "Hel"})
	_ = c.Event("chat", map[string]any{"runId": run, "sessionKey": "agent:main:main", "state": "delta", "deltaText": "lo"})
	_ = c.Event("chat", map[string]any{"runId": run, "sessionKey": "agent:main:main", "state": "final",
		"message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "Hello"}}}})
}
