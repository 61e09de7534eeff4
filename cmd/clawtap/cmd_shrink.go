package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/check"
	"github.com/clawtap/clawtap/pkg/human"
	"github.com/clawtap/clawtap/pkg/models"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/redact"
	"github.com/clawtap/clawtap/pkg/shrink"
	"github.com/spf13/cobra"
)

// shrinkOptions is a shrink as the command line asks for it.
type shrinkOptions struct {
	out      outFlags
	rule     string
	run      string
	ui       string
	maxTests int
	slowMs   int64
	idleMs   int64

	path   string        // the capture; "-" is stdin
	output cli.Output    // the small capture, from out
	target shrink.Target // checked
	// inMemory is the most frame bytes a capture may hold for shrink to
	// search it whole; a larger one is searched in a window before its
	// finding (shrink.Window) of at most as many bytes.
	inMemory int64
}

// shrinkInMemory is shrinkOptions.inMemory's value (tests lower it).
const shrinkInMemory = 8 << 20

func (a *app) shrinkCmd() *cobra.Command {
	opts := shrinkOptions{inMemory: shrinkInMemory}
	cmd := &cobra.Command{
		Use:   "shrink CAPTURE --rule RULE -o SMALL",
		Short: "Cut a capture down to the few records that still show one check finding",
		Long: `shrink turns a long capture into the handful of records a bug report needs:
it removes records for as long as check still reports the same finding —
the first finding of --rule (for --run, when given), at the same record,
with the same severity — and writes what is left. The search is delta
debugging (ddmin): whole connections first, then whole runs, then single
records, until removing any one of them loses the finding.

The result is a valid capture that replays: a kept frame keeps its
connection's handshake (open and hello markers, challenge, connect request
and response), a dropped connection takes its markers with it, and markers
are never kept alone. It keeps the input's header (redacted as the input
was) with a note saying what it was shrunk for, and its records exactly as
they were read. The same input gives the same output on every run.

--ui picks the UI the replay models, for rules that replay (dropped-final);
--slow-ms and --idle-ms are check's, for the rules they tune.
A capture of more than 8 MiB of frames is read as a stream to find the
finding, then searched in a window of the records up to it, not held whole.
--max-tests bounds the check passes; when it is reached, the smallest
capture found so far is written, with a warning. Exit status 2 when the
input does not show the finding at all. Progress goes to stderr (-q
silences it). SMALL ending in .zst is zstd-compressed; - writes JSON Lines
to stdout. See docs/shrink.md.`,
		Example: `  clawtap shrink fixtures/duplicate-final.jsonl.zst --rule duplicate-terminal -o small.jsonl.zst
  clawtap shrink fixtures/stale-terminal.jsonl.zst --rule dropped-final --ui clawboo@1211c16 -o small.jsonl
  clawtap shrink fixtures/exec-approval.jsonl.zst --rule run-seq-jump --run 990e77be-a691-4d68-a4b9-379b3c203882 --max-tests 50 -o - | clawtap check --rule run-seq-jump --format json`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: captureArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path = args[0]
			if err := opts.check(); err != nil {
				return err
			}
			opts.output = opts.out.file(cmd)
			return a.run(cli.DefaultMemory, func() error { return runShrink(a.Env, opts) })
		},
	}
	a.fileFlags(cmd, &opts.out, "", "the small capture to write (required): FILE, FILE.zst (compressed), or - for stdout")
	fl := cmd.Flags()
	fl.StringVar(&opts.rule, "rule", "", "the check rule whose finding to keep (required; clawtap check --list names them)")
	fl.StringVar(&opts.run, "run", "", "keep the rule's finding for this run id")
	fl.StringVar(&opts.ui, "ui", "", "the UI the replay models: NAME or NAME@VERSION, of "+strings.Join(models.Names(), ", ")+" (default "+models.Default().String()+")")
	fl.IntVar(&opts.maxTests, "max-tests", 0, "stop after this many check passes and write the smallest capture found so far (0: no bound)")
	fl.Int64Var(&opts.slowMs, "slow-ms", check.DefaultSlowMs, "as check's --slow-ms: a response later than this (ms) is slow; an older request with none at the end is unanswered")
	fl.Int64Var(&opts.idleMs, "idle-ms", check.DefaultIdleMs, "as check's --idle-ms: a run without terminal silent this long (ms) before the end is unterminated, not in flight")
	_ = cmd.RegisterFlagCompletionFunc("rule", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		var ids []string
		for _, r := range check.Rules() {
			ids = append(ids, r.ID+"\t"+r.Summary)
		}
		return ids, cobra.ShellCompDirectiveNoFileComp
	})
	_ = cmd.RegisterFlagCompletionFunc("ui", uiCompletions(false))
	return cmd
}

