// Package servecli runs 'clawtap serve': it checks the command line's
// settings, opens the capture and the listener, runs a serve.Server with
// a status line on a terminal until a signal or --once ends it, and says
// what was served.
package servecli

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
)

// Config is a serve as the command line asks for it.
type Config struct {
	File         string // the capture; "-" is stdin
	Listen       string
	Conn         int
	Speed        float64
	MaxGap       time.Duration
	Fast         bool
	Loop         bool
	Once         bool
	TokenFile    string
	AllowOrigins []string
	OnSend       string
	Handshake    time.Duration
	UI           string // a Control UI build to serve over HTTP
	Reconnects   bool
	StatusPeriod time.Duration
	Verbose      bool
	// Format is the log's on stderr: text lines, json (one object a line:
	// {"listening":…}, {"log":…}, {"summary":…}) or table (text lines, the
	// closing summary as a table).
	Format output.Format
}

func (c *Config) check() error {
	switch {
	case c.Speed <= 0:
		return cli.Usage("use a positive factor, e.g. --speed 2 or --speed 0.5", "--speed must be more than 0, not %v", c.Speed)
	case c.MaxGap < 0:
		return cli.Usage("use a duration such as --max-gap 2s", "--max-gap cannot be negative")
	case c.Conn < 0:
		return cli.Usage("connections are numbered from 1", "--conn cannot be negative")
	case c.OnSend != string(serve.OnSendReply) && c.OnSend != string(serve.OnSendNextRun):
		return cli.Usage("use --on-send reply or --on-send next-run", "unknown --on-send %q", c.OnSend)
	case c.Once && c.Loop:
		return cli.Usage("drop --loop, or --once", "--once waits for the end of the stream, which --loop never reaches")
	case c.Reconnects && c.Loop:
		return cli.Usage("drop --loop, or --reconnects", "--reconnects ends the stream as recorded, which --loop never reaches")
	case c.File == "-" && c.TokenFile == "-":
		return cli.Usage("read the token from a file, or from CLAWTAP_TOKEN", "the capture and --token-file cannot both read stdin")
	}
	return nil
}

// options turns c into the server's options, reading the token and the
// Control UI.
func (c *Config) options(env *cli.Env) (serve.Options, error) {
	o := serve.Options{
		Pacing:           serve.Pacing{Speed: c.Speed, MaxGap: c.MaxGap, Fast: c.Fast},
		Loop:             c.Loop,
		OnSend:           serve.OnSend(c.OnSend),
		Once:             c.Once,
		Reconnects:       c.Reconnects,
		HandshakeTimeout: c.Handshake,
		LogRequests:      c.Verbose,
	}
	for _, s := range c.AllowOrigins {
		norm, err := serve.ParseOrigin(s)
		if err != nil {
			return o, cli.Usage("give the origin the browser shows for the page, e.g. --allow-origin http://192.168.1.20:5173", "--allow-origin: %v", err)
		}
		o.AllowOrigins = append(o.AllowOrigins, norm)
	}
	o.Token = strings.TrimSpace(env.Getenv("CLAWTAP_TOKEN"))
	if c.TokenFile != "" {
		var err error
		if o.Token, err = env.ReadSecretFile("--token-file", c.TokenFile); err != nil {
			return o, err
		}
	}
	if c.UI != "" {
		h, err := serve.ControlUI(c.UI)
		if err != nil {
			return o, cli.Usage("give the directory of a Control UI build, e.g. node_modules/openclaw/dist/control-ui", "--ui %s: no index.html there", c.UI)
		}
		o.HTTP, o.ConfiguredUI = h, true
	}
	return o, nil
}

// Run serves c.File until a signal or ctx ends it, or with --once the end
// of the stream.
func Run(ctx context.Context, env *cli.Env, c Config) error {
	if err := c.check(); err != nil {
		return err
	}
	listen, _, err := serve.ListenAddress(c.Listen)
	if err != nil {
		return cli.Usage("e.g. --listen 127.0.0.1:18790, --listen :18790, or --listen 0.0.0.0:18789 to expose it", "--listen: %v", err)
	}
	opts, err := c.options(env)
	if err != nil {
		return err
	}
	status := serve.NewStatusLine(env.Stderr, !env.Quiet && env.IsTerminal(env.Stderr))
	warnf := func(format string, args ...any) {
		if !env.Quiet {
			status.Println("clawtap: warning: " + fmt.Sprintf(format, args...))
		}
	}
	capt, script, err := openCapture(env, c.File, c.Conn, c.Reconnects, warnf)
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
			if opts.Token != "" {
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
		if c.Format != output.JSON {
			status.Println(text)
			return
		}
		var b strings.Builder
		_ = output.Summary(&b, output.JSON, key, "", fields)
		status.Println(strings.TrimSuffix(b.String(), "\n"))
	}
	opts.Logf = func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		logLine("clawtap: "+msg, "log", []output.Field{{Key: "message", Value: msg}})
	}
	srv := serve.New(script, opts)
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, ErrorLog: nil}
	serveErr := make(chan error, 1)
	go func() { serveErr <- hs.Serve(ln) }()

	name := filepath.Base(c.File)
	if c.File == "-" {
		name = "stdin"
	}
	listening := []output.Field{{Key: "capture", Value: name}, {Key: "url", Value: "ws://" + addr + "/"}}
	if opts.HTTP != nil {
		listening = append(listening, output.Field{Key: "controlUI", Value: "http://" + addr + "/"})
	}
	logLine(fmt.Sprintf("clawtap: serving %s on ws://%s/", name, addr), "listening", listening)
	if opts.HTTP != nil && c.Format != output.JSON {
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
		d := serve.Describe(script, opts)
		logLine("clawtap: "+d, "capture", []output.Field{{Key: "description", Value: d}})
		if err := capt.Err(); err != nil {
			warnf("%s: %v", name, err)
		}
		env.HiddenWarnings(cli.DisplayName(c.File)) // openCapture's name for the input
		env.ReadSummary(name, capt.Stats())
		if script.Frames() == 0 {
			warnf("connection %d has no gateway frames to stream; clients get the handshake and answers only", script.Conn)
		}
		if opts.OnSend == serve.OnSendNextRun && script.Sends() == 0 {
			warnf("--on-send next-run: the capture has no chat.send, so nothing waits for one")
		}
	}()

	stopStatus := status.Run(c.StatusPeriod, func() string { return serve.StatusText(name, srv.Stats()) })

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
		_ = output.Summary(env.Stderr, c.Format, "summary", fmt.Sprintf("clawtap: served %d client(s), %d frame(s)%s", stats.Total, stats.Sent, rejectedNote(stats.Rejected)),
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

// openCapture opens the capture ("-" for stdin, which is first copied to
// a private temporary file, as serve reads it again for every client) and
// returns the script of the connection to serve, as soon as the pre-pass
// has read its hello. The reader's warnings go to warnf.
func openCapture(env *cli.Env, file string, conn int, reconnects bool, warnf func(string, ...any)) (*serve.Capture, *serve.Script, error) {
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
