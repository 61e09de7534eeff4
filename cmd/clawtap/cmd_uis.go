package main

import (
	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/models"
	"github.com/spf13/cobra"
)

// uisOptions are the checked flags of 'clawtap uis'.
type uisOptions struct {
	out cli.Output
}

func (a *app) uisCmd() *cobra.Command {
	var out outFlags
	cmd := &cobra.Command{
		Use:   "uis",
		Short: "List the chat UI models clawtap replays, with their versions and sources",
		Long: `uis lists the chat UIs clawtap models and, for each, the versions it models:
the name --ui takes (NAME@VERSION; NAME alone is the newest version), where
the model was read from (a repository and commit, or a package release), and
what each version does differently from the one before it.

A finding is true of a UI version: check --ui all runs every version listed
here in one pass and says which show each finding; diff --ui A,B compares
two of them run by run.

Output (--format): text (the default on a terminal) groups the versions
under their UI; table is a row per version; json (the default when piped) is
one object per version {"ui","name","version","title","newest","default",
"bills","source","summary"}.`,
		Example: `  clawtap uis
  clawtap uis --format json | jq -r 'select(.newest).ui'
  clawtap uis --format table`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o, err := out.spec(cmd)
			if err != nil {
				return err
			}
			return runUIs(a.Env, uisOptions{out: o})
		},
	}
	a.printFlags(cmd, &out, output.Text)
	return cmd
}

// runUIs prints every modelled UI version.
func runUIs(env *cli.Env, opts uisOptions) error {
	def := models.Default()
	var list []output.UIVersion
	for _, u := range models.All() {
		vs := u.Model.Versions()
		list = append(list, output.UIVersion{UI: u, Newest: vs[len(vs)-1] == u.Version, Default: u == def})
	}
	s, err := env.OpenSink(opts.out)
	if err != nil {
		return err
	}
	return s.Close(output.UIs(s, s.Format, s.Style, list))
}
