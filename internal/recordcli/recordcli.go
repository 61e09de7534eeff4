// Package recordcli runs 'clawtap record': it turns the command line's
// settings into a record.Recorder, its output, credentials and limits,
// runs it until a signal, a limit or the gateway ends it, and turns the
// outcome into the summary and the exit code the command documents.
package recordcli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/gateway"
	"github.com/clawtap/clawtap/pkg/human"
	"github.com/clawtap/clawtap/pkg/record"
)

// Config is a recording as the command line asks for it.
type Config struct {
	Version string // clawtap's, for the header and the handshake

	Out   string // the capture; "-" is stdout, "" a name from the time
	Force bool
	URL   string // --url; "" is $OPENCLAW_GATEWAY_URL or the default

	// Direct mode: credentials and the device identity.
	TokenFile, PasswordFile string
	IdentityDir             string
	NoDevice                bool
	Scopes                  string // comma-separated
	SubscribeSessions       bool
	NoReconnect             bool

	// Redaction.
	RedactContent, NoRedact bool
	SaltFile                string

	// Limits.
	Duration      time.Duration
	MaxFrames     int64
	MaxBytes      int64 // 0: none
	FlushInterval time.Duration

	// Proxy mode, when Listen is set.
	Listen, Upstream string
	ProxyBuffer      int64

	// Format is the closing summary's: text (a sentence), json or table,
	// on stderr (stdout may carry the capture).
	Format output.Format
}

// errDuration is why a recording's context ended at --duration.
var errDuration = errors.New("--duration reached")

// ParseSize reads a size flag: empty is none, zero is refused.
func ParseSize(flag, s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	n, err := output.ParseSize(s)
	if err == nil && n == 0 {
		err = fmt.Errorf("%s must be more than 0", flag)
	}
	if err != nil {
		return 0, cli.Usage("e.g. "+flag+" 50MB (50×10^6 bytes) or 50MiB (50×2^20)", "%s: %v", flag, err)
	}
	return n, nil
}

// Run records as c says until a signal, a limit, the gateway or ctx ends
// it. The command line checked c's flags, and parsed its sizes, already.
func Run(ctx context.Context, env *cli.Env, c Config) error {
	var err error
	proxyMode := c.Listen != ""
	gwURL := c.URL
	if gwURL == "" {
		gwURL = env.Getenv("OPENCLAW_GATEWAY_URL")
	}
	if proxyMode && c.Upstream != "" {
		gwURL = c.Upstream
	}
	if gwURL, err = gateway.NormalizeURL(gwURL); err != nil {
		return cli.Usage("e.g. --url ws://127.0.0.1:18789", "%v", err)
	}

	// Everything that can fail on the user's input fails before the
	// output is opened.
	var dopts gateway.Options
	var ln net.Listener
	if proxyMode {
		if ln, err = listen(env, c.Listen); err != nil {
			return err
		}
		defer ln.Close()
	} else if dopts, err = DialOptions(env, c); err != nil {
		return err
	}
	redaction, err := Redaction(c)
	if err != nil {
		return err
	}
	path := c.Out
	if path == "" {
		path = "clawtap-" + time.Now().Format("20060102-150405") + ".jsonl.zst"
	}
	out, w, err := openOutput(env, path, c.Force)
	if err != nil {
		return err
	}

	st := &StatusLine{W: env.Stderr, Quiet: env.Quiet, Live: !env.Quiet && env.IsTerminal(env.Stderr), Color: env.UseColor(env.Stderr)}
	rec := &record.Recorder{
		Capture: w, Tool: "clawtap " + c.Version, Redaction: redaction,
		MaxFrames: c.MaxFrames, MaxBytes: c.MaxBytes, FlushInterval: c.FlushInterval,
		OnHandshake: out.Publish, Logf: st.Infof, Warnf: st.Warnf,
	}
	if c.FlushInterval <= 0 {
		rec.FlushInterval = -1 // only at markers
	}
	ctx, aborted, stopSignals := cli.Interrupts(ctx, func(s os.Signal) {
		st.Infof("%s: stopping; finishing %s (again to abort)", s, out.Name())
	})
	defer stopSignals()
	// A reader of stdout that goes away (| head) is a write error, not a
	// SIGPIPE that kills the process.
	pipec := make(chan os.Signal, 1)
	signal.Notify(pipec, syscall.SIGPIPE)
	defer signal.Stop(pipec)
	if c.Duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, c.Duration, errDuration)
		defer cancel()
	}

	bg, bgStop := context.WithCancel(context.Background())
	statusDone := make(chan struct{})
	go func() { st.Run(bg, 500*time.Millisecond, rec.Stats); close(statusDone) }()
	if proxyMode {
		st.Infof("proxy listening on ws://%s → %s; recording to %s", ln.Addr(), gateway.SafeURL(gwURL), out.Name())
	} else {
		st.Infof("recording %s to %s (Ctrl-C stops)", gateway.SafeURL(gwURL), out.Name())
	}
	started := time.Now()
	errc := make(chan error, 1)
	go func() {
		if proxyMode {
			errc <- rec.Proxy(ctx, record.Proxy{Listener: ln, Upstream: gwURL, Buffer: c.ProxyBuffer})
		} else {
			errc <- rec.Record(ctx, record.Direct{URL: gwURL, Options: dopts, SubscribeSessions: c.SubscribeSessions, NoReconnect: c.NoReconnect})
		}
	}()
	var runErr error
	select {
	case runErr = <-errc:
	case <-aborted:
		rec.Abort()
		bgStop()
		<-statusDone
		out.Abort()
		if out.Published() {
			return &cli.Error{Code: cli.ExitInterrupted, Err: fmt.Errorf("aborted; %s is readable up to the last flush", out.Name())}
		}
		return &cli.Error{Code: cli.ExitInterrupted, Err: errors.New("aborted before the gateway was reached; no capture written")}
	}
	bgStop()
	<-statusDone
	return finish(end{
		out: out, runErr: runErr, closeErr: w.Close(), stats: rec.Stats(), cause: context.Cause(ctx),
		elapsed: time.Since(started), proxy: proxyMode, url: gateway.SafeURL(gwURL), status: st, format: c.Format,
	})
}

