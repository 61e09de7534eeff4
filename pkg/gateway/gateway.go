// Package gateway is a small client for the OpenClaw Gateway's WebSocket
// protocol: it dials, does the real connect handshake (challenge, signed
// device identity, token or password, protocol 3–4 negotiation), maps
// handshake failures to errors a user can act on, and shows every frame in
// both directions to a hook, handshake included, with its time.
//
// See docs/record.md and the gateway protocol notes it links to.
package gateway

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

// DefaultURL is a local gateway's default address.
const DefaultURL = "ws://127.0.0.1:18789"

// The protocol versions clawtap speaks. A v3 gateway accepts [3,4] because it
// only rejects max < 3 || min > 3; a v4 gateway needs max >= 4 && min <= 4.
const (
	MinProtocol = 3
	MaxProtocol = 4
)

// Directions, seen from the client.
const (
	DirIn  = "in"  // gateway → client
	DirOut = "out" // client → gateway
)

// DefaultScopes is what a recorder asks for: enough to see chat and agent
// events, nothing that changes anything.
var DefaultScopes = []string{"operator.read"}

// Frame is one WebSocket message as it went over the wire.
type Frame struct {
	Dir    string    // DirIn or DirOut
	Time   time.Time // when it was received (in) or sent (out)
	Data   []byte    // the message; valid only until the hook or Read returns again
	Binary bool      // a binary message (the gateway only sends text)
}

// Options configure Dial. The zero value connects as a cli/cli operator
// with DefaultScopes, no credentials and no device identity.
type Options struct {
	// Credentials. Never put them in a log or an error.
	Token       string // shared gateway token (auth.token)
	Password    string // shared gateway password (auth.password)
	DeviceToken string // an explicit device token (auth.deviceToken)

	// Identity signs the challenge. Nil connects without a device, which a
	// local gateway accepts for cli/cli clients but remote ones do not.
	Identity *Identity
	// Store, when set, supplies the stored device token (used when no
	// shared secret is given) and keeps the one hello-ok hands out.
	Store *Store

	ClientID      string // default "cli"
	ClientMode    string // default "cli"
	ClientVersion string // default "0.0.0"
	DisplayName   string // optional
	Platform      string // default runtime.GOOS
	DeviceFamily  string // optional
	UserAgent     string // optional
	Role          string // default "operator"
	Scopes        []string
	Caps          []string // default ["tool-events"]

	HandshakeTimeout time.Duration // whole handshake; default 20 s
	Header           http.Header   // extra upgrade headers
	TLSConfig        *tls.Config
	ReadLimit        int64 // largest message accepted; default 64 MiB

	// Now is the clock for frame times; time.Now when nil.
	Now func() time.Time
	// OnOpen is called once the WebSocket is open, before any frame.
	OnOpen func(t time.Time)
	// OnFrame sees every message in both directions, handshake included,
	// in order per direction. Frame.Data is only valid during the call.
	OnFrame func(Frame)
	// Logf receives notes that are not errors (e.g. a token not saved).
	Logf func(format string, args ...any)
}

func (o *Options) defaults() {
	if o.ClientID == "" {
		o.ClientID = "cli"
	}
	if o.ClientMode == "" {
		o.ClientMode = "cli"
	}
	if o.ClientVersion == "" {
		o.ClientVersion = "0.0.0"
	}
	if o.Platform == "" {
		o.Platform = runtime.GOOS
	}
	if o.Role == "" {
		o.Role = "operator"
	}
	if o.Scopes == nil {
		o.Scopes = DefaultScopes
	}
	if o.Caps == nil {
		o.Caps = []string{"tool-events"}
	}
	if o.HandshakeTimeout <= 0 {
		o.HandshakeTimeout = 20 * time.Second
	}
	if o.ReadLimit <= 0 {
		o.ReadLimit = 64 << 20
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// Hello is what the gateway said in hello-ok.
type Hello struct {
	Protocol      int
	ServerVersion string
	ConnID        string
	BootID        string
	Role          string
	Scopes        []string
	TickInterval  time.Duration
	MaxPayload    int64
	deviceToken   string
}

// HasDeviceToken reports whether hello-ok handed out a device token.
func (h *Hello) HasDeviceToken() bool { return h.deviceToken != "" }

type helloJSON struct {
	Type     string `json:"type"`
	Protocol int    `json:"protocol"`
	Server   struct {
		Version string `json:"version"`
		ConnID  string `json:"connId"`
		BootID  string `json:"bootId"`
	} `json:"server"`
	Auth struct {
		Role        string   `json:"role"`
		Scopes      []string `json:"scopes"`
		DeviceToken string   `json:"deviceToken"`
	} `json:"auth"`
	Policy struct {
		MaxPayload     int64 `json:"maxPayload"`
		TickIntervalMs int64 `json:"tickIntervalMs"`
	} `json:"policy"`
}

// Conn is a connection that completed the handshake.
type Conn struct {
	ws    *websocket.Conn
	opts  Options
	Hello Hello
	URL   string // the gateway URL without user info or query

	wmu   sync.Mutex
	rbuf  []byte
	reqN  atomic.Int64
	close sync.Once
}

// SafeURL returns u without user info and with its query and fragment
// replaced, so it can be shown and recorded: they can carry credentials.
func SafeURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(unparsable URL)"
	}
	p.User = nil
	if p.RawQuery != "" {
		p.RawQuery = "…"
	}
	p.Fragment, p.RawFragment = "", ""
	return p.String()
}

