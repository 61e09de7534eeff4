package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/redact"
	"github.com/spf13/cobra"
)

// redactOptions is a redact as the command line asks for it.
type redactOptions struct {
	out      outFlags
	content  bool
	saltFile string

	path   string     // the capture; "-" is stdin
	output cli.Output // the redacted capture, from out
}

func (a *app) redactCmd() *cobra.Command {
	var opts redactOptions
	cmd := &cobra.Command{
		Use:   "redact IN -o OUT",
		Short: "Remove credentials (and with --content, message content and identifiers) from a capture",
		Long: `redact copies a capture, replacing every credential it can find with
__CLAWTAP_REDACTED__: connect auth tokens and passwords, device signatures
and nonces, device tokens, capability URLs, credential-bearing results, and
any string under a key such as token, apiKey, password, secret or cookie,
plus Bearer tokens, KEY=value assignments and PEM private keys in text.
Frames with nothing to replace are copied byte for byte.

--content also masks message text, thinking, tool arguments and results,
commands and log lines (letters become x, digits 0; whitespace, punctuation
and lengths are kept so streamed deltas still add up), replaces base64
payloads with «blob:<hash>:<bytes>», and pseudonymises device ids, hosts,
IPs, user names, delivery addresses and channel peer ids in session keys.
Pseudonyms are stable within a run; --salt-file makes them stable across runs.

IN may be - for stdin. OUT ending in .zst is zstd-compressed; - writes plain
JSON Lines to stdout. OUT is created with mode 0600 and is never overwritten
without --force. The rules are in docs/redaction.md.`,
		Example: `  clawtap redact fixtures/demo.jsonl.zst -o demo.redacted.jsonl.zst
  clawtap redact --content fixtures/tool-run.jsonl.zst -o share.jsonl.zst
  clawtap redact --content fixtures/demo.jsonl.zst -o - | clawtap classify --format json`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: captureArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path = args[0]
			if opts.out.path == "" {
				return cli.Usage("add -o OUT.jsonl.zst, or -o - for stdout", "no output given")
			}
			opts.output = opts.out.file(cmd)
			return a.run(cli.DefaultMemory, func() error { return runRedact(a.Env, opts) })
		},
	}
	a.fileFlags(cmd, &opts.out, "", "the capture to write (required): FILE, FILE.zst (compressed), or - for stdout")
	fl := cmd.Flags()
	fl.StringVar(&opts.out.path, "out", "", "the capture to write")
	renamedFlag(cmd, "out", "output")
	fl.BoolVar(&opts.content, "content", false, "also mask content and pseudonymise identifiers (for sharing)")
	fl.StringVar(&opts.saltFile, "salt-file", "", "key for pseudonyms from this file, so they repeat across runs (keep it private)")
	_ = cmd.MarkFlagFilename("salt-file")
	return cmd
}

// runRedact copies the capture with its credentials (and with --content
// its content) replaced.
func runRedact(env *cli.Env, opts redactOptions) error {
	in := opts.path
	if err := env.CheckStdin(opts.output.Cmd, in); err != nil {
		return err
	}
	var salt []byte
	if opts.saltFile != "" {
		b, err := os.ReadFile(opts.saltFile)
		if err != nil {
			return cli.Usage("give a file holding a private random key, e.g. head -c 32 /dev/urandom | base64 > salt", "read salt file: %v", err)
		}
		salt = b
		if len(bytes.TrimSpace(b)) == 0 {
			return cli.Usage("put a private random key in it, e.g. head -c 32 /dev/urandom | base64 > salt", "salt file %s is empty", opts.saltFile)
		}
		if n := len(bytes.TrimSpace(b)); n < 16 {
			env.Warnf("salt file %s holds only %d bytes; pseudonyms are easier to reverse with a short key", opts.saltFile, n)
		}
	}
	if cli.SameFile(in, opts.output.Path) {
		return cli.Usage("write to a new file, then replace the original yourself", "output %s is the input", opts.output.Path)
	}

	rd, err := env.OpenCaptureAsWritten(in)
	if err != nil {
		return err
	}
	defer rd.Close()

	red := redact.New(redact.Options{Content: opts.content, Salt: salt})
	h := capture.NewHeader(time.Now(), capture.Source{Tool: "clawtap " + version, Mode: "redact", From: filepath.Base(cli.DisplayName(in))})
	done, err := env.WriteCaptureWith(opts.output, func(w *capture.Writer) error {
		err := red.Copy(w, rd, h, "redacted by clawtap redact "+version)
		if re := (*redact.ReadError)(nil); errors.As(err, &re) {
			return cli.InputError(in, re.Err)
		}
		return err
	})
	if !done {
		return err
	}
	env.ReadSummary(in, rd.Stats())

	st := red.Stats()
	frames := st.Frames
	changed := st.FramesChanged
	msg := fmt.Sprintf("redacted %d records: %d of %d frames changed, %d credentials replaced", rd.Stats().Records, changed, frames, st.Credentials)
	if opts.content {
		msg += fmt.Sprintf(", %d strings masked, %d identifiers pseudonymised", st.Content, st.Pseudonyms)
	}
	if opts.output.Path != "-" {
		msg += " → " + opts.output.Path
	}
	env.Infof("%s", msg)
	return nil
}
