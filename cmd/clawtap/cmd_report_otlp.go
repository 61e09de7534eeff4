package main

import (
	"bufio"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/check"
	"github.com/clawtap/clawtap/pkg/otlp"
	"github.com/clawtap/clawtap/pkg/otlp/otlphttp"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/replay"
	"github.com/spf13/cobra"
)

// reportOTLPOptions is what report --format otlp adds to report's
// options: where the spans go besides -o, and the UIs whose findings
// they carry.
type reportOTLPOptions struct {
	endpoint    string        // --otlp-endpoint, as given
	headersFile string        // --otlp-headers-file
	timeout     time.Duration // --otlp-timeout; 0 is the environment's (else 10s)

	uis []replay.UI // checked from --ui: one, several or all
}

const reportOTLPLong = `

--format otlp writes the capture as OpenTelemetry traces (OTLP/JSON, one
request body a line: the OTLP file format) and --otlp-endpoint URL sends the
same bodies to a collector over OTLP/HTTP (URL is a base, as
OTEL_EXPORTER_OTLP_ENDPOINT is: /v1/traces is added). A span per run
(openclaw.run, the GenAI conventions' invoke_agent), a child per tool call and
approval, a span per request (a request that carried a traceparent joins the
caller's trace, as the gateway's own spans do), the connections and the
capture; deltas are counted in events, findings are events (with --ui all,
each says which UI versions show it). The ids come from the capture: the same
capture gives the same bytes. Without -o or --otlp-endpoint the spans go to
OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT. Headers
(an API key) come from OTEL_EXPORTER_OTLP_HEADERS (or ..._TRACES_HEADERS)
or --otlp-headers-file, never from the command line; OTEL_SERVICE_NAME,
OTEL_RESOURCE_ATTRIBUTES, OTEL_EXPORTER_OTLP_TIMEOUT and _COMPRESSION (gzip)
are honoured, and OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental
names the spans invoke_agent and execute_tool. A collector that refuses the
spans is exit 2. See docs/otlp.md.`

const reportOTLPExamples = `
  clawtap report --format otlp fixtures/tool-run.jsonl.zst -o tool-run.otlp.jsonl
  clawtap report --format otlp --ui all fixtures/streamed-run.jsonl.zst -o - | jq -c '.resourceSpans[].scopeSpans[].spans[] | {name, traceId}'`

// reportOTLPFlags adds report's OTLP flags, help and examples.
func (a *app) reportOTLPFlags(cmd *cobra.Command, o *reportOTLPOptions) {
	fl := cmd.Flags()
	fl.StringVar(&o.endpoint, "otlp-endpoint", "", "send the OTLP export to the collector at URL over OTLP/HTTP (a base URL: /v1/traces is added); implies --format otlp")
	fl.StringVar(&o.headersFile, "otlp-headers-file", "", "read the OTLP request headers from FILE ('Name: value' a line), over OTEL_EXPORTER_OTLP_HEADERS")
	fl.DurationVar(&o.timeout, "otlp-timeout", 0, "how long each OTLP request may take (default: OTEL_EXPORTER_OTLP_TIMEOUT, else 10s)")
	_ = cmd.RegisterFlagCompletionFunc("otlp-endpoint", cobra.FixedCompletions([]string{"http://localhost:4318\ta collector's OTLP/HTTP port on this machine"}, cobra.ShellCompDirectiveNoFileComp|cobra.ShellCompDirectiveNoSpace))
	_ = cmd.MarkFlagFilename("otlp-headers-file")
	_ = cmd.RegisterFlagCompletionFunc("otlp-timeout", cobra.FixedCompletions([]string{"10s", "30s", "1m"}, cobra.ShellCompDirectiveNoFileComp))
	cmd.Long += reportOTLPLong
	cmd.Example += reportOTLPExamples
}

