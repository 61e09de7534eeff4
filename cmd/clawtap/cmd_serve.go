package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/serve"
	"github.com/gorilla/websocket"
	"github.com/spf13/cobra"
)

type serveFlags struct {
	listen       string
	conn         int
	speed        float64
	maxGap       time.Duration
	fast         bool
	loop         bool
	once         bool
	token        string
	tokenFile    string
	allowOrigins []string
	onSend       string
	handshake    time.Duration
	ui           string
	reconnects   bool
	statusPeriod time.Duration
	verbose      bool
}

func (a *app) serveCmd() *cobra.Command {
	f := serveFlags{}
	cmd := &cobra.Command{
		Use:   "serve [flags] FILE",
		Short: "Play a capture back as a live gateway that UIs and scripts can connect to",
		Long: `serve listens on loopback and speaks the gateway protocol to every client
that connects (the Control UI, Studio, a script, clawtap record), playing back
one connection of a capture:

  - the handshake as a real gateway does it: connect.challenge with a fresh
    nonce, then hello-ok built from the recorded one (features, snapshot,
    policy, server version) with a fresh connId, after protocol negotiation
    against the recorded protocol. The recorded credentials are never
    needed; --token-file (or CLAWTAP_TOKEN) makes one required;
  - the recorded gateway→client event frames of the connection (--conn,
    default the first), in order, with their recorded pacing: --speed scales
    it, --max-gap clamps idle stretches, --as-fast-as-possible drops it,
    --loop repeats the capture;
  - seq is renumbered per client: the first frame with a seq is 1, and each
    later one adds the recorded difference, so a gap-free capture stays
    gap-free and a gap in the capture is served as the same gap. Frames keep
    every other byte as recorded;
  - requests are answered from the capture: the recorded response(s) to the
    same method with the same selector params (sessionKey, key, agentId,
    runId, id), re-addressed to the client's id; anything else gets
    {code:"UNAVAILABLE", message:"not in capture"};
  - with --on-send next-run the stream stops where the recorded client sent
    chat.send, until this client sends one; the run then plays, with the
    recorded {runId, status:"started"} response re-addressed to its id and
    the run renamed to its idempotencyKey, as a gateway names runs;
  - with --reconnects the connection ends as the recorded one did (the
    gateway's close code, such as 1012 for a restart, or a dropped
    connection), at its recorded time, and a client that then reconnects
    gets the connection the recorded client opened next.

serve listens on loopback unless --listen names another address (":PORT"
and a bare port mean loopback too), and accepts WebSocket upgrades from
non-browser clients and from pages on loopback hosts (localhost,
127.0.0.1, [::1]); other browser origins need --allow-origin. The token a
client must present comes from --token-file or CLAWTAP_TOKEN, never from
the command line.

The capture is read from disk as it is played, by each client on its own,
so memory does not grow with the capture and serve listens at once; a
background pass over the capture answers what needs all of it (requests,
the reconnects, the summary line).

Every client gets its own stream from the start. serve runs until SIGINT
or SIGTERM (Ctrl-C: clients are closed with 1001, exit 0; a second one
aborts with exit 130) or, with --once, until the first client has been sent
the whole stream (clients are closed with 1000, exit 0). docs/serve.md has
the details and the limitations.`,
		Example: `  # Serve the demo capture on ws://127.0.0.1:18789 (the gateway's own port)
  clawtap serve fixtures/demo.jsonl.zst

  # ...and open the Control UI of an openclaw install against it, from the
  # same origin (the Control UI connects back to the server it came from)
  clawtap serve --ui node_modules/openclaw/dist/control-ui fixtures/demo.jsonl.zst
  #   then browse http://127.0.0.1:18789/

  # Drive a recorded run from the UI: each chat.send plays the next run
  clawtap serve --on-send next-run --max-gap 2s fixtures/streamed-run.jsonl.zst

  # Restart the gateway under the UI as it happened: close, reconnect, go on
  clawtap serve --reconnects --ui node_modules/openclaw/dist/control-ui fixtures/reconnect.jsonl.zst

  # Twice as fast, on another port, with a token, forever
  clawtap serve --speed 2 --listen :18790 --token-file ~/.clawtap-serve-token --loop cap.jsonl.zst

  # A UI dev server on the LAN may connect to a serve open to the network
  clawtap serve --listen 0.0.0.0:18789 --allow-origin http://192.168.1.20:5173 --token-file tok cap.jsonl.zst

  # Record what serve plays, then compare
  clawtap serve --once --as-fast-as-possible cap.jsonl.zst &
  clawtap record --url ws://127.0.0.1:18789 --no-reconnect -o replayed.jsonl.zst`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("token") {
				return usageError("put it in a file for --token-file, or in CLAWTAP_TOKEN",
					"clawtap does not take a secret on the command line (it would show in ps and shell history)")
			}
			return a.runServe(args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.listen, "listen", "127.0.0.1:18789", "address to listen on: host:port, or :port or a port for loopback (0 picks a free one); another host is exposed to the network")
	fl.IntVar(&f.conn, "conn", 0, "connection of the capture to serve (default: the first)")
	fl.Float64Var(&f.speed, "speed", 1, "pacing factor: 2 plays twice as fast, 0.5 half as fast")
	fl.DurationVar(&f.maxGap, "max-gap", 0, "longest wait between two frames, e.g. 2s (default: as recorded)")
	fl.BoolVar(&f.fast, "as-fast-as-possible", false, "send frames without waiting")
	fl.BoolVar(&f.loop, "loop", false, "start the capture over when it ends")
	fl.BoolVar(&f.once, "once", false, "exit once the first client has been sent the whole stream")
	fl.StringVar(&f.token, "token", "", "refused: use --token-file or CLAWTAP_TOKEN")
	fl.StringVar(&f.tokenFile, "token-file", "", "require the token in this file in connect's auth.token ('-' reads stdin; default $CLAWTAP_TOKEN)")
	fl.StringArrayVar(&f.allowOrigins, "allow-origin", nil, "also accept WebSocket upgrades from pages of this browser origin, e.g. http://192.168.1.20:5173 (repeatable; loopback pages are always accepted)")
	fl.StringVar(&f.onSend, "on-send", "reply", "what a client's chat.send does: reply (answer from the capture) or next-run (play the next recorded run)")
	fl.DurationVar(&f.handshake, "handshake-timeout", 15*time.Second, "time a client has to send connect")
	fl.BoolVar(&f.reconnects, "reconnects", false, "end the connection as recorded (close code or drop) and give a client that reconnects the next recorded connection")
	fl.StringVar(&f.ui, "ui", "", "also serve a Control UI build (a directory with index.html) over HTTP on the same address")
	fl.DurationVar(&f.statusPeriod, "status-interval", 250*time.Millisecond, "refresh period of the status line on a terminal")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "also log every client request and how it was answered")
	_ = fl.MarkHidden("status-interval")
	return cmd
}