// normalizeURL accepts ws, wss, http and https URLs, and host:port.
func normalizeURL(raw string) (string, error) {
	if raw == "" {
		raw = DefaultURL
	}
	if !strings.Contains(raw, "://") {
		raw = "ws://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("bad gateway URL %q: %v", SafeURL(raw), err)
	}
	switch u.Scheme {
	case "ws", "wss":
	case "http":
		u.Scheme = "ws"
	case "https":
		u.Scheme = "wss"
	default:
		return "", fmt.Errorf("bad gateway URL %s: the scheme must be ws:// or wss://", SafeURL(raw))
	}
	if u.Host == "" {
		return "", fmt.Errorf("bad gateway URL %s: no host", SafeURL(raw))
	}
	return u.String(), nil
}

// NormalizeURL returns the ws(s):// form of a gateway address.
func NormalizeURL(raw string) (string, error) { return normalizeURL(raw) }

// Dial connects to the gateway and completes the handshake. Failures are
// *Error values; use errors.Is with the Err* sentinels or Kind to branch.
func Dial(ctx context.Context, rawURL string, opts Options) (*Conn, error) {
	opts.defaults()
	u, err := normalizeURL(rawURL)
	if err != nil {
		return nil, err
	}
	safe := SafeURL(u)
	dialer := websocket.Dialer{
		Proxy:             http.ProxyFromEnvironment,
		HandshakeTimeout:  opts.HandshakeTimeout,
		TLSClientConfig:   opts.TLSConfig,
		EnableCompression: false,
		ReadBufferSize:    64 << 10,
		WriteBufferSize:   64 << 10,
	}
	hctx, cancel := context.WithTimeout(ctx, opts.HandshakeTimeout)
	defer cancel()
	ws, resp, err := dialer.DialContext(hctx, u, opts.Header)
	if err != nil {
		if resp != nil && resp.Body != nil {
			resp.Body.Close()
		}
		return nil, dialError(safe, resp, err, ctx)
	}
	ws.SetReadLimit(opts.ReadLimit)
	c := &Conn{ws: ws, opts: opts, URL: safe}
	if opts.OnOpen != nil {
		opts.OnOpen(opts.Now())
	}
	// Cancelling ctx (or the handshake timeout) aborts a blocked read.
	stop := context.AfterFunc(hctx, func() { ws.NetConn().Close() })
	err = c.handshake(u)
	stopped := stop()
	if err != nil {
		ws.NetConn().Close()
		var ge *Error
		if errors.As(err, &ge) {
			ge.URL = safe
			if !stopped && ge.Kind == KindNetwork && ctx.Err() == nil {
				ge.Err = fmt.Errorf("no handshake within %v", opts.HandshakeTimeout)
			}
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	if !stopped { // the timer fired just as the handshake finished
		ws.NetConn().Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &Error{Kind: KindNetwork, URL: safe, Err: errors.New("handshake timed out")}
	}
	return c, nil
}

func dialError(safe string, resp *http.Response, err error, ctx context.Context) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	e := &Error{Kind: KindNetwork, URL: safe, Err: err}
	if resp != nil {
		e.HTTPStatus = resp.StatusCode
		e.Err = nil
		switch {
		case resp.StatusCode == http.StatusServiceUnavailable:
			e.Kind = KindUnavailable
			if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
				e.RetryAfter = time.Duration(s) * time.Second
			}
		case resp.StatusCode == http.StatusTooManyRequests:
			e.Kind = KindRateLimited
		case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
			e.Kind = KindOther
		default:
			e.Kind = KindOther
		}
		return e
	}
	return e
}

type inFrame struct {
	Type    string          `json:"type"`
	Event   string          `json:"event"`
	ID      json.RawMessage `json:"id"`
	OK      *bool           `json:"ok"`
	Payload json.RawMessage `json:"payload"`
	Error   *ErrorShape     `json:"error"`
	Seq     *int64          `json:"seq"`
}

type challengeJSON struct {
	Nonce string          `json:"nonce"`
	TS    json.RawMessage `json:"ts"`
}

