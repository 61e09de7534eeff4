package main

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/replay"
	"github.com/spf13/cobra"
)

// replayOptions is a replay as the command line asks for it.
type replayOptions struct {
	out        outFlags
	final      bool
	transcript bool
	all        bool
	agent      string
	session    string
	from, to   string
	frameMs    string
	golden     string // compare the output with this file (exit 1 on a difference)
	update     bool   // with golden: rewrite the file instead
	width      int
	conn       int
	history    bool
	noHistory  bool
	ui         string

	path   string     // the capture; "-" is stdin
	output cli.Output // checked from out: where the output goes, or its format with golden
	// printer says what to print; runReplay sets its writer, format and style.
	printer output.Replay
	replay  replay.Options
}

func (a *app) replayCmd() *cobra.Command {
	var opts replayOptions
	cmd := &cobra.Command{
		Use:   "replay [FILE|-]",
		Short: "Replay a capture through the whole pipeline on a fake clock and show what the UI did",
		Long: `replay runs every record of a capture through a chat UI's event pipeline —
clawboo's web app (Bridge → Policy → Handler, the default), Claw3D Studio
(--ui claw3d) or another model, at its newest version or one named with
--ui NAME@VERSION ('clawtap uis' lists them) — on a fake clock, and prints one step per
record that changed something, plus one step per timer that fired between
records (animation frames, the 750 ms summary-refresh debounce, the 5 s approval
expiry sweep). Each step shows the frame, the intents, the effects (store
writes, requests, guard decisions) and the state diff, e.g.
agents.main.status: running → idle. A guard decision marked HAZARD is the
reference's known bug: a late terminal of an older run closing the live run.

The output is byte-identical on every run: all times are offsets from the
capture's first record, and nothing reads the wall clock. That makes a capture
plus its output a regression test: --golden compares with a file and exits 1
on any difference, --update rewrites the file. A golden names the UI version
it was made with (its final state), and without --ui it is replayed under
that version, so it keeps passing when the default moves on.

Output (--format): text on a terminal (and with --golden), a block per step;
table, a row per step; json when piped, one step per line
{"i","t","intents","effects","diff"} and a last line {"final":<state>}.
See docs/replay.md for every field.

Windows and filters: --from/--to take a record index (12) or an offset from
the capture's start (2.5s, 1500ms); the replay still starts at the beginning,
only the printing is narrowed, and it stops after --to. --agent and --session
keep the steps that concern one agent or one chat session.

One capture may hold several connections. A connection that opens after the
replayed one closed is the UI reconnecting: the handler and the patch queue are
disposed at the close, the stores survive. A connection open at the same time
is another client (proxy mode): it is skipped with a warning; --conn N replays
that one instead.

On the real gateway a run's lifecycle end usually comes just before its chat
final, so clawboo@1211c16 has closed the run and drops the final's
commitChat: the reply never reaches the transcript, the turn is never billed
and the streaming bubble stays (clawtap check explains it as lost-reply);
the clawboo after it commits it. The history refresh the final requests goes
unanswered, as in clawboo, whose refresh lists sessions and discards the
result. --history-sync answers it from the capture instead, merging the
dropped finals into the transcript (a "history" effect): an approximation of
a UI that re-reads chat.history, not what clawboo does.`,
		Example: `  clawtap replay fixtures/stale-terminal.jsonl.zst
  clawtap replay --agent main --from 2s --to 3s fixtures/stale-terminal.jsonl.zst
  clawtap replay --format json fixtures/stale-terminal.jsonl.zst | jq -c 'select(any(.effects[]?; .action=="hazard"))'
  clawtap replay --transcript fixtures/streamed-run.jsonl.zst
  clawtap replay --ui claw3d --final fixtures/stale-terminal.jsonl.zst
  clawtap replay --ui clawboo@1211c16 --final fixtures/streamed-run.jsonl.zst   # the reply lost before clawboo's fix
  clawtap replay --conn 2 fixtures/exec-approval.jsonl.zst
  clawtap replay --final --format json fixtures/demo.jsonl.zst | jq .final.agents.main.status
  clawtap replay --golden /tmp/demo.golden --update fixtures/demo.jsonl.zst   # record
  clawtap replay --golden /tmp/demo.golden fixtures/demo.jsonl.zst            # check (exit 1 on change)`,
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: captureArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path = inputArg(args)
			if err := opts.check(cmd); err != nil {
				return err
			}
			return a.run(cli.SmallHeap, func() error { return runReplay(a.Env, opts) })
		},
	}
	a.printFlags(cmd, &opts.out, output.Text)
	uiFlag(cmd, &opts.ui)
	fl := cmd.Flags()
	fl.BoolVar(&opts.final, "final", false, "print only the final state")
	fl.BoolVar(&opts.transcript, "transcript", false, "print only each agent's committed transcript")
	fl.BoolVar(&opts.all, "all", false, "also print records that changed nothing (ignored frames)")
	fl.StringVar(&opts.agent, "agent", "", "keep only steps that concern this agent id")
	fl.StringVar(&opts.session, "session", "", "keep only steps for this session key (agent:<id>:...)")
	fl.StringVar(&opts.from, "from", "", "start printing at this record index, or offset (2.5s)")
	fl.StringVar(&opts.to, "to", "", "stop after this record index, or offset (4s)")
	fl.StringVar(&opts.frameMs, "frame-ms", "1000/60", "animation frame period in ms: a number (16.7) or a fraction (1000/60)")
	fl.StringVar(&opts.golden, "golden", "", "compare the output with this file; print a unified diff and exit 1 on any difference")
	_ = cmd.MarkFlagFilename("golden")
	fl.BoolVar(&opts.update, "update", false, "with --golden: write the output to the file instead of comparing")
	fl.IntVar(&opts.conn, "conn", 0, "the connection the UI starts on (default: the first record's); concurrent connections are other clients and are skipped")
	fl.BoolVar(&opts.history, "history-sync", false, "answer the UI's history refreshes from the capture, merging the finals the pipeline dropped (not what the UI does: an approximation)")
	fl.BoolVar(&opts.noHistory, "no-history-sync", false, "the default now: history refreshes go unanswered, as in the UI")
	_ = fl.MarkHidden("no-history-sync")
	fl.IntVar(&opts.width, "width", 120, "truncate frames and values in text output to about this many characters")
	return cmd
}

