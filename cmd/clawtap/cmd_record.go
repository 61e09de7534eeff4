package main

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

	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/gateway"
	"github.com/clawtap/clawtap/pkg/record"
	"github.com/spf13/cobra"
)

type recordFlags struct {
	out               string
	url               string
	tokenFile         string
	passwordFile      string
	identityDir       string
	noDevice          bool
	scopes            string
	subscribeSessions bool
	redactContent     bool
	noRedact          bool
	noReconnect       bool
	duration          time.Duration
	maxFrames         int64
	maxBytes          string
	flushInterval     time.Duration
	listen            string
	upstream          string
	proxyBuffer       string
	force             bool
	saltFile          string

	// Refused: secrets never come from argv.
	token, password string
}

func (a *app) recordCmd() *cobra.Command {
	var f recordFlags
	cmd := &cobra.Command{
		Use:   "record",
		Short: "Record a gateway's WebSocket frames into a redacted capture",
		Long: `record connects to an OpenClaw gateway and writes every frame, in both
directions and with its receive time, into a capture: a header, then one
JSON line per frame, plus open/hello/close/error markers at connection
boundaries. A name ending in .zst is zstd-compressed; '-o -' writes plain
JSON Lines to stdout. An existing file is replaced only with --force.

Credentials are redacted before anything touches disk: auth tokens,
passwords, device signatures and nonces, device tokens, capability URLs and
secrets in results become a fixed marker. --redact-content also replaces
message text, tool args and results and attachments with stable
placeholders and pseudonymises device ids, hosts and paths. --no-redact
turns all of it off and must be spelled out.

Authentication: the gateway's token from --token-file or
OPENCLAW_GATEWAY_TOKEN, or its password from --password-file or
OPENCLAW_GATEWAY_PASSWORD; never from the command line. clawtap also signs
in with its own Ed25519 device identity, created once under --identity-dir,
and reuses the device token the gateway hands out.

The file appears (mode 0600) once the first handshake succeeded and is
flushed every --flush-interval and at every marker, so a recorder that is
killed leaves a readable capture. A recording that never reached the
gateway leaves no file. SIGINT or SIGTERM stops recording, finishes the
file and exits 0; a second one aborts at once with exit 130. When the
gateway goes away (shutdown, close 1012, lost network) record reconnects
with capped exponential backoff; each connection gets a new conn number.
--duration, --max-frames and --max-bytes stop cleanly. Sizes: 50MB is
50×10^6 bytes, 50MiB 50×2^20. With '-o -', a reader that goes away
(| head) ends the recording quietly with exit 0.

Proxy mode (--listen): clients such as the Control UI or Studio connect to
clawtap instead of the gateway; each client connection is relayed to
--upstream and recorded as its own conn, both directions exactly as the
client saw them. The client does its own handshake. The listen address is
loopback unless you name another host explicitly. A message longer than
--proxy-buffer is forwarded as it arrives, never held whole, and recorded
as an oversize marker with its size instead of its content.

Exit codes: 0 recording finished (stopped, limit reached, or the gateway
closed with --no-reconnect); 2 usage, I/O, a gateway never reached, or a
handshake the gateway refused (wrong token, pairing required, ...: one line
saying what to do); 130 aborted by a second signal.`,
		Example: `  # Record the local gateway until Ctrl-C
  OPENCLAW_GATEWAY_TOKEN=$(openclaw config get gateway.auth.token) clawtap record -o session.jsonl.zst

  # Token from a file, one minute, also see session.tool via sessions.subscribe
  clawtap record --token-file ~/.openclaw/token --duration 1m --subscribe-sessions -o cap.jsonl.zst

  # Share-safe: also replace message text, tool args/results and attachments
  clawtap record --redact-content -o bug-1234.jsonl.zst

  # Live JSON Lines to another tool
  clawtap record -o - | jq -c 'select(.frame.event=="chat")'

  # Proxy: point the Control UI or Studio at ws://127.0.0.1:18790
  clawtap record --listen 127.0.0.1:18790 --upstream ws://127.0.0.1:18789 -o ui.jsonl.zst`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runRecord(cmd, &f)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.out, "out", "o", "", "capture file (.zst compresses; '-' is plain JSON Lines on stdout; default clawtap-<time>.jsonl.zst)")
	fl.StringVar(&f.url, "url", "", "gateway WebSocket URL (default $OPENCLAW_GATEWAY_URL or "+gateway.DefaultURL+")")
	fl.StringVar(&f.tokenFile, "token-file", "", "file holding the gateway token ('-' reads stdin; default $OPENCLAW_GATEWAY_TOKEN)")
	fl.StringVar(&f.passwordFile, "password-file", "", "file holding the gateway password ('-' reads stdin; default $OPENCLAW_GATEWAY_PASSWORD)")
	fl.StringVar(&f.identityDir, "identity-dir", "", "where the device identity and device tokens live (default $CLAWTAP_IDENTITY_DIR or <user config dir>/clawtap)")
	fl.BoolVar(&f.noDevice, "no-device", false, "connect without a device identity (token only; accepted by local gateways for cli clients)")
	fl.StringVar(&f.scopes, "scopes", strings.Join(gateway.DefaultScopes, ","), "operator scopes to ask for, comma-separated")
	fl.BoolVar(&f.subscribeSessions, "subscribe-sessions", false, "call sessions.subscribe so session.tool and sessions.changed are recorded too")
	fl.BoolVar(&f.redactContent, "redact-content", false, "also replace message text, tool args/results and attachments with stable placeholders")
	fl.BoolVar(&f.noRedact, "no-redact", false, "write frames as received, credentials included")
	fl.StringVar(&f.saltFile, "salt-file", "", "key for --redact-content's placeholders and pseudonyms (same key, same placeholders across captures; default: random per capture)")
	fl.BoolVar(&f.noReconnect, "no-reconnect", false, "stop when the gateway closes the connection instead of reconnecting")
	fl.DurationVar(&f.duration, "duration", 0, "stop after this long (e.g. 30s, 5m)")
	fl.Int64Var(&f.maxFrames, "max-frames", 0, "stop after this many frames")
	fl.StringVar(&f.maxBytes, "max-bytes", "", "stop before the frames recorded exceed this size (50MB = 50×10^6 bytes, 50MiB = 50×2^20)")
	fl.DurationVar(&f.flushInterval, "flush-interval", record.DefaultFlushInterval, "how often buffered frames are flushed to disk (what a crash can lose)")
	fl.StringVar(&f.listen, "listen", "", "proxy mode: accept clients on this address (host:port; loopback unless a host is named)")
	fl.StringVar(&f.upstream, "upstream", "", "proxy mode: the gateway to relay to (default: --url)")
	fl.StringVar(&f.proxyBuffer, "proxy-buffer", "64MiB", "proxy mode: the most held of one message per direction of a connection; a longer one is forwarded as it arrives and recorded as an oversize marker")
	fl.BoolVar(&f.force, "force", false, "replace an existing capture file")
	fl.StringVar(&f.token, "token", "", "refused: use --token-file or OPENCLAW_GATEWAY_TOKEN")
	fl.StringVar(&f.password, "password", "", "refused: use --password-file or OPENCLAW_GATEWAY_PASSWORD")
	_ = fl.MarkHidden("token")
	_ = fl.MarkHidden("password")
	return cmd
}

