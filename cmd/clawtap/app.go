package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"github.com/fatih/color"
	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// Exit codes, documented in README.md.
const (
	exitOK          = 0
	exitFinding     = 1 // gaps, golden mismatch, findings
	exitTrouble     = 2 // usage or I/O trouble
	exitInterrupted = 130
)

// exitError carries an exit code and an optional hint up to Main.
type exitError struct {
	code int
	err  error
	hint string
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// errFinding ends a command with exit 1 after its output is complete;
// nothing more is printed.
var errFinding = &exitError{code: exitFinding, err: errors.New("finding")}

// usageError is exit 2 with a hint.
func usageError(hint string, format string, args ...any) error {
	return &exitError{code: exitTrouble, err: fmt.Errorf(format, args...), hint: hint}
}

// app holds the streams and global settings every command shares, so
// commands run in-process in tests with no global state.
type app struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer

	colorMode string // auto, always, never
	quiet     bool

	// isTerminal reports whether a stream is a terminal; tests replace it.
	isTerminal func(w any) bool
	// getenv reads the environment; tests replace it.
	getenv func(string) string
}

func newApp(stdin io.Reader, stdout, stderr io.Writer) *app {
	return &app{
		stdin: stdin, stdout: stdout, stderr: stderr,
		colorMode:  "auto",
		isTerminal: fileIsTerminal,
		getenv:     os.Getenv,
	}
}

func fileIsTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// stdoutIsTTY reports whether standard output is a terminal.
func (a *app) stdoutIsTTY() bool { return a.isTerminal(a.stdout) }

// useColor decides colour for a stream: --color, NO_COLOR, TERM=dumb, TTY.
func (a *app) useColor(w any) bool {
	switch a.colorMode {
	case "always":
		return true
	case "never":
		return false
	}
	if _, set := os.LookupEnv("NO_COLOR"); set || a.getenv("NO_COLOR") != "" || a.getenv("TERM") == "dumb" {
		return false
	}
	return a.isTerminal(w)
}

// warnf prints a warning on stderr in clawtap's one voice.
func (a *app) warnf(format string, args ...any) {
	if a.quiet {
		return
	}
	fmt.Fprintf(a.stderr, "clawtap: warning: "+format+"\n", args...)
}

// infof prints progress or a summary on stderr unless --quiet.
func (a *app) infof(format string, args ...any) {
	if a.quiet {
		return
	}
	fmt.Fprintf(a.stderr, "clawtap: "+format+"\n", args...)
}

// out returns a buffered stdout and a flush function that ignores a closed
// pipe (| head is not an error).
func (a *app) out() (*bufio.Writer, func() error) {
	bw := bufio.NewWriterSize(a.stdout, 64<<10)
	return bw, func() error {
		if err := bw.Flush(); err != nil && !isBrokenPipe(err) {
			return fmt.Errorf("write output: %w", err)
		}
		return nil
	}
}

func isBrokenPipe(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed)
}

// Main runs clawtap with args and returns the process exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return newApp(stdin, stdout, stderr).main(args)
}

// main runs the command line on the app's streams.
func (a *app) main(args []string) int {
	stdin, stdout, stderr := a.stdin, a.stdout, a.stderr
	root := a.rootCmd()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteC()
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee == errFinding || ee.code == exitFinding && ee.err == errFinding.err {
			return exitFinding
		}
		fmt.Fprintf(stderr, "clawtap: error: %v\n", ee.err)
		if ee.hint != "" {
			fmt.Fprintf(stderr, "clawtap: hint: %s\n", ee.hint)
		}
		return ee.code
	}
	if isBrokenPipe(err) {
		return exitOK
	}
	fmt.Fprintf(stderr, "clawtap: error: %v\n", err)
	if isUsage(err) {
		// The help of the command that failed, not the root's.
		path := "clawtap"
		if cmd != nil {
			path = cmd.CommandPath()
		}
		fmt.Fprintf(stderr, "clawtap: hint: run '%s --help' for usage\n", path)
	}
	return exitTrouble
}

// isUsage recognises cobra's flag and argument errors.
func isUsage(err error) bool {
	s := err.Error()
	for _, p := range []string{"unknown flag", "unknown shorthand", "unknown command", "accepts ", "requires ", "invalid argument", "flag needs", "required flag"} {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "clawtap",
		Short: "Record, replay and debug the OpenClaw Gateway's WebSocket event stream",
		Long: `clawtap records the OpenClaw Gateway's WebSocket frames into redacted,
zstd-compressed captures, and runs captures through the same
Bridge → Policy → Handler pipeline that chat UIs use, on a fake clock,
so streaming bugs become reproducible and testable.

Every command that prints takes --format json|text|table (json when piped,
text or table on a terminal) and -o FILE (- is stdout); an existing file is
replaced only with --force.

Exit codes: 0 ok; 1 a finding (gaps found a frame-level gap, check a finding
at or above --fail-on, diff a difference, replay --golden a mismatch, test a
capture that failed); 2 usage or I/O trouble; 130 interrupted.`,
		Example: `  clawtap classify fixtures/demo.jsonl.zst
  clawtap classify fixtures/demo.jsonl.zst | jq -c 'select(.kind=="runtime-chat")'
  clawtap replay fixtures/stale-terminal.jsonl.zst
  clawtap check fixtures/stale-terminal.jsonl.zst`,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			switch a.colorMode {
			case "auto", "always", "never":
			default:
				return usageError("use --color auto|always|never", "unknown --color %q", a.colorMode)
			}
			color.NoColor = !a.useColor(a.stdout)
			a.warnRenamed(cmd)
			return nil
		},
	}
	root.CompletionOptions.HiddenDefaultCmd = false
	root.PersistentFlags().StringVar(&a.colorMode, "color", "auto", "colour: auto (on a terminal, unless NO_COLOR or TERM=dumb), always or never")
	_ = root.RegisterFlagCompletionFunc("color", cobra.FixedCompletions([]string{"auto", "always", "never"}, cobra.ShellCompDirectiveNoFileComp))
	root.PersistentFlags().BoolVarP(&a.quiet, "quiet", "q", false, "no warnings, progress or summaries on stderr")
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return usageError("run '"+cmd.CommandPath()+" --help' for usage", "%v", err)
	})
	for _, c := range a.commands() {
		root.AddCommand(c)
	}
	return root
}