// reportOTLP checks what report --format otlp takes from the command
// line, then runs the report.
func (a *app) reportOTLP(cmd *cobra.Command, opts *reportOptions) error {
	o := &opts.otlp
	fl := cmd.Flags()
	if opts.format != "otlp" {
		if fl.Changed("format") {
			return cli.Usage("use --format otlp with --otlp-endpoint, --otlp-headers-file and --otlp-timeout", "--format %s writes no OTLP", opts.format)
		}
		opts.format = "otlp"
	}
	if fl.Changed("max-bytes") {
		return cli.Usage("leave --max-bytes out: it limits the HTML report, and the OTLP export streams", "--max-bytes does not apply to --format otlp")
	}
	if o.endpoint != "" {
		if _, _, err := otlphttp.Endpoint(o.endpoint, func(string) string { return "" }); err != nil {
			return cli.Usage("give the collector's OTLP/HTTP base URL, e.g. --otlp-endpoint http://localhost:4318", "%v", err)
		}
	}
	if o.timeout < 0 {
		return cli.Usage("give a duration such as 10s", "--otlp-timeout %v is negative", o.timeout)
	}
	if o.headersFile == "-" && opts.path == "-" {
		return cli.Usage("read the capture or the headers from stdin, not both", "--otlp-headers-file - and the capture both read stdin")
	}
	var err error
	if o.uis, err = cli.ParseUIs([]string{opts.ui}); err != nil {
		return err
	}
	opts.model = o.uis[0]
	if opts.out.path != "" {
		opts.output = opts.out.file(cmd)
	}
	opts.output.Cmd = cmd.CommandPath()
	return a.run(cli.MemoryBound, func() error { return runReport(a.Env, *opts) })
}

// runReportOTLP exports the capture's spans: to -o, to the collector, or
// both, the same bodies, as the pass lets its runs go.
func runReportOTLP(env *cli.Env, opts reportOptions) error {
	o := opts.otlp
	if err := env.CheckStdin(opts.output.Cmd, opts.path); err != nil {
		return err
	}
	toFile := opts.output.Path != ""
	if toFile {
		if cli.SameFile(opts.path, opts.output.Path) {
			return cli.Usage("write the export to another file", "the output %s is the input capture", opts.output.Path)
		}
		if err := env.CheckOutput(opts.output); err != nil {
			return err
		}
	}
	send, err := otlpSender(env, o, toFile)
	if err != nil {
		return err
	}
	if !toFile && send == nil {
		return cli.Usage("name the output: -o FILE (- is stdout), or --otlp-endpoint URL, or set "+otlphttp.EnvEndpoint, "no output file or OTLP endpoint given")
	}
	name := opts.name
	if name == "" {
		name = "stdin"
		if opts.path != "-" {
			name = filepath.Base(opts.path)
		}
	}
	eopts := otlp.Options{Name: name, Version: version, ServiceName: env.Getenv("OTEL_SERVICE_NAME"),
		GenAINames: otlp.GenAIOptIn(env.Getenv("OTEL_SEMCONV_STABILITY_OPT_IN"))}
	if raw := env.Getenv("OTEL_RESOURCE_ATTRIBUTES"); raw != "" {
		if eopts.Resource, err = otlp.ParseResourceAttributes(raw); err != nil {
			env.Warnf("OTEL_RESOURCE_ATTRIBUTES is left out: %v", err)
		}
	}

	r, err := env.OpenCapture(opts.path)
	if err != nil {
		return err
	}
	defer r.Close()
	var (
		dest  *output.Dest
		lines *bufio.Writer
		sinks []otlp.Sink
	)
	if toFile {
		if dest, err = env.Create(opts.output); err != nil {
			return err
		}
		defer dest.Abort() // after Commit, nothing
		lines = bufio.NewWriterSize(dest, 256<<10)
		sinks = append(sinks, otlp.Lines(lines))
	}
	if send != nil {
		sinks = append(sinks, send)
	}
	eopts.Sink = otlp.Tee(sinks...)
	exp := otlp.New(eopts)
	pass, err := otlpPass(o.uis, exp)
	if err != nil {
		return err
	}
	if err := pass.Run(pipeline.Records(r)); err != nil {
		return otlpErr(cli.ReadErr(opts.path, err), send)
	}
	if err := exp.Close(); err != nil {
		return otlpErr(err, send)
	}
	env.ReadSummary(opts.path, r.Stats())
	st := exp.Stats()
	what := fmt.Sprintf("%d span(s) in %d batch(es): %d run(s), %d connection(s), %d finding(s)", st.Spans, st.Batches, st.Runs, st.Connections, st.Findings)
	if toFile {
		if err := lines.Flush(); err != nil {
			return otlpErr(fmt.Errorf("write %s: %w", dest.Name(), err), nil)
		}
		if err := dest.Commit(); err != nil {
			return &cli.Error{Code: cli.ExitTrouble, Err: fmt.Errorf("write %s: %w", dest.Name(), err)}
		}
		env.Infof("wrote %s: %s", dest.Name(), what)
	}
	if send != nil {
		if err := send.err; err != nil {
			return cli.Trouble(err, "check that a collector listens there (its OTLP receiver's http protocol), and the headers it needs")
		}
		s := send.s
		env.Infof("sent %s to %s in %d request(s), %s", what, s.URL(), s.Requests(), output.FormatSize(s.Bytes()))
		if n, msgs := s.Rejected(); n > 0 {
			return cli.Trouble(fmt.Errorf("the collector at %s rejected %d of %d span(s)%s", s.URL(), n, st.Spans, joinMsgs(msgs)), "its log says why")
		} else if len(msgs) > 0 {
			env.Warnf("the collector at %s took every span, and said%s", s.URL(), joinMsgs(msgs))
		}
	}
	return nil
}

