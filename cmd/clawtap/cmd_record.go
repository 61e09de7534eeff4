package main

import (
	"strings"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/internal/recordcli"
	"github.com/clawtap/clawtap/pkg/gateway"
	"github.com/clawtap/clawtap/pkg/record"
	"github.com/spf13/cobra"
)

type recordFlags struct {
	recordcli.Config
	maxBytes, proxyBuffer string
	format                string

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
	fl.StringVarP(&f.Out, "output", "o", "", "capture file (.zst compresses; '-' is plain JSON Lines on stdout; default clawtap-<time>.jsonl.zst)")
	fl.StringVar(&f.Out, "out", "", "capture file")
	renamedFlag(cmd, "out", "output")
	fl.StringVar(&f.format, "format", "", "the closing summary on stderr: text (default), json or table")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(output.Formats, cobra.ShellCompDirectiveNoFileComp))
	fl.StringVar(&f.URL, "url", "", "gateway WebSocket URL (default $OPENCLAW_GATEWAY_URL or "+gateway.DefaultURL+")")
	fl.StringVar(&f.TokenFile, "token-file", "", "file holding the gateway token ('-' reads stdin; default $OPENCLAW_GATEWAY_TOKEN)")
	fl.StringVar(&f.PasswordFile, "password-file", "", "file holding the gateway password ('-' reads stdin; default $OPENCLAW_GATEWAY_PASSWORD)")
	fl.StringVar(&f.IdentityDir, "identity-dir", "", "where the device identity and device tokens live (default $CLAWTAP_IDENTITY_DIR or <user config dir>/clawtap)")
	fl.BoolVar(&f.NoDevice, "no-device", false, "connect without a device identity (token only; accepted by local gateways for cli clients)")
	fl.StringVar(&f.Scopes, "scopes", strings.Join(gateway.DefaultScopes, ","), "operator scopes to ask for, comma-separated")
	fl.BoolVar(&f.SubscribeSessions, "subscribe-sessions", false, "call sessions.subscribe so session.tool and sessions.changed are recorded too")
	fl.BoolVar(&f.RedactContent, "redact-content", false, "also replace message text, tool args/results and attachments with stable placeholders")
	fl.BoolVar(&f.NoRedact, "no-redact", false, "write frames as received, credentials included")
	fl.StringVar(&f.SaltFile, "salt-file", "", "key for --redact-content's placeholders and pseudonyms (same key, same placeholders across captures; default: random per capture)")
	fl.BoolVar(&f.NoReconnect, "no-reconnect", false, "stop when the gateway closes the connection instead of reconnecting")
	fl.DurationVar(&f.Duration, "duration", 0, "stop after this long (e.g. 30s, 5m)")
	fl.Int64Var(&f.MaxFrames, "max-frames", 0, "stop after this many frames")
	fl.StringVar(&f.maxBytes, "max-bytes", "", "stop before the frames recorded exceed this size (50MB = 50×10^6 bytes, 50MiB = 50×2^20)")
	fl.DurationVar(&f.FlushInterval, "flush-interval", record.DefaultFlushInterval, "how often buffered frames are flushed to disk (what a crash can lose)")
	fl.StringVar(&f.Listen, "listen", "", "proxy mode: accept clients on this address (host:port; loopback unless a host is named)")
	fl.StringVar(&f.Upstream, "upstream", "", "proxy mode: the gateway to relay to (default: --url)")
	fl.StringVar(&f.proxyBuffer, "proxy-buffer", "64MiB", "proxy mode: the most held of one message per direction of a connection; a longer one is forwarded as it arrives and recorded as an oversize marker")
	fl.BoolVar(&f.Force, "force", false, "replace an existing capture file")
	fl.StringVar(&f.token, "token", "", "refused: use --token-file or OPENCLAW_GATEWAY_TOKEN")
	fl.StringVar(&f.password, "password", "", "refused: use --password-file or OPENCLAW_GATEWAY_PASSWORD")
	_ = fl.MarkHidden("token")
	_ = fl.MarkHidden("password")
	return cmd
}

func (a *app) runRecord(cmd *cobra.Command, f *recordFlags) error {
	fl := cmd.Flags()
	if fl.Changed("token") || fl.Changed("password") {
		return cli.Usage("put it in a file for --token-file/--password-file, or in OPENCLAW_GATEWAY_TOKEN/OPENCLAW_GATEWAY_PASSWORD",
			"clawtap does not take a secret on the command line (it would show in ps and shell history)")
	}
	if f.NoRedact && f.RedactContent {
		return cli.Usage("choose one", "--no-redact and --redact-content contradict each other")
	}
	if f.MaxFrames < 0 || f.Duration < 0 {
		return cli.Usage("use a positive value", "--max-frames and --duration must be positive")
	}
	var err error
	if f.MaxBytes, err = recordcli.ParseSize("--max-bytes", f.maxBytes); err != nil {
		return err
	}
	if f.ProxyBuffer, err = recordcli.ParseSize("--proxy-buffer", f.proxyBuffer); err != nil {
		return err
	}
	if f.Listen == "" && (fl.Changed("upstream") || fl.Changed("proxy-buffer")) {
		return cli.Usage("add --listen ADDR to run a proxy", "--upstream and --proxy-buffer only make sense with --listen")
	}
	if f.Listen != "" {
		for _, name := range []string{"token-file", "password-file", "subscribe-sessions", "no-device", "scopes", "identity-dir", "no-reconnect"} {
			if fl.Changed(name) {
				return cli.Usage("in proxy mode the client that connects through clawtap authenticates itself",
					"--%s does not apply with --listen", name)
			}
		}
	}
	f.Version = version
	if f.Format, err = output.ParseFormat(f.format); err != nil {
		return cli.Usage("use --format "+strings.Join(output.Formats, "|"), "%v", err)
	}
	if f.Format == "" {
		f.Format = output.Text
	}
	return recordcli.Run(cmd.Context(), a.Env, f.Config)
}
