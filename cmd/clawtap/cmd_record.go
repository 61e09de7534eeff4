package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/gateway"
	"github.com/clawtap/clawtap/pkg/human"
	"github.com/clawtap/clawtap/pkg/record"
	"github.com/spf13/cobra"
)

// recordOptions is a recording as the command line asks for it.
type recordOptions struct {
	out   string // the capture; "-" is stdout, "" a name from the time
	force bool
	url   string // --url; "" is $OPENCLAW_GATEWAY_URL or the default

	// Direct mode: credentials and the device identity.
	tokenFile, passwordFile string
	identityDir             string
	noDevice                bool
	scopes                  string // comma-separated
	subscribeSessions       bool
	noReconnect             bool

	// Redaction.
	redactContent, noRedact bool
	saltFile                string

	// Limits.
	duration      time.Duration
	maxFrames     int64
	maxBytes      string
	flushInterval time.Duration

	// Proxy mode, when listen is set.
	listen, upstream string
	proxyBuffer      string
	guardFlags

	format string // the closing summary's

	// Refused: secrets never come from argv.
	token, password string

	// Checked from the flags above.
	version     string   // clawtap's, for the header and the handshake
	scopeList   []string // from scopes
	byteLimit   int64    // from maxBytes; 0 is none
	bufferBytes int64    // from proxyBuffer
	listenAddr  string   // from listen: host:port
	loopback    bool     // listenAddr is loopback
	// summary is the closing summary's format: text (a sentence), json or
	// table, on stderr (stdout may carry the capture).
	summary output.Format
}

func (a *app) recordCmd() *cobra.Command {
	var opts recordOptions
	cmd := &cobra.Command{
		Use:   "record",
		Short: "Record a gateway's WebSocket frames into a redacted capture",
		Long: `record connects to an OpenClaw gateway and writes every frame, in both
directions and with its receive time, into a capture: a header, then one
JSON line per frame, plus open/hello/close/error markers at connection
boundaries. A name ending in .zst is zstd-compressed; '-o -' writes plain
JSON Lines to stdout. An existing file is replaced only with --force.

After each handshake record subscribes to the sessions' events, as the
Control UI does (sessions.subscribe), so tool calls (session.tool) and
session changes are recorded too; --subscribe-sessions=false records only
what every connection gets, and the closing summary says so.

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

  # Token from a file, one minute, only what any connection gets (no sessions.subscribe)
  clawtap record --token-file ~/.openclaw/token --duration 1m --subscribe-sessions=false -o cap.jsonl.zst

  # Share-safe: also replace message text, tool args/results and attachments
  clawtap record --redact-content -o bug-1234.jsonl.zst

  # Live JSON Lines to another tool
  clawtap record -o - | jq -c 'select(.frame.event=="chat")'

  # Proxy: point the Control UI or Studio at ws://127.0.0.1:18790
  clawtap record --listen 127.0.0.1:18790 --upstream ws://127.0.0.1:18789 -o ui.jsonl.zst`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.check(cmd.Flags().Changed); err != nil {
				return err
			}
			return a.run(cli.DefaultMemory, func() error { return runRecord(cmd.Context(), a.Env, opts) })
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&opts.out, "output", "o", "", "capture file (.zst compresses; '-' is plain JSON Lines on stdout; default clawtap-<time>.jsonl.zst)")
	fl.StringVar(&opts.out, "out", "", "capture file")
	renamedFlag(cmd, "out", "output")
	fl.StringVar(&opts.format, "format", "", "the closing summary on stderr: text (default), json or table")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(output.Formats, cobra.ShellCompDirectiveNoFileComp))
	fl.StringVar(&opts.url, "url", "", "gateway WebSocket URL (default $OPENCLAW_GATEWAY_URL or "+gateway.DefaultURL+")")
	fl.StringVar(&opts.tokenFile, "token-file", "", "file holding the gateway token ('-' reads stdin; default $OPENCLAW_GATEWAY_TOKEN)")
	fl.StringVar(&opts.passwordFile, "password-file", "", "file holding the gateway password ('-' reads stdin; default $OPENCLAW_GATEWAY_PASSWORD)")
	fl.StringVar(&opts.identityDir, "identity-dir", "", "where the device identity and device tokens live (default $CLAWTAP_IDENTITY_DIR or <user config dir>/clawtap)")
	fl.BoolVar(&opts.noDevice, "no-device", false, "connect without a device identity (token only; accepted by local gateways for cli clients)")
	fl.StringVar(&opts.scopes, "scopes", strings.Join(gateway.DefaultScopes, ","), "operator scopes to ask for, comma-separated")
	fl.BoolVar(&opts.subscribeSessions, "subscribe-sessions", true, "call sessions.subscribe after each handshake, as the Control UI does, so session.tool and sessions.changed are recorded too (--subscribe-sessions=false records without)")
	fl.BoolVar(&opts.redactContent, "redact-content", false, "also replace message text, tool args/results and attachments with stable placeholders")
	fl.BoolVar(&opts.noRedact, "no-redact", false, "write frames as received, credentials included")
	fl.StringVar(&opts.saltFile, "salt-file", "", "key for --redact-content's placeholders and pseudonyms (same key, same placeholders across captures; default: random per capture)")
	fl.BoolVar(&opts.noReconnect, "no-reconnect", false, "stop when the gateway closes the connection instead of reconnecting")
	fl.DurationVar(&opts.duration, "duration", 0, "stop after this long (e.g. 30s, 5m)")
	fl.Int64Var(&opts.maxFrames, "max-frames", 0, "stop after this many frames")
	fl.StringVar(&opts.maxBytes, "max-bytes", "", "stop before the frames recorded exceed this size (50MB = 50×10^6 bytes, 50MiB = 50×2^20)")
	fl.DurationVar(&opts.flushInterval, "flush-interval", record.DefaultFlushInterval, "how often buffered frames are flushed to disk (what a crash can lose)")
	fl.StringVar(&opts.listen, "listen", "", "proxy mode: accept clients on this address (host:port; loopback unless a host is named)")
	fl.StringVar(&opts.upstream, "upstream", "", "proxy mode: the gateway to relay to (default: --url)")
	opts.guardFlags.add(fl, "proxied connections")
	fl.StringVar(&opts.proxyBuffer, "proxy-buffer", "64MiB", "proxy mode: the most held of one message per direction of a connection; a longer one is forwarded as it arrives and recorded as an oversize marker")
	fl.BoolVar(&opts.force, "force", false, "replace an existing capture file")
	fl.StringVar(&opts.token, "token", "", "refused: use --token-file or OPENCLAW_GATEWAY_TOKEN")
	fl.StringVar(&opts.password, "password", "", "refused: use --password-file or OPENCLAW_GATEWAY_PASSWORD")
	_ = fl.MarkHidden("token")
	_ = fl.MarkHidden("password")
	return cmd
}

