package main

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
	"github.com/gorilla/websocket"
)

// recResolveListen applies the loopback default: an address with no host
// ("18790" or ":18790") listens on 127.0.0.1. It reports whether the
// resulting address is a loopback one.
func recResolveListen(addr string) (string, bool, error) {
	if !strings.Contains(addr, ":") {
		addr = ":" + addr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", false, fmt.Errorf("bad --listen %q: %v", addr, err)
	}
	if port == "" {
		return "", false, fmt.Errorf("bad --listen %q: no port", addr)
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

// recProxyConfig is what proxy mode needs.
type recProxyConfig struct {
	upstream  string // ws(s):// URL of the gateway
	closeWait time.Duration
	logf      func(format string, args ...any)
	warnf     func(format string, args ...any)
	// ready is called with the address actually listened on.
	ready func(addr string)
}

// proxy relays WebSocket connections to the gateway, recording both
// directions of each as its own conn, and passes plain HTTP (the Control
// UI's pages) through unrecorded.
type recProxy struct {
	rec      *recorder
	cfg      recProxyConfig
	upstream *url.URL
	dialer   websocket.Dialer
	upgrader websocket.Upgrader
	httpRP   *httputil.ReverseProxy

	mu     sync.Mutex
	relays map[*recRelay]bool
	wg     sync.WaitGroup
}

type recRelay struct {
	conn           int
	client, server *websocket.Conn
	closeOnce      sync.Once
}

// runProxy serves on ln until ctx ends, then closes every relayed
// connection (1001 to the client, 1000 to the gateway) and returns.
func (r *recorder) runProxy(ctx context.Context, ln net.Listener, cfg recProxyConfig) error {
	up, err := url.Parse(cfg.upstream)
	if err != nil {
		return err
	}
	if cfg.closeWait == 0 {
		cfg.closeWait = 2 * time.Second
	}
	p := &recProxy{rec: r, cfg: cfg, upstream: up, relays: map[*recRelay]bool{}}
	p.dialer = websocket.Dialer{Proxy: http.ProxyFromEnvironment, HandshakeTimeout: 20 * time.Second,
		ReadBufferSize: 64 << 10, WriteBufferSize: 64 << 10}
	p.upgrader = websocket.Upgrader{ReadBufferSize: 64 << 10, WriteBufferSize: 64 << 10,
		CheckOrigin: func(*http.Request) bool { return true }} // the gateway checks Origin itself: we forward it
	httpURL := *up
	httpURL.Scheme = strings.Replace(strings.Replace(up.Scheme, "wss", "https", 1), "ws", "http", 1)
	p.httpRP = &httputil.ReverseProxy{
		Rewrite:  func(pr *httputil.ProxyRequest) { pr.SetURL(&httpURL) }, // no X-Forwarded-*: the gateway must see a plain local client
		ErrorLog: nil,
		ErrorHandler: func(w http.ResponseWriter, req *http.Request, err error) {
			http.Error(w, "clawtap proxy: gateway unreachable", http.StatusBadGateway)
		},
	}
	srv := &http.Server{Handler: p, ReadHeaderTimeout: 20 * time.Second, ErrorLog: nil}
	r.setState("listening")
	if cfg.ready != nil {
		cfg.ready(ln.Addr().String())
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
	case err := <-serveErr:
		if !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("proxy: %w", err)
		}
	}
	sctx, cancel := context.WithTimeout(context.Background(), cfg.closeWait)
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
	case <-time.After(cfg.closeWait + time.Second):
	}
	return nil
}

// closeRelay ends a relay from the proxy's side.
func (p *recProxy) closeRelay(rl *recRelay, code int, reason string) {
	rl.closeOnce.Do(func() {
		dl := time.Now().Add(time.Second)
		_ = rl.client.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), dl)
		_ = rl.server.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(1000, reason), dl)
		p.rec.mark(capture.Record{Conn: rl.conn, Mark: capture.MarkClose, Code: code, Reason: reason})
		time.AfterFunc(p.cfg.closeWait, func() {
			rl.client.NetConn().Close()
			rl.server.NetConn().Close()
		})
	})
}

// recForwardHeaders are the client's upgrade headers the gateway may look at.
var recForwardHeaders = []string{"Origin", "User-Agent", "Cookie", "Authorization", "Accept-Language"}