// check checks the flags and sets the target from them.
func (o *shrinkOptions) check() error {
	in := o.path
	o.target = shrink.Target{Rule: o.rule, Run: o.run, SlowMs: o.slowMs, IdleMs: o.idleMs}
	if o.ui != "" { // named: the note and messages say which
		ui, err := parseUI(o.ui)
		if err != nil {
			return err
		}
		o.target.UI = ui
	}
	switch {
	case o.rule == "":
		return cli.Usage("add --rule RULE; 'clawtap check "+cli.DisplayName(in)+"' shows the rules it reports", "no --rule given")
	case o.out.path == "":
		return cli.Usage("add -o SMALL.jsonl.zst, or -o - for stdout", "no output given")
	case o.maxTests < 0:
		return cli.Usage("give a positive number, or 0 for no bound", "--max-tests must not be negative")
	case o.slowMs <= 0 || o.idleMs <= 0:
		return cli.Usage("give a positive number of milliseconds", "--slow-ms and --idle-ms must be positive")
	}
	if err := o.target.Validate(); err != nil {
		hint := "shrink for another rule: 'clawtap check " + cli.DisplayName(in) + "' lists what the capture shows"
		if _, known := check.LookupRule(o.rule); !known {
			hint = "run 'clawtap check --list' for the rule ids"
		}
		return cli.Usage(hint, "%v", err)
	}
	return nil
}

// runShrink shrinks the capture while reporting progress, writes the
// small capture through the safe writer and says what was kept.
func runShrink(env *cli.Env, opts shrinkOptions) error {
	if err := env.CheckStdin(opts.output.Cmd, opts.path); err != nil {
		return err
	}
	if cli.SameFile(opts.path, opts.output.Path) {
		return cli.Usage("write to a new file", "output %s is the input", opts.output.Path)
	}
	in := cli.DisplayName(opts.path)
	// The search takes a while: an output it could not write is refused first.
	if err := env.CheckOutput(opts.output); err != nil {
		return err
	}
	src := &shrinkInput{env: env, path: opts.path}
	defer src.close()
	h, recs, res, err := shrinkSearch(env, src, opts)
	var ns *shrink.NotShownError
	var ce *cli.Error
	switch {
	case errors.As(err, &ce):
		return err
	case errors.As(err, &ns):
		ui := ""
		if !opts.target.UI.IsZero() {
			ui = " --ui " + opts.target.UI.String()
		}
		return cli.Usage("run 'clawtap check --rule "+opts.target.Rule+ui+" "+in+"' to see what it reports; shrink keeps a finding, it cannot make one",
			"%s does not show %s: %v", in, opts.target, err)
	case err != nil:
		return cli.Trouble(fmt.Errorf("shrink %s: %w", in, err), "")
	}
	hdr := shrink.Header(h, recs, opts.target, res)
	if !env.ShowCredentials && redact.Unredacted(h) {
		// The records were redacted as they were read (shrinkInput.open):
		// the header says so, so that nothing reading the output redacts
		// it again or warns that it was written without redaction.
		hdr = redact.New(redact.Options{}).Header(hdr)
		hdr.Redaction.Notes = append(hdr.Redaction.Notes, "credentials redacted by clawtap shrink as it read an input written without redaction")
	}
	if err := env.WriteCapture(opts.output, hdr, res.Records(recs)); err != nil {
		return err
	}
	if res.Exhausted {
		env.Warnf("--max-tests %d reached: the capture written still shows %s, but a smaller one may exist", opts.maxTests, opts.target)
	}
	msg := fmt.Sprintf("shrink: %d → %d records (%s)", res.Total, len(res.Kept), human.Count(res.Tests, "test", "tests"))
	if opts.output.Path != "-" {
		msg += " → " + opts.output.Path
	}
	env.Infof("%s", msg)
	env.Infof("shrink: %s at record %d: %s", res.Finding.Rule, res.Finding.I, res.Finding.Message)
	return nil
}

