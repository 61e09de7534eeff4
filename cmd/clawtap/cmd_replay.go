package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/replay"
	"github.com/fatih/color"
	"github.com/spf13/cobra"
)

type replayOpts struct {
	output     string
	final      bool
	transcript bool
	all        bool
	agent      string
	session    string
	from, to   string
	frameMs    string
	golden     string
	update     bool
	width      int
	conn       int
	noHistory  bool
}

func (a *app) replayCmd() *cobra.Command {
	var o replayOpts
	cmd := &cobra.Command{
		Use:   "replay [FILE|-]",
		Short: "Replay a capture through the whole pipeline on a fake clock and show what the UI did",
		Long: `replay runs every record of a capture through Bridge → Policy → Handler the
way a chat UI (clawboo's web app) would, on a fake clock, and prints one step per
record that changed something, plus one step per timer that fired between
records (animation frames, the 750 ms summary-refresh debounce, the 5 s approval
expiry sweep). Each step shows the frame, the intents, the effects (store
writes, requests, guard decisions) and the state diff, e.g.
agents.main.status: running → idle. A guard decision marked HAZARD is the
reference's known bug: a late terminal of an older run closing the live run.

The output is byte-identical on every run: all times are offsets from the
capture's first record, and nothing reads the wall clock. That makes a capture
plus its output a regression test: --golden compares with a file and exits 1
on any difference, --update rewrites the file.

Output: text on a terminal, NDJSON when piped (--output json): one step per
line {"i","t","intents","effects","diff"} and a last line {"final":<state>}.
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

On the real gateway a run's lifecycle end comes just before its chat final, so
the reference pipeline has closed the run and drops the final's commitChat; the
final text reaches a real UI through the history refresh that final requests.
Replay answers that request from the capture: the dropped finals' lines are
merged into the transcript (a "history" effect). --no-history-sync leaves the
requests unanswered, to see the pipeline's own transcript.`,
		Example: `  clawtap replay fixtures/stale-terminal.jsonl.zst
  clawtap replay --agent main --from 2s --to 3s fixtures/stale-terminal.jsonl.zst
  clawtap replay --output json cap.jsonl.zst | jq -c 'select(any(.effects[]?; .action=="hazard"))'
  clawtap replay --transcript fixtures/tool-run.jsonl.zst
  clawtap replay --conn 2 fixtures/exec-approval.jsonl.zst
  clawtap replay --final --output json cap.jsonl.zst | jq .final.agents.main.status
  clawtap replay --golden testdata/cap.golden --update cap.jsonl.zst   # record
  clawtap replay --golden testdata/cap.golden cap.jsonl.zst            # check (exit 1 on change)`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := inputArg(args)
			if err := a.checkStdin(cmd, path); err != nil {
				return err
			}
			return a.runReplay(path, &o)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&o.output, "output", "o", "", "text or json (default: text on a terminal or with --golden, json when piped)")
	fl.BoolVar(&o.final, "final", false, "print only the final state")
	fl.BoolVar(&o.transcript, "transcript", false, "print only each agent's committed transcript")
	fl.BoolVar(&o.all, "all", false, "also print records that changed nothing (ignored frames)")
	fl.StringVar(&o.agent, "agent", "", "keep only steps that concern this agent id")
	fl.StringVar(&o.session, "session", "", "keep only steps for this session key (agent:<id>:...)")
	fl.StringVar(&o.from, "from", "", "start printing at this record index, or offset (2.5s)")
	fl.StringVar(&o.to, "to", "", "stop after this record index, or offset (4s)")
	fl.StringVar(&o.frameMs, "frame-ms", "1000/60", "animation frame period in ms: a number (16.7) or a fraction (1000/60)")
	fl.StringVar(&o.golden, "golden", "", "compare the output with this file; print a unified diff and exit 1 on any difference")
	fl.BoolVar(&o.update, "update", false, "with --golden: write the output to the file instead of comparing")
	fl.IntVar(&o.conn, "conn", 0, "the connection the UI starts on (default: the first record's); concurrent connections are other clients and are skipped")
	fl.BoolVar(&o.noHistory, "no-history-sync", false, "leave the UI's history refreshes unanswered: show only what the pipeline itself committed")
	fl.IntVar(&o.width, "width", 120, "truncate frames and values in text output to about this many characters")
	return cmd
}

