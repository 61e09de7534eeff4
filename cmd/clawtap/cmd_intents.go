package main

import (
	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/replay"
	"github.com/spf13/cobra"
)

// intentsOptions is an intents as the command line asks for it.
type intentsOptions struct {
	out        outFlags
	filter     filter
	skipIgnore bool
	width      int
	ui         string

	path   string     // the capture or classify's output; "-" is stdin
	model  replay.UI  // checked from ui
	output cli.Output // checked from out
}

func (a *app) intentsCmd() *cobra.Command {
	var opts intentsOptions
	cmd := &cobra.Command{
		Use:   "intents [FILE|-]",
		Short: "Derive the intents a UI would act on (the Policy stage)",
		Long: `intents runs each record through the Bridge and the Policy and prints the
intents a UI derives from it. In json (the default when piped) each line is
{"i":..,"t":..,"seq":..,"intent":{<EventIntent>}}: the intent objects use the
reference pipeline's EventIntent names and shapes; in a patch, null means
"clear this field" and a missing key means "leave it alone". text is a line
per intent, table a row per intent (the default on a terminal).

With --ui claw3d the intents are Claw3D's commands (its planners read the UI's
state, so the capture is replayed to derive them). The input is a capture, or
the NDJSON that 'clawtap classify' prints (clawboo only), so the two compose
with jq. A classified line needs only "kind"; "event", "agentId",
"sessionKey", "timestamp" and "payload" are used as given.`,
		Example: `  clawtap intents fixtures/demo.jsonl.zst
  clawtap intents --skip-ignore --format json fixtures/streamed-run.jsonl.zst | jq -c .intent
  clawtap classify fixtures/demo.jsonl.zst | jq -c 'select(.agentId=="main")' | clawtap intents -
  echo '{"kind":"summary-refresh","event":"heartbeat"}' | clawtap intents -`,
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: captureArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.filter.validate(); err != nil {
				return err
			}
			var err error
			if opts.model, err = parseUI(opts.ui); err != nil {
				return err
			}
			opts.path = inputArg(args)
			if opts.output, err = opts.out.spec(cmd); err != nil {
				return err
			}
			return a.run(cli.SmallHeap, func() error { return runIntents(a.Env, opts) })
		},
	}
	a.printFlags(cmd, &opts.out, output.Table)
	cmd.Flags().BoolVar(&opts.skipIgnore, "skip-ignore", false, "hide ignore intents")
	uiFlag(cmd, &opts.ui)
	cmd.Flags().IntVar(&opts.width, "width", 120, "clip text and table lines to about this many characters")
	opts.filter.register(cmd)
	return cmd
}

// runIntents prints the intents the UI derives from each record.
func runIntents(env *cli.Env, opts intentsOptions) error {
	if err := env.CheckStdin(opts.output.Cmd, opts.path); err != nil {
		return err
	}
	src, err := env.OpenEvents(opts.path)
	if err != nil {
		return err
	}
	defer src.Close()
	if src.Classified && !opts.model.Version.PureIntents {
		return cli.Usage("give the capture itself: "+opts.model.String()+"'s intents need its replayed state", "classify output has no state to replay under --ui %s", opts.model)
	}
	s, err := env.OpenSink(opts.output)
	if err != nil {
		return err
	}
	p := &output.Intents{W: s, Format: s.Format, Style: s.Style, Width: opts.width, Match: opts.filter.Match, SkipIgnore: opts.skipIgnore}
	err = cli.ReadErr(opts.path, pipeline.New(pipeline.Options{Replay: replay.Options{UI: opts.model}}, p).Run(src))
	src.Finish()
	return s.Close(err)
}
