package main

import (
	"slices"
	"strings"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/spf13/cobra"
)

// filter is the flags every pipeline command shares to select events.
type filter struct{ bridge.Filter }

// kinds are the Bridge's event kinds, as --kind takes them.
var kinds = func() (s []string) {
	for _, k := range bridge.Kinds {
		s = append(s, string(k))
	}
	return s
}()

func (f *filter) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringSliceVar(&f.Kinds, "kind", nil, "only these kinds ("+strings.Join(kinds, ", ")+")")
	_ = cmd.RegisterFlagCompletionFunc("kind", cobra.FixedCompletions(kinds, cobra.ShellCompDirectiveNoFileComp))
	fl.StringSliceVar(&f.Events, "event", nil, "only these event names (or methods of requests and responses)")
	fl.StringSliceVar(&f.Agents, "agent", nil, "only events of these agent ids")
	fl.StringSliceVar(&f.Sessions, "session", nil, "only events of these session keys")
	fl.StringSliceVar(&f.Runs, "run", nil, "only events of these run ids")
}

func (f *filter) validate() error {
	for _, k := range f.Kinds {
		if !slices.Contains(kinds, k) {
			return cli.Usage("kinds are "+strings.Join(kinds, ", "), "unknown --kind %q", k)
		}
	}
	return nil
}

// classifyOptions is a classify as the command line asks for it.
type classifyOptions struct {
	out    outFlags
	filter filter

	path   string     // the capture; "-" is stdin
	output cli.Output // checked from out
}

func (a *app) classifyCmd() *cobra.Command {
	var opts classifyOptions
	cmd := &cobra.Command{
		Use:   "classify [FILE|-]",
		Short: "Classify every record of a capture (the Bridge stage)",
		Long: `classify runs each record of a capture through the Bridge: what is this frame?
It prints one classified event per record: NDJSON when stdout is not a
terminal, an aligned coloured table when it is (--format).

Each JSON line has the record's i (index), t, conn, dir and frame seq, and the
classified fields in the reference pipeline's names: kind, event, agentId,
sessionKey, timestamp, payload, plus runId, state, stream, phase, method, id,
ok and code where they apply. Invalid records carry reason and raw.`,
		Example: `  clawtap classify fixtures/demo.jsonl.zst
  clawtap classify --kind runtime-chat --format json fixtures/demo.jsonl.zst | jq -r .state
  clawtap classify fixtures/demo.jsonl.zst --format json -o events.ndjson --force
  clawtap classify fixtures/demo.jsonl.zst | jq -c 'select(.agentId=="main")' | clawtap intents -`,
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: captureArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.filter.validate(); err != nil {
				return err
			}
			opts.path = inputArg(args)
			var err error
			if opts.output, err = opts.out.spec(cmd); err != nil {
				return err
			}
			return a.run(cli.SmallHeap, func() error { return runClassify(a.Env, opts) })
		},
	}
	a.printFlags(cmd, &opts.out, output.Table)
	opts.filter.register(cmd)
	return cmd
}

// runClassify prints the classified events of the capture.
func runClassify(env *cli.Env, opts classifyOptions) error {
	if err := env.CheckStdin(opts.output.Cmd, opts.path); err != nil {
		return err
	}
	r, err := env.OpenCapture(opts.path)
	if err != nil {
		return err
	}
	defer r.Close()
	s, err := env.OpenSink(opts.output)
	if err != nil {
		return err
	}
	p := &output.Classify{W: s, Format: s.Format, Style: s.Style, Match: opts.filter.Match}
	err = pipeline.New(pipeline.Options{}, p).Run(pipeline.Records(r))
	env.ReadSummary(opts.path, r.Stats())
	return s.Close(cli.ReadErr(opts.path, err))
}
