package main

// One command, one file: cmd_<name>.go holds
//
//   - <name>Options: the command's flags as given, and the values checked
//     from them that run<Name> uses;
//   - (a *app) <name>Cmd(): the cobra command, its help and flags. Its
//     RunE turns the command line into a valid <name>Options and calls
//     run<Name> through a.run, under the command's memory profile;
//   - run<Name>(env, opts): the work. The tests call it directly.
//
// The rule for checks: everything that can be checked from the command
// line alone (flags and arguments: values, ranges, flags that contradict
// each other, rule ids, sizes, formats) is checked in <name>Cmd (the
// output flags' own checks, --format and -o, in printFlags' PreRunE), and
// a bad one is a usage error (exit 2) before anything is opened or read.
// run<Name> trusts its options and checks none of that again; what it
// reports is the world's: the environment, stdin on a terminal, the files
// the flags name (captures, secrets, schemas, salt), the network.
//
// A command that runs until it is stopped (record, serve, test) takes a
// context first: run<Name>(ctx, env, opts). The command is test, but its
// file is cmd_suite.go (suiteOptions, runSuite): cmd_test.go would be a
// test file.

import (
	"github.com/clawtap/clawtap/internal/cli"
	"github.com/spf13/cobra"
)

// commands lists clawtap's subcommands, one file each (cmd_<name>.go).
func (a *app) commands() []*cobra.Command {
	return []*cobra.Command{
		a.classifyCmd(),
		a.intentsCmd(),
		a.gapsCmd(),
		a.recordCmd(),
		a.serveCmd(),
		a.replayCmd(),
		a.redactCmd(),
		a.checkCmd(),
		a.validateCmd(),
		a.statsCmd(),
		a.importCmd(),
		a.diffCmd(),
		a.reportCmd(),
		a.shrinkCmd(),
		a.reshapeCmd(),
		a.testCmd(),
		a.uisCmd(),
	}
}

// run runs a command's work under its memory profile (cli.Memory: the
// GC's heap growth, a soft memory limit), and puts back the process's
// settings when it is done, so that a command run in-process (the tests)
// leaves nothing behind.
func (a *app) run(m cli.Memory, work func() error) error {
	defer m.Apply()()
	return work()
}
