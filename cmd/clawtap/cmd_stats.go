package main

import (
	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/stats"
	"github.com/spf13/cobra"
)

// statsOptions is a stats as the command line asks for it.
type statsOptions struct {
	out outFlags

	paths  []string   // the captures; none is stdin
	output cli.Output // checked from out
}

func (a *app) statsCmd() *cobra.Command {
	var opts statsOptions
	cmd := &cobra.Command{
		Use:   "stats [FILE|-]...",
		Short: "Summarise a capture: gateway, connections, frames, runs, delta rates, approvals, gaps, errors",
		Long: `stats reads a capture once and prints the summary a maintainer reads first:
the gateway version and protocol (from the hello markers and hello-ok), the
connections and their lifetimes, frames by event, agent stream, chat state
and lifecycle phase, runs (count, outcome, duration and time-to-first-delta
percentiles, tokens when the gateway reports usage), the delta rate of the
agent assistant stream against the paced chat stream, requests by method
with latency, approvals, frame seq gaps and errors.

Output (--format): table (the default on a terminal) is sections of tables,
text the same sections as lines; json (the default when piped) is one object,
documented in docs/stats.md, keys in a fixed order. Memory stays flat however
long the capture. Several captures print a section each (a "==> FILE <=="
heading, or a "file" key on each json object).`,
		Example: `  clawtap stats fixtures/demo.jsonl.zst
  clawtap stats --format json fixtures/demo.jsonl.zst | jq '.runs.durationMs'
  clawtap stats --format text fixtures/tool-run.jsonl.zst
  clawtap stats --format json fixtures/*-run.jsonl.zst | jq -c '{file, runs: .runs.count}'
  zstdcat fixtures/demo.jsonl.zst | clawtap stats -`,
		Args:              cobra.ArbitraryArgs,
		ValidArgsFunction: captureArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.paths = args
			var err error
			if opts.output, err = opts.out.spec(cmd); err != nil {
				return err
			}
			return a.run(cli.SmallHeap, func() error { return runStats(a.Env, opts) })
		},
	}
	a.printFlags(cmd, &opts.out, output.Table)
	return cmd
}

// runStats prints the summary of each capture.
func runStats(env *cli.Env, opts statsOptions) error {
	return env.EachCapture(opts.output, opts.paths, func(path string, r *capture.Reader, s cli.Section) error {
		c := stats.New()
		err := cli.ReadErr(path, pipeline.New(pipeline.Options{}, c).Run(pipeline.Records(r)))
		env.ReadSummary(path, r.Stats())
		if err == nil {
			err = output.Stats(s.W, s.Format, s.Style, c.Result(), c.ExtraConnections())
		}
		return err
	})
}
