package record

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/gateway"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/webguard"
	"github.com/gorilla/websocket"
)

// Proxy is a recording made between clients (the Control UI, Studio, a
// script) and the gateway: each client's WebSocket is relayed to Upstream
// and recorded as its own conn, both directions as the client saw them;
// plain HTTP (the Control UI's pages) passes through unrecorded.
type Proxy struct {
	// Listener accepts the clients. Required; Proxy closes it when done.
	Listener net.Listener
	// Upstream is the gateway's WebSocket URL.
	Upstream string
	// Buffer is the most held of one message in one direction of one
	// connection; DefaultProxyBuffer when zero. A longer message is
	// forwarded as it arrives and recorded as an oversize marker.
	Buffer int64
	// Dialer connects to Upstream; one that honours the proxy
	// environment, with a 20 s handshake timeout, when nil.
	Dialer *websocket.Dialer
	// AllowOrigins and AllowHosts widen who may use the proxy, as serve's
	// --allow-origin does: by default only requests whose Host names this
	// machine's listener (a loopback name or address, or the address the
	// connection came in on) and, from a browser, pages on loopback hosts
	// (pkg/webguard). An allowed origin's host may be named in Host too.
	AllowOrigins []string
	AllowHosts   []string
	// CloseWait is how long a close waits for the other side's answer;
	// 2 s when zero.
	CloseWait time.Duration
}

// Proxy serves p.Listener until ctx ends, then closes every relayed
// connection (1001 to the client, 1000 to the gateway) and returns. It
// returns nil when it stopped cleanly, a write error (IsWriteError) when
// the capture could not be written, or OnHandshake's error.
func (r *Recorder) Proxy(ctx context.Context, p Proxy) error {
	if p.Listener == nil {
		return errors.New("record: Proxy.Listener is nil")
	}
	defer p.Listener.Close()
	upURL, err := gateway.NormalizeURL(p.Upstream)
	if err != nil {
		return err
	}
	up, err := url.Parse(upURL)
	if err != nil {
		return err
	}
	if p.Buffer <= 0 {
		p.Buffer = DefaultProxyBuffer
	}
	if p.CloseWait == 0 {
		p.CloseWait = 2 * time.Second
	}
	if p.Dialer == nil {
		p.Dialer = &websocket.Dialer{Proxy: http.ProxyFromEnvironment, HandshakeTimeout: 20 * time.Second,
			ReadBufferSize: 64 << 10, WriteBufferSize: 64 << 10}
	}
	ctx, end, err := r.begin(ctx, capture.Source{Mode: "proxy", URL: gateway.SafeURL(upURL), Listen: p.Listener.Addr().String()})
	if err != nil {
		return err
	}
	runErr := r.serveProxy(ctx, p, up)
	if werr := end(); werr != nil {
		return werr
	}
	return runErr
}

// proxy is a running Proxy.
type proxy struct {
	rec      *Recorder
	cfg      Proxy
	upstream *url.URL
	upgrader websocket.Upgrader
	httpRP   *httputil.ReverseProxy
	guard    webguard.Guard

	mu     sync.Mutex
	relays map[*relay]bool
	wg     sync.WaitGroup
}

// relay is one client connection and its connection to the gateway.
type relay struct {
	conn           int
	client, server *websocket.Conn
	closeOnce      sync.Once
}

func (r *Recorder) serveProxy(ctx context.Context, cfg Proxy, up *url.URL) error {
	p := &proxy{rec: r, cfg: cfg, upstream: up, relays: map[*relay]bool{},
		guard: webguard.Guard{AllowOrigins: cfg.AllowOrigins, AllowHosts: cfg.AllowHosts}}
	p.upgrader = websocket.Upgrader{ReadBufferSize: 64 << 10, WriteBufferSize: 64 << 10,
		CheckOrigin: func(*http.Request) bool { return true }} // ServeHTTP has checked it; it is forwarded to the gateway too
	httpURL := *up
	httpURL.Scheme = strings.Replace(strings.Replace(up.Scheme, "wss", "https", 1), "ws", "http", 1)
	p.httpRP = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) { pr.SetURL(&httpURL) }, // no X-Forwarded-*: the gateway must see a plain local client
		ErrorHandler: func(w http.ResponseWriter, req *http.Request, err error) {
			http.Error(w, "clawtap proxy: gateway unreachable", http.StatusBadGateway)
		},
	}
	srv := &http.Server{Handler: p, ReadHeaderTimeout: 20 * time.Second}
	r.setState("listening")
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(cfg.Listener) }()
	select {
	case <-ctx.Done():
	case err := <-serveErr:
		if !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("proxy: %w", err)
		}
	}
	sctx, cancel := context.WithTimeout(context.Background(), cfg.CloseWait)
	defer cancel()
	_ = srv.Shutdown(sctx)
	p.mu.Lock()
	for rl := range p.relays {
		p.closeRelay(rl, 1001, "clawtap proxy stopping")
	}
	p.mu.Unlock()
	done := make(chan struct{})
	go func() { p.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(cfg.CloseWait + time.Second):
	}
	return nil
}