func (a *app) runServe(file string, f serveFlags) error {
	switch {
	case f.speed <= 0:
		return usageError("use a positive factor, e.g. --speed 2 or --speed 0.5", "--speed must be more than 0, not %v", f.speed)
	case f.maxGap < 0:
		return usageError("use a duration such as --max-gap 2s", "--max-gap cannot be negative")
	case f.conn < 0:
		return usageError("connections are numbered from 1", "--conn cannot be negative")
	case f.onSend != string(serve.OnSendReply) && f.onSend != string(serve.OnSendNextRun):
		return usageError("use --on-send reply or --on-send next-run", "unknown --on-send %q", f.onSend)
	case f.once && f.loop:
		return usageError("drop --loop, or --once", "--once waits for the end of the stream, which --loop never reaches")
	case f.reconnects && f.loop:
		return usageError("drop --loop, or --reconnects", "--reconnects ends the stream as recorded, which --loop never reaches")
	case file == "-" && f.tokenFile == "-":
		return usageError("read the token from a file, or from CLAWTAP_TOKEN", "the capture and --token-file cannot both read stdin")
	}
	listen, _, err := serve.ListenAddress(f.listen)
	if err != nil {
		return usageError("e.g. --listen 127.0.0.1:18790, --listen :18790, or --listen 0.0.0.0:18789 to expose it", "--listen: %v", err)
	}
	var origins []string
	for _, o := range f.allowOrigins {
		norm, err := serve.ParseOrigin(o)
		if err != nil {
			return usageError("give the origin the browser shows for the page, e.g. --allow-origin http://192.168.1.20:5173", "--allow-origin: %v", err)
		}
		origins = append(origins, norm)
	}
	token := strings.TrimSpace(a.getenv("CLAWTAP_TOKEN"))
	if f.tokenFile != "" {
		if token, err = a.readSecretFile("--token-file", f.tokenFile); err != nil {
			return err
		}
	}
	var ui http.Handler
	if f.ui != "" {
		h, err := serveControlUI(f.ui)
		if err != nil {
			return err
		}
		ui = h
	}
	status := newServeStatus(a.stderr, !a.quiet && a.isTerminal(a.stderr))
	warnf := func(format string, args ...any) {
		if !a.quiet {
			status.println("clawtap: warning: " + fmt.Sprintf(format, args...))
		}
	}
	capt, script, err := a.openServeCapture(file, f.conn, f.reconnects, warnf)
	if err != nil {
		return err
	}
	defer capt.Close()
	if script.Hello == nil {
		a.warnf("the capture has no hello-ok; clients get a minimal one")
	}

	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)

	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return &exitError{code: exitTrouble, err: fmt.Errorf("listen on %s: %w", listen, err), hint: "is a gateway (or another clawtap serve) on that port? pick another with --listen :18790"}
	}
	addr := ln.Addr().String()
	if host, _, err := net.SplitHostPort(addr); err == nil {
		if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
			what := "use --token-file"
			if token != "" {
				what = "the token is all that keeps them out"
			}
			a.warnf("listening on %s, not loopback: anyone who can reach it can read the capture (%s)", addr, what)
		}
	}

	srv := serve.New(script, serve.Options{
		Token:            token,
		AllowOrigins:     origins,
		Pacing:           serve.Pacing{Speed: f.speed, MaxGap: f.maxGap, Fast: f.fast},
		Loop:             f.loop,
		OnSend:           serve.OnSend(f.onSend),
		Once:             f.once,
		Reconnects:       f.reconnects,
		HandshakeTimeout: f.handshake,
		HTTP:             ui,
		LogRequests:      f.verbose,
		ConfiguredUI:     ui != nil,
		Logf: func(format string, args ...any) {
			if !a.quiet {
				status.println("clawtap: " + fmt.Sprintf(format, args...))
			}
		},
	})
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, ErrorLog: nil}
	serveErr := make(chan error, 1)
	go func() { serveErr <- hs.Serve(ln) }()

	name := filepath.Base(file)
	if file == "-" {
		name = "stdin"
	}
	a.infof("serving %s on ws://%s/", name, addr)
	if ui != nil {
		a.infof("Control UI: http://%s/", addr)
	}
	// The summary needs the whole capture: the pre-pass gives it shortly,
	// while clients already play.
	stopSummary := make(chan struct{})
	summaryDone := make(chan struct{})
	go func() {
		defer close(summaryDone)
		select {
		case <-capt.Ready():
		case <-stopSummary:
			return
		}
		if !a.quiet {
			status.println("clawtap: " + describeServeScript(script, f, token != ""))
		}
		if err := capt.Err(); err != nil {
			warnf("%s: %v", name, err)
		}
		a.readSummary(name, capt.Stats())
		if script.Frames() == 0 {
			warnf("connection %d has no gateway frames to stream; clients get the handshake and answers only", script.Conn)
		}
		if f.onSend == string(serve.OnSendNextRun) && script.Sends() == 0 {
			warnf("--on-send next-run: the capture has no chat.send, so nothing waits for one")
		}
	}()

	stopStatus := status.run(f.statusPeriod, func() string { return serveStatusText(name, srv.Stats()) })

	var result error
	code, reason := websocket.CloseGoingAway, "clawtap serve is shutting down"
	select {
	case <-sigs:
		close(stopSummary)
	case <-srv.Done():
		code, reason = websocket.CloseNormalClosure, "end of capture"
	case err := <-serveErr:
		close(stopSummary)
		result = &exitError{code: exitTrouble, err: fmt.Errorf("serve: %w", err)}
	}
	<-summaryDone // after --once, the capture has been read to the end
	stopStatus()
	shutdown := make(chan struct{})
	go func() {
		defer close(shutdown)
		shut, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		_ = srv.CloseWith(shut, code, reason)
		_ = hs.Shutdown(shut)
	}()
	select {
	case <-shutdown:
	case <-sigs:
		return &exitError{code: exitInterrupted, err: errors.New("interrupted during shutdown")}
	}
	stats := srv.Stats()
	a.infof("served %d client(s), %d frame(s)%s", stats.Total, stats.Sent, serveRejectedNote(stats.Rejected))
	return result
}

func serveRejectedNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("; %d client(s) turned away during the handshake", n)
}

// describeServeScript says in one line what is served. It waits for the
// pre-pass.
func describeServeScript(s *serve.Script, f serveFlags, token bool) string {
	var parts []string
	parts = append(parts, fmt.Sprintf("connection %d of %d: %d frame(s)", s.Conn, len(s.Conns()), s.Frames()))
	if n := s.Sends(); n > 0 {
		parts = append(parts, fmt.Sprintf("%d chat.send run(s)", n))
	}
	if s.Protocol > 0 {
		parts = append(parts, fmt.Sprintf("protocol %d", s.Protocol))
	}
	if s.ServerVersion != "" {
		parts = append(parts, "gateway "+s.ServerVersion)
	}
	switch {
	case f.fast:
		parts = append(parts, "no pacing")
	default:
		p := "recorded pacing"
		if f.speed != 1 {
			p += fmt.Sprintf(" ×%g", f.speed)
		}
		if f.maxGap > 0 {
			p += fmt.Sprintf(", gaps ≤ %s", f.maxGap)
		}
		parts = append(parts, p)
	}
	if f.loop {
		parts = append(parts, "looping")
	}
	if f.reconnects {
		ends := "then the recorded connection stays open"
		if c := s.End(); c != nil && c.Code != 0 {
			ends = fmt.Sprintf("then closes with %d", c.Code)
		} else if c != nil {
			ends = "then drops"
		}
		n := 0
		for next := s.Next(); next != nil; next = next.Next() {
			n++
		}
		parts = append(parts, fmt.Sprintf("%s; %d reconnect(s) follow", ends, n))
	}
	if f.onSend == string(serve.OnSendNextRun) {
		parts = append(parts, "chat.send plays the next run")
	}
	if token {
		parts = append(parts, "token required")
	}
	return strings.Join(parts, ", ")
}