// openOutput opens path under clawtap's output rules ("-" is standard
// output) and a capture writer on it, zstd-compressed when a file's name
// ends in .zst. Standard output, a pipe or a device holds the bytes in
// memory until the handshake; a file holds them under its temporary name.
func openOutput(env *cli.Env, path string, force bool) (*record.Output, *capture.Writer, error) {
	special := false
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		special = true
	}
	dest, err := output.Create(path, output.Options{Force: force, Stdout: env.Stdout})
	switch {
	case errors.Is(err, output.ErrExists):
		return nil, nil, cli.Usage("choose another name or add --force", "%s already exists", path)
	case err != nil:
		return nil, nil, cli.Usage("check the directory exists and is writable", "create %s: %v", path, err)
	}
	o := record.NewOutput(dest, dest.IsStdout() || special)
	w, err := capture.NewWriter(o, !dest.IsStdout() && strings.HasSuffix(path, ".zst"))
	if err != nil {
		dest.Abort()
		return nil, nil, &cli.Error{Code: cli.ExitTrouble, Err: err}
	}
	return o, w, nil
}

// listen opens proxy mode's listener, loopback unless a host is named.
func listen(env *cli.Env, addr string) (net.Listener, error) {
	addr, loop, err := record.ResolveListen(addr)
	if err != nil {
		return nil, cli.Usage("e.g. --listen 127.0.0.1:18790", "--listen: %v", err)
	}
	if !loop {
		env.Warnf("listening on %s, which is not loopback: anyone who can reach it can talk to your gateway through clawtap", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, cli.Usage("pick a free port with --listen", "listen on %s: %v", addr, err)
	}
	return ln, nil
}

// end is what finish decides from.
type end struct {
	out      *record.Output
	runErr   error // what the recorder returned
	closeErr error // finishing the capture stream
	stats    record.Stats
	cause    error // why the recording's context ended, if it did
	elapsed  time.Duration
	proxy    bool
	url      string
	status   *StatusLine
	format   output.Format
}

// finish keeps or drops the output and turns the outcome into an exit
// code: a capture that never reached the gateway is dropped (exit 2); a
// reader of stdout that went away ends quietly (exit 0).
func finish(e end) error {
	out, s := e.out, e.stats
	ioErr := e.runErr
	if ioErr == nil || !record.IsWriteError(ioErr) && !cli.IsBrokenPipe(ioErr) {
		ioErr = e.closeErr
	}
	switch {
	case ioErr != nil && cli.IsBrokenPipe(ioErr):
		out.Abort()
		e.status.Infof("%s was closed by its reader; stopped after %s frames", out.Name(), human.Thousands(s.Frames))
		return nil
	case ioErr != nil:
		out.Abort()
		return &cli.Error{Code: cli.ExitTrouble, Err: fmt.Errorf("writing %s: %w", out.Name(), ioErr), Hint: "check free disk space and permissions"}
	case errors.Is(e.runErr, output.ErrExists):
		out.Abort()
		return cli.Usage("choose another name or add --force", "%s appeared while recording; not replaced", out.Name())
	case s.Opened == 0:
		out.Abort()
		return notReached(e)
	}
	if err := out.Commit(); err != nil {
		return &cli.Error{Code: cli.ExitTrouble, Err: fmt.Errorf("writing %s: %w", out.Name(), err), Hint: "check free disk space and permissions"}
	}
	why, stop := "", "stopped"
	switch {
	case s.LimitHit:
		why, stop = " (limit reached)", "limit"
	case errors.Is(e.cause, errDuration):
		why, stop = " (--duration reached)", "duration"
	}
	// Connections that never opened (attempts while the gateway was away)
	// are counted apart: they hold no frames.
	failed := ""
	if n := s.Conns - s.Opened; n > 0 {
		failed = fmt.Sprintf(" (and %s that failed)", human.Count(n, "attempt", "attempts"))
	}
	e.status.Summary(e.format, fmt.Sprintf("clawtap: recorded %s frames (%s) over %d connection(s)%s in %s to %s%s", human.Thousands(s.Frames), output.FormatSize(s.Bytes),
		s.Opened, failed, e.elapsed.Round(100*time.Millisecond), out.Name(), why), []output.Field{
		{Key: "output", Label: "output", Value: out.Name()},
		{Key: "frames", Label: "frames", Value: s.Frames},
		{Key: "bytes", Label: "bytes", Value: s.Bytes},
		{Key: "connections", Label: "connections", Value: s.Opened},
		{Key: "failedAttempts", Label: "failed attempts", Value: s.Conns - s.Opened},
		{Key: "elapsedMs", Label: "elapsed (ms)", Value: e.elapsed.Milliseconds()},
		{Key: "stop", Label: "ended by", Value: stop},
		{Key: "gaps", Label: "seq gaps", Value: s.Gaps},
		{Key: "oversize", Label: "oversize messages", Value: s.Oversize},
	})
	if s.Gaps > 0 {
		e.status.Warnf("the gateway's frame seq skipped %d time(s): frames were lost before they reached clawtap", s.Gaps)
	}
	if s.Oversize > 0 {
		e.status.Warnf("%d message(s) longer than --proxy-buffer were forwarded but not recorded (oversize markers in the capture)", s.Oversize)
	}
	return runError(e.runErr)
}

// notReached is the error of a recording that never opened a connection
// to the gateway.
func notReached(e end) error {
	if e.runErr != nil {
		return runError(e.runErr)
	}
	if e.proxy && e.stats.Conns > 0 {
		return cli.Usage("check that the gateway runs at --upstream", "no client reached the gateway at %s through the proxy; no capture written", e.url)
	}
	if e.proxy {
		return cli.Usage("point a client at the proxy's address", "no client connected through the proxy; no capture written")
	}
	return cli.Usage("check that the gateway runs at --url (openclaw gateway run)", "stopped before the gateway at %s was reached; no capture written", e.url)
}

func runError(err error) error {
	if err == nil {
		return nil
	}
	var ge *gateway.Error
	if errors.As(err, &ge) {
		return &cli.Error{Code: cli.ExitTrouble, Err: ge, Hint: ge.Hint()}
	}
	return &cli.Error{Code: cli.ExitTrouble, Err: err}
}