type connectAuth struct {
	Token       string `json:"token,omitempty"`
	Password    string `json:"password,omitempty"`
	DeviceToken string `json:"deviceToken,omitempty"`
}

type connectDevice struct {
	ID        string `json:"id"`
	PublicKey string `json:"publicKey"`
	Signature string `json:"signature"`
	SignedAt  int64  `json:"signedAt"`
	Nonce     string `json:"nonce"`
}

type connectClient struct {
	ID           string `json:"id"`
	DisplayName  string `json:"displayName,omitempty"`
	Version      string `json:"version"`
	Platform     string `json:"platform"`
	DeviceFamily string `json:"deviceFamily,omitempty"`
	Mode         string `json:"mode"`
}

// connectParams only holds fields that v3 and v4 both know: the gateway's
// schema is a closed object.
type connectParams struct {
	MinProtocol int            `json:"minProtocol"`
	MaxProtocol int            `json:"maxProtocol"`
	Client      connectClient  `json:"client"`
	Role        string         `json:"role"`
	Scopes      []string       `json:"scopes"`
	Caps        []string       `json:"caps"`
	Auth        *connectAuth   `json:"auth,omitempty"`
	UserAgent   string         `json:"userAgent,omitempty"`
	Device      *connectDevice `json:"device,omitempty"`
}

type request struct {
	Type   string `json:"type"`
	ID     string `json:"id"`
	Method string `json:"method"`
	Params any    `json:"params,omitempty"`
}

func (c *Conn) handshake(u string) error {
	o := &c.opts
	// 1. connect.challenge
	var ch challengeJSON
	for {
		f, err := c.Read()
		if err != nil {
			return handshakeReadError(err)
		}
		var fr inFrame
		if json.Unmarshal(f.Data, &fr) != nil {
			continue
		}
		if fr.Type == "event" && fr.Event == "connect.challenge" {
			if err := json.Unmarshal(fr.Payload, &ch); err != nil || ch.Nonce == "" {
				return &Error{Kind: KindOther, Message: "connect.challenge without a nonce"}
			}
			break
		}
	}
	signedAt, err := strconv.ParseInt(string(ch.TS), 10, 64)
	if err != nil {
		// A challenge with no usable ts: sign with our own clock.
		signedAt = o.Now().UnixMilli()
	}

	// 2. connect, with auth chosen like the reference client: a shared
	// token or password first; a stored device token only without them.
	p := connectParams{
		MinProtocol: MinProtocol, MaxProtocol: MaxProtocol,
		Client: connectClient{ID: o.ClientID, DisplayName: o.DisplayName, Version: o.ClientVersion,
			Platform: o.Platform, DeviceFamily: o.DeviceFamily, Mode: o.ClientMode},
		Role: o.Role, Scopes: o.Scopes, Caps: o.Caps, UserAgent: o.UserAgent,
	}
	auth := connectAuth{Token: o.Token, Password: o.Password, DeviceToken: o.DeviceToken}
	usedStored := false
	if auth.DeviceToken == "" && auth.Token == "" && auth.Password == "" && o.Store != nil && o.Identity != nil {
		if t, _ := o.Store.DeviceToken(u, o.Role, o.Identity.DeviceID); t != "" {
			auth.DeviceToken, usedStored = t, true
		}
	}
	if auth != (connectAuth{}) {
		p.Auth = &auth
	}
	if o.Identity != nil {
		sigToken := auth.Token
		if sigToken == "" {
			sigToken = auth.DeviceToken
		}
		payload := SignaturePayloadV3(SignatureFields{
			DeviceID: o.Identity.DeviceID, ClientID: o.ClientID, ClientMode: o.ClientMode,
			Role: o.Role, Scopes: o.Scopes, SignedAtMs: signedAt, Token: sigToken,
			Nonce: ch.Nonce, Platform: o.Platform, DeviceFamily: o.DeviceFamily,
		})
		p.Device = &connectDevice{ID: o.Identity.DeviceID, PublicKey: o.Identity.PublicKeyBase64URL(),
			Signature: o.Identity.Sign(payload), SignedAt: signedAt, Nonce: ch.Nonce}
	}
	id := c.nextID("connect")
	if err := c.sendJSON(request{Type: "req", ID: id, Method: "connect", Params: p}); err != nil {
		return &Error{Kind: KindNetwork, Err: err}
	}

	// 3. hello-ok, or an error then a close.
	for {
		f, err := c.Read()
		if err != nil {
			return handshakeReadError(err)
		}
		var fr inFrame
		if json.Unmarshal(f.Data, &fr) != nil || fr.Type != "res" || idString(fr.ID) != id {
			continue
		}
		if fr.OK == nil || !*fr.OK {
			es := ErrorShape{Message: "connect failed"}
			if fr.Error != nil {
				es = *fr.Error
			}
			ge := errorFromShape(es)
			ge.StoredDeviceToken = usedStored
			c.readClose(ge)
			return ge
		}
		var h helloJSON
		if err := json.Unmarshal(fr.Payload, &h); err != nil {
			return &Error{Kind: KindOther, Message: "unreadable hello-ok", Err: err}
		}
		c.Hello = Hello{Protocol: h.Protocol, ServerVersion: h.Server.Version, ConnID: h.Server.ConnID,
			BootID: h.Server.BootID, Role: h.Auth.Role, Scopes: h.Auth.Scopes,
			TickInterval: time.Duration(h.Policy.TickIntervalMs) * time.Millisecond,
			MaxPayload:   h.Policy.MaxPayload, deviceToken: h.Auth.DeviceToken}
		if h.Protocol != 0 && (h.Protocol < MinProtocol || h.Protocol > MaxProtocol) {
			return &Error{Kind: KindProtocolMismatch, Expected: h.Protocol}
		}
		if h.Auth.DeviceToken != "" && o.Store != nil && o.Identity != nil {
			role := h.Auth.Role
			if role == "" {
				role = o.Role
			}
			if err := o.Store.SaveDeviceToken(u, role, o.Identity.DeviceID, h.Auth.DeviceToken, h.Auth.Scopes); err != nil && o.Logf != nil {
				o.Logf("could not save the device token: %v", err)
			}
		}
		return nil
	}
}