// serveStatusText is the terminal status line: clients, frames sent and where
// the clients are in the capture.
func serveStatusText(name string, st serve.Stats) string {
	var b strings.Builder
	fmt.Fprintf(&b, "clawtap: serving %s · %d client(s) · %d frame(s) sent", name, st.Active, st.Sent)
	if len(st.Clients) == 0 {
		b.WriteString(" · waiting for a client")
		return b.String()
	}
	lo, hi, pass, waiting := st.Clients[0].Item, 0, 0, false
	for _, c := range st.Clients {
		lo, hi = min(lo, c.Item), max(hi, c.Item)
		pass = max(pass, c.Pass)
		waiting = waiting || c.Waiting
	}
	pct := func(n int) int { return n * 100 / st.Items }
	switch {
	case st.Items == 0 && lo == hi: // the length is known once the pre-pass is over
		fmt.Fprintf(&b, " · at %d", hi)
	case st.Items == 0:
		fmt.Fprintf(&b, " · at %d–%d", lo, hi)
	case lo == hi:
		fmt.Fprintf(&b, " · at %d/%d (%d%%)", hi, st.Items, pct(hi))
	default:
		fmt.Fprintf(&b, " · at %d–%d/%d", lo, hi, st.Items)
	}
	if pass > 0 {
		fmt.Fprintf(&b, " · pass %d", pass+1)
	}
	if waiting {
		b.WriteString(" · waiting for chat.send")
	}
	return b.String()
}

