package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/serve"
	"github.com/gorilla/websocket"
	"github.com/spf13/cobra"
)

// serveOptions is a serve as the command line asks for it.
type serveOptions struct {
	listen    string
	conn      int
	speed     float64
	maxGap    time.Duration
	fast      bool
	loop      bool
	once      bool
	grace     time.Duration // with --once: requests answered after the stream
	lead      time.Duration // before the first frame after hello-ok
	fromStart bool          // every connection from the start
	tokenFile string
	guardFlags
	onSend       string
	handshake    time.Duration
	ui           string // a Control UI build to serve over HTTP
	reconnects   bool
	statusPeriod time.Duration
	verbose      bool
	format       string

	token    string // refused: secrets never come from argv
	graceSet bool   // --grace was given

	// Checked from the flags above.
	path       string // the capture; "-" is stdin
	listenAddr string // from listen: host:port
	// summary is the log's format on stderr: text lines, json (one object
	// a line: {"listening":…}, {"log":…}, {"summary":…}) or table (text
	// lines, the closing summary as a table).
	summary output.Format
}

func (a *app) serveCmd() *cobra.Command {
	var opts serveOptions
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

Every client gets its own stream from the start. A client that comes back
(known by its connect's client.instanceId or device.id, as the Control UI
and clawtap record send them) is not played the capture again: one that
left in the middle resumes where it left off, one that was sent it all gets
the handshake and answers only (--from-start plays every connection from
the start). --lead waits before the first frame, for a UI that mounts its
chat a few seconds after it connects. Two start-up requests of the Control
UI that a capture of another client never holds are answered from what the
capture shows, and the log says "synthesized": sessions.resolve for a
session it shows, and chat.startup (the session's transcript so far).

serve runs until SIGINT or SIGTERM (Ctrl-C: clients are closed with 1001,
exit 0; a second one aborts with exit 130) or, with --once, until the first
client has been sent the whole stream and --grace has passed, during which
requests are still answered (clients are then closed with 1000, exit 0).
docs/serve.md has the details and the limitations.`,
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

  # Give the UI 8 s to mount its chat before the first frame
  clawtap serve --lead 8s --ui node_modules/openclaw/dist/control-ui fixtures/streamed-run.jsonl.zst

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
				return cli.Usage("put it in a file for --token-file, or in CLAWTAP_TOKEN",
					"clawtap does not take a secret on the command line (it would show in ps and shell history)")
			}
			opts.path = args[0]
			opts.graceSet = cmd.Flags().Changed("grace")
			if err := opts.check(); err != nil {
				return err
			}
			return a.run(cli.DefaultMemory, func() error { return runServe(cmd.Context(), a.Env, opts) })
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.listen, "listen", "127.0.0.1:18789", "address to listen on: host:port, or :port or a port for loopback (0 picks a free one); another host is exposed to the network")
	fl.IntVar(&opts.conn, "conn", 0, "connection of the capture to serve (default: the first)")
	fl.Float64Var(&opts.speed, "speed", 1, "pacing factor: 2 plays twice as fast, 0.5 half as fast")
	fl.DurationVar(&opts.maxGap, "max-gap", 0, "longest wait between two frames, e.g. 2s (default: as recorded)")
	fl.BoolVar(&opts.fast, "as-fast-as-possible", false, "send frames without waiting")
	fl.BoolVar(&opts.loop, "loop", false, "start the capture over when it ends")
	fl.BoolVar(&opts.once, "once", false, "exit once the first client has been sent the whole stream and --grace has passed")
	fl.DurationVar(&opts.grace, "grace", serve.GraceDefault, "with --once: how long requests are still answered after the stream (and a client that left may come back) before serve exits")
	fl.DurationVar(&opts.lead, "lead", 0, "wait this long before the first frame after hello-ok, e.g. 8s for a UI that mounts its chat late")
	fl.BoolVar(&opts.fromStart, "from-start", false, "play every connection the capture from the start, a client that comes back too (default: it resumes where it left off)")
	fl.StringVar(&opts.token, "token", "", "refused: use --token-file or CLAWTAP_TOKEN")
	fl.StringVar(&opts.tokenFile, "token-file", "", "require the token in this file in connect's auth.token ('-' reads stdin; default $CLAWTAP_TOKEN)")
	opts.guardFlags.add(fl, "WebSocket upgrades")
	fl.StringVar(&opts.onSend, "on-send", "reply", "what a client's chat.send does: reply (answer from the capture) or next-run (play the next recorded run)")
	fl.DurationVar(&opts.handshake, "handshake-timeout", 15*time.Second, "time a client has to send connect")
	fl.BoolVar(&opts.reconnects, "reconnects", false, "end the connection as recorded (close code or drop) and give a client that reconnects the next recorded connection")
	fl.StringVar(&opts.ui, "ui", "", "also serve a Control UI build (a directory with index.html) over HTTP on the same address")
	fl.DurationVar(&opts.statusPeriod, "status-interval", 250*time.Millisecond, "refresh period of the status line on a terminal")
	fl.BoolVarP(&opts.verbose, "verbose", "v", false, "also log every client request and how it was answered")
	fl.StringVar(&opts.format, "format", "", "the log on stderr: text (default), json (one object a line) or table (the closing summary as a table)")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(output.Formats, cobra.ShellCompDirectiveNoFileComp))
	_ = fl.MarkHidden("status-interval")
	return cmd
}

// check checks the flags and sets the values runServe uses from them.
func (o *serveOptions) check() error {
	var err error
	if o.summary, err = output.ParseFormat(o.format); err != nil {
		return cli.Usage("use --format "+strings.Join(output.Formats, "|"), "%v", err)
	}
	if o.summary == "" {
		o.summary = output.Text
	}
	switch {
	case o.speed <= 0:
		return cli.Usage("use a positive factor, e.g. --speed 2 or --speed 0.5", "--speed must be more than 0, not %v", o.speed)
	case o.maxGap < 0:
		return cli.Usage("use a duration such as --max-gap 2s", "--max-gap cannot be negative")
	case o.conn < 0:
		return cli.Usage("connections are numbered from 1", "--conn cannot be negative")
	case o.onSend != string(serve.OnSendReply) && o.onSend != string(serve.OnSendNextRun):
		return cli.Usage("use --on-send reply or --on-send next-run", "unknown --on-send %q", o.onSend)
	case o.grace < 0 || o.lead < 0:
		return cli.Usage("use a duration such as --grace 5s or --lead 8s", "--grace and --lead cannot be negative")
	case o.graceSet && !o.once:
		return cli.Usage("add --once, or drop --grace", "--grace is how long --once keeps answering after the stream")
	case o.once && o.loop:
		return cli.Usage("drop --loop, or --once", "--once waits for the end of the stream, which --loop never reaches")
	case o.reconnects && o.loop:
		return cli.Usage("drop --loop, or --reconnects", "--reconnects ends the stream as recorded, which --loop never reaches")
	case o.path == "-" && o.tokenFile == "-":
		return cli.Usage("read the token from a file, or from CLAWTAP_TOKEN", "the capture and --token-file cannot both read stdin")
	}
	if o.listenAddr, _, err = serve.ListenAddress(o.listen); err != nil {
		return cli.Usage("e.g. --listen 127.0.0.1:18790, --listen :18790, or --listen 0.0.0.0:18789 to expose it", "--listen: %v", err)
	}
	if err := o.guardFlags.check(); err != nil {
		return err
	}
	return nil
}

// server turns opts into the server's options, reading the token and the
// Control UI.
func (o *serveOptions) server(env *cli.Env) (serve.Options, error) {
	so := serve.Options{
		Pacing:           serve.Pacing{Speed: o.speed, MaxGap: o.maxGap, Fast: o.fast},
		Loop:             o.loop,
		OnSend:           serve.OnSend(o.onSend),
		Once:             o.once,
		Grace:            o.grace,
		Lead:             o.lead,
		FromStart:        o.fromStart,
		Reconnects:       o.reconnects,
		HandshakeTimeout: o.handshake,
		LogRequests:      o.verbose,
		AllowOrigins:     o.origins,
		AllowHosts:       o.hosts,
	}
	var err error
	if o.tokenFile != "" {
		so.Token, err = env.ReadSecretFile("--token-file", o.tokenFile)
	} else {
		so.Token, _, err = env.SecretEnv("CLAWTAP_TOKEN")
	}
	if err != nil {
		return so, err
	}
	if o.ui != "" {
		h, err := serve.ControlUI(o.ui)
		if err != nil {
			return so, cli.Usage("give the directory of a Control UI build, e.g. node_modules/openclaw/dist/control-ui", "--ui %s: no index.html there", o.ui)
		}
		so.HTTP, so.ConfiguredUI = h, true
	}
	return so, nil
}

// runServe serves the capture until a signal or ctx ends it, or with
// --once the end of the stream: it opens the capture and the listener,
// runs a serve.Server with a status line on a terminal, and says what
// was served.
func runServe(ctx context.Context, env *cli.Env, opts serveOptions) error {
	listen := opts.listenAddr
	srvOpts, err := opts.server(env)
	if err != nil {
		return err
	}
	status := serve.NewStatusLine(env.Stderr, !env.Quiet && env.IsTerminal(env.Stderr))
	warnf := func(format string, args ...any) {
		if !env.Quiet {
			status.Println("clawtap: warning: " + fmt.Sprintf(format, args...))
		}
	}
	capt, script, err := openServeCapture(env, opts.path, opts.conn, opts.reconnects, warnf)
	if err != nil {
		return err
	}
	defer capt.Close()
	if script.Hello == nil {
		env.Warnf("the capture has no hello-ok; clients get a minimal one")
	}

	ctx, aborted, stopSignals := cli.Interrupts(ctx, nil)
	defer stopSignals()

	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return cli.Trouble(fmt.Errorf("listen on %s: %w", listen, err), "is a gateway (or another clawtap serve) on that port? pick another with --listen :18790")
	}
	addr := ln.Addr().String()
	if host, _, err := net.SplitHostPort(addr); err == nil {
		if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
			what := "use --token-file"
			if srvOpts.Token != "" {
				what = "the token is all that keeps them out"
			}
			env.Warnf("listening on %s, not loopback: anyone who can reach it can read the capture (%s)", addr, what)
		}
	}

	// logLine prints one line of the log: a message, or in json an object.
	logLine := func(text string, key string, fields []output.Field) {
		if env.Quiet {
			return
		}
		if opts.summary != output.JSON {
			status.Println(text)
			return
		}
		var b strings.Builder
		_ = output.Summary(&b, output.JSON, key, "", fields)
		status.Println(strings.TrimSuffix(b.String(), "\n"))
	}
	srvOpts.Logf = func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		logLine("clawtap: "+msg, "log", []output.Field{{Key: "message", Value: msg}})
	}
	srv := serve.New(script, srvOpts)
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, ErrorLog: nil}
	serveErr := make(chan error, 1)
	go func() { serveErr <- hs.Serve(ln) }()

	name := filepath.Base(opts.path)
	if opts.path == "-" {
		name = "stdin"
	}
	listening := []output.Field{{Key: "capture", Value: name}, {Key: "url", Value: "ws://" + addr + "/"}}
	if srvOpts.HTTP != nil {
		listening = append(listening, output.Field{Key: "controlUI", Value: "http://" + addr + "/"})
	}
	logLine(fmt.Sprintf("clawtap: serving %s on ws://%s/", name, addr), "listening", listening)
	if srvOpts.HTTP != nil && opts.summary != output.JSON {
		logLine(fmt.Sprintf("clawtap: Control UI: http://%s/", addr), "", nil)
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
		d := serve.Describe(script, srvOpts)
		logLine("clawtap: "+d, "capture", []output.Field{{Key: "description", Value: d}})
		if err := capt.Err(); err != nil {
			warnf("%s: %v", name, err)
		}
		env.HiddenWarnings(cli.DisplayName(opts.path)) // openServeCapture's name for the input
		env.ReadSummary(name, capt.Stats())
		if script.Frames() == 0 {
			warnf("connection %d has no gateway frames to stream; clients get the handshake and answers only", script.Conn)
		}
		if srvOpts.OnSend == serve.OnSendNextRun && script.Sends() == 0 {
			warnf("--on-send next-run: the capture has no chat.send, so nothing waits for one")
		}
	}()

	stopStatus := status.Run(opts.statusPeriod, func() string { return serve.StatusText(name, srv.Stats()) })

	var result error
	code, reason := websocket.CloseGoingAway, "clawtap serve is shutting down"
	interrupt := ctx.Done() // what aborts the shutdown: the next signal
	select {
	case <-ctx.Done():
		close(stopSummary)
		interrupt = aborted
	case <-srv.Done():
		code, reason = websocket.CloseNormalClosure, "end of capture"
	case err := <-serveErr:
		close(stopSummary)
		result = cli.Trouble(fmt.Errorf("serve: %w", err), "")
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
	case <-interrupt:
		return &cli.Error{Code: cli.ExitInterrupted, Err: errors.New("interrupted during shutdown")}
	}
	stats := srv.Stats()
	if !env.Quiet {
		_ = output.Summary(env.Stderr, opts.summary, "summary", fmt.Sprintf("clawtap: served %d client(s), %d frame(s)%s", stats.Total, stats.Sent, rejectedNote(stats.Rejected)),
			[]output.Field{{Key: "clients", Label: "clients", Value: stats.Total}, {Key: "frames", Label: "frames sent", Value: stats.Sent}, {Key: "rejected", Label: "turned away", Value: stats.Rejected}})
	}
	return result
}

func rejectedNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("; %d client(s) turned away during the handshake", n)
}

// openServeCapture opens the capture ("-" for stdin, which is first copied to
// a private temporary file, as serve reads it again for every client) and
// returns the script of the connection to serve, as soon as the pre-pass
// has read its hello. The reader's warnings go to warnf.
func openServeCapture(env *cli.Env, file string, conn int, reconnects bool, warnf func(string, ...any)) (*serve.Capture, *serve.Script, error) {
	name := file
	var src *serve.Source
	var err error
	if file == "-" {
		name = "stdin"
		if err := env.CheckStdin("clawtap serve", file); err != nil {
			return nil, nil, err
		}
		src, err = serve.SpoolSource(env.Stdin)
	} else {
		src, err = serve.OpenSource(file)
	}
	if err != nil {
		return nil, nil, cli.InputError(file, err)
	}
	capt, err := serve.Open(src, env.CaptureWarnings(name, warnf))
	if err != nil {
		src.Close()
		return nil, nil, cli.InputError(file, err)
	}
	script, err := capt.Script(serve.LoadOptions{Conn: conn, Reconnects: reconnects})
	if err != nil {
		capt.Close()
		switch {
		case strings.HasPrefix(err.Error(), "capture has no connection"):
			return nil, nil, cli.Usage("pick one of the capture's connections with --conn", "%v", err)
		case errors.Is(err, serve.ErrEmpty):
			return nil, nil, cli.EmptyInput(file)
		}
		return nil, nil, cli.InputError(file, err)
	}
	return capt, script, nil
}