// Why a recording's context ended, as record's summary says it.
var (
	errRecordSignal   = errors.New("signal")
	errRecordDuration = errors.New("--duration reached")
)

// recordSize reads a size flag: empty is none, zero is refused.
func recordSize(flag, s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	n, err := output.ParseSize(s)
	if err == nil && n == 0 {
		err = fmt.Errorf("%s must be more than 0", flag)
	}
	if err != nil {
		return 0, usageError("e.g. "+flag+" 50MB (50×10^6 bytes) or 50MiB (50×2^20)", "%s: %v", flag, err)
	}
	return n, nil
}

func (a *app) runRecord(cmd *cobra.Command, f *recordFlags) error {
	fl := cmd.Flags()
	if fl.Changed("token") || fl.Changed("password") {
		return usageError("put it in a file for --token-file/--password-file, or in OPENCLAW_GATEWAY_TOKEN/OPENCLAW_GATEWAY_PASSWORD",
			"clawtap does not take a secret on the command line (it would show in ps and shell history)")
	}
	if f.noRedact && f.redactContent {
		return usageError("choose one", "--no-redact and --redact-content contradict each other")
	}
	if f.maxFrames < 0 || f.duration < 0 {
		return usageError("use a positive value", "--max-frames and --duration must be positive")
	}
	maxBytes, err := recordSize("--max-bytes", f.maxBytes)
	if err != nil {
		return err
	}
	proxyBuffer, err := recordSize("--proxy-buffer", f.proxyBuffer)
	if err != nil {
		return err
	}
	proxyMode := f.listen != ""
	if !proxyMode && (fl.Changed("upstream") || fl.Changed("proxy-buffer")) {
		return usageError("add --listen ADDR to run a proxy", "--upstream and --proxy-buffer only make sense with --listen")
	}
	if proxyMode {
		for _, name := range []string{"token-file", "password-file", "subscribe-sessions", "no-device", "scopes", "identity-dir", "no-reconnect"} {
			if fl.Changed(name) {
				return usageError("in proxy mode the client that connects through clawtap authenticates itself",
					"--%s does not apply with --listen", name)
			}
		}
	}
	gwURL := f.url
	if gwURL == "" {
		gwURL = a.getenv("OPENCLAW_GATEWAY_URL")
	}
	if proxyMode && f.upstream != "" {
		gwURL = f.upstream
	}
	if gwURL, err = gateway.NormalizeURL(gwURL); err != nil {
		return usageError("e.g. --url ws://127.0.0.1:18789", "%v", err)
	}

	// Everything that can fail on the user's input fails before the
	// output is opened.
	var dopts gateway.Options
	var ln net.Listener
	if proxyMode {
		if ln, err = a.recordListen(f.listen); err != nil {
			return err
		}
		defer ln.Close()
	} else if dopts, err = a.recordDialOptions(f); err != nil {
		return err
	}
	redaction, err := recordRedaction(f)
	if err != nil {
		return err
	}
	path := f.out
	if path == "" {
		path = "clawtap-" + time.Now().Format("20060102-150405") + ".jsonl.zst"
	}
	out, w, err := a.openRecordOutput(path, f.force)
	if err != nil {
		return err
	}

	st := &recStatusLine{w: a.stderr, quiet: a.quiet, live: !a.quiet && a.isTerminal(a.stderr), color: a.useColor(a.stderr)}
	rec := &record.Recorder{
		Capture: w, Tool: "clawtap " + version, Redaction: redaction,
		MaxFrames: f.maxFrames, MaxBytes: maxBytes, FlushInterval: f.flushInterval,
		OnHandshake: out.publish, Logf: st.info, Warnf: st.warn,
	}
	if f.flushInterval <= 0 {
		rec.FlushInterval = -1 // only at markers
	}
	ctx, aborted, stopSignals := recordSignals(func(s os.Signal) {
		st.info("%s: stopping; finishing %s (again to abort)", s, out.name())
	})
	defer stopSignals()
	// A reader of stdout that goes away (| head) is a write error, not a
	// SIGPIPE that kills the process.
	pipec := make(chan os.Signal, 1)
	signal.Notify(pipec, syscall.SIGPIPE)
	defer signal.Stop(pipec)
	if f.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, f.duration, errRecordDuration)
		defer cancel()
	}

	bg, bgStop := context.WithCancel(context.Background())
	statusDone := make(chan struct{})
	go func() { st.loop(bg, 500*time.Millisecond, rec.Stats); close(statusDone) }()
	if proxyMode {
		st.info("proxy listening on ws://%s → %s; recording to %s", ln.Addr(), gateway.SafeURL(gwURL), out.name())
	} else {
		st.info("recording %s to %s (Ctrl-C stops)", gateway.SafeURL(gwURL), out.name())
	}
	started := time.Now()
	errc := make(chan error, 1)
	go func() {
		if proxyMode {
			errc <- rec.Proxy(ctx, record.Proxy{Listener: ln, Upstream: gwURL, Buffer: proxyBuffer})
		} else {
			errc <- rec.Record(ctx, record.Direct{URL: gwURL, Options: dopts, SubscribeSessions: f.subscribeSessions, NoReconnect: f.noReconnect})
		}
	}()
	var runErr error
	select {
	case runErr = <-errc:
	case <-aborted:
		rec.Abort()
		bgStop()
		<-statusDone
		out.abort()
		if out.published.Load() {
			return &exitError{code: exitInterrupted, err: fmt.Errorf("aborted; %s is readable up to the last flush", out.name())}
		}
		return &exitError{code: exitInterrupted, err: errors.New("aborted before the gateway was reached; no capture written")}
	}
	bgStop()
	<-statusDone
	return a.finishRecord(recordEnd{
		out: out, runErr: runErr, closeErr: w.Close(), stats: rec.Stats(), cause: context.Cause(ctx),
		elapsed: time.Since(started), proxy: proxyMode, url: gateway.SafeURL(gwURL), status: st,
	})
}

