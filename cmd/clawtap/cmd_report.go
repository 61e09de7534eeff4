package main

import (
	"fmt"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/internal/reportcli"
	"github.com/clawtap/clawtap/pkg/report"
	"github.com/spf13/cobra"
)

type reportOpts struct {
	out      outFlags
	format   string
	maxBytes string
	name     string
	ui       string
}

func (a *app) reportCmd() *cobra.Command {
	var o reportOpts
	cmd := &cobra.Command{
		Use:   "report [FILE|-] -o OUT",
		Short: "Write a self-contained HTML timeline of a capture (or a Chrome trace) for bug reports",
		Long: `report turns a capture into ONE self-contained HTML file that anyone can attach
to an issue and open offline in any browser: no server, no network, no CDN —
the stylesheet, the script and the data are all inside the file.

The page shows a header from the capture's stats (gateway version and protocol,
connections, frames, runs, approvals, gaps, findings by severity); a timeline
with every connection as a band (open, close with its code, reconnects, seq
restarts) and one lane per agent/session where every run is a bar from its
first frame to its terminal (or to the end of the capture, marked as never
finished), with ticks for agent and chat deltas, tool calls, approvals and
frame-seq gaps; every 'clawtap check' finding pinned where it happened. Zoom
with the mouse wheel or + and -, pan by dragging or with the arrow keys, 0 fits
everything. Click a run, a tick or a finding to see the frames, the intents
they produced, the replayed state diff and the run's committed transcript
side by side. The search box looks through event names, runIds and frame text.
The replay, its transcript and the findings model clawboo unless --ui claw3d
says otherwise; the header names the UI.

What the capture redacted stays redacted; one written without redaction is
redacted as it is read, and a banner says so (red with --show-credentials).

The file is deterministic (the same capture gives the same bytes). Its data is
limited by --max-bytes (default 20MB): past the limit, frame bodies and replay
details are elided with a note (markers, run starts and terminals, approvals,
tool calls and gaps keep theirs longest), so a 100,000-frame capture still
opens in about a second.

--format trace writes the same timeline in the Chrome Trace Event format
instead: open it at https://ui.perfetto.dev or in chrome://tracing (one track
per connection and per agent/session, runs as slices, deltas, tool calls,
approvals and gaps as instant events, findings as annotated instants).

report writes a file, so its --format picks the file's kind (html or trace)
rather than json, text or table; -o is required (- writes to stdout) and an
existing file is replaced only with --force.

Exit codes: 0 written, 2 usage or I/O trouble. Findings do not change the exit
code: use 'clawtap check' to gate on them. See docs/report.md.`,
		Example: `  clawtap report fixtures/stale-terminal.jsonl.zst -o report.html
  clawtap report fixtures/demo.jsonl.zst -o small.html --max-bytes 5MB
  clawtap report --format trace fixtures/demo.jsonl.zst -o demo.trace.json
  clawtap report fixtures/demo.jsonl.zst -o report.html --force
  clawtap report --ui claw3d fixtures/stale-terminal.jsonl.zst -o claw3d.html
  zstd -dc fixtures/demo.jsonl.zst | clawtap report - -o - > demo.html
  clawtap report fixtures/seq-gap.jsonl.zst -o - --format trace | jq '.traceEvents | length'`,
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: captureArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			path := inputArg(args)
			if err := a.CheckStdin(cmd.CommandPath(), path); err != nil {
				return err
			}
			return a.runReport(cmd, path, &o)
		},
	}
	a.fileFlags(cmd, &o.out, "", "write the report to FILE (required; - is stdout)")
	fl := cmd.Flags()
	fl.StringVar(&o.format, "format", "html", "html (a self-contained page) or trace (Chrome Trace Event JSON for Perfetto)")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"html", "trace"}, cobra.ShellCompDirectiveNoFileComp))
	fl.StringVar(&o.maxBytes, "max-bytes", "20MB", "limit on the report's embedded data (bytes, or 500kB, 20MB (10^6), 64MiB (2^20)); frame bodies past it are elided")
	fl.StringVar(&o.name, "name", "", "the capture's name shown in the report (default: the input's base name)")
	uiFlag(cmd, &o.ui)
	return cmd
}

func (a *app) runReport(cmd *cobra.Command, path string, o *reportOpts) error {
	if o.out.path == "" {
		return cli.Usage("name the output: -o report.html (or -o - for stdout)", "no output file given")
	}
	if o.format != "html" && o.format != "trace" {
		return cli.Usage("use --format html|trace", "unknown --format %q", o.format)
	}
	maxBytes, err := output.ParseSize(o.maxBytes)
	if err != nil || maxBytes > 1<<40 {
		return cli.Usage("give a size such as 20MB, 500kB or 64MiB", "invalid --max-bytes %q", o.maxBytes)
	}
	if maxBytes < report.MinMaxBytes {
		return cli.Usage(fmt.Sprintf("use at least %dKiB", report.MinMaxBytes>>10), "--max-bytes %s is too small", o.maxBytes)
	}
	ui, err := parseUI(o.ui)
	if err != nil {
		return err
	}
	if cli.SameFile(path, o.out.path) {
		return cli.Usage("write the report to another file", "the output %s is the input capture", o.out.path)
	}
	defer cli.MemoryBound.Apply()()
	return reportcli.Run(a.Env, reportcli.Config{Path: path, Out: o.out.file(cmd), Trace: o.format == "trace", MaxBytes: int(maxBytes), Name: o.name, UI: ui})
}
