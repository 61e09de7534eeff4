package main

import (
	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/spf13/cobra"
)

// gapsOptions is a gaps as the command line asks for it.
type gapsOptions struct {
	out       outFlags
	frameOnly bool

	paths  []string   // the captures; none is stdin
	output cli.Output // checked from out
}

func (a *app) gapsCmd() *cobra.Command {
	var opts gapsOptions
	cmd := &cobra.Command{
		Use:   "gaps [FILE|-]...",
		Short: "Report frame-level seq gaps per connection",
		Long: `gaps checks the gateway's frame-level seq on every connection of a capture.
seq restarts with every connection; connect.challenge, responses and targeted
frames may carry none. A forward jump is a gap (frames were lost); a repeated
or lower seq is reported as duplicate or backwards, not as a gap.

It also reports the gateway's own agent stream:"error" "seq gap" events
(gateway-gap) and, as information only, jumps in the per-run payload seq
(run-seq-jump), which are normal: throttled and merged deltas and tool events
sent to other connections all skip numbers; a jump at a text delta is marked
coalesced ("coalesced":true): deltas merged for a busy connection (2026.9.2+)
or by pacing, nothing lost. A connection whose first seq is
not 1 is reported as first-seq (information: gateways before 2026.4.22 share
one counter across connections).

Output (--format): json is one finding per line and a last {"summary":...}
line; table (the default on a terminal) a row per finding, text a sentence per
finding, both with a verdict line. Exit status 1 when a frame-level gap was
found, so CI can gate on it. Several captures print a section each (a
"==> FILE <==" heading, or a "file" key on every json line) and exit with
the worst code.`,
		Example: `  clawtap gaps fixtures/seq-gap.jsonl.zst
  clawtap gaps --frame-only fixtures/demo.jsonl.zst || echo "frames were lost"
  clawtap gaps --format json fixtures/seq-gap.jsonl.zst fixtures/reconnect.jsonl.zst | jq -c 'select(.summary) | {file, gaps: .summary.gaps}'
  clawtap gaps --format json fixtures/seq-gap.jsonl.zst | jq -c 'select(.kind=="gap")'`,
		Args:              cobra.ArbitraryArgs,
		ValidArgsFunction: captureArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.paths = args
			var err error
			if opts.output, err = opts.out.spec(cmd); err != nil {
				return err
			}
			return a.run(cli.DefaultMemory, func() error { return runGaps(a.Env, opts) })
		},
	}
	a.printFlags(cmd, &opts.out, output.Table)
	cmd.Flags().BoolVar(&opts.frameOnly, "frame-only", false, "only frame-level findings (no gateway-gap or run-seq-jump)")
	return cmd
}

// runGaps reports the seq gaps of each capture; a frame-level gap is a
// finding.
func runGaps(env *cli.Env, opts gapsOptions) error {
	return env.EachCapture(opts.output, opts.paths, func(path string, r *capture.Reader, s cli.Section) error {
		p := &output.Gaps{W: s.W, Format: s.Format, Style: s.Style, FrameOnly: opts.frameOnly}
		err := cli.ReadErr(path, pipeline.New(pipeline.Options{}, p).Run(pipeline.Records(r)))
		env.ReadSummary(path, r.Stats())
		if err == nil && p.Summary().Gaps > 0 {
			err = cli.ErrFinding
		}
		return err
	})
}