// serveStatus keeps one refreshing line at the bottom of a terminal and
// prints log lines above it. When off, it only prints the log lines.
type serveStatus struct {
	mu   sync.Mutex
	w    io.Writer
	on   bool
	last string
}

func newServeStatus(w io.Writer, on bool) *serveStatus { return &serveStatus{w: w, on: on} }

func (l *serveStatus) println(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.on && l.last != "" {
		io.WriteString(l.w, "\r\x1b[K")
	}
	io.WriteString(l.w, s+"\n")
	if l.on && l.last != "" {
		io.WriteString(l.w, l.last)
	}
}

func (l *serveStatus) set(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.last = s
	io.WriteString(l.w, "\r\x1b[K"+s)
}

// run refreshes the line every period until the returned stop is called,
// which clears it.
func (l *serveStatus) run(period time.Duration, text func() string) (stop func()) {
	if !l.on {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			l.set(text())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() {
		close(done)
		<-finished
		l.mu.Lock()
		defer l.mu.Unlock()
		io.WriteString(l.w, "\r\x1b[K")
		l.last = ""
	}
}

// openServeCapture opens the capture ("-" for stdin, which is first copied
// to a private temporary file, as serve reads it again for every client)
// and returns the script of the connection to serve, as soon as the
// pre-pass has read its hello. The reader's warnings go to warnf.
func (a *app) openServeCapture(file string, conn int, reconnects bool, warnf func(string, ...any)) (*serve.Capture, *serve.Script, error) {
	name := file
	var src *serve.Source
	var err error
	if file == "-" {
		name = "stdin"
		if a.isTerminal(a.stdin) {
			return nil, nil, usageError("pipe a capture in, or name a file: clawtap serve capture.jsonl.zst", "no capture given and stdin is a terminal")
		}
		src, err = serve.SpoolSource(a.stdin)
	} else {
		src, err = serve.OpenSource(file)
	}
	if err != nil {
		return nil, nil, inputError(file, err)
	}
	capt, err := serve.Open(src, func(w capture.Warning) { warnf("%s: %s", name, w) })
	if err != nil {
		src.Close()
		return nil, nil, inputError(file, err)
	}
	script, err := capt.Script(serve.LoadOptions{Conn: conn, Reconnects: reconnects})
	if err != nil {
		capt.Close()
		switch {
		case strings.HasPrefix(err.Error(), "capture has no connection"):
			return nil, nil, usageError("pick one of the capture's connections with --conn", "%v", err)
		case errors.Is(err, serve.ErrEmpty):
			return nil, nil, emptyInput(file)
		}
		return nil, nil, inputError(file, err)
	}
	return capt, script, nil
}

// serveControlUI serves a Control UI build (the gateway's dist/control-ui) as
// static files, with index.html for every path that is not a file, as a
// single-page app expects.
func serveControlUI(dir string) (http.Handler, error) {
	if _, err := os.Stat(filepath.Join(dir, "index.html")); err != nil {
		return nil, usageError("give the directory of a Control UI build, e.g. node_modules/openclaw/dist/control-ui", "--ui %s: no index.html there", dir)
	}
	root := http.Dir(dir)
	files := http.FileServer(root)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := path.Clean("/" + r.URL.Path)
		if fh, err := root.Open(p); err == nil {
			info, serr := fh.Stat()
			fh.Close()
			if serr == nil && (!info.IsDir() || p == "/") {
				files.ServeHTTP(w, r)
				return
			}
		}
		http.ServeFile(w, r, filepath.Join(dir, "index.html"))
	}), nil
}
