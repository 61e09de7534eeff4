package main

import (
	"runtime"
	"strings"

	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/internal/suite"
	"github.com/clawtap/clawtap/internal/suitecli"
	"github.com/clawtap/clawtap/pkg/ui/models"
	"github.com/spf13/cobra"
)

type suiteFlags struct {
	out     outFlags
	jobs    int
	update  bool
	uis     []string
	timings bool
}

func (a *app) testCmd() *cobra.Command {
	var f suiteFlags
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
			return a.runSuite(cmd, args, &f)
		},
	}
	a.printFlags(cmd, &f.out, output.Text, suitecli.JUnit)
	fl := cmd.Flags()
	fl.IntVarP(&f.jobs, "jobs", "j", runtime.NumCPU(), "captures tested at once")
	fl.BoolVar(&f.update, "update", false, "write the goldens and expectations instead of comparing (only files that change)")
	fl.StringSliceVar(&f.uis, "ui", nil, "test under these UIs: NAME, NAME@VERSION ("+strings.Join(models.Names(), ", ")+"; 'clawtap uis' lists the versions), or all; repeatable; default: the UI versions each capture's expectations name, else "+suite.DefaultUI().String())
	fl.BoolVar(&f.timings, "timings", false, "show each capture's time and the suite's (default: on a terminal); times make the output differ between runs")
	_ = cmd.RegisterFlagCompletionFunc("ui", uiCompletions(true))
	return cmd
}

// suiteArgs completes folders and captures.
func suiteArgs(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return []string{"zst", "jsonl"}, cobra.ShellCompDirectiveFilterFileExt
}

func (a *app) runSuite(cmd *cobra.Command, args []string, f *suiteFlags) error {
	o, err := f.out.spec(cmd)
	if err != nil {
		return err
	}
	c := suitecli.Config{Paths: args, Jobs: f.jobs, Update: f.update, UIs: f.uis, Out: o}
	if cmd.Flags().Changed("timings") {
		c.Timings = &f.timings
	}
	return suitecli.Run(cmd.Context(), a.Env, c)
}