// readClose waits briefly for the close that follows a rejected connect,
// so the frames and close code are seen and recorded.
func (c *Conn) readClose(ge *Error) {
	_ = c.ws.SetReadDeadline(time.Now().Add(time.Second))
	for {
		if _, err := c.Read(); err != nil {
			var ce *websocket.CloseError
			if errors.As(err, &ce) {
				ge.CloseCode, ge.CloseReason = ce.Code, ce.Text
			}
			return
		}
	}
}

func handshakeReadError(err error) error {
	var ce *websocket.CloseError
	if errors.As(err, &ce) {
		return errorFromClose(ce)
	}
	return &Error{Kind: KindNetwork, Err: fmt.Errorf("connection lost during the handshake: %w", err)}
}

func idString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

func (c *Conn) nextID(method string) string {
	return "clawtap-" + strconv.FormatInt(c.reqN.Add(1), 10) + "-" + method
}

// Read returns the next message from the gateway, after the hook has seen
// it. Frame.Data is valid until the next Read. Only one goroutine may read.
func (c *Conn) Read() (Frame, error) {
	typ, r, err := c.ws.NextReader()
	if err != nil {
		return Frame{}, err
	}
	if cap(c.rbuf) > 4<<20 { // don't keep a huge buffer after one big frame
		c.rbuf = nil
	}
	buf := c.rbuf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			c.rbuf = buf
			return Frame{}, err
		}
	}
	c.rbuf = buf
	f := Frame{Dir: DirIn, Time: c.opts.Now(), Data: buf, Binary: typ == websocket.BinaryMessage}
	if c.opts.OnFrame != nil {
		c.opts.OnFrame(f)
	}
	return f, nil
}

// Send sends one text message, after the hook has seen it. Safe for
// concurrent use.
func (c *Conn) Send(data []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.opts.OnFrame != nil {
		c.opts.OnFrame(Frame{Dir: DirOut, Time: c.opts.Now(), Data: data})
	}
	return c.ws.WriteMessage(websocket.TextMessage, data)
}

func (c *Conn) sendJSON(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return c.Send(b)
}

// Request sends a req frame and returns its id. The response arrives
// through Read (or a Client).
func (c *Conn) Request(method string, params any) (string, error) {
	id := c.nextID(method)
	return id, c.sendJSON(request{Type: "req", ID: id, Method: method, Params: params})
}

// CloseWith starts a clean close: it sends a close frame and gives the
// gateway up to wait to answer; a reader then sees the close. After wait the
// connection is cut.
func (c *Conn) CloseWith(code int, reason string, wait time.Duration) error {
	var err error
	c.close.Do(func() {
		err = c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(time.Second))
		if wait <= 0 {
			c.ws.NetConn().Close()
			return
		}
		time.AfterFunc(wait, func() { c.ws.NetConn().Close() })
	})
	return err
}

// Close closes the connection now, without a close handshake.
func (c *Conn) Close() error { return c.ws.NetConn().Close() }

// SetReadDeadline bounds the next Read.
func (c *Conn) SetReadDeadline(t time.Time) error { return c.ws.SetReadDeadline(t) }

// RemoteAddr is the gateway's address.
func (c *Conn) RemoteAddr() net.Addr { return c.ws.RemoteAddr() }

// defaultCloseWait is how long a clean close waits for the gateway's answer.
const defaultCloseWait = 2 * time.Second
