package main

import (
	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/replay"
	"github.com/spf13/cobra"
)

func (a *app) intentsCmd() *cobra.Command {
	var out outFlags
	var skipIgnore bool
	var width int
	var ui string
	var f filter
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
			cli.SmallHeap()
			if err := f.validate(); err != nil {
				return err
			}
			ui, err := parseUI(ui)
			if err != nil {
				return err
			}
			path := inputArg(args)
			if err := a.CheckStdin(cmd.CommandPath(), path); err != nil {
				return err
			}
			src, err := a.OpenEvents(path)
			if err != nil {
				return err
			}
			defer src.Close()
			if src.Classified && !ui.Version.PureIntents {
				return cli.Usage("give the capture itself: "+ui.String()+"'s intents need its replayed state", "classify output has no state to replay under --ui %s", ui)
			}
			s, err := a.openSink(cmd, &out)
			if err != nil {
				return err
			}
			p := &output.Intents{W: s, Format: s.Format, Style: s.Style, Width: width, Match: f.Match, SkipIgnore: skipIgnore}
			err = cli.ReadErr(path, pipeline.New(pipeline.Options{Replay: replay.Options{UI: ui}}, p).Run(src))
			src.Finish()
			return s.Close(err)
		},
	}
	a.printFlags(cmd, &out, output.Table)
	cmd.Flags().BoolVar(&skipIgnore, "skip-ignore", false, "hide ignore intents")
	uiFlag(cmd, &ui)
	cmd.Flags().IntVar(&width, "width", 120, "clip text and table lines to about this many characters")
	f.register(cmd)
	return cmd
}
