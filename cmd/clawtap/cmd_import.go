package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/importer"
	"github.com/spf13/cobra"
)

func (a *app) importCmd() *cobra.Command {
	var out outFlags
	var format string
	var noRedact bool
	cmd := &cobra.Command{
		Use:   "import FILE|- -o OUT",
		Short: "Turn a browser HAR export or JSON Lines of frames into a capture",
		Long: `import makes a clawtap capture from WebSocket frames recorded elsewhere, so a
user who only has their browser's devtools can still send a capture:

  - a HAR export (Chrome/Edge: Network tab → right-click → "Save all as HAR
    with content"): every WebSocket entry's _webSocketMessages become one
    connection (an open marker with the request URL, frames in and out with
    their times, a hello marker after hello-ok, a close marker at the end);
  - JSON Lines of frames in the common shapes: {"ts":…,"frame":{…}},
    {"time":…,"direction":"send|receive","data":"<frame as a string>"},
    bare gateway frames, and clawtap records. docs/import.md lists every
    accepted key and alias.

The format is detected from the content (--input-format to force it). A HAR is read
as a stream, one entry at a time. Credentials (connect tokens, device
signatures, hello-ok device tokens, capability URLs) are redacted as the
recorder does; --no-redact keeps them and says so in the header. OUT ending
in .zst is zstd-compressed; - writes plain JSON Lines to stdout.`,
		Example: `  clawtap import fixtures/bare-frames.jsonl -o cap.jsonl.zst
  clawtap import fixtures/bare-frames.jsonl -o cap.jsonl.zst --force && clawtap check cap.jsonl.zst
  clawtap import --input-format jsonl - -o - < fixtures/bare-frames.jsonl | clawtap stats --format text -`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: captureArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if out.path == "" {
				return cli.Usage("name the capture to write: clawtap import FILE -o cap.jsonl.zst", "no output given (-o OUT)")
			}
			switch format {
			case importer.FormatAuto, importer.FormatHAR, importer.FormatJSONL:
			default:
				return cli.Usage("use --input-format auto|har|jsonl", "unknown --input-format %q", format)
			}
			in := args[0]
			if err := a.CheckStdin(cmd.CommandPath(), in); err != nil {
				return err
			}
			return a.runImport(cmd, in, &out, format, noRedact)
		},
	}
	a.fileFlags(cmd, &out, "", "the capture to write (required): FILE.jsonl.zst (compressed), FILE.jsonl, or - for stdout")
	cmd.Flags().StringVar(&out.path, "out", "", "the capture to write")
	renamedFlag(cmd, "out", "output")
	cmd.Flags().StringVar(&format, "input-format", importer.FormatAuto, "input format: auto, har or jsonl")
	cmd.Flags().StringVar(&format, "format", importer.FormatAuto, "input format")
	renamedFlag(cmd, "format", "input-format")
	_ = cmd.RegisterFlagCompletionFunc("input-format", cobra.FixedCompletions([]string{importer.FormatAuto, importer.FormatHAR, importer.FormatJSONL}, cobra.ShellCompDirectiveNoFileComp))
	cmd.Flags().BoolVar(&noRedact, "no-redact", false, "keep credentials in the imported frames (the header records it)")
	return cmd
}

func (a *app) runImport(cmd *cobra.Command, in string, out *outFlags, format string, noRedact bool) error {
	var src io.Reader = a.Stdin
	name := "stdin"
	if in != "-" {
		f, err := os.Open(in)
		if err != nil {
			return cli.InputError(in, err)
		}
		defer f.Close()
		src = f
		name = filepath.Base(in)
	}
	if cli.SameFile(in, out.path) {
		return cli.Usage("write the capture to another file", "the output %s is the input", out.path)
	}
	var st importer.Stats
	done, err := a.WriteCaptureWith(out.file(cmd), func(w *capture.Writer) (err error) {
		st, err = importer.Import(src, w, importer.Options{
			Format: format, NoRedact: noRedact, Tool: "clawtap " + version, From: name,
			OnWarning: func(msg string) { a.LineWarnf(name, nil, "%s", msg) },
		})
		var se *capture.StreamError
		var nf *importer.NotFramesError
		switch {
		case errors.As(err, &nf):
			return cli.Trouble(fmt.Errorf("not a HAR or JSON Lines of frames: %s: %s", name, nf.Why()), "import reads a browser HAR export or JSON Lines of WebSocket frames (docs/import.md lists the shapes); give one of those, or --input-format har for a HAR")
		case errors.Is(err, importer.ErrHARCutOff):
			return cli.Trouble(fmt.Errorf("%s ends before its first whole WebSocket entry (%w)", cli.DisplayName(in), err), "the file was cut short (the export, a copy or a download did not finish); save the HAR again from the browser's devtools")
		case errors.Is(err, importer.ErrNoFrames):
			return cli.Trouble(err, "a HAR needs WebSocket entries with _webSocketMessages (save the HAR \"with content\" while the socket is open); JSON Lines need one frame per line")
		case errors.As(err, &se) || errors.Is(err, syscall.EISDIR):
			return cli.InputError(in, err)
		case err != nil:
			return cli.Trouble(fmt.Errorf("import %s: %w", cli.DisplayName(in), err), "")
		}
		return nil
	})
	a.HiddenWarnings(name)
	if !done {
		return err
	}
	red := "credentials redacted"
	if noRedact {
		red = "credentials kept (--no-redact)"
	} else if st.Redacted > 0 {
		red = "credentials redacted (" + strconv.Itoa(st.Redacted) + " value(s))"
	}
	cut := ""
	if st.Cut != "" {
		a.Warnf("%s: the input ends early (%s); the %d frame(s) before it are imported", name, st.Cut, st.Frames)
		cut = "; the input is truncated"
	}
	a.Infof("imported %d frame(s) and %d raw message(s) on %d connection(s) from %s (%s); %d skipped%s; %s", st.Frames, st.Raw, max(st.Connections, 1), name, st.Format, st.Skipped, cut, red)
	return nil
}