// check checks the flags (changed says which were given) and sets the
// values runRecord uses from them.
func (o *recordOptions) check(changed func(string) bool) error {
	if changed("token") || changed("password") {
		return cli.Usage("put it in a file for --token-file/--password-file, or in OPENCLAW_GATEWAY_TOKEN/OPENCLAW_GATEWAY_PASSWORD",
			"clawtap does not take a secret on the command line (it would show in ps and shell history)")
	}
	if o.noRedact && o.redactContent {
		return cli.Usage("choose one", "--no-redact and --redact-content contradict each other")
	}
	if o.maxFrames < 0 || o.duration < 0 {
		return cli.Usage("use a positive value", "--max-frames and --duration must be positive")
	}
	var err error
	if o.byteLimit, err = parseSizeFlag("--max-bytes", o.maxBytes); err != nil {
		return err
	}
	if o.bufferBytes, err = parseSizeFlag("--proxy-buffer", o.proxyBuffer); err != nil {
		return err
	}
	if o.listen == "" {
		for _, name := range []string{"upstream", "proxy-buffer", "allow-origin", "allow-host"} {
			if changed(name) {
				return cli.Usage("add --listen ADDR to run a proxy", "--%s only makes sense with --listen", name)
			}
		}
	}
	if err := o.guardFlags.check(); err != nil {
		return err
	}
	if o.listen != "" {
		for _, name := range []string{"token-file", "password-file", "subscribe-sessions", "no-device", "scopes", "identity-dir", "no-reconnect"} {
			if changed(name) {
				return cli.Usage("in proxy mode the client that connects through clawtap authenticates itself",
					"--%s does not apply with --listen", name)
			}
		}
	}
	o.version = version
	if o.summary, err = output.ParseFormat(o.format); err != nil {
		return cli.Usage("use --format "+strings.Join(output.Formats, "|"), "%v", err)
	}
	if o.summary == "" {
		o.summary = output.Text
	}
	if o.listen != "" {
		if o.listenAddr, o.loopback, err = record.ResolveListen(o.listen); err != nil {
			return cli.Usage("e.g. --listen 127.0.0.1:18790", "--listen: %v", err)
		}
		return nil
	}
	o.scopeList = nil
	for _, s := range strings.Split(o.scopes, ",") {
		if s = strings.TrimSpace(s); s != "" {
			o.scopeList = append(o.scopeList, s)
		}
	}
	if len(o.scopeList) == 0 {
		return cli.Usage("e.g. --scopes operator.read", "--scopes is empty")
	}
	if o.tokenFile == "-" && o.passwordFile == "-" {
		return cli.Usage("read one of them from a file", "--token-file and --password-file cannot both read stdin")
	}
	return nil
}