// closeRelay ends a relay from the proxy's side.
func (p *proxy) closeRelay(rl *relay, code int, reason string) {
	rl.closeOnce.Do(func() {
		dl := time.Now().Add(time.Second)
		_ = rl.client.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), dl)
		_ = rl.server.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(1000, reason), dl)
		p.rec.mark(capture.Record{Conn: rl.conn, Mark: capture.MarkClose, Code: code, Reason: reason})
		time.AfterFunc(p.cfg.CloseWait, func() {
			rl.client.NetConn().Close()
			rl.server.NetConn().Close()
		})
	})
}

// forwardHeaders are the client's upgrade headers the gateway may look at.
var forwardHeaders = []string{"Origin", "User-Agent", "Cookie", "Authorization", "Accept-Language"}

func (p *proxy) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	// The gateway cannot check Host itself: the proxy sends it the
	// upstream's. So a page that DNS rebinding points at this machine, or
	// a foreign page, stops here.
	if ok, why := p.guard.Check(req); !ok {
		p.rec.warnf("refused %s %s from %s: %s", req.Method, req.URL.Path, req.RemoteAddr, why)
		http.Error(w, "clawtap proxy: refused: "+why, http.StatusForbidden)
		return
	}
	if !websocket.IsWebSocketUpgrade(req) {
		p.httpRP.ServeHTTP(w, req)
		return
	}
	p.wg.Add(1)
	defer p.wg.Done()
	r := p.rec
	conn := r.nextConn()
	target := *p.upstream
	target.Path = strings.TrimSuffix(p.upstream.Path, "/") + req.URL.Path
	if target.Path == "" {
		target.Path = "/"
	}
	target.RawQuery = req.URL.RawQuery
	safe := gateway.SafeURL(target.String())
	hdr := http.Header{}
	for _, k := range forwardHeaders {
		if v := req.Header.Values(k); len(v) > 0 {
			hdr[k] = v
		}
	}
	d := *p.cfg.Dialer
	d.Subprotocols = websocket.Subprotocols(req)
	server, resp, err := d.DialContext(req.Context(), target.String(), hdr)
	if err != nil {
		status := http.StatusBadGateway
		msg := err.Error()
		if resp != nil {
			status = resp.StatusCode
			msg = fmt.Sprintf("gateway answered HTTP %d", resp.StatusCode)
			if resp.Body != nil {
				_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
				resp.Body.Close()
			}
		}
		r.mark(capture.Record{Conn: conn, Mark: capture.MarkError, URL: safe, Peer: req.RemoteAddr, Err: "proxy could not reach the gateway: " + msg})
		r.warnf("client %s: could not reach the gateway at %s: %s", req.RemoteAddr, safe, msg)
		http.Error(w, "clawtap proxy: "+msg, status)
		return
	}
	client, err := p.upgrader.Upgrade(w, req, http.Header{})
	if err != nil {
		server.Close()
		return
	}
	if sp := server.Subprotocol(); sp != "" && client.Subprotocol() != sp {
		r.warnf("client %s: subprotocol %q not negotiated with the client", req.RemoteAddr, sp)
	}
	// No read limit: a message longer than the buffer is streamed, not held.
	server.SetReadLimit(0)
	client.SetReadLimit(0)
	rl := &relay{conn: conn, client: client, server: server}
	r.mark(capture.Record{Conn: conn, Mark: capture.MarkOpen, URL: safe, Peer: req.RemoteAddr})
	r.addPeers(1)
	defer r.addPeers(-1)
	p.mu.Lock()
	p.relays[rl] = true
	p.mu.Unlock()
	r.logf("client %s connected (conn %d)", req.RemoteAddr, conn)

	type end struct {
		dir string
		err error
	}
	ends := make(chan end, 2)
	go func() { ends <- end{capture.DirOut, p.pump(conn, client, server, capture.DirOut)} }()
	go func() { ends <- end{capture.DirIn, p.pump(conn, server, client, capture.DirIn)} }()
	first := <-ends
	// Pass the close on to the other side, as the side that closed sent it.
	other := server
	if first.dir == capture.DirIn {
		other = client
	}
	code, reason := gateway.CloseStatus(first.err)
	var ce *websocket.CloseError
	if errors.As(first.err, &ce) && code != websocket.CloseAbnormalClosure && code != websocket.CloseTLSHandshake {
		_ = other.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(time.Second))
		time.AfterFunc(p.cfg.CloseWait, func() { other.NetConn().Close() })
	} else {
		other.NetConn().Close()
	}
	rl.closeOnce.Do(func() {
		r.mark(capture.Record{Conn: conn, Mark: capture.MarkClose, Dir: first.dir, Code: code, Reason: reason})
	})
	<-ends
	client.Close()
	server.Close()
	p.mu.Lock()
	delete(p.relays, rl)
	p.mu.Unlock()
	who := "the client"
	if first.dir == capture.DirIn {
		who = "the gateway"
	}
	r.logf("conn %d closed by %s (%d %s)", conn, who, code, reason)
}

