package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/check"
	"github.com/clawtap/clawtap/pkg/validate"
	"github.com/fatih/color"
	"github.com/spf13/cobra"
)

type validateFlags struct {
	schema string
	format string
	output string
	force  bool
	failOn string
}

func (a *app) validateCmd() *cobra.Command {
	var f validateFlags
	cmd := &cobra.Command{
		Use:   "validate [FILE|-]",
		Short: "Check every frame of a capture against the gateway protocol's JSON Schema",
		Long: `validate checks every frame of a capture against the JSON Schema the OpenClaw
project publishes for its gateway protocol (npm @openclaw/gateway-protocol):
the envelope of every req, res and event frame, each event's payload by event
name, each request's params and each response's result by method (a response
is paired with its request by id on its connection).

A snapshot of the schema is built in (its version is named below); --schema
uses another one, a protocol.schema.json or a directory holding one (an
unpacked npm package), to validate against the version a gateway runs.

Findings: schema-violation (error: a wrong type, a missing required field, a
value outside the allowed set), schema-extra-field (warn: a field the schema
does not allow, usually a sender newer than the schema), and as info the
events and methods the schema does not describe (first occurrence of each),
responses whose request is not in the capture, and on protocol 3 connections
each difference from the schema (which describes protocol 4) once. Each
finding has the record index i, the event or method, the definition, the
JSON pointer of the offending field within the frame, and expected vs actual.

Output: text grouped by severity, rule and field on a terminal; NDJSON (one
finding per line, then a {"summary":…} line) otherwise; --format table for
one row per finding. Exit status 1 when a finding at or above --fail-on
(default error) exists. See docs/validate.md.`,
		Example: `  clawtap validate fixtures/demo.jsonl.zst
  clawtap validate --fail-on warn cap.jsonl.zst || echo "frames differ from the schema"
  clawtap validate --schema node_modules/@openclaw/gateway-protocol cap.jsonl.zst
  clawtap validate --format json cap.jsonl.zst | jq -c 'select(.rule=="schema-violation") | {i, pointer, expected, actual}'
  clawtap validate -o findings.ndjson --format json cap.jsonl.zst
  cat cap.jsonl | clawtap validate -`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			asked, err := output.ParseFormat(f.format)
			if err != nil {
				return usageError("use --format json|text|table", "%v", err)
			}
			failOn, err := check.ParseSeverity(f.failOn)
			if err != nil {
				return usageError("use --fail-on info|warn|error", "%v", err)
			}
			path := inputArg(args)
			if err := a.checkStdin(path); err != nil {
				return err
			}
			s, err := a.loadSchema(f.schema)
			if err != nil {
				return err
			}
			toStdout := f.output == "" || f.output == output.Stdout
			format := output.Resolve(asked, toStdout && a.stdoutIsTTY(), output.Text)
			return a.runValidate(path, s, format, failOn, &f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.schema, "schema", "", "validate against this protocol.schema.json, or a directory holding one (default: the built-in snapshot)")
	fl.StringVar(&f.format, "format", "", "json, text or table (default: text on a terminal, json otherwise)")
	fl.StringVarP(&f.output, "output", "o", "", "write the findings to this file (- for stdout)")
	fl.BoolVar(&f.force, "force", false, "replace an existing output file")
	fl.StringVar(&f.failOn, "fail-on", "error", "exit 1 when a finding of this severity or above exists: info, warn or error")
	cmd.Long += "\n\nBuilt-in schema: " + validate.SnapshotName() + " (MIT licence, shipped with it)."
	return cmd
}

// loadSchema returns the built-in snapshot, or the user's schema.
func (a *app) loadSchema(path string) (*validate.Schema, error) {
	if path == "" {
		s, err := validate.Embedded()
		if err != nil {
			return nil, fmt.Errorf("the built-in schema: %w", err)
		}
		return s, nil
	}
	s, err := validate.Load(path)
	if err != nil {
		return nil, usageError("give a protocol.schema.json, or a directory holding one (an unpacked @openclaw/gateway-protocol package)", "--schema %s: %v", path, err)
	}
	return s, nil
}

func (a *app) runValidate(path string, s *validate.Schema, format output.Format, failOn check.Severity, f *validateFlags) error {
	r, err := a.openCapture(path)
	if err != nil {
		return err
	}
	defer r.Close()
	dest, err := output.Create(f.output, output.Options{Force: f.force, Stdout: a.stdout})
	if err != nil {
		if errors.Is(err, output.ErrExists) {
			return usageError("choose another name or add --force", "%v", err)
		}
		return &exitError{code: exitTrouble, err: fmt.Errorf("create output: %w", err)}
	}
	if !dest.IsStdout() {
		color.NoColor = true
	}
	w := bufio.NewWriterSize(dest, 64<<10)
	p := newValidatePrinter(w, format)
	v := validate.New(s, validate.Options{})
	var fs []check.Finding
	var werr error
	for werr == nil {
		rec, err := r.Next()
		if err != nil {
			break
		}
		p.see(rec.T)
		fs = v.Record(fs[:0], rec)
		werr = p.findings(fs)
	}
	st := r.Stats()
	a.readSummary(path, st)
	if werr == nil {
		werr = p.findings(v.End(fs[:0]))
	}
	sum := v.Summary()
	if werr == nil {
		werr = p.summary(&sum)
	}
	if werr == nil {
		werr = w.Flush()
	}
	if werr != nil && !isBrokenPipe(werr) {
		dest.Abort()
		return &exitError{code: exitTrouble, err: fmt.Errorf("write %s: %w", dest.Name(), werr)}
	}
	if err := dest.Commit(); err != nil {
		return &exitError{code: exitTrouble, err: fmt.Errorf("write %s: %w", dest.Name(), err)}
	}
	if sum.Count(failOn) > 0 {
		return errFinding
	}
	return nil
}

// validateShowPerGroup bounds the examples text output shows for one
// field; validateMaxGroups bounds the groups kept (the rest are counted).
const (
	validateShowPerGroup = 3
	validateShowPerRule  = 20
	validateMaxGroups    = 1000
)

// validatePrinter writes findings as they come (json, table) or groups
// them for the end (text).
type validatePrinter struct {
	w      io.Writer
	format output.Format
	buf    []byte
	start  int64

	groups map[validateKey]*validateGroup
	order  []validateKey
	other  map[validateKey]int // per severity and rule, past validateMaxGroups
}

// validateKey groups text output: severity, rule, then the field (the
// definition, the pointer with array indices as *, what was expected).
type validateKey struct {
	sev   check.Severity
	rule  string
	field string
}

type validateGroup struct {
	shown []check.Finding
	n     int
}

func newValidatePrinter(w io.Writer, format output.Format) *validatePrinter {
	p := &validatePrinter{w: w, format: format, groups: map[validateKey]*validateGroup{}, other: map[validateKey]int{}}
	if format == output.Table {
		fmt.Fprintln(w, color.New(color.Bold).Sprint(strings.Join([]string{pad("#", 7), pad("TIME", 9), pad("CONN", 4), pad("SEVERITY", 8), pad("RULE", 24), pad("SCHEMA", 16), pad("POINTER", 28), "DETAIL"}, " ")))
	}
	return p
}

func (p *validatePrinter) see(t int64) {
	if p.start == 0 && t > 0 {
		p.start = t
	}
}

func (p *validatePrinter) findings(fs []check.Finding) error {
	for i := range fs {
		f := &fs[i]
		switch p.format {
		case output.JSON:
			p.buf = append(f.AppendJSON(p.buf[:0]), '\n')
			if _, err := p.w.Write(p.buf); err != nil {
				return err
			}
		case output.Table:
			if _, err := fmt.Fprintln(p.w, p.row(f)); err != nil {
				return err
			}
		default:
			p.group(f)
		}
	}
	return nil
}

func (p *validatePrinter) row(f *check.Finding) string {
	detail := f.Message
	if f.Schema != "" {
		detail = "expected " + f.Expected + ", got " + f.Actual
	}
	return strings.Join([]string{
		pad("#"+strconv.Itoa(f.I), 7), pad(offset(f.T, p.start), 9), pad(connLabel(f.Conn), 4),
		severityColor(f.Severity).Sprint(pad(f.Severity.String(), 8)), pad(f.Rule, 24),
		pad(clip(f.Schema, 16), 16), pad(clip(f.Pointer, 28), 28), oneLine(clip(detail, 120)),
	}, " ")
}

func connLabel(c int) string {
	if c == 0 {
		return "-"
	}
	return strconv.Itoa(c)
}

// field is what text output groups the findings of a rule by.
func field(f *check.Finding) string {
	if f.Schema == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString(f.Schema)
	if f.Pointer != "" {
		b.WriteByte(' ')
	}
	for _, part := range strings.Split(f.Pointer, "/")[1:] {
		b.WriteByte('/')
		if _, err := strconv.Atoi(part); err == nil {
			part = "*"
		}
		b.WriteString(part)
	}
	switch {
	case f.Actual == "absent" && f.Keyword == "required":
		b.WriteString(" is required")
	case f.Keyword == "additionalProperties":
		b.WriteString(" is not in the schema")
	default:
		b.WriteString(" must be " + f.Expected)
	}
	return b.String()
}

func (p *validatePrinter) group(f *check.Finding) {
	k := validateKey{f.Severity, f.Rule, field(f)}
	g := p.groups[k]
	if g == nil {
		if len(p.groups) >= validateMaxGroups {
			p.other[validateKey{sev: f.Severity, rule: f.Rule}]++
			return
		}
		g = &validateGroup{}
		p.groups[k] = g
		p.order = append(p.order, k)
	}
	g.n++
	limit := validateShowPerRule
	if k.field != "" {
		limit = validateShowPerGroup
	}
	if len(g.shown) < limit {
		g.shown = append(g.shown, *f)
	}
}

func (p *validatePrinter) summary(sum *validate.Summary) error {
	if p.format == output.JSON {
		line, err := json.Marshal(map[string]validate.Summary{"summary": *sum})
		if err != nil {
			return err
		}
		_, err = p.w.Write(append(line, '\n'))
		return err
	}
	if p.format == output.Text {
		p.writeGroups()
	}
	unchecked := 0
	for _, n := range sum.Unchecked {
		unchecked += n
	}
	var verdict string
	if total := sum.Errors + sum.Warnings + sum.Infos; total == 0 {
		verdict = color.New(color.FgGreen).Sprint("no findings")
	} else {
		verdict = fmt.Sprintf("%s, %s, %d info",
			severityColor(check.Error).Sprintf("%d error(s)", sum.Errors),
			severityColor(check.Warn).Sprintf("%d warning(s)", sum.Warnings), sum.Infos)
	}
	_, err := fmt.Fprintf(p.w, "%s in %d records (%d frames; %d part(s) checked against %s, %d without a schema)\n",
		verdict, sum.Records, sum.Frames, sum.Validated, sum.Schema, unchecked)
	return err
}

func (p *validatePrinter) writeGroups() {
	for _, sev := range []check.Severity{check.Error, check.Warn, check.Info} {
		for _, rule := range validate.Rules() {
			var keys []validateKey
			n := p.other[validateKey{sev: sev, rule: rule.ID}]
			for _, k := range p.order {
				if k.sev == sev && k.rule == rule.ID {
					keys = append(keys, k)
					n += p.groups[k].n
				}
			}
			if n == 0 {
				continue
			}
			fmt.Fprintf(p.w, "%s %s (%d)\n", severityColor(sev).Sprint(pad(strings.ToUpper(sev.String()), 5)), color.New(color.Bold).Sprint(rule.ID), n)
			for _, k := range keys {
				p.writeGroup(k, p.groups[k])
			}
			if o := p.other[validateKey{sev: sev, rule: rule.ID}]; o > 0 {
				fmt.Fprintf(p.w, "  %s\n", color.New(color.Faint).Sprintf("… and %d more in other fields (use --format json for all)", o))
			}
		}
	}
}

func (p *validatePrinter) writeGroup(k validateKey, g *validateGroup) {
	indent := "  "
	if k.field != "" {
		fmt.Fprintf(p.w, "  %s (%d)\n", oneLine(k.field), g.n)
		indent = "    "
	}
	for _, f := range g.shown {
		text := f.Message
		if k.field != "" {
			switch {
			case f.Rule == validate.RuleExtraField:
				text = "holds " + f.Actual
			case f.Keyword == "required" && f.Actual == "absent":
				text = "absent"
			default:
				text = "got " + f.Actual
			}
			if f.RunID != "" {
				text += " (run " + f.RunID + ")"
			}
			if f.Rule == validate.RuleV3Difference {
				text = f.Message
			}
		}
		where := "conn " + strconv.Itoa(f.Conn)
		if f.Conn == 0 {
			where = "-"
		}
		fmt.Fprintf(p.w, "%s%s %s %s %s\n", indent, pad("#"+strconv.Itoa(f.I), 7), pad(offset(f.T, p.start), 9), pad(where, 7), oneLine(text))
	}
	if more := g.n - len(g.shown); more > 0 {
		fmt.Fprintf(p.w, "%s%s\n", indent, color.New(color.Faint).Sprintf("… and %d more (use --format json for all)", more))
	}
}
