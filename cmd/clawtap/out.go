package main

import (
	"slices"
	"strings"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/models"
	"github.com/spf13/cobra"
)

// outFlags are the output flags of every command that writes something:
// --format (for commands that print), -o/--output and --force.
type outFlags struct {
	format string
	path   string
	force  bool
	human  output.Format   // the format on a terminal
	extra  []output.Format // formats this command prints beyond json|text|table
}

// printFlags registers --format json|text|table, -o/--output and --force
// on a command that prints; human is its format on a terminal, extra the
// formats it prints besides (test: junit).
func (a *app) printFlags(cmd *cobra.Command, f *outFlags, human output.Format, extra ...output.Format) {
	f.human, f.extra = human, extra
	fl := cmd.Flags()
	names := "json (NDJSON), text or table"
	formats := output.Formats
	for _, x := range extra {
		names += " or " + string(x)
		formats = append(formats[:len(formats):len(formats)], string(x))
	}
	fl.StringVar(&f.format, "format", "", "output format: "+names+" (default: "+string(human)+" on a terminal, json otherwise)")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(formats, cobra.ShellCompDirectiveNoFileComp))
	a.fileFlags(cmd, f, "-", "write the output to FILE (- is stdout)")
	// A bad --format is a usage error before any input is read, and so is
	// -o json|text|table: -o used to be the format, and an old script
	// must not silently write a file named json.
	cmd.PreRunE = func(*cobra.Command, []string) error {
		if slices.Contains(output.Formats, f.path) {
			return cli.Usage("use --format "+f.path+" for the format, or -o ./"+f.path+" for a file of that name",
				"-o %s names a file now, not the format", f.path)
		}
		_, err := f.parsedFormat()
		return err
	}
}

func (f *outFlags) parsedFormat() (output.Format, error) {
	return cli.ParseFormat(f.format, f.extra...)
}

// fileFlags registers -o/--output (def is its default) and --force.
func (a *app) fileFlags(cmd *cobra.Command, f *outFlags, def, usage string) {
	fl := cmd.Flags()
	fl.StringVarP(&f.path, "output", "o", def, usage)
	fl.BoolVar(&f.force, "force", false, "replace an existing output file")
	_ = cmd.MarkFlagFilename("output")
}

// file is the output a command that writes a file names.
func (f *outFlags) file(cmd *cobra.Command) cli.Output {
	return cli.Output{Path: f.path, Force: f.force, Human: f.human, Cmd: cmd.CommandPath()}
}

// spec is the output of a command that prints, its format checked.
func (f *outFlags) spec(cmd *cobra.Command) (cli.Output, error) {
	o := f.file(cmd)
	var err error
	o.Format, err = f.parsedFormat()
	return o, err
}

// openSink opens f's output for printing.
func (a *app) openSink(cmd *cobra.Command, f *outFlags) (*cli.Sink, error) {
	o, err := f.spec(cmd)
	if err != nil {
		return nil, err
	}
	return a.OpenSink(o)
}

// renamedFlag keeps an old flag name working for a while, hidden; using
// it prints a warning that names the new one (see warnRenamed).
func renamedFlag(cmd *cobra.Command, old, now string) {
	_ = cmd.Flags().MarkHidden(old)
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations["renamed:"+old] = now
}

// warnRenamed warns about every old flag name the command line used.
func (a *app) warnRenamed(cmd *cobra.Command) {
	for k, now := range cmd.Annotations {
		if old, ok := strings.CutPrefix(k, "renamed:"); ok && cmd.Flags().Changed(old) {
			a.Warnf("--%s is now --%s; the old name will go away", old, now)
		}
	}
}

// uiFlag registers --ui, the UI a replay models, with completion.
func uiFlag(cmd *cobra.Command, ui *string) {
	def := models.Default().Version.UI
	cmd.Flags().StringVar(ui, "ui", def, "the UI to model: NAME (its newest version) or NAME@VERSION, of "+strings.Join(models.Names(), ", ")+" ('clawtap uis' lists the versions; docs/ui-*.md)")
	_ = cmd.RegisterFlagCompletionFunc("ui", uiCompletions(false))
}

// uiCompletions completes a UI: each model's name, then each version as
// NAME@VERSION, with what it is; withAll adds "all".
func uiCompletions(withAll bool) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		var c []string
		for _, u := range models.Newest() {
			c = append(c, u.Version.UI+"\tnewest: "+u.String())
		}
		for _, u := range models.All() {
			c = append(c, u.String()+"\t"+u.Version.Summary)
		}
		if withAll {
			c = append(c, "all\tevery version of every UI")
		}
		return c, cobra.ShellCompDirectiveNoFileComp
	}
}

// parseUI checks --ui.
var parseUI = cli.ParseUI