// shrinkSearch shrinks the capture: read as a stream to find the
// finding, then whole when it is small, else in the shortest window that
// shows it.
func shrinkSearch(env *cli.Env, src *shrinkInput, opts shrinkOptions) (*capture.Header, []capture.Record, *shrink.Result, error) {
	at, err := shrink.Locate(src.open, opts.target)
	if err != nil {
		return nil, nil, nil, cli.ReadErr(opts.path, err)
	}
	so := shrink.Options{
		MaxTests: opts.maxTests,
		Progress: func(p shrink.Progress) {
			env.Infof("shrink: by %s: %d records (%s)", strings.TrimSuffix(p.Stage, "s"), p.Kept, human.Count(p.Tests, "test", "tests"))
		},
	}
	if at.Bytes <= opts.inMemory {
		h, recs, err := src.readAll()
		if err != nil {
			return nil, nil, nil, err
		}
		res, err := shrink.Shrink(h, recs, opts.target, so)
		return h, recs, res, err
	}
	h, recs, anchorI, tests, err := shrink.Window(src.open, opts.target, at, opts.inMemory)
	var ce *cli.Error
	if err != nil && !errors.As(err, &ce) {
		err = cli.InputError(opts.path, err)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	if recs != nil {
		env.Infof("shrink: %d records (%s of frames): searching a window of %d of them, up to record %d, %s's", at.Records, human.Bytes(at.Bytes), len(recs), at.Finding.I, opts.target.Rule)
	} else {
		env.Warnf("shrink: %s at record %d shows in no window of at most %s of records before it: reading all %d records into memory", opts.target.Rule, at.Finding.I, human.Bytes(opts.inMemory), at.Records)
		if h, recs, err = src.readAll(); err != nil {
			return nil, nil, nil, err
		}
		anchorI = at.Finding.I
	}
	anchor := at.Finding
	anchor.I = anchorI
	so.Anchor = &anchor
	so.Tested = 1 + tests // the pass that located the finding, the windows tried
	res, err := shrink.Shrink(h, recs, opts.target, so)
	if err != nil {
		return nil, nil, nil, err
	}
	res.Total = at.Records
	return h, recs, res, nil
}

// shrinkInput is the capture, opened as often as the search reads it: the
// first time with the reader's warnings, then quietly. Stdin is copied to
// a temporary file as it is first read; the file is removed from its
// directory at once (where the system allows it), so that the copy is
// gone with the process however it ends.
type shrinkInput struct {
	env    *cli.Env
	path   string
	opened bool
	spool  *os.File // stdin's copy
	named  bool     // the copy could not be removed while open
}

func (in *shrinkInput) open() (pipeline.Source, func(), error) {
	if !in.opened {
		in.opened = true
		if in.path == "-" {
			f, err := os.CreateTemp("", "clawtap-shrink-*.stdin") // 0600
			if err != nil {
				return nil, nil, cli.Trouble(fmt.Errorf("shrink: a copy of stdin: %w", err), "set TMPDIR to a writable directory")
			}
			in.spool, in.named = f, os.Remove(f.Name()) != nil
			stdin := in.env.Stdin
			in.env.Stdin = io.TeeReader(stdin, f)
			defer func() { in.env.Stdin = stdin }()
		}
		r, err := in.env.OpenCapture(in.path)
		if err != nil {
			return nil, nil, err
		}
		return pipeline.Records(r), func() { in.env.ReadSummary(in.path, r.Stats()); r.Close() }, nil
	}
	var r *capture.Reader
	var err error
	if in.spool != nil {
		end, serr := in.spool.Seek(0, io.SeekEnd)
		if serr != nil {
			return nil, nil, cli.Trouble(fmt.Errorf("shrink: the copy of stdin: %w", serr), "")
		}
		r, err = capture.NewReader(io.NewSectionReader(in.spool, 0, end), capture.Options{})
	} else {
		r, err = capture.Open(in.path, capture.Options{})
	}
	if err != nil {
		return nil, nil, cli.InputError(in.path, err)
	}
	if !in.env.ShowCredentials {
		redact.OnRead(r)
	}
	return pipeline.Records(r), func() { r.Close() }, nil
}

// readAll reads the whole capture into memory.
func (in *shrinkInput) readAll() (*capture.Header, []capture.Record, error) {
	src, done, err := in.open()
	if err != nil {
		return nil, nil, err
	}
	defer done()
	var recs []capture.Record
	for {
		rec, _, err := src.Next()
		if errors.Is(err, io.EOF) {
			return src.Header(), recs, nil
		}
		if err != nil {
			return nil, nil, cli.InputError(in.path, err)
		}
		recs = append(recs, *rec.Clone())
	}
}

func (in *shrinkInput) close() {
	if in.spool != nil {
		in.spool.Close()
		if in.named {
			os.Remove(in.spool.Name())
		}
	}
}