// parseFrameMs reads "16.7" or "1000/60" as a fraction num/den of ms.
func parseFrameMs(s string) (uint64, uint64, error) {
	bad := usageError("use a positive number of ms (16.7) or a fraction (1000/60)", "invalid --frame-ms %q", s)
	if n, d, ok := strings.Cut(s, "/"); ok {
		num, err1 := strconv.ParseUint(strings.TrimSpace(n), 10, 32)
		den, err2 := strconv.ParseUint(strings.TrimSpace(d), 10, 32)
		if err1 != nil || err2 != nil || num == 0 || den == 0 {
			return 0, 0, bad
		}
		return num, den, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !(f > 0) || f > 1e6 || math.IsInf(f, 0) {
		return 0, 0, bad
	}
	// Microsecond precision.
	num := uint64(math.Round(f * 1000))
	if num == 0 {
		return 0, 0, bad
	}
	return num, 1000, nil
}

func (a *app) runReplay(path string, o *replayOpts) error {
	if o.final && o.transcript {
		return usageError("use one of them", "--final and --transcript cannot be combined")
	}
	if o.update && o.golden == "" {
		return usageError("use --golden FILE --update", "--update needs --golden")
	}
	format := o.output
	if o.golden != "" && format == "" {
		format = "text"
	}
	format, err := a.outputFormat(format, []string{"text", "json"}, "text", "json")
	if err != nil {
		return err
	}
	num, den, err := parseFrameMs(o.frameMs)
	if err != nil {
		return err
	}
	var win replay.Window
	for _, b := range []struct {
		flag, val string
		dst       *replay.Bound
	}{{"from", o.from, &win.From}, {"to", o.to, &win.To}} {
		if *b.dst, err = replay.ParseBound(b.val); err != nil {
			return usageError("give a record index (12) or an offset from the start (2.5s, 1500ms)", "invalid --%s %q", b.flag, b.val)
		}
	}
	if win.From.Set && win.To.Set && win.From.IsIndex != win.To.IsIndex {
		return usageError("give both as indexes or both as offsets", "--from and --to mix an index and an offset")
	}
	if o.width < 10 {
		o.width = 10
	}
	if o.conn < 0 {
		return usageError("connections are numbered from 1", "invalid --conn %d", o.conn)
	}

	r, err := a.openCapture(path)
	if err != nil {
		return err
	}
	defer r.Close()

	// Output goes to stdout, or to a buffer compared with the golden file.
	var sink io.Writer
	var flush func() error
	var goldenBuf bytes.Buffer
	if o.golden != "" {
		sink, flush = &goldenBuf, func() error { return nil }
	} else {
		bw, fl := a.out()
		sink, flush = bw, fl
	}

	pr := &replayPrinter{w: sink, json: format == "json", win: win, all: o.all,
		steps: !o.final && !o.transcript, final: o.final, transcript: o.transcript,
		f: &replay.Formatter{Width: o.width}, flt: &replay.Filter{Agent: o.agent, Session: o.session}}
	if o.golden == "" && format == "text" && !color.NoColor {
		pr.f.Style = replayStyle()
	}
	p := pipeline.New(pipeline.Options{
		Replay: replay.Options{FrameNum: num, FrameDen: den, Conn: o.conn, NoHistorySync: o.noHistory},
		Until:  win.To,
	}, pr)
	pr.eng = p.Engine()
	if err := p.Run(pipeline.Records(r)); err != nil {
		return passErr(path, flush, err)
	}
	a.readSummary(path, r.Stats())
	if n, conns := pr.eng.Skipped(); n > 0 {
		a.warnf("%s: skipped %d record(s) of connection(s) %s, other clients open at the same time as the replayed one; pick one with --conn N",
			displayName(path), n, joinInts(conns))
	}
	if err := flush(); err != nil {
		return err
	}
	if o.golden != "" {
		return a.checkGolden(o.golden, goldenBuf.Bytes(), o.update)
	}
	return nil
}

// replayPrinter prints a replay: its steps as they come, then the final
// state or the transcripts.
type replayPrinter struct {
	w                        io.Writer
	json, all                bool
	steps, final, transcript bool
	win                      replay.Window
	f                        *replay.Formatter
	flt                      *replay.Filter
	eng                      *replay.Engine
	buf                      []byte
}

func (p *replayPrinter) Needs() pipeline.Needs { return pipeline.Replay }

func (p *replayPrinter) write(b []byte) error {
	_, err := p.w.Write(b)
	return err
}

func (p *replayPrinter) Step(s *replay.Step) error {
	if !p.steps || !(p.all || s.Changed()) {
		return nil
	}
	e := p.eng
	if !p.win.Contains(s, e.T0()) {
		return nil
	}
	if s = p.flt.Apply(s, e.State()); s == nil {
		return nil
	}
	p.f.T0 = e.T0()
	if p.json {
		p.buf = p.f.AppendStepJSON(p.buf[:0], s)
	} else {
		p.buf = p.f.AppendStepText(p.buf[:0], s)
	}
	return p.write(p.buf)
}

func (p *replayPrinter) End(end *pipeline.End) error {
	e := p.eng
	p.f.T0 = e.T0()
	sf := replay.StateFilter{Agent: p.flt.AgentID()}
	switch {
	case p.transcript && p.json:
		p.buf = p.f.AppendTranscriptJSON(p.buf[:0], e.State(), sf)
	case p.transcript:
		p.buf = p.f.AppendTranscriptText(p.buf[:0], e.State(), sf)
	case p.json:
		p.buf = p.f.AppendFinalJSON(p.buf[:0], e.State(), e.Now(), e.ClosedRuns(), sf)
	default:
		p.buf = p.f.AppendFinalText(p.buf[:0], e.State(), e.Now(), e.ClosedRuns(), sf)
	}
	return p.write(p.buf)
}

// checkGolden compares out with the golden file, or rewrites it.
func (a *app) checkGolden(path string, out []byte, update bool) error {
	if update {
		if dir := filepath.Dir(path); dir != "." {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return &exitError{code: exitTrouble, err: fmt.Errorf("create %s: %w", dir, err)}
			}
		}
		if err := os.WriteFile(path, out, 0o644); err != nil {
			return &exitError{code: exitTrouble, err: fmt.Errorf("write golden: %w", err)}
		}
		a.infof("golden %s updated (%d bytes)", path, len(out))
		return nil
	}
	want, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return usageError("create it with --update, review it, and commit it", "golden file %s does not exist", path)
		}
		return &exitError{code: exitTrouble, err: fmt.Errorf("read golden: %w", err)}
	}
	d := replay.UnifiedDiff(path, "replay", want, out)
	if d == "" {
		a.infof("golden %s matches", path)
		return nil
	}
	bw, flush := a.out()
	bw.WriteString(d)
	if err := flush(); err != nil {
		return err
	}
	fmt.Fprintf(a.stderr, "clawtap: golden %s differs from the replay\n", path)
	fmt.Fprintf(a.stderr, "clawtap: hint: if the new behaviour is right, rerun with --update and commit the file\n")
	return errFinding
}

// replayStyle colours text output with fatih/color, whose global switch
// the app has already set from --color, NO_COLOR and the terminal.
func replayStyle() replay.Style {
	sp := func(attrs ...color.Attribute) func(string) string {
		c := color.New(attrs...)
		return func(s string) string { return c.Sprint(s) }
	}
	return replay.Style{
		Header: sp(color.Bold),
		Time:   sp(color.FgBlue),
		Frame:  sp(color.Faint),
		Intent: sp(color.FgCyan),
		Effect: sp(color.FgYellow),
		Guard:  sp(color.FgMagenta),
		Hazard: sp(color.FgRed, color.Bold),
		Path:   nil,
		From:   sp(color.FgRed),
		To:     sp(color.FgGreen),
		Dim:    sp(color.Faint),
	}
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}
