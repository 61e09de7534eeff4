package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/redact"
	"github.com/clawtap/clawtap/pkg/release"
	"github.com/clawtap/clawtap/pkg/reshape"
	"github.com/spf13/cobra"
)

// reshapeOptions is a reshape as the command line asks for it.
type reshapeOptions struct {
	out        outFlags
	gateway    string
	format     string // the closing summary's
	allowOlder bool

	path    string          // the capture; "-" is stdin
	output  cli.Output      // the reshaped capture, from out
	target  release.Version // --gateway, checked
	summary output.Format   // --format, checked
}

func (a *app) reshapeCmd() *cobra.Command {
	var opts reshapeOptions
	cmd := &cobra.Command{
		Use:   "reshape --gateway RELEASE IN -o OUT",
		Short: "Rewrite a 2026.9.6 capture into the wire of a newer gateway release",
		Long: `reshape rewrites a capture of a 2026.9.6 gateway into the wire of a newer
release, where the newer release's change follows from what the capture
holds, so that a UI can be replayed (or served with clawtap serve) against a
gateway it cannot run yet. --gateway 2026.9.7 (or 2026.9.8, the same wire)
makes live text append-only, per connection, as 2026.9.7 does: a chat delta
loses its cumulative message, and an agent assistant event its data.text,
where the connection already holds the run's text and the new text is that
text plus the delta; everything else stays byte for byte, records, times
and order included. hello-ok and hello markers name the new release, and
hello-ok's lists lose the tasks.* methods. The header says the capture was
reshaped, from which release (source.reshapedFrom).

What depends on timing or on what happened at run time is not made up:
coalesced deltas, a second lifecycle start, an error after an abort,
state_contention, waiting_for_state, interrupted sessions and
session.narration; the summary lists them. reshape checks its output as it
writes it with the text projection the official client runs on a 2026.9.7
connection. The same input gives the same output, and memory stays flat.

It refuses (exit 2) a capture already on an append-only wire, one of
protocol 3, one reshaped already, and one of another release than 2026.9.6;
--allow-older takes 2026.9.2 to 2026.9.5 (their live text has 2026.9.6's
shape; the fixes between them are not added). Exit status 1 when the output
holds records the new release would have answered differently and that
reshape kept (a tasks.* call); each is a warning.

OUT ending in .zst is zstd-compressed; - writes JSON Lines to stdout. The
summary goes to stderr (--format text, json or table). See docs/reshape.md.`,
		Example: `  clawtap reshape --gateway 2026.9.7 fixtures/streamed-run.jsonl.zst -o streamed-run.9.7.jsonl.zst
  clawtap reshape --gateway 2026.9.7 fixtures/tool-run.jsonl.zst -o - | clawtap check --ui all --format text -
  clawtap reshape --gateway 2026.9.7 --format json fixtures/demo.jsonl.zst -o demo.9.7.jsonl 2>&1 | jq .summary.chatAppendOnly`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: captureArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path = args[0]
			if err := opts.check(); err != nil {
				return err
			}
			opts.output = opts.out.file(cmd)
			return a.run(cli.DefaultMemory, func() error { return runReshape(a.Env, opts) })
		},
	}
	a.fileFlags(cmd, &opts.out, "", "the reshaped capture to write (required): FILE, FILE.zst (compressed), or - for stdout")
	fl := cmd.Flags()
	fl.StringVar(&opts.gateway, "gateway", "", "the release whose wire to write (required): "+strings.Join(targetNames(), " or "))
	fl.StringVar(&opts.format, "format", "", "the closing summary on stderr: text (default), json or table")
	fl.BoolVar(&opts.allowOlder, "allow-older", false, "also reshape a capture of 2026.9.2 to 2026.9.5, whose live text has 2026.9.6's shape")
	_ = cmd.RegisterFlagCompletionFunc("gateway", cobra.FixedCompletions(targetNames(), cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(output.Formats, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func targetNames() []string {
	var names []string
	for _, t := range reshape.Targets() {
		names = append(names, t.String())
	}
	return names
}

// check checks the flags.
func (o *reshapeOptions) check() error {
	var err error
	if o.summary, err = output.ParseFormat(o.format); err != nil {
		return cli.Usage("use --format "+strings.Join(output.Formats, "|"), "%v", err)
	}
	switch v, ok := release.Parse(o.gateway); {
	case o.gateway == "":
		return cli.Usage("add --gateway "+targetNames()[0], "no --gateway given: which release's wire to write")
	case !ok || !slices.Contains(targetNames(), v.String()):
		return cli.Usage("reshape writes "+strings.Join(targetNames(), " or "), "--gateway %s: not a release reshape writes", o.gateway)
	default:
		o.target = v
	}
	if o.out.path == "" {
		return cli.Usage("add -o OUT.jsonl.zst, or -o - for stdout", "no output given")
	}
	return nil
}

// reshapeSource is the capture as reshape reads it: its header says it
// was redacted when the reader redacts it as it reads it.
type reshapeSource struct {
	*capture.Reader
	header *capture.Header
}

func (s reshapeSource) Header() *capture.Header { return s.header }

// runReshape reshapes the capture, writes it through the safe writer and
// says what it did.
func runReshape(env *cli.Env, opts reshapeOptions) error {
	in := opts.path
	if err := env.CheckStdin(opts.output.Cmd, in); err != nil {
		return err
	}
	if cli.SameFile(in, opts.output.Path) {
		return cli.Usage("write to a new file", "output %s is the input", opts.output.Path)
	}
	r, err := env.OpenCapture(in)
	if err != nil {
		return err
	}
	defer r.Close()
	src := reshapeSource{Reader: r, header: r.Header()}
	if redact.Unredacted(r.Header()) && !env.ShowCredentials {
		h := capture.Header{Version: capture.Version}
		if r.Header() != nil {
			h = *r.Header()
		}
		h = redact.New(redact.Options{}).Header(h)
		src.header = &h
	}
	name := cli.DisplayName(in)
	ro := reshape.Options{Target: opts.target, Force: opts.allowOlder, Tool: "clawtap " + version,
		OnWarning: func(w reshape.Warning) {
			if w.I < 0 {
				env.Warnf("%s: %s", name, w)
				return
			}
			env.LineWarnf(name, nil, "%s", w)
		}}
	if in != "-" {
		ro.From = filepath.Base(in)
	}
	var res *reshape.Result
	done, err := env.WriteCaptureWith(opts.output, func(w *capture.Writer) error {
		var err error
		res, err = reshape.Copy(w, src, ro)
		var re *reshape.RefusedError
		var rd *reshape.ReadError
		switch {
		case errors.As(err, &re):
			hint := re.Hint
			if re.Older {
				hint = "add --allow-older to reshape it anyway: the live text of 2026.9.2 to 2026.9.5 has 2026.9.6's shape; the fixes between them are not added"
			}
			return cli.Usage(hint, "%s: %s", name, re.Reason)
		case errors.As(err, &rd):
			return cli.InputError(in, rd.Err)
		case err != nil && !cli.IsBrokenPipe(err):
			return &cli.Error{Code: cli.ExitTrouble, Err: err}
		}
		return err
	})
	if !done {
		return err
	}
	env.ReadSummary(in, r.Stats())
	dest := opts.output.Path
	if dest == "-" {
		dest = "stdout"
	}
	text := fmt.Sprintf("clawtap: reshaped %d records from gateway %s to the %s wire → %s: %d of %d chat deltas and %d of %d assistant events append-only",
		res.Records, orUnknownRelease(res.From), res.To, dest, res.ChatAppendOnly, res.ChatDeltas, res.AgentAppendOnly, res.AgentTexts)
	if len(res.NotSimulated) > 0 {
		text += "\nclawtap: not simulated: " + notSimulatedShort(res.NotSimulated)
	}
	_ = output.Summary(env.Stderr, opts.summary, "summary", text, []output.Field{
		{Key: "output", Label: "output", Value: dest},
		{Key: "from", Label: "from gateway", Value: res.From},
		{Key: "to", Label: "to the wire of", Value: res.To},
		{Key: "records", Label: "records", Value: res.Records},
		{Key: "frames", Label: "frames", Value: res.Frames},
		{Key: "connections", Label: "connections", Value: res.Connections},
		{Key: "chatDeltas", Label: "chat deltas with message", Value: res.ChatDeltas},
		{Key: "chatAppendOnly", Label: "... written without", Value: res.ChatAppendOnly},
		{Key: "agentTexts", Label: "assistant events with data.text", Value: res.AgentTexts},
		{Key: "agentAppendOnly", Label: "... written without", Value: res.AgentAppendOnly},
		{Key: "keptWhole", Label: "deltas kept whole: not an append here", Value: res.Breaks},
		{Key: "unusual", Label: "deltas kept whole: unusual shape", Value: res.Unusual},
		{Key: "hellos", Label: "hellos rewritten", Value: res.Hellos},
		{Key: "caveats", Label: "records kept as recorded (caveats)", Value: res.Caveats},
		{Key: "notSimulated", Label: "not simulated", Value: res.NotSimulated},
	})
	if res.Caveats > 0 {
		return cli.ErrFinding
	}
	return nil
}

func orUnknownRelease(s string) string {
	if s == "" {
		return "(unknown release)"
	}
	return s
}

// notSimulatedShort names the changes not simulated, without why.
func notSimulatedShort(list []string) string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i], _, _ = strings.Cut(s, ": ")
	}
	return strings.Join(out, "; ")
}
