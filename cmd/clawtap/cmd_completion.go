package main

import (
	"io"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/spf13/cobra"
)

// completionOptions is a completion script as the command line asks for it.
type completionOptions struct {
	out outFlags

	root         *cobra.Command // the command line to complete
	shell        string         // bash, zsh, fish or powershell
	descriptions bool           // with each flag's and command's description
	output       cli.Output     // from out
}

// completionCmd fits cobra's completion command to the convention: a
// missing or unknown shell is a usage error, and -o/--force write the
// script through the safe writer.
func (a *app) completionCmd(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	comp, _, err := root.Find([]string{"completion"})
	if err != nil || comp == root {
		return
	}
	comp.Args = cobra.ArbitraryArgs
	comp.Example = "  clawtap completion bash -o clawtap.bash\n  source <(clawtap completion bash)"
	comp.RunE = func(_ *cobra.Command, args []string) error { return cli.NoShell(args) }
	var opts completionOptions
	for _, sh := range comp.Commands() {
		a.fileFlags(sh, &opts.out, "-", "write the script to FILE (- is stdout)")
		sh.RunE = func(cmd *cobra.Command, _ []string) error {
			noDesc, _ := cmd.Flags().GetBool("no-descriptions")
			opts.root, opts.shell, opts.descriptions = root, cmd.Name(), !noDesc
			opts.output = opts.out.file(cmd)
			return a.run(cli.DefaultMemory, func() error { return runCompletion(a.Env, opts) })
		}
	}
}

// runCompletion writes the completion script.
func runCompletion(env *cli.Env, opts completionOptions) error {
	_, err := env.WriteFileWith(opts.output, func(w io.Writer) error {
		return cli.WriteCompletion(w, opts.root, opts.shell, opts.descriptions)
	})
	return err
}