// pump relays messages from src to dst, recording each as dir, until src
// or dst fails; it returns that error. A message longer than the buffer
// is forwarded in pieces and recorded as an oversize marker.
func (p *proxy) pump(conn int, src, dst *websocket.Conn, dir string) error {
	r := p.rec
	pm := pump{limit: p.cfg.Buffer}
	helloSeen := dir != capture.DirIn // hello-ok comes from the gateway
	for {
		m, err := pm.read(src, dst)
		t := r.now()
		if m.streamed {
			r.mark(capture.Record{T: t.UnixMilli(), Conn: conn, Dir: dir, Mark: capture.MarkOversize, Size: m.size, Reason: oversizeReason(m.size, p.cfg.Buffer, err)})
			r.warnf("conn %d: a %d-byte message (%s) is larger than the proxy buffer (%d bytes): forwarded, not recorded", conn, m.size, dir, p.cfg.Buffer)
		}
		if err != nil {
			return err
		}
		if m.streamed {
			if err := m.end.Close(); err != nil { // recorded above: now the receiver has it
				return err
			}
			continue
		}
		r.frame(conn, dir, t, m.data, m.typ == websocket.BinaryMessage)
		if !helloSeen && m.typ == websocket.TextMessage {
			if h, ok := parseHello(m.data); ok {
				helloSeen = true
				if !r.handshaken(capture.Record{T: t.UnixMilli(), Conn: conn, Protocol: h.protocol, Server: h.version, ConnID: h.connID, BootID: h.bootID}) {
					return errors.New("clawtap proxy stopping")
				}
			}
		}
		if err := dst.WriteMessage(m.typ, m.data); err != nil {
			return err
		}
	}
}

func oversizeReason(size, buffer int64, err error) string {
	if err != nil {
		return fmt.Sprintf("larger than the proxy buffer (%d bytes): forwarded as it arrived, not recorded; the connection ended after %d bytes of it", buffer, size)
	}
	return fmt.Sprintf("larger than the proxy buffer (%d bytes): forwarded as it arrived, not recorded", buffer)
}

// hello is what a hello-ok response says about the gateway.
type hello struct {
	protocol                int
	version, connID, bootID string
}

// parseHello recognises a hello-ok response.
func parseHello(b []byte) (hello, bool) {
	var h hello
	if t, ok := jsonx.GetStr(b, "type"); !ok || t != "res" {
		return h, false
	}
	p, ok := jsonx.Get(b, "payload")
	if !ok {
		return h, false
	}
	if t, ok := jsonx.GetStr(p, "type"); !ok || t != "hello-ok" {
		return h, false
	}
	if n, ok := jsonx.GetInt(p, "protocol"); ok {
		h.protocol = int(n)
	}
	if s, ok := jsonx.Get(p, "server"); ok {
		h.version, _ = jsonx.GetStr(s, "version")
		h.connID, _ = jsonx.GetStr(s, "connId")
		h.bootID, _ = jsonx.GetStr(s, "bootId")
	}
	return h, true
}

// ResolveListen applies the loopback default to a listen address: one
// with no host ("18790" or ":18790") listens on 127.0.0.1. It reports
// whether the result is a loopback address.
func ResolveListen(addr string) (string, bool, error) {
	if !strings.Contains(addr, ":") {
		addr = ":" + addr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", false, fmt.Errorf("bad listen address %q: %v", addr, err)
	}
	if port == "" {
		return "", false, fmt.Errorf("bad listen address %q: no port", addr)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	loop := host == "localhost"
	if ip := net.ParseIP(host); ip != nil {
		loop = ip.IsLoopback()
	}
	return net.JoinHostPort(host, port), loop, nil
}