// check checks the flags and sets what runReplay uses from them.
func (o *replayOptions) check(cmd *cobra.Command) error {
	if o.final && o.transcript {
		return cli.Usage("use one of them", "--final and --transcript cannot be combined")
	}
	if o.update && o.golden == "" {
		return cli.Usage("use --golden FILE --update", "--update needs --golden")
	}
	if o.golden != "" && o.out.path != "-" {
		return cli.Usage("drop -o: --golden compares (or, with --update, writes) the golden file itself", "--golden and -o cannot be combined")
	}
	ui, err := parseUI(o.ui)
	if err == nil && o.golden != "" && !cmd.Flags().Changed("ui") {
		ui, err = cli.GoldenUI(o.golden, ui) // a golden is replayed under the UI it was made with
	}
	if err == nil && o.history && !ui.Layout().AnswersHistory {
		err = cli.Usage("drop --history-sync, or replay with --ui clawboo", "--history-sync answers clawboo's history refreshes; the %s model leaves its requests unanswered", ui)
	}
	if err != nil {
		return err
	}
	num, den, err := replay.ParseFrameMs(o.frameMs)
	if err != nil {
		return cli.Usage("use a positive number of ms (16.7) or a fraction (1000/60)", "invalid --frame-ms %q", o.frameMs)
	}
	var win replay.Window
	for _, b := range []struct {
		flag, val string
		dst       *replay.Bound
	}{{"from", o.from, &win.From}, {"to", o.to, &win.To}} {
		if *b.dst, err = replay.ParseBound(b.val); err != nil {
			return cli.Usage("give a record index (12) or an offset from the start (2.5s, 1500ms)", "invalid --%s %q", b.flag, b.val)
		}
	}
	if win.From.Set && win.To.Set && win.From.IsIndex != win.To.IsIndex {
		return cli.Usage("give both as indexes or both as offsets", "--from and --to mix an index and an offset")
	}
	if win.Reversed() {
		return cli.Usage("give --from before --to", "--from %s is after --to %s: the window holds nothing", o.from, o.to)
	}
	if o.width < 10 {
		o.width = 10
	}
	if o.conn < 0 {
		return cli.Usage("connections are numbered from 1", "invalid --conn %d", o.conn)
	}
	show := output.ReplaySteps
	switch {
	case o.final:
		show = output.ReplayFinal
	case o.transcript:
		show = output.ReplayTranscript
	}
	if o.output, err = o.out.spec(cmd); err != nil {
		return err
	}
	o.printer = output.Replay{Show: show, All: o.all, Window: win, Width: o.width, Filter: replay.Filter{Agent: o.agent, Session: o.session}}
	o.replay = replay.Options{UI: ui, FrameNum: num, FrameDen: den, Conn: o.conn, HistorySync: o.history}
	return nil
}

