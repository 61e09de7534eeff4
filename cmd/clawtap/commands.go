package main

import "github.com/spf13/cobra"

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
		a.uisCmd(),
	}
}
