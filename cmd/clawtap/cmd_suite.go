package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/internal/suite"
	"github.com/clawtap/clawtap/pkg/models"
	"github.com/clawtap/clawtap/pkg/replay"
	"github.com/spf13/cobra"
)

// junit is test's report format beyond json, text and table.
const junit output.Format = suite.FormatJUnit

// suiteOptions is a test run as the command line asks for it.
type suiteOptions struct {
	out        outFlags
	jobs       int
	update     bool
	uis        []string // names, or all; none is each capture's own
	timings    bool
	timingsSet bool // --timings was given; else times are shown on a terminal

	paths   []string    // folders, files or globs; none is suite.DefaultDirs
	output  cli.Output  // checked from out
	testUIs []replay.UI // checked from uis
}

func (a *app) testCmd() *cobra.Command {
	var opts suiteOptions
	cmd := &cobra.Command{
		Use:   "test [DIR|FILE|GLOB]...",
		Short: "Run a folder of captures as a regression suite: replay goldens and check expectations, in parallel",
		Long: `test runs every capture of a suite the way CI wants: for each capture, and
each UI it is tested under, one pass replays it and runs check; the replay
must equal the capture's golden file and check's findings its expectations.

A folder is searched recursively for *.jsonl.zst and *.jsonl captures
(folders starting with a dot are skipped); a file is taken whatever its name;
a quoted glob takes the captures it matches (** is refused: name the folder).
With no argument: testdata/ when it exists, else the current folder. Beside
NAME.jsonl.zst live
  NAME.golden          what 'clawtap replay --golden' writes (the default UI)
  NAME.<ui>.golden     the same under another UI
  NAME.expect.json     per UI, the findings check must report (rule,
                       severity, record, run), as a set
A capture is tested under the UIs its expectations name, else the default
one; --ui picks them instead (all for every UI clawtap models).

--update writes the goldens and expectations (only the files that change);
without it nothing is written. Review the diff and commit it.

Captures run in parallel (-j, default the number of CPUs); results print in
path order, the same bytes whatever -j is. Output (--format): text on a
terminal (a line per capture, the diff and the findings of every failure,
then a summary table), table (a row per capture and UI), json when piped (one
line per capture, then a {"summary":…} line), junit (JUnit XML for GitLab,
Jenkins and GitHub test reporters). Times are shown on a terminal, or with
--timings. With GITHUB_ACTIONS=true, each failure is also a ::error
annotation on stdout (on stderr when stdout carries the json or junit
report). docs/ci.md has CI recipes and the file formats.

Exit status: 0 every capture passed (or was updated), 1 a capture failed,
2 a capture could not be tested (unreadable capture or expectation file) or
usage trouble.`,
		Example: `  clawtap test 'fixtures/*-run.jsonl.zst'                     # exit 1 here: fixtures/ has no goldens
  mkdir -p suite && cp fixtures/demo.jsonl.zst fixtures/seq-gap.jsonl.zst suite/ && clawtap test --update suite
  mkdir -p suite && cp fixtures/demo.jsonl.zst suite/ && clawtap test --update suite && clawtap test -j 2 suite
  clawtap test --format junit -o report.xml fixtures/stale-terminal.jsonl.zst
  clawtap test --format json 'fixtures/*-run.jsonl.zst' | jq -c '{file, status}'`,
		Args:              cobra.ArbitraryArgs,
		ValidArgsFunction: suiteArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.paths = args
			var err error
			if opts.output, err = opts.out.spec(cmd); err != nil {
				return err
			}
			opts.timingsSet = cmd.Flags().Changed("timings")
			if opts.jobs < 1 {
				return cli.Usage("give -j 1 or more", "invalid -j %d", opts.jobs)
			}
			if opts.testUIs, err = cli.ParseUIs(opts.uis); err != nil {
				return err
			}
			return a.run(cli.DefaultMemory, func() error { return runSuite(cmd.Context(), a.Env, opts) })
		},
	}
	a.printFlags(cmd, &opts.out, output.Text, junit)
	fl := cmd.Flags()
	fl.IntVarP(&opts.jobs, "jobs", "j", runtime.NumCPU(), "captures tested at once")
	fl.BoolVar(&opts.update, "update", false, "write the goldens and expectations instead of comparing (only files that change)")
	fl.StringSliceVar(&opts.uis, "ui", nil, "test under these UIs: NAME, NAME@VERSION ("+strings.Join(models.Names(), ", ")+"; 'clawtap uis' lists the versions), or all; repeatable; default: the UI versions each capture's expectations name, else "+suite.DefaultUI().String())
	fl.BoolVar(&opts.timings, "timings", false, "show each capture's time and the suite's (default: on a terminal); times make the output differ between runs")
	_ = cmd.RegisterFlagCompletionFunc("ui", uiCompletions(true))
	return cmd
}

