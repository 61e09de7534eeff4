package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/clawtap/clawtap/pkg/check"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/report"
	"github.com/spf13/cobra"
)

type reportOpts struct {
	out      string
	format   string
	maxBytes string
	name     string
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

What the capture redacted stays redacted: the report shows what is in the
capture. A banner warns when the capture was recorded with --no-redact.

The file is deterministic (the same capture gives the same bytes). Its data is
limited by --max-bytes (default 20MB): past the limit, frame bodies and replay
details are elided with a note (markers, run starts and terminals, approvals,
tool calls and gaps keep theirs longest), so a 100,000-frame capture still
opens in about a second.

--format trace writes the same timeline in the Chrome Trace Event format
instead: open it at https://ui.perfetto.dev or in chrome://tracing (one track
per connection and per agent/session, runs as slices, deltas, tool calls,
approvals and gaps as instant events, findings as annotated instants).

Exit codes: 0 written, 2 usage or I/O trouble. Findings do not change the exit
code: use 'clawtap check' to gate on them. See docs/report.md.`,
		Example: `  clawtap report fixtures/stale-terminal.jsonl.zst -o report.html
  clawtap report cap.jsonl.zst -o report.html --max-bytes 5MB
  clawtap report --format trace cap.jsonl.zst -o cap.trace.json
  zstd -dc cap.jsonl.zst | clawtap report - -o - > report.html
  clawtap report fixtures/seq-gap.jsonl.zst -o - --format trace | jq '.traceEvents | length'`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := inputArg(args)
			if err := a.checkStdin(cmd, path); err != nil {
				return err
			}
			return a.runReport(path, &o)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&o.out, "out", "o", "", "output file (required); - writes to stdout")
	fl.StringVar(&o.format, "format", "html", "html (a self-contained page) or trace (Chrome Trace Event JSON for Perfetto)")
	fl.StringVar(&o.maxBytes, "max-bytes", "20MB", "limit on the report's embedded data (bytes, or with a unit: 500KB, 20MB, 64MiB); frame bodies past it are elided")
	fl.StringVar(&o.name, "name", "", "the capture's name shown in the report (default: the input's base name)")
	return cmd
}

// parseBytes reads 1000000, 500KB, 20MB, 1.5MB, 64KiB, 20MiB, 1GB.
func parseBytes(s string) (int, error) {
	t := strings.TrimSpace(strings.ToUpper(s))
	mult := 1.0
	for _, u := range []struct {
		suf string
		m   float64
	}{{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"B", 1}} {
		if strings.HasSuffix(t, u.suf) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suf)), u.m
			break
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f <= 0 || f*mult > 1<<40 {
		return 0, usageError("give a size such as 20MB, 500KB or 64MiB", "invalid --max-bytes %q", s)
	}
	return int(f * mult), nil
}

func (a *app) runReport(path string, o *reportOpts) error {
	if o.out == "" {
		return usageError("name the output: -o report.html (or -o - for stdout)", "no output file given")
	}
	if o.format != "html" && o.format != "trace" {
		return usageError("use --format html|trace", "unknown --format %q", o.format)
	}
	maxBytes, err := parseBytes(o.maxBytes)
	if err != nil {
		return err
	}
	if maxBytes < report.MinMaxBytes {
		return usageError(fmt.Sprintf("use at least %dKiB", report.MinMaxBytes>>10), "--max-bytes %s is too small", o.maxBytes)
	}
	if o.out != "-" {
		if abs, err1 := filepath.Abs(o.out); err1 == nil && path != "-" {
			if in, err2 := filepath.Abs(path); err2 == nil && in == abs {
				return usageError("write the report to another file", "the output %s is the input capture", o.out)
			}
		}
	}
	name := o.name
	if name == "" {
		name = "stdin"
		if path != "-" {
			name = filepath.Base(path)
		}
	}

	r, err := a.openCapture(path)
	if err != nil {
		return err
	}
	defer r.Close()
	an, err := check.New(check.Options{})
	if err != nil {
		return err
	}
	b := report.NewBuilder(report.Options{Name: name, MaxBytes: maxBytes, Checker: report.NewCheck(an), NoBodies: o.format == "trace"})
	if h := r.Header(); h != nil && h.Redaction != nil && !h.Redaction.Credentials {
		a.warnf("%s was recorded with --no-redact: the report may contain credentials (it says so in a banner)", name)
	}
	if err := pipeline.New(pipeline.Options{}, b).Run(pipeline.Records(r)); err != nil {
		var re *pipeline.ReadError
		if errors.As(err, &re) {
			return inputError(path, re.Err)
		}
		return err
	}
	a.readSummary(path, r.Stats())
	rep := b.Report()

	var data []byte
	if o.format == "html" {
		data = report.AppendHTML(nil, rep)
	} else {
		var sb strings.Builder
		if err := report.WriteTrace(&sb, rep); err != nil {
			return err
		}
		data = []byte(sb.String())
	}
	if err := a.writeOutput(o.out, data); err != nil {
		return err
	}
	s := &rep.Summary
	where := o.out
	if where == "-" {
		where = "stdout"
	}
	a.infof("wrote %s (%s): %d records, %d connection(s), %d run(s), %d finding(s)%s",
		where, humanBytes(len(data)), s.Records, s.Connections, s.Runs, s.FindingsError+s.FindingsWarn+s.FindingsInfo, elidedNote(s, o.format == "trace"))
	return nil
}

func elidedNote(s *report.Summary, trace bool) string {
	switch {
	case trace && s.RowsElided > 0:
		return fmt.Sprintf("; %d delta or traffic event(s) left out by --max-bytes", s.RowsElided)
	case !trace && (s.BodiesElided > 0 || s.RowsElided > 0 || s.TimersElided > 0):
		return fmt.Sprintf("; details of %d of %d record(s) elided by --max-bytes", s.BodiesElided, s.Records)
	}
	return ""
}

func humanBytes(n int) string {
	switch {
	case n >= 1e6:
		return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + " MB"
	case n >= 1e3:
		return strconv.FormatFloat(float64(n)/1e3, 'f', 1, 64) + " kB"
	}
	return strconv.Itoa(n) + " B"
}

// writeOutput writes data to stdout ("-") or to a file, through a temporary
// file renamed into place so a failed run never leaves half a report.
func (a *app) writeOutput(out string, data []byte) error {
	if out == "-" {
		w, flush := a.out()
		if _, err := w.Write(data); err != nil && !isBrokenPipe(err) {
			return fmt.Errorf("write output: %w", err)
		}
		return flush()
	}
	dir := filepath.Dir(out)
	tmp, err := os.CreateTemp(dir, ".clawtap-report-*")
	if err != nil {
		return &exitError{code: exitTrouble, err: fmt.Errorf("write %s: %w", out, err), hint: "check that the directory exists and is writable"}
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o600) // it holds the capture's content, like a capture
	}
	if err == nil {
		err = os.Rename(tmp.Name(), out)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return &exitError{code: exitTrouble, err: fmt.Errorf("write %s: %w", out, err)}
	}
	return nil
}
