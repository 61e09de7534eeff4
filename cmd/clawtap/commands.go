package main

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
		a.testCmd(),
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