func (p *recProxy) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if !websocket.IsWebSocketUpgrade(req) {
		p.httpRP.ServeHTTP(w, req)
		return
	}
	p.wg.Add(1)
	defer p.wg.Done()
	conn := p.rec.nextConn()
	target := *p.upstream
	target.Path = strings.TrimSuffix(p.upstream.Path, "/") + req.URL.Path
	if target.Path == "" {
		target.Path = "/"
	}
	target.RawQuery = req.URL.RawQuery
	safe := gateway.SafeURL(target.String())
	hdr := http.Header{}
	for _, k := range recForwardHeaders {
		if v := req.Header.Values(k); len(v) > 0 {
			hdr[k] = v
		}
	}
	d := p.dialer
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
		p.rec.mark(capture.Record{Conn: conn, Mark: capture.MarkError, URL: safe, Peer: req.RemoteAddr, Err: "proxy could not reach the gateway: " + msg})
		p.cfg.warnf("client %s: could not reach the gateway at %s: %s", req.RemoteAddr, safe, msg)
		http.Error(w, "clawtap proxy: "+msg, status)
		return
	}
	server.SetReadLimit(64 << 20)
	respHdr := http.Header{}
	client, err := p.upgrader.Upgrade(w, req, respHdr)
	if err != nil {
		server.Close()
		return
	}
	if sp := server.Subprotocol(); sp != "" && client.Subprotocol() != sp {
		p.cfg.warnf("client %s: subprotocol %q not negotiated with the client", req.RemoteAddr, sp)
	}
	client.SetReadLimit(64 << 20)
	rl := &recRelay{conn: conn, client: client, server: server}
	p.rec.mark(capture.Record{Conn: conn, Mark: capture.MarkOpen, URL: safe, Peer: req.RemoteAddr})
	p.rec.mu.Lock()
	p.rec.peers++
	p.rec.mu.Unlock()
	p.mu.Lock()
	p.relays[rl] = true
	p.mu.Unlock()
	p.cfg.logf("client %s connected (conn %d)", req.RemoteAddr, conn)

	type end struct {
		dir string
		err error
	}
	ends := make(chan end, 2)
	helloSeen := false
	go func() { ends <- end{capture.DirOut, p.pump(conn, client, server, capture.DirOut, nil)} }()
	go func() { ends <- end{capture.DirIn, p.pump(conn, server, client, capture.DirIn, &helloSeen)} }()
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
		time.AfterFunc(p.cfg.closeWait, func() { other.NetConn().Close() })
	} else {
		other.NetConn().Close()
	}
	rl.closeOnce.Do(func() {
		p.rec.mark(capture.Record{Conn: conn, Mark: capture.MarkClose, Dir: first.dir, Code: code, Reason: reason})
	})
	<-ends
	client.Close()
	server.Close()
	p.mu.Lock()
	delete(p.relays, rl)
	p.mu.Unlock()
	p.rec.mu.Lock()
	p.rec.peers--
	p.rec.mu.Unlock()
	who := "the client"
	if first.dir == capture.DirIn {
		who = "the gateway"
	}
	p.cfg.logf("conn %d closed by %s (%d %s)", conn, who, code, reason)
}

// pump copies messages from src to dst, recording each as dir. It returns
// the error that ended src.
func (p *recProxy) pump(conn int, src, dst *websocket.Conn, dir string, helloSeen *bool) error {
	var buf []byte
	for {
		typ, rd, err := src.NextReader()
		if err != nil {
			return err
		}
		if cap(buf) > 4<<20 {
			buf = nil
		}
		buf = buf[:0]
		for {
			if len(buf) == cap(buf) {
				buf = append(buf, 0)[:len(buf)]
			}
			n, err := rd.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
		}
		t := p.rec.now()
		p.rec.frame(conn, dir, t, buf, typ == websocket.BinaryMessage)
		if helloSeen != nil && !*helloSeen && typ == websocket.TextMessage {
			if h, ok := recParseHello(buf); ok {
				*helloSeen = true
				p.rec.mark(capture.Record{T: t.UnixMilli(), Conn: conn, Mark: capture.MarkHello,
					Protocol: h.protocol, Server: h.version, ConnID: h.connID, BootID: h.bootID})
			}
		}
		if err := dst.WriteMessage(typ, buf); err != nil {
			return err
		}
	}
}

type recHelloInfo struct {
	protocol                int
	version, connID, bootID string
}

// recParseHello recognises a hello-ok response.
func recParseHello(b []byte) (recHelloInfo, bool) {
	var h recHelloInfo
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
