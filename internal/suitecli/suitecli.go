// Package suitecli runs 'clawtap test': it finds the suite's captures,
// runs them with pkg/suite, writes the report in the format asked for
// (with GitHub Actions annotations when GITHUB_ACTIONS=true), and turns
// the totals into the exit code the command documents.
package suitecli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/internal/suite"
)

// JUnit is the report format beyond json, text and table.
const JUnit output.Format = suite.FormatJUnit

// Config is a test run as the command line asks for it.
type Config struct {
	Paths   []string // folders, files or globs; none is suite.DefaultDirs
	Jobs    int
	Update  bool
	UIs     []string // names, or all; none is each capture's own
	Timings *bool    // show times; nil is on a terminal
	Out     cli.Output
}

// Run tests the suite until it is done or a signal ends it.
func Run(ctx context.Context, env *cli.Env, c Config) error {
	if c.Jobs < 1 {
		return cli.Usage("give -j 1 or more", "invalid -j %d", c.Jobs)
	}
	uis, err := cli.ParseUIs(c.UIs)
	if err != nil {
		return err
	}
	if len(c.Paths) == 0 {
		c.Paths = suite.DefaultDirs()
	}
	caps, err := suite.Discover(c.Paths)
	if err != nil {
		return cli.Usage("name a folder of captures (*.jsonl.zst, *.jsonl), capture files or a glob", "%v", err)
	}
	s, err := env.OpenSink(c.Out)
	if err != nil {
		return err
	}
	timed := s.Dest.IsStdout() && env.StdoutIsTTY()
	if c.Timings != nil {
		timed = *c.Timings
	}
	style := s.Style
	if s.Format == output.JSON || s.Format == JUnit {
		style = output.Style{}
	}
	rep := &suite.Report{W: s, Format: string(s.Format), Style: style, Timings: timed}
	cfg := suite.Config{UIs: uis, Update: c.Update, Jobs: c.Jobs, ShowCredentials: env.ShowCredentials}
	var start time.Time
	if timed {
		cfg.Now = time.Now
		start = time.Now()
	}
	annotations := annotationsTo(env, s)

	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = suite.Run(ctx, caps, cfg, func(r *suite.Result) error {
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
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
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

// annotationsTo is where GitHub Actions annotations go when
// GITHUB_ACTIONS=true: stdout, which the runner reads, into the report
// itself when that is text on stdout, else beside it; stderr when the
// report on stdout is json or junit, which annotations would break.
func annotationsTo(env *cli.Env, s *cli.Sink) io.Writer {
	if env.Getenv("GITHUB_ACTIONS") != "true" {
		return nil
	}
	if !s.Dest.IsStdout() {
		return env.Stdout
	}
	if s.Format == output.JSON || s.Format == JUnit {
		return env.Stderr
	}
	return s
}
