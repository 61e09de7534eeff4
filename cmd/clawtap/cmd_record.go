package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/gateway"
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
JSON Lines to stdout.

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

The file is flushed every --flush-interval and at every marker, so a
recorder that is killed leaves a readable capture. SIGINT or SIGTERM stops
recording, finishes the file and exits 0; a second one aborts at once with
exit 130. When the gateway goes away (shutdown, close 1012, lost network)
record reconnects with capped exponential backoff; each connection gets a
new conn number. --duration, --max-frames and --max-bytes stop cleanly.

Proxy mode (--listen): clients such as the Control UI or Studio connect to
clawtap instead of the gateway; each client connection is relayed to
--upstream and recorded as its own conn, both directions exactly as the
client saw them. The client does its own handshake. The listen address is
loopback unless you name another host explicitly.

Exit codes: 0 recording finished (stopped, limit reached, or the gateway
closed with --no-reconnect); 2 usage, I/O, or a handshake the gateway
refused (wrong token, pairing required, ...: one line saying what to do);
130 aborted by a second signal.`,
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
	fl.StringVar(&f.maxBytes, "max-bytes", "", "stop before the frames recorded exceed this size (e.g. 50MB)")
	fl.DurationVar(&f.flushInterval, "flush-interval", 250*time.Millisecond, "how often buffered frames are flushed to disk (what a crash can lose)")
	fl.StringVar(&f.listen, "listen", "", "proxy mode: accept clients on this address (host:port; loopback unless a host is named)")
	fl.StringVar(&f.upstream, "upstream", "", "proxy mode: the gateway to relay to (default: --url)")
	fl.BoolVar(&f.force, "force", false, "overwrite an existing capture file")
	fl.StringVar(&f.token, "token", "", "refused: use --token-file or OPENCLAW_GATEWAY_TOKEN")
	fl.StringVar(&f.password, "password", "", "refused: use --password-file or OPENCLAW_GATEWAY_PASSWORD")
	_ = fl.MarkHidden("token")
	_ = fl.MarkHidden("password")
	return cmd
}

// readSecretFile reads a token or password file ("-" is stdin), trimmed.
func (a *app) readSecretFile(flag, path string) (string, error) {
	var b []byte
	var err error
	if path == "-" {
		b, err = io.ReadAll(io.LimitReader(a.stdin, 1<<16))
	} else {
		b, err = os.ReadFile(path)
		if err == nil {
			if fi, serr := os.Stat(path); serr == nil && fi.Mode().Perm()&0o077 != 0 {
				a.warnf("%s %s is readable by other users (mode %04o); chmod 600 it", flag, path, fi.Mode().Perm())
			}
		}
	}
	if err != nil {
		return "", usageError("check the path given to "+flag, "read %s: %v", flag, err)
	}
	s := strings.TrimSpace(string(b))
	if s == "" {
		return "", usageError("put the secret on the first line of the file", "%s %s is empty", flag, path)
	}
	return s, nil
}

// recParseSize reads 1000, 64k, 50MB, 1GiB (powers of 1024).
func recParseSize(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	t := strings.ToLower(strings.TrimSpace(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "b"), "i")
	mult := int64(1)
	switch {
	case strings.HasSuffix(t, "k"):
		mult, t = 1<<10, strings.TrimSuffix(t, "k")
	case strings.HasSuffix(t, "m"):
		mult, t = 1<<20, strings.TrimSuffix(t, "m")
	case strings.HasSuffix(t, "g"):
		mult, t = 1<<30, strings.TrimSuffix(t, "g")
	}
	n, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("bad size %q (use e.g. 1000, 64k, 50MB, 1GiB)", s)
	}
	return int64(n * float64(mult)), nil
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
	maxBytes, err := recParseSize(f.maxBytes)
	if err != nil {
		return usageError("e.g. --max-bytes 50MB", "%v", err)
	}
	proxyMode := f.listen != ""
	if !proxyMode && (fl.Changed("upstream")) {
		return usageError("add --listen ADDR to run a proxy", "--upstream only makes sense with --listen")
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
	gwURL, err = gateway.NormalizeURL(gwURL)
	if err != nil {
		return usageError("e.g. --url ws://127.0.0.1:18789", "%v", err)
	}

	// Everything that can fail on the user's input fails before the file
	// is created.
	var dopts gateway.Options
	var listenAddr string
	var ln net.Listener
	if proxyMode {
		addr, loop, err := recResolveListen(f.listen)
		if err != nil {
			return usageError("e.g. --listen 127.0.0.1:18790", "%v", err)
		}
		if !loop {
			a.warnf("listening on %s, which is not loopback: anyone who can reach it can talk to your gateway through clawtap", addr)
		}
		ln, err = net.Listen("tcp", addr)
		if err != nil {
			return usageError("pick a free port with --listen", "listen on %s: %v", addr, err)
		}
		defer ln.Close()
		listenAddr = ln.Addr().String()
	} else {
		dopts, err = a.recordDialOptions(f, gwURL)
		if err != nil {
			return err
		}
	}

	out := f.out
	if out == "" {
		out = "clawtap-" + time.Now().Format("20060102-150405") + ".jsonl.zst"
	}
	red, redInfo, err := a.recordRedactor(f)
	if err != nil {
		return err
	}
	w, err := a.createCapture(out, f.force)
	if err != nil {
		return err
	}
	mode := "record"
	if proxyMode {
		mode = "proxy"
	}
	h := capture.NewHeader(time.Now(), capture.Source{Tool: "clawtap " + version, Mode: mode, URL: gateway.SafeURL(gwURL), Listen: listenAddr})
	if red != nil {
		h = red.Header(h)
	} else {
		h.Redaction = &redInfo
	}
	herr := w.WriteHeader(h)
	if herr == nil {
		herr = w.Flush()
	}
	if herr != nil {
		w.Close()
		return &exitError{code: exitTrouble, err: fmt.Errorf("write %s: %w", recOutName(out), herr), hint: "check free disk space and permissions"}
	}

	st := &recStatusLine{w: a.stderr, quiet: a.quiet, live: !a.quiet && a.isTerminal(a.stderr), color: a.useColor(a.stderr), started: time.Now()}
	rec := newRecorder(w, red, time.Now)
	rec.maxFrames, rec.maxBytes = f.maxFrames, maxBytes

	ctx, stop := context.WithCancelCause(context.Background())
	defer stop(nil)
	rec.stop = stop
	if f.duration > 0 {
		var cancelT context.CancelFunc
		ctx, cancelT = context.WithTimeout(ctx, f.duration)
		defer cancelT()
	}
	// Signals: the first stops cleanly, a second aborts.
	sigc := make(chan os.Signal, 2)
	signal.Notify(sigc, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigc)
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case s := <-sigc:
			st.info("%s: stopping; finishing %s (again to abort)", s, recOutName(out))
			stop(errors.New("signal"))
		case <-done:
			return
		}
		select {
		case <-sigc:
			rec.mu.Lock()
			_ = w.Close()
			fmt.Fprintf(a.stderr, "\nclawtap: aborted; %s is readable up to the last flush\n", recOutName(out))
			os.Exit(exitInterrupted)
		case <-done:
		}
	}()

	bg, bgStop := context.WithCancel(context.Background())
	go rec.flushLoop(bg, f.flushInterval)
	statusDone := make(chan struct{})
	go func() { st.loop(bg, 500*time.Millisecond, rec.stats); close(statusDone) }()
	if !a.quiet {
		target := recOutName(out)
		if proxyMode {
			st.info("proxy listening on ws://%s → %s; recording to %s", listenAddr, gateway.SafeURL(gwURL), target)
		} else {
			st.info("recording %s to %s (Ctrl-C stops)", gateway.SafeURL(gwURL), target)
		}
	}

	started := time.Now()
	var runErr error
	if proxyMode {
		runErr = rec.runProxy(ctx, ln, recProxyConfig{upstream: gwURL, logf: st.info, warnf: st.warn})
	} else {
		runErr = rec.runDirect(ctx, recDirectConfig{
			url: gwURL, dial: dopts, subscribe: f.subscribeSessions, reconnect: !f.noReconnect,
			backoff: recBackoff{Base: 500 * time.Millisecond, Max: 15 * time.Second, Rand: recRandFloat},
			logf:    st.info, warnf: st.warn,
		})
	}
	bgStop()
	<-statusDone
	werr := rec.writeErr()
	cerr := w.Close()
	s := rec.stats()
	elapsed := time.Since(started).Round(100 * time.Millisecond)
	why := ""
	switch c := context.Cause(ctx); {
	case errors.Is(c, errRecordLimit):
		why = " (limit reached)"
	case errors.Is(c, context.DeadlineExceeded):
		why = " (--duration reached)"
	}
	if werr != nil || cerr != nil {
		if werr == nil {
			werr = cerr
		}
		return &exitError{code: exitTrouble, err: fmt.Errorf("writing %s: %w", recOutName(out), werr), hint: "check free disk space and permissions"}
	}
	st.info("recorded %s frames (%s) over %d connection(s) in %s to %s%s", recThousands(s.frames), recHumanBytes(s.bytes), s.conns, elapsed, recOutName(out), why)
	if s.gaps > 0 {
		st.warn("the gateway's frame seq skipped %d time(s): frames were lost before they reached clawtap", s.gaps)
	}
	if runErr != nil {
		var ge *gateway.Error
		if errors.As(runErr, &ge) {
			return &exitError{code: exitTrouble, err: ge, hint: ge.Hint()}
		}
		return &exitError{code: exitTrouble, err: runErr}
	}
	return nil
}

func recOutName(out string) string {
	if out == "-" {
		return "stdout"
	}
	return out
}

func recRandFloat() float64 {
	n, err := rand.Int(rand.Reader, big.NewInt(1<<53))
	if err != nil {
		return 0.5
	}
	return float64(n.Int64()) / (1 << 53)
}

// createCapture opens the output, refusing to overwrite a capture unless
// forced; "-" is plain JSON Lines on the app's stdout.
func (a *app) createCapture(out string, force bool) (*capture.Writer, error) {
	if out == "-" {
		w, err := capture.NewWriter(a.stdout, false)
		if err != nil {
			return nil, &exitError{code: exitTrouble, err: err}
		}
		return w, nil
	}
	if fi, err := os.Stat(out); err == nil && fi.Mode().IsRegular() && fi.Size() > 0 && !force {
		return nil, usageError("choose another name or add --force", "%s already exists", out)
	}
	w, err := capture.Create(out)
	if err != nil {
		return nil, usageError("check the directory exists and is writable", "create %s: %v", out, err)
	}
	return w, nil
}

// recordDialOptions gathers credentials and the device identity.
func (a *app) recordDialOptions(f *recordFlags, gwURL string) (gateway.Options, error) {
	o := gateway.Options{ClientVersion: version, UserAgent: "clawtap/" + version, DisplayName: "clawtap recorder"}
	var scopes []string
	for _, s := range strings.Split(f.scopes, ",") {
		if s = strings.TrimSpace(s); s != "" {
			scopes = append(scopes, s)
		}
	}
	if len(scopes) == 0 {
		return o, usageError("e.g. --scopes operator.read", "--scopes is empty")
	}
	o.Scopes = scopes
	var err error
	switch {
	case f.tokenFile != "":
		if o.Token, err = a.readSecretFile("--token-file", f.tokenFile); err != nil {
			return o, err
		}
	case a.getenv("OPENCLAW_GATEWAY_TOKEN") != "":
		o.Token = strings.TrimSpace(a.getenv("OPENCLAW_GATEWAY_TOKEN"))
	}
	switch {
	case f.passwordFile != "":
		if o.Password, err = a.readSecretFile("--password-file", f.passwordFile); err != nil {
			return o, err
		}
	case a.getenv("OPENCLAW_GATEWAY_PASSWORD") != "":
		o.Password = strings.TrimSpace(a.getenv("OPENCLAW_GATEWAY_PASSWORD"))
	}
	if f.tokenFile == "-" && f.passwordFile == "-" {
		return o, usageError("read one of them from a file", "--token-file and --password-file cannot both read stdin")
	}
	if f.noDevice {
		return o, nil
	}
	dir := f.identityDir
	if dir == "" {
		dir = a.getenv("CLAWTAP_IDENTITY_DIR")
	}
	if dir == "" {
		if dir, err = gateway.DefaultStoreDir(); err != nil {
			a.warnf("%v; connecting without a device identity", err)
			return o, nil
		}
	}
	store := &gateway.Store{Dir: dir}
	id, err := store.Identity()
	if err != nil {
		a.warnf("device identity in %s: %v; connecting without one (add --no-device to silence this)", filepath.Clean(dir), err)
		return o, nil
	}
	o.Identity, o.Store = id, store
	o.Logf = a.warnf
	return o, nil
}
