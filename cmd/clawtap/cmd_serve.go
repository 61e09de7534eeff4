package main

import (
	"strings"
	"time"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/internal/servecli"
	"github.com/spf13/cobra"
)

func (a *app) serveCmd() *cobra.Command {
	var f servecli.Config
	var token, format string
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
				return cli.Usage("put it in a file for --token-file, or in CLAWTAP_TOKEN",
					"clawtap does not take a secret on the command line (it would show in ps and shell history)")
			}
			f.File = args[0]
			var err error
			if f.Format, err = output.ParseFormat(format); err != nil {
				return cli.Usage("use --format "+strings.Join(output.Formats, "|"), "%v", err)
			}
			if f.Format == "" {
				f.Format = output.Text
			}
			return servecli.Run(cmd.Context(), a.Env, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.Listen, "listen", "127.0.0.1:18789", "address to listen on: host:port, or :port or a port for loopback (0 picks a free one); another host is exposed to the network")
	fl.IntVar(&f.Conn, "conn", 0, "connection of the capture to serve (default: the first)")
	fl.Float64Var(&f.Speed, "speed", 1, "pacing factor: 2 plays twice as fast, 0.5 half as fast")
	fl.DurationVar(&f.MaxGap, "max-gap", 0, "longest wait between two frames, e.g. 2s (default: as recorded)")
	fl.BoolVar(&f.Fast, "as-fast-as-possible", false, "send frames without waiting")
	fl.BoolVar(&f.Loop, "loop", false, "start the capture over when it ends")
	fl.BoolVar(&f.Once, "once", false, "exit once the first client has been sent the whole stream")
	fl.StringVar(&token, "token", "", "refused: use --token-file or CLAWTAP_TOKEN")
	fl.StringVar(&f.TokenFile, "token-file", "", "require the token in this file in connect's auth.token ('-' reads stdin; default $CLAWTAP_TOKEN)")
	fl.StringArrayVar(&f.AllowOrigins, "allow-origin", nil, "also accept WebSocket upgrades from pages of this browser origin, e.g. http://192.168.1.20:5173 (repeatable; loopback pages are always accepted)")
	fl.StringVar(&f.OnSend, "on-send", "reply", "what a client's chat.send does: reply (answer from the capture) or next-run (play the next recorded run)")
	fl.DurationVar(&f.Handshake, "handshake-timeout", 15*time.Second, "time a client has to send connect")
	fl.BoolVar(&f.Reconnects, "reconnects", false, "end the connection as recorded (close code or drop) and give a client that reconnects the next recorded connection")
	fl.StringVar(&f.UI, "ui", "", "also serve a Control UI build (a directory with index.html) over HTTP on the same address")
	fl.DurationVar(&f.StatusPeriod, "status-interval", 250*time.Millisecond, "refresh period of the status line on a terminal")
	fl.BoolVarP(&f.Verbose, "verbose", "v", false, "also log every client request and how it was answered")
	fl.StringVar(&format, "format", "", "the log on stderr: text (default), json (one object a line) or table (the closing summary as a table)")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(output.Formats, cobra.ShellCompDirectiveNoFileComp))
	_ = fl.MarkHidden("status-interval")
	return cmd
}