func joinMsgs(msgs []string) string {
	if len(msgs) == 0 {
		return ""
	}
	return ": " + strings.Join(msgs, "; ")
}

// otlpErr is a pass's error, or the send's when that is what stopped it.
func otlpErr(err error, send *sendSink) error {
	if send != nil && send.err != nil && err == send.err {
		return cli.Trouble(err, "check that a collector listens there (its OTLP receiver's http protocol), and the headers it needs")
	}
	if _, ok := err.(*cli.Error); ok {
		return err
	}
	return &cli.Error{Code: cli.ExitTrouble, Err: err}
}

// otlpPass is the pass: check (under each UI, when several) and the
// exporter, which takes every finding.
func otlpPass(uis []replay.UI, exp *otlp.Exporter) (*pipeline.Pass, error) {
	if len(uis) > 1 {
		m, err := check.NewMulti(check.Options{}, uis)
		if err != nil {
			return nil, err
		}
		return m.Pass(pipeline.Options{}, exp), nil
	}
	an, err := check.New(check.Options{})
	if err != nil {
		return nil, err
	}
	return pipeline.New(pipeline.Options{Replay: replay.Options{UI: uis[0]}}, exp, an), nil
}

// sendSink posts each batch to the collector. A failure stops the
// sending; with a file to write the pass goes on (the file is whole),
// without one it ends the pass.
type sendSink struct {
	s      *otlphttp.Sender
	err    error
	toFile bool
}

func (k *sendSink) Batch(b []byte) error {
	if k.err != nil {
		return nil
	}
	if err := k.s.Batch(b); err != nil {
		k.err = err
		if !k.toFile {
			return err
		}
	}
	return nil
}

// otlpSender is the collector the spans go to, if any: --otlp-endpoint,
// or without -o the environment's endpoint; with the environment's
// headers and the headers file's.
func otlpSender(env *cli.Env, o reportOTLPOptions, toFile bool) (*sendSink, error) {
	flag := o.endpoint
	if flag == "" && toFile {
		return nil, nil // -o alone writes the file, whatever the environment names
	}
	u, from, err := otlphttp.Endpoint(flag, env.Getenv)
	if err != nil {
		return nil, cli.Usage("set "+from+" to the collector's http:// or https:// URL", "%v", err)
	}
	if u == "" {
		return nil, nil
	}
	var headers string
	if o.headersFile != "" {
		if headers, err = env.ReadSecretFile("--otlp-headers-file", o.headersFile); err != nil {
			return nil, err
		}
	}
	cfg, warnings, err := otlphttp.FromEnv(u, headers, env.Getenv)
	if err != nil {
		return nil, cli.Usage("write headers as key=value,key=value (values percent-encoded) or, in the file, 'Name: value' a line", "%v", err)
	}
	for _, w := range warnings {
		env.Warnf("%s", w)
	}
	if o.timeout > 0 {
		cfg.Timeout = o.timeout
	}
	cfg.UserAgent = "clawtap/" + version
	s, err := otlphttp.New(cfg)
	if err != nil {
		return nil, cli.Usage("give the collector's http:// or https:// URL", "%v", err)
	}
	return &sendSink{s: s, toFile: toFile}, nil
}