// runReplay replays the capture and prints what the UI did, or compares
// it with the golden file, and says which concurrent connections it
// skipped.
func runReplay(env *cli.Env, opts replayOptions) error {
	if err := env.CheckStdin(opts.output.Cmd, opts.path); err != nil {
		return err
	}
	r, err := env.OpenCapture(opts.path)
	if err != nil {
		return err
	}
	defer r.Close()

	// The output goes to -o, or into a buffer compared with the golden file
	// (text unless --format says otherwise, never coloured).
	// Text passes the sanitiser there as it does on its way to -o.
	var s *cli.Sink
	var golden bytes.Buffer
	var text *output.TextWriter
	pr := opts.printer
	if opts.golden != "" {
		pr.W, pr.Format, pr.Style = &golden, opts.output.Format, output.Style{}
		if pr.Format == "" {
			pr.Format = output.Text
		}
		if pr.Format != output.JSON {
			text = output.NewTextWriter(&golden, false)
			pr.W = text
		}
	} else {
		if s, err = env.OpenSink(opts.output); err != nil {
			return err
		}
		pr.W, pr.Format, pr.Style = s, s.Format, s.Style
	}
	p := pipeline.New(pipeline.Options{Replay: opts.replay, Until: pr.Window.To}, &replayFound{&pr, opts})
	err = cli.ReadErr(opts.path, p.Run(pipeline.Records(r)))
	env.ReadSummary(opts.path, r.Stats())
	if n, conns := p.Engine().Skipped(); n > 0 && p.Engine().Replayed() > 0 {
		name := cli.DisplayName(opts.path)
		if opts.replay.Conn == 0 {
			env.Warnf("%s: skipped %d record(s) of connection(s) %s, other clients open at the same time as the replayed one; pick one with --conn N",
				name, n, joinInts(conns))
		} else {
			env.Infof("%s: replayed connection %d; skipped %d record(s) of connection(s) %s, other clients", name, opts.replay.Conn, n, joinInts(conns))
		}
	}
	if s != nil {
		return s.Close(err)
	}
	if err != nil {
		return err
	}
	if text != nil {
		text.Flush()
	}
	return env.Golden(opts.output.Cmd, "replay", opts.golden, golden.Bytes(), opts.update)
}

// replayFound refuses, before the final state is printed, a --conn that
// names no connection of the capture and an --agent the replay never met:
// usage errors (exit 2) that name what the capture has, instead of an
// empty replay. The steps printed before are none: every record was
// skipped, or filtered out.
type replayFound struct {
	*output.Replay
	opts replayOptions
}

func (f *replayFound) End(e *pipeline.End) error {
	eng := e.Engine
	if conn := f.opts.replay.Conn; conn != 0 && eng.Replayed() == 0 {
		_, conns := eng.Skipped()
		return cli.Usage("pick one of them with --conn N, or drop --conn", "no connection %d in %s (it has %s)", conn, cli.DisplayName(f.opts.path), orNone(joinInts(conns)))
	}
	if agent := f.opts.printer.Filter.Agent; agent != "" && eng.State().Agent(agent) == nil {
		return cli.Usage("give one of them to --agent, or drop it", "no agent %q in the replay of %s (it has %s)", agent, cli.DisplayName(f.opts.path), orNone(strings.Join(eng.State().AgentIDs(), ", ")))
	}
	return f.Replay.End(e)
}

func orNone(list string) string {
	if list == "" {
		return "none"
	}
	return list
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}
