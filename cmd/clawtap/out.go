package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/replay"
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
			return usageError("use --format "+f.path+" for the format, or -o ./"+f.path+" for a file of that name",
				"-o %s names a file now, not the format", f.path)
		}
		_, err := f.parsedFormat()
		return err
	}
}

func (f *outFlags) parsedFormat() (output.Format, error) {
	for _, x := range f.extra {
		if strings.EqualFold(f.format, string(x)) {
			return x, nil
		}
	}
	format, err := output.ParseFormat(f.format)
	if err != nil {
		names := strings.Join(output.Formats, "|")
		for _, x := range f.extra {
			names += "|" + string(x)
		}
		return "", usageError("use --format "+names, "%v", err)
	}
	return format, nil
}

// fileFlags registers -o/--output (def is its default) and --force.
func (a *app) fileFlags(cmd *cobra.Command, f *outFlags, def, usage string) {
	fl := cmd.Flags()
	fl.StringVarP(&f.path, "output", "o", def, usage)
	fl.BoolVar(&f.force, "force", false, "replace an existing output file")
	_ = cmd.MarkFlagFilename("output")
}

// sink is an opened output: a buffered writer on the destination, with the
// format and style resolved for it.
type sink struct {
	*bufio.Writer
	dest   *output.Dest
	format output.Format
	style  output.Style
}

// openSink opens f's destination under the output rules (an existing file
// needs --force; devices and FIFOs are written in place) and resolves the
// format: the one asked for, else f.human on a terminal, else json.
func (a *app) openSink(cmd *cobra.Command, f *outFlags) (*sink, error) {
	format, err := f.parsedFormat()
	if err != nil {
		return nil, err
	}
	d, err := a.createOutput(cmd, f)
	if err != nil {
		return nil, err
	}
	terminal := d.IsStdout() && a.stdoutIsTTY()
	return &sink{
		Writer: bufio.NewWriterSize(d, 64<<10),
		dest:   d,
		format: output.Resolve(format, terminal, f.human),
		style:  a.styleFor(terminal),
	}, nil
}

// createOutput opens f's destination, turning refusals into exit 2 with a
// hint that fits the command.
func (a *app) createOutput(cmd *cobra.Command, f *outFlags) (*output.Dest, error) {
	d, err := output.Create(f.path, output.Options{Force: f.force, Stdout: a.stdout})
	switch {
	case errors.Is(err, output.ErrExists):
		return nil, usageError("add --force to replace it, or choose another file", "%s already exists", f.path)
	case err != nil:
		return nil, &exitError{code: exitTrouble, err: fmt.Errorf("cannot write %s: %w", f.path, err), hint: "run '" + cmd.CommandPath() + " --help' for the output rules"}
	}
	return d, nil
}

// styleFor decides colour for an output: --color always or never decides;
// auto colours a terminal unless NO_COLOR or TERM=dumb says not to.
func (a *app) styleFor(terminal bool) output.Style {
	switch a.colorMode {
	case "always":
		return output.Style{On: true}
	case "never":
		return output.Style{}
	}
	if a.getenv("NO_COLOR") != "" || a.getenv("TERM") == "dumb" {
		return output.Style{}
	}
	return output.Style{On: terminal}
}

// close ends the output after the command: on success (or a finding, whose
// output is complete) it flushes and commits the file; on any other error
// it aborts, leaving no partial file. A closed pipe is not an error.
func (s *sink) close(err error) error {
	var ee *exitError
	complete := err == nil || errors.As(err, &ee) && ee.code == exitFinding
	if !complete {
		s.Flush()
		s.dest.Abort()
		return err
	}
	if ferr := s.Flush(); ferr != nil {
		s.dest.Abort()
		if isBrokenPipe(ferr) {
			return err
		}
		return fmt.Errorf("write %s: %w", s.dest.Name(), ferr)
	}
	if cerr := s.dest.Commit(); cerr != nil {
		return &exitError{code: exitTrouble, err: fmt.Errorf("write %s: %w", s.dest.Name(), cerr)}
	}
	return err
}

var _ io.Writer = (*sink)(nil)

// captureOut is a capture being written to an output: its writer, and the
// destination that commits or aborts it.
type captureOut struct {
	*capture.Writer
	dest *output.Dest
}

// writeCapture opens f's destination for a capture, zstd-compressed when
// the name ends in .zst; stdout gets plain JSON Lines.
func (a *app) writeCapture(cmd *cobra.Command, f *outFlags) (*captureOut, error) {
	d, err := a.createOutput(cmd, f)
	if err != nil {
		return nil, err
	}
	w, err := capture.NewWriter(d, !d.IsStdout() && strings.HasSuffix(f.path, ".zst"))
	if err != nil {
		d.Abort()
		return nil, &exitError{code: exitTrouble, err: err}
	}
	return &captureOut{Writer: w, dest: d}, nil
}

// commit finishes the capture and puts the file in place.
func (c *captureOut) commit() error {
	if err := c.Writer.Close(); err != nil {
		c.dest.Abort()
		return fmt.Errorf("write %s: %w", c.dest.Name(), err)
	}
	if err := c.dest.Commit(); err != nil {
		return fmt.Errorf("write %s: %w", c.dest.Name(), err)
	}
	return nil
}

// abort drops the capture: no partial file is left.
func (c *captureOut) abort() {
	_ = c.Writer.Close()
	c.dest.Abort()
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
			a.warnf("--%s is now --%s; the old name will go away", old, now)
		}
	}
}

// uiFlag registers --ui, the UI a replay models, with completion.
func uiFlag(cmd *cobra.Command, ui *string) {
	cmd.Flags().StringVar(ui, "ui", replay.UIClawboo, "the UI to model: "+strings.Join(replay.UIs, " or ")+" (see docs/ui-"+replay.UIClawboo+".md, docs/ui-"+replay.UIClaw3D+".md)")
	_ = cmd.RegisterFlagCompletionFunc("ui", cobra.FixedCompletions(replay.UIs, cobra.ShellCompDirectiveNoFileComp))
}

// parseUI checks --ui.
func parseUI(s string) (string, error) {
	ui, err := replay.ParseUI(s)
	if err != nil {
		return "", usageError("use --ui "+strings.Join(replay.UIs, "|"), "%v", err)
	}
	return ui, nil
}
