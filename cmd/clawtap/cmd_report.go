package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/check"
	"github.com/clawtap/clawtap/pkg/models"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/redact"
	"github.com/clawtap/clawtap/pkg/replay"
	"github.com/clawtap/clawtap/pkg/report"
	"github.com/clawtap/clawtap/pkg/stats"
	"github.com/spf13/cobra"
)

// reportOptions is a report as the command line asks for it.
type reportOptions struct {
	out      outFlags
	format   string // html, trace or otlp
	maxBytes string
	name     string // the capture's name in the report; "" is the input's base name
	ui       string // one UI, A,B or all

	path   string      // the capture; "-" is stdin
	uis    []replay.UI // checked from ui; two or more check each at once (check.Multi)
	model  replay.UI   // the replay's UI: the first of uis
	output cli.Output  // checked from out
	trace  bool        // a Chrome trace instead of HTML
	limit  int         // the limit on the report's embedded data (--max-bytes, checked)

	otlp reportOTLPOptions // --format otlp (cmd_report_otlp.go)
}

func (a *app) reportCmd() *cobra.Command {
	var opts reportOptions
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
says otherwise; the header names the UI. --ui all (or A,B) checks every UI
version at once, as 'clawtap check --ui all' does: the page's replay (its
transcripts, effects and state) is the first UI's, in the order 'clawtap uis'
lists them (with all, its first line), and each finding says which versions
show it and which do not.

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
  clawtap report --ui all fixtures/streamed-run.jsonl.zst -o every-ui.html
  zstd -dc fixtures/demo.jsonl.zst | clawtap report - -o - > demo.html
  clawtap report fixtures/seq-gap.jsonl.zst -o - --format trace | jq '.traceEvents | length'`,
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: captureArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path = inputArg(args)
			if opts.format == "otlp" || opts.otlp.endpoint != "" || opts.otlp.headersFile != "" {
				return a.reportOTLP(cmd, &opts)
			}
			if opts.out.path == "" {
				return cli.Usage("name the output: -o report.html (or -o - for stdout)", "no output file given")
			}
			if opts.format != "html" && opts.format != "trace" {
				return cli.Usage("use --format html|trace|otlp", "unknown --format %q", opts.format)
			}
			opts.trace = opts.format == "trace"
			maxBytes, err := output.ParseSize(opts.maxBytes)
			if err != nil || maxBytes > 1<<40 {
				return cli.Usage("give a size such as 20MB, 500kB or 64MiB", "invalid --max-bytes %q", opts.maxBytes)
			}
			if maxBytes < report.MinMaxBytes {
				return cli.Usage(fmt.Sprintf("use at least %dKiB", report.MinMaxBytes>>10), "--max-bytes %s is too small", opts.maxBytes)
			}
			opts.limit = int(maxBytes)
			if opts.uis, err = cli.ParseUIs([]string{opts.ui}); err != nil {
				return err
			}
			opts.model = opts.uis[0]
			opts.output = opts.out.file(cmd)
			return a.run(cli.MemoryBound, func() error { return runReport(a.Env, opts) })
		},
	}
	a.fileFlags(cmd, &opts.out, "", "write the report to FILE (required; - is stdout)")
	fl := cmd.Flags()
	fl.StringVar(&opts.format, "format", "html", "html (a self-contained page), trace (Chrome Trace Event JSON for Perfetto) or otlp (OpenTelemetry traces, OTLP/JSON)")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"html\ta self-contained page", "trace\tChrome Trace Event JSON", "otlp\tOpenTelemetry traces (OTLP/JSON)"}, cobra.ShellCompDirectiveNoFileComp))
	fl.StringVar(&opts.maxBytes, "max-bytes", "20MB", "limit on the report's embedded data (bytes, or 500kB, 20MB (10^6), 64MiB (2^20)); frame bodies past it are elided")
	fl.StringVar(&opts.name, "name", "", "the capture's name shown in the report (default: the input's base name)")
	def := models.Default().Version.UI
	fl.StringVar(&opts.ui, "ui", def, "the UI to model: NAME (its newest version) or NAME@VERSION, of "+strings.Join(models.Names(), ", ")+
		"; several (A,B) or all to check every version at once: the page replays the first, and each finding says which show it ('clawtap uis' lists them)")
	_ = cmd.RegisterFlagCompletionFunc("ui", uiCompletions(true))
	a.reportOTLPFlags(cmd, &opts.otlp)
	return cmd
}

// runReport writes the report of the capture: one pass in which check
// finds the problems and stats counts the header's numbers, and the
// report, their peer, builds the timeline with both; rendered as a
// self-contained HTML page or a Chrome trace, written through the safe
// writer, and a line that says what was written.
func runReport(env *cli.Env, opts reportOptions) error {
	if opts.format == "otlp" {
		return runReportOTLP(env, opts)
	}
	if err := env.CheckStdin(opts.output.Cmd, opts.path); err != nil {
		return err
	}
	if cli.SameFile(opts.path, opts.output.Path) {
		return cli.Usage("write the report to another file", "the output %s is the input capture", opts.output.Path)
	}
	name := opts.name
	if name == "" {
		name = "stdin"
		if opts.path != "-" {
			name = filepath.Base(opts.path)
		}
	}
	// The pass reads the whole capture before a byte is written: refuse an
	// output it could not write first.
	if err := env.CheckOutput(opts.output); err != nil {
		return err
	}
	r, err := env.OpenCapture(opts.path)
	if err != nil {
		return err
	}
	defer r.Close()
	st := stats.New()
	unredacted := redact.Unredacted(r.Header())
	var uiNames []string
	for _, u := range opts.uis {
		uiNames = append(uiNames, u.String())
	}
	b := report.NewBuilder(report.Options{Name: name, MaxBytes: opts.limit, NoBodies: opts.trace, UIs: uiNames,
		// struct fields in order, map keys sorted: deterministic bytes
		Stats:          func() ([]byte, error) { return json.Marshal(st.Result()) },
		RedactedOnRead: unredacted && !env.ShowCredentials, ShowsCredentials: unredacted && env.ShowCredentials})
	if unredacted && env.ShowCredentials {
		env.Warnf("%s was written without redaction and --show-credentials keeps its credentials: the report may show them (it says so in a banner)", name)
	}
	rep := b.Report()
	defer func() {
		if err := rep.Close(); err != nil {
			env.Warnf("%v", err)
		}
	}()
	pass, err := reportPass(opts, st, b)
	if err != nil {
		return err
	}
	if err := pass.Run(pipeline.Records(r)); err != nil {
		return cli.ReadErr(opts.path, err)
	}
	env.ReadSummary(opts.path, r.Stats())

	// The page (or trace) goes out a piece at a time, never held whole.
	var size int64
	written, err := env.WriteFileWith(opts.output, func(w io.Writer) error {
		cw := &countWriter{w: w}
		defer func() { size = cw.n }()
		if opts.trace {
			return report.WriteTrace(cw, rep)
		}
		return report.WriteHTML(cw, rep)
	})
	if err != nil || written == "" {
		return err
	}
	s := &rep.Summary
	env.Infof("wrote %s (%s): %d records, %d connection(s), %d run(s), %d finding(s)%s",
		written, output.FormatSize(size), s.Records, s.Connections, s.Runs, s.FindingsError+s.FindingsWarn+s.FindingsInfo, elidedNote(s, opts.trace))
	return nil
}

// reportPass is the report's pass: check (under each UI, when several),
// then stats, then the Builder, last, so that a record's findings and the
// header's numbers are made before it takes them. With several UIs the
// check runs its other UIs inline (check.Multi.InlinePass): their findings
// then reach the Builder at the record they are made at, as one UI's do,
// and the page does not depend on how goroutines were scheduled.
func reportPass(opts reportOptions, st *stats.Collector, b *report.Builder) (*pipeline.Pass, error) {
	if len(opts.uis) > 1 {
		m, err := check.NewMulti(check.Options{}, opts.uis)
		if err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
		return m.InlinePass(pipeline.Options{}, st, b), nil
	}
	an, err := check.New(check.Options{})
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	return pipeline.New(pipeline.Options{Replay: replay.Options{UI: opts.model}}, an, st, b), nil
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// elidedNote says what --max-bytes left out, and when the timeline alone
// is larger than the limit.
func elidedNote(s *report.Summary, trace bool) string {
	if s.Skeleton > 0 && !trace {
		return fmt.Sprintf("; details of %d of %d record(s) elided, and the timeline alone takes %s, more than --max-bytes %s", s.BodiesElided, s.Records, output.FormatSize(int64(s.Skeleton)), output.FormatSize(int64(s.MaxBytes)))
	}
	switch {
	case trace && s.RowsElided > 0:
		return fmt.Sprintf("; %d delta or traffic event(s) left out by --max-bytes", s.RowsElided)
	case !trace && (s.BodiesElided > 0 || s.RowsElided > 0 || s.TimersElided > 0):
		return fmt.Sprintf("; details of %d of %d record(s) elided by --max-bytes", s.BodiesElided, s.Records)
	}
	return ""
}