// suiteArgs completes folders and captures.
func suiteArgs(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return []string{"zst", "jsonl"}, cobra.ShellCompDirectiveFilterFileExt
}

// runSuite finds the suite's captures, runs them with internal/suite
// until they are done or a signal ends it, writes the report in the
// format asked for (with GitHub Actions annotations when
// GITHUB_ACTIONS=true), and turns the totals into the exit code the
// command documents.
func runSuite(ctx context.Context, env *cli.Env, opts suiteOptions) error {
	paths := opts.paths
	if len(paths) == 0 {
		paths = suite.DefaultDirs()
	}
	caps, err := suite.Discover(paths)
	if err != nil {
		return cli.Usage("name a folder of captures (*.jsonl.zst, *.jsonl), capture files or a glob", "%v", err)
	}
	s, err := env.OpenSink(opts.output)
	if err != nil {
		return err
	}
	timed := s.Dest.IsStdout() && env.StdoutIsTTY()
	if opts.timingsSet {
		timed = opts.timings
	}
	style := s.Style
	if s.Format == output.JSON || s.Format == junit {
		style = output.Style{}
	}
	rep := &suite.Report{W: s, Format: string(s.Format), Style: style, Timings: timed}
	cfg := suite.Config{UIs: opts.testUIs, Update: opts.update, Jobs: opts.jobs, ShowCredentials: env.ShowCredentials}
	var start time.Time
	if timed {
		cfg.Now = time.Now
		start = time.Now()
	}
	annotations := suiteAnnotationsTo(env, s)

	ctx, _, stop := cli.Interrupts(ctx, nil)
	defer stop()
	var unredacted []string // captures redacted as they were read
	err = suite.Run(ctx, caps, cfg, func(r *suite.Result) error {
		if r.RedactedOnRead {
			unredacted = append(unredacted, r.Capture.Path)
		}
		for _, n := range r.Notes {
			env.Warnf("%s: %s", r.Capture.Path, n)
		}
		for _, n := range r.Info {
			env.Infof("%s: %s", r.Capture.Path, n)
		}
		if annotations != nil {
			if err := suite.Annotate(annotations, r); err != nil {
				return err
			}
		}
		return rep.Result(r)
	})
	env.RedactedOnRead(unredacted)
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		// The captures under way are not waited for: the process removes
		// their new goldens and expectations, not yet in place, as it ends
		// (processMain).
		s.Close(err)
		return &cli.Error{Code: cli.ExitInterrupted, Err: errors.New("interrupted; the files under way were left as they were")}
	}
	if err == nil {
		var elapsed time.Duration
		if timed {
			elapsed = time.Since(start)
		}
		err = rep.End(elapsed)
	}
	t := rep.Totals()
	if err == nil && t.Failed > 0 {
		err = cli.ErrFinding
	}
	if err = s.Close(err); err != nil && err != cli.ErrFinding {
		return err
	}
	if t.Errors > 0 {
		return cli.Trouble(fmt.Errorf("%d of %d capture(s) could not be tested", t.Errors, t.Captures),
			"the report names each one and why; fix or remove the file")
	}
	return err
}

// suiteAnnotationsTo is where GitHub Actions annotations go when
// GITHUB_ACTIONS=true: stdout, which the runner reads, into the report
// itself when that is text on stdout, else beside it; stderr when the
// report on stdout is json or junit, which annotations would break.
func suiteAnnotationsTo(env *cli.Env, s *cli.Sink) io.Writer {
	if env.Getenv("GITHUB_ACTIONS") != "true" {
		return nil
	}
	if !s.Dest.IsStdout() {
		return env.Stdout
	}
	if s.Format == output.JSON || s.Format == junit {
		return env.Stderr
	}
	return s.Direct() // past the sanitiser, which would neutralise the ::
}