// errDuration is why a recording's context ended at --duration.
var errDuration = errors.New("--duration reached")

// parseSizeFlag reads a size flag: empty is none, zero is refused.
func parseSizeFlag(flag, s string) (int64, error) {
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

// runRecord records as opts says until a signal, a limit, the gateway or
// ctx ends it: a record.Recorder with its output, credentials and limits,
// and the outcome turned into the summary and the exit code the command
// documents.
func runRecord(ctx context.Context, env *cli.Env, opts recordOptions) error {
	var err error
	proxyMode := opts.listen != ""
	gwURL := opts.url
	if gwURL == "" {
		gwURL = env.Getenv("OPENCLAW_GATEWAY_URL")
	}
	if proxyMode && opts.upstream != "" {
		gwURL = opts.upstream
	}
	if gwURL, err = gateway.NormalizeURL(gwURL); err != nil {
		return cli.Usage("e.g. --url ws://127.0.0.1:18789", "%v", err)
	}

	// Everything that can fail on the user's input fails before the
	// output is opened.
	var dopts gateway.Options
	var ln net.Listener
	if proxyMode {
		if ln, err = recordListen(env, opts.listenAddr, opts.loopback); err != nil {
			return err
		}
		defer ln.Close()
	} else if dopts, err = dialOptions(env, opts); err != nil {
		return err
	}
	redaction, err := recordRedaction(opts)
	if err != nil {
		return err
	}
	path := opts.out
	if path == "" {
		path = "clawtap-" + time.Now().Format("20060102-150405") + ".jsonl.zst"
	}
	out, w, err := openRecordOutput(env, path, opts.force)
	if err != nil {
		return err
	}

	st := &statusLine{W: env.Stderr, Quiet: env.Quiet, Live: !env.Quiet && env.IsTerminal(env.Stderr), Color: env.UseColor(env.Stderr)}
	rec := &record.Recorder{
		Capture: w, Tool: "clawtap " + opts.version, Redaction: redaction,
		MaxFrames: opts.maxFrames, MaxBytes: opts.byteLimit, FlushInterval: opts.flushInterval,
		OnHandshake: out.Publish, Logf: st.Infof, Warnf: st.Warnf,
	}
	if opts.flushInterval <= 0 {
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
	if opts.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, opts.duration, errDuration)
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
			errc <- rec.Proxy(ctx, record.Proxy{Listener: ln, Upstream: gwURL, Buffer: opts.bufferBytes, AllowOrigins: opts.origins, AllowHosts: opts.hosts})
		} else {
			errc <- rec.Record(ctx, record.Direct{URL: gwURL, Options: dopts, SubscribeSessions: opts.subscribeSessions, NoReconnect: opts.noReconnect})
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
	return finishRecord(recordEnd{
		out: out, runErr: runErr, closeErr: w.Close(), stats: rec.Stats(), cause: context.Cause(ctx),
		elapsed: time.Since(started), proxy: proxyMode, url: gateway.SafeURL(gwURL), status: st, format: opts.summary,
		unsubscribed: !proxyMode && !opts.subscribeSessions,
	})
}

// openRecordOutput opens path under clawtap's output rules ("-" is standard
// output) and a capture writer on it, zstd-compressed when a file's name
// ends in .zst. Standard output, a pipe or a device holds the bytes in
// memory until the handshake; a file holds them under its temporary name.
func openRecordOutput(env *cli.Env, path string, force bool) (*record.Output, *capture.Writer, error) {
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

// recordListen opens proxy mode's listener on addr, warning when it is
// not loopback.
func recordListen(env *cli.Env, addr string, loop bool) (net.Listener, error) {
	if !loop {
		env.Warnf("listening on %s, which is not loopback: anyone who can reach it can talk to your gateway through clawtap", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, cli.Usage("pick a free port with --listen", "listen on %s: %v", addr, err)
	}
	return ln, nil
}

// recordEnd is what finishRecord decides from.
type recordEnd struct {
	out      *record.Output
	runErr   error // what the recorder returned
	closeErr error // finishing the capture stream
	stats    record.Stats
	cause    error // why the recording's context ended, if it did
	elapsed  time.Duration
	proxy    bool
	url      string
	status   *statusLine
	format   output.Format
	// unsubscribed: a direct recording without sessions.subscribe.
	unsubscribed bool
}

// finishRecord keeps or drops the output and turns the outcome into an exit
// code: a capture that never reached the gateway is dropped (exit 2); a
// reader of stdout that went away ends quietly (exit 0).
func finishRecord(e recordEnd) error {
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
	switch {
	case e.unsubscribed:
		e.status.Infof("tool and session events were not subscribed (--subscribe-sessions=false): tool calls show only as agent item events; drop the flag to record session.tool and sessions.changed")
	case s.SubscribeRefused > 0:
		e.status.Warnf("the gateway refused sessions.subscribe on %s: tool calls show only as agent item events (give the recorder the operator.read scope)", human.Count(s.SubscribeRefused, "connection", "connections"))
	}
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
func notReached(e recordEnd) error {
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

// dialOptions gathers credentials (from files or the environment, never
// the command line) and the device identity.
func dialOptions(env *cli.Env, opts recordOptions) (gateway.Options, error) {
	o := gateway.Options{ClientVersion: opts.version, UserAgent: "clawtap/" + opts.version, DisplayName: "clawtap recorder"}
	o.Scopes = opts.scopeList
	var err error
	switch {
	case opts.tokenFile != "":
		if o.Token, err = env.ReadSecretFile("--token-file", opts.tokenFile); err != nil {
			return o, err
		}
	default:
		if o.Token, _, err = env.SecretEnv("OPENCLAW_GATEWAY_TOKEN"); err != nil {
			return o, err
		}
	}
	switch {
	case opts.passwordFile != "":
		if o.Password, err = env.ReadSecretFile("--password-file", opts.passwordFile); err != nil {
			return o, err
		}
	default:
		if o.Password, _, err = env.SecretEnv("OPENCLAW_GATEWAY_PASSWORD"); err != nil {
			return o, err
		}
	}
	if opts.noDevice {
		return o, nil
	}
	dir := opts.identityDir
	if dir == "" {
		dir = env.Getenv("CLAWTAP_IDENTITY_DIR")
	}
	if dir == "" {
		if dir, err = gateway.DefaultStoreDir(); err != nil {
			env.Warnf("%v; connecting without a device identity", err)
			return o, nil
		}
	}
	store := &gateway.Store{Dir: dir}
	id, err := store.Identity()
	if err != nil {
		env.Warnf("device identity in %s: %v; connecting without one (add --no-device to silence this)", filepath.Clean(dir), err)
		return o, nil
	}
	o.Identity, o.Store = id, store
	o.Logf = env.Warnf
	return o, nil
}

// recordRedaction is what record removes before anything touches disk:
// credentials always, content with --redact-content, nothing with
// --no-redact. --salt-file keys the content placeholders.
func recordRedaction(opts recordOptions) (record.Redaction, error) {
	red := record.Redaction{Off: opts.noRedact, Content: opts.redactContent}
	if opts.saltFile == "" {
		return red, nil
	}
	b, err := os.ReadFile(opts.saltFile)
	if err != nil {
		return red, cli.Usage("check the path given to --salt-file", "read --salt-file: %v", err)
	}
	if len(b) == 0 {
		return red, cli.Usage("put some random bytes in it", "--salt-file %s is empty", opts.saltFile)
	}
	red.Salt = b
	return red, nil
}
