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

// importOptions is an import as the command line asks for it.
type importOptions struct {
	out      outFlags
	format   string // the input's: auto, har or jsonl
	noRedact bool

	path   string     // the input; "-" is stdin
	output cli.Output // the capture, from out
}

func (a *app) importCmd() *cobra.Command {
	var opts importOptions
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
			opts.path = args[0]
			if opts.out.path == "" {
				return cli.Usage("name the capture to write: clawtap import FILE -o cap.jsonl.zst", "no output given (-o OUT)")
			}
			switch opts.format {
			case importer.FormatAuto, importer.FormatHAR, importer.FormatJSONL:
			default:
				return cli.Usage("use --input-format auto|har|jsonl", "unknown --input-format %q", opts.format)
			}
			opts.output = opts.out.file(cmd)
			return a.run(cli.DefaultMemory, func() error { return runImport(a.Env, opts) })
		},
	}
	a.fileFlags(cmd, &opts.out, "", "the capture to write (required): FILE.jsonl.zst (compressed), FILE.jsonl, or - for stdout")
	cmd.Flags().StringVar(&opts.out.path, "out", "", "the capture to write")
	renamedFlag(cmd, "out", "output")
	cmd.Flags().StringVar(&opts.format, "input-format", importer.FormatAuto, "input format: auto, har or jsonl")
	cmd.Flags().StringVar(&opts.format, "format", importer.FormatAuto, "input format")
	renamedFlag(cmd, "format", "input-format")
	_ = cmd.RegisterFlagCompletionFunc("input-format", cobra.FixedCompletions([]string{importer.FormatAuto, importer.FormatHAR, importer.FormatJSONL}, cobra.ShellCompDirectiveNoFileComp))
	cmd.Flags().BoolVar(&opts.noRedact, "no-redact", false, "keep credentials in the imported frames (the header records it)")
	return cmd
}

// runImport reads the frames and writes them as a capture, redacted
// unless --no-redact.
func runImport(env *cli.Env, opts importOptions) error {
	in := opts.path
	if err := env.CheckStdin(opts.output.Cmd, in); err != nil {
		return err
	}
	var src io.Reader = env.Stdin
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
	if cli.SameFile(in, opts.output.Path) {
		return cli.Usage("write the capture to another file", "the output %s is the input", opts.output.Path)
	}
	var st importer.Stats
	done, err := env.WriteCaptureWith(opts.output, func(w *capture.Writer) (err error) {
		st, err = importer.Import(src, w, importer.Options{
			Format: opts.format, NoRedact: opts.noRedact, Tool: "clawtap " + version, From: name,
			OnWarning: func(msg string) { env.LineWarnf(name, nil, "%s", msg) },
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
	env.HiddenWarnings(name)
	if !done {
		return err
	}
	red := "credentials redacted"
	if opts.noRedact {
		red = "credentials kept (--no-redact)"
	} else if st.Redacted > 0 {
		red = "credentials redacted (" + strconv.Itoa(st.Redacted) + " value(s))"
	}
	cut := ""
	if st.Cut != "" {
		env.Warnf("%s: the input ends early (%s); the %d frame(s) before it are imported", name, st.Cut, st.Frames)
		cut = "; the input is truncated"
	}
	env.Infof("imported %d frame(s) and %d raw message(s) on %d connection(s) from %s (%s); %d skipped%s; %s", st.Frames, st.Raw, max(st.Connections, 1), name, st.Format, st.Skipped, cut, red)
	return nil
}