// recordEnd is what finishRecord decides from.
type recordEnd struct {
	out      *recOutput
	runErr   error // what the recorder returned
	closeErr error // finishing the capture stream
	stats    record.Stats
	cause    error // why the recording's context ended, if it did
	elapsed  time.Duration
	proxy    bool
	url      string
	status   *recStatusLine
}

// finishRecord keeps or drops the output and turns the outcome into an
// exit code: a capture that never reached the gateway is dropped (exit 2);
// a reader of stdout that went away ends quietly (exit 0).
func (a *app) finishRecord(e recordEnd) error {
	out, s := e.out, e.stats
	ioErr := e.runErr
	if ioErr == nil || !record.IsWriteError(ioErr) && !isBrokenPipe(ioErr) {
		ioErr = e.closeErr
	}
	switch {
	case ioErr != nil && isBrokenPipe(ioErr):
		out.abort()
		e.status.info("%s was closed by its reader; stopped after %s frames", out.name(), recThousands(s.Frames))
		return nil
	case ioErr != nil:
		out.abort()
		return &exitError{code: exitTrouble, err: fmt.Errorf("writing %s: %w", out.name(), ioErr), hint: "check free disk space and permissions"}
	case errors.Is(e.runErr, output.ErrExists):
		out.abort()
		return usageError("choose another name or add --force", "%s appeared while recording; not replaced", out.name())
	case s.Opened == 0:
		out.abort()
		return recordNotReached(e)
	}
	if err := out.commit(); err != nil {
		return &exitError{code: exitTrouble, err: fmt.Errorf("writing %s: %w", out.name(), err), hint: "check free disk space and permissions"}
	}
	why := ""
	switch {
	case s.LimitHit:
		why = " (limit reached)"
	case errors.Is(e.cause, errRecordDuration):
		why = " (--duration reached)"
	}
	e.status.info("recorded %s frames (%s) over %d connection(s) in %s to %s%s", recThousands(s.Frames), output.FormatSize(s.Bytes),
		s.Conns, e.elapsed.Round(100*time.Millisecond), out.name(), why)
	if s.Gaps > 0 {
		e.status.warn("the gateway's frame seq skipped %d time(s): frames were lost before they reached clawtap", s.Gaps)
	}
	if s.Oversize > 0 {
		e.status.warn("%d message(s) longer than --proxy-buffer were forwarded but not recorded (oversize markers in the capture)", s.Oversize)
	}
	return recordRunError(e.runErr)
}

