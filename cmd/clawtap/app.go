package main

import (
	"io"
	"os/signal"
	"syscall"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/fatih/color"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// app is the command line: cobra's commands on the shared Env.
type app struct{ *cli.Env }

func newApp(stdin io.Reader, stdout, stderr io.Writer) *app {
	return &app{cli.NewEnv(stdin, stdout, stderr)}
}

// Main runs clawtap with args and returns the process exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// A reader that leaves (| head) must not kill the process with SIGPIPE:
	// the write fails with EPIPE instead, and the command ends quietly with
	// status 0, as jq and ripgrep do.
	signal.Ignore(syscall.SIGPIPE)
	return newApp(stdin, stdout, stderr).main(args)
}

// main runs the command line on the app's streams.
func (a *app) main(args []string) int {
	stdin, stdout, stderr := a.Stdin, a.Stdout, a.Stderr
	root := a.rootCmd()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteC()
	path := "clawtap" // the help of the command that failed, not the root's
	if cmd != nil {
		path = cmd.CommandPath()
	}
	return a.Exit(err, path)
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
			switch a.ColorMode {
			case "auto", "always", "never":
			default:
				return cli.Usage("use --color auto|always|never", "unknown --color %q", a.ColorMode)
			}
			color.NoColor = !a.UseColor(a.Stdout)
			a.warnRenamed(cmd)
			return nil
		},
	}
	root.CompletionOptions.HiddenDefaultCmd = false
	root.PersistentFlags().StringVar(&a.ColorMode, "color", "auto", "colour: auto (on a terminal, unless NO_COLOR or TERM=dumb), always or never")
	_ = root.RegisterFlagCompletionFunc("color", cobra.FixedCompletions([]string{"auto", "always", "never"}, cobra.ShellCompDirectiveNoFileComp))
	root.PersistentFlags().BoolVarP(&a.Quiet, "quiet", "q", false, "no warnings, progress or summaries on stderr")
	root.PersistentFlags().BoolVar(&a.ShowCredentials, "show-credentials", false, "show the credentials of a capture written without redaction (bare frames, record --no-redact); by default they are redacted as it is read")
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		hint := "run '" + cmd.CommandPath() + " --help' for usage"
		var names []string
		cmd.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
		cmd.InheritedFlags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
		if s := cli.SuggestFlag(err.Error(), names); s != "" {
			hint = "did you mean --" + s + "? " + hint
		}
		return cli.Usage(hint, "%v", err)
	})
	for _, c := range a.commands() {
		root.AddCommand(c)
	}
	a.completionCmd(root)
	return root
}