// recordNotReached is the error of a recording that never opened a
// connection to the gateway.
func recordNotReached(e recordEnd) error {
	if e.runErr != nil {
		return recordRunError(e.runErr)
	}
	if e.proxy && e.stats.Conns > 0 {
		return usageError("check that the gateway runs at --upstream", "no client reached the gateway at %s through the proxy; no capture written", e.url)
	}
	if e.proxy {
		return usageError("point a client at the proxy's address", "no client connected through the proxy; no capture written")
	}
	return usageError("check that the gateway runs at --url (openclaw gateway run)", "stopped before the gateway at %s was reached; no capture written", e.url)
}

func recordRunError(err error) error {
	if err == nil {
		return nil
	}
	var ge *gateway.Error
	if errors.As(err, &ge) {
		return &exitError{code: exitTrouble, err: ge, hint: ge.Hint()}
	}
	return &exitError{code: exitTrouble, err: err}
}

// recordListen opens proxy mode's listener, loopback unless a host is
// named.
func (a *app) recordListen(listen string) (net.Listener, error) {
	addr, loop, err := record.ResolveListen(listen)
	if err != nil {
		return nil, usageError("e.g. --listen 127.0.0.1:18790", "--listen: %v", err)
	}
	if !loop {
		a.warnf("listening on %s, which is not loopback: anyone who can reach it can talk to your gateway through clawtap", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, usageError("pick a free port with --listen", "listen on %s: %v", addr, err)
	}
	return ln, nil
}

// recordSignals stops a recording on the first SIGINT or SIGTERM (ctx
// ends, after onFirst) and closes aborted on a second one. stop releases
// the signals.
func recordSignals(onFirst func(os.Signal)) (ctx context.Context, aborted <-chan struct{}, stop func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigc := make(chan os.Signal, 2)
	signal.Notify(sigc, os.Interrupt, syscall.SIGTERM)
	ab, done := make(chan struct{}), make(chan struct{})
	go func() {
		select {
		case s := <-sigc:
			onFirst(s)
			cancel(errRecordSignal)
		case <-done:
			return
		}
		select {
		case <-sigc:
			close(ab)
		case <-done:
		}
	}()
	return ctx, ab, func() {
		signal.Stop(sigc)
		close(done)
		cancel(nil)
	}
}
