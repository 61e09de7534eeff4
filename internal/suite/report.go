package suite

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/check"
	"github.com/clawtap/clawtap/pkg/human"
	"github.com/clawtap/clawtap/pkg/jsonx"
)

// Report formats.
const (
	FormatText  = "text"
	FormatTable = "table"
	FormatJSON  = "json"
	FormatJUnit = "junit"
)

// Totals count a suite's captures by outcome.
type Totals struct {
	// Each capture is one of Passed (unchanged), Failed, Errors or
	// Updated (--update wrote a file of it).
	Captures, Passed, Failed, Errors, Updated int
	// Cases counts tests: one per capture and UI (one for a capture that
	// could not be tested).
	Cases int
	// Elapsed is the suite's wall time, when timed.
	Elapsed time.Duration
}

// Add counts a result.
func (t *Totals) Add(r *Result) {
	t.Captures++
	t.Cases += max(len(r.Runs), 1)
	switch r.Status() {
	case Pass:
		t.Passed++
	case Updated: // counted once: updated, not passed too (10 captures read "updated 10")
		t.Updated++
	case Fail:
		t.Failed++
	case Error:
		t.Errors++
	}
}

// Report prints a suite's results as they come (text, table and json
// stream; junit is written at the end, its root carrying the counts).
type Report struct {
	W      io.Writer
	Format string
	Style  output.Style
	// Timings adds each capture's time and the suite's: wall time, so
	// left out where the same bytes are wanted on every run.
	Timings bool

	totals Totals
	buf    []byte
	headed bool
	junit  []junitCase
}

// Result prints one capture's result.
func (p *Report) Result(r *Result) error {
	p.totals.Add(r)
	var b []byte
	switch p.Format {
	case FormatJSON:
		b = p.appendJSON(p.buf[:0], r)
	case FormatJUnit:
		p.junit = append(p.junit, junitCases(r, p.Timings)...)
		return nil
	case FormatTable:
		b = p.appendRows(p.buf[:0], r)
	default:
		b = p.appendText(p.buf[:0], r)
	}
	p.buf = b
	_, err := p.W.Write(b)
	return err
}

// End prints the summary.
func (p *Report) End(elapsed time.Duration) error {
	p.totals.Elapsed = elapsed
	t := &p.totals
	switch p.Format {
	case FormatJSON:
		b := append(p.buf[:0], `{"summary":{"captures":`...)
		b = jsonx.AppendInt(b, int64(t.Captures))
		for _, kv := range []struct {
			k string
			v int
		}{{"tests", t.Cases}, {"passed", t.Passed}, {"failed", t.Failed}, {"errors", t.Errors}, {"updated", t.Updated}} {
			b = append(b, `,"`+kv.k+`":`...)
			b = jsonx.AppendInt(b, int64(kv.v))
		}
		if p.Timings {
			b = append(b, `,"ms":`...)
			b = jsonx.AppendInt(b, elapsed.Milliseconds())
		}
		b = append(b, "}}\n"...)
		_, err := p.W.Write(b)
		return err
	case FormatJUnit:
		return writeJUnit(p.W, p.junit, t, p.Timings)
	}
	return p.summaryTable()
}

// Totals are the counts so far.
func (p *Report) Totals() Totals { return p.totals }

func (p *Report) summaryTable() error {
	t := &p.totals
	head := []string{"captures", "passed", "failed", "errors"}
	row := []string{strconv.Itoa(t.Captures), strconv.Itoa(t.Passed), strconv.Itoa(t.Failed), strconv.Itoa(t.Errors)}
	if t.Updated > 0 {
		head, row = append(head, "updated"), append(row, strconv.Itoa(t.Updated))
	}
	if p.Timings {
		head, row = append(head, "time"), append(row, human.Duration(t.Elapsed.Milliseconds(), 2))
	}
	var sb strings.Builder
	sb.WriteByte('\n')
	for k := range head {
		w := max(len(head[k]), len(row[k]))
		head[k], row[k] = human.Pad(head[k], w), human.Pad(row[k], w)
	}
	sb.WriteString(p.Style.Paint(strings.TrimRight(strings.Join(head, "  "), " "), output.Bold...) + "\n")
	sb.WriteString(strings.TrimRight(strings.Join(row, "  "), " ") + "\n")
	verdict := p.Style.Paint("PASS", output.Good...)
	switch {
	case t.Errors > 0:
		verdict = p.Style.Paint("ERROR", output.Bad...) + ": " + strconv.Itoa(t.Errors) + " capture(s) could not be tested"
	case t.Failed > 0:
		verdict = p.Style.Paint("FAIL", output.Bad...) + ": " + strconv.Itoa(t.Failed) + " capture(s) failed"
	}
	sb.WriteString(verdict + "\n")
	_, err := io.WriteString(p.W, sb.String())
	return err
}

// statusWord is a result's word in text and table output, padded to n.
func (p *Report) statusWord(s Status, n int) string {
	switch s {
	case Pass:
		return p.Style.Paint(human.Pad("ok", n), output.Good...)
	case Updated:
		return p.Style.Paint(human.Pad("updated", n), output.Warning...)
	case Error:
		return p.Style.Paint(human.Pad("ERROR", n), output.Bad...)
	}
	return p.Style.Paint(human.Pad("FAIL", n), output.Bad...)
}

func (p *Report) elapsed(r *Result) string {
	if !p.Timings {
		return ""
	}
	return " (" + human.Duration(r.Elapsed.Milliseconds(), 2) + ")"
}

// appendText renders a result as a line, then for a failure what failed:
// the golden diff and the findings that differ, indented.
func (p *Report) appendText(dst []byte, r *Result) []byte {
	st := r.Status()
	dst = append(dst, p.statusWord(st, 7)...)
	dst = append(dst, ' ')
	dst = append(dst, human.Printable(r.Capture.Path)...)
	if st == Updated {
		dst = append(dst, ": "+strings.Join(written(r), ", ")...)
	}
	dst = append(dst, p.elapsed(r)...)
	dst = append(dst, '\n')
	if r.Err != nil {
		dst = append(dst, "        "+human.Printable(r.Err.Error())+"\n"...)
	}
	for k := range r.Runs {
		run := &r.Runs[k]
		if !run.Status().failed() {
			continue
		}
		dst = append(dst, "      ["+run.UI+"]\n"...)
		dst = appendIndented(dst, runDetail(run), "        ")
	}
	return dst
}

// written lists what --update wrote for a capture.
func written(r *Result) []string {
	var out []string
	for k := range r.Runs {
		if r.Runs[k].Golden.Status == Updated {
			out = append(out, r.Runs[k].Golden.Path)
		}
	}
	if r.Expect == Updated {
		out = append(out, r.Capture.ExpectPath())
	}
	return out
}

// runDetail explains a failed run in plain text: the golden first, then
// the findings.
func runDetail(run *UIRun) string {
	var sb strings.Builder
	switch run.Golden.Status {
	case Missing:
		sb.WriteString("golden " + human.Printable(run.Golden.Path) + " does not exist: create it with clawtap test --update, review it, commit it\n")
	case Fail:
		sb.WriteString("golden " + human.Printable(run.Golden.Path) + " differs from the replay:\n")
		sb.WriteString(run.Golden.Diff)
	}
	f := &run.Findings
	switch f.Status {
	case Missing:
		sb.WriteString("no expectations for " + run.UI + " in " + human.Printable(f.Path) + ": create them with clawtap test --update, review, commit\n")
	case Fail:
		sb.WriteString("findings differ from " + human.Printable(f.Path) + ":\n")
		sb.WriteString(findingLines(&f.Mismatch))
	}
	return sb.String()
}

// findingLines lists a mismatch, one finding per line, each made
// printable (a run id or a message from the capture stays on its line).
func findingLines(m *Mismatch) string {
	var sb strings.Builder
	for k := range m.Unexpected {
		sb.WriteString("  unexpected: " + human.Printable(findingText(&m.Unexpected[k])) + "\n")
	}
	for k := range m.Missing {
		sb.WriteString("  missing:    " + human.Printable(m.Missing[k].String()) + "\n")
	}
	for k := range m.Changed {
		c := &m.Changed[k]
		sb.WriteString("  severity:   " + human.Printable(findingText(&c.Finding)+" (expected "+c.Want+")") + "\n")
	}
	return sb.String()
}

func findingText(f *check.Finding) string {
	s := f.Severity.String() + " " + f.Rule + " #" + strconv.Itoa(f.I)
	if f.RunID != "" {
		s += " run " + f.RunID
	}
	return s + ": " + f.Message
}

// appendIndented indents every line of s.
func appendIndented(dst []byte, s, indent string) []byte {
	for line := range strings.Lines(s) {
		dst = append(dst, indent...)
		dst = append(dst, human.Printable(strings.TrimSuffix(line, "\n"))...)
		dst = append(dst, '\n')
	}
	return dst
}

// appendRows renders a result as a table row per UI.
func (p *Report) appendRows(dst []byte, r *Result) []byte {
	pad := human.Pad
	if !p.headed {
		p.headed = true
		cols := []string{pad("RESULT", 8), pad("UI", 8), pad("GOLDEN", 8), pad("FINDINGS", 18), "CAPTURE"}
		if p.Timings {
			cols = append([]string{pad("TIME", 8)}, cols...)
		}
		dst = append(dst, p.Style.Paint(strings.Join(cols, " "), output.Bold...)+"\n"...)
	}
	row := func(st Status, ui, golden, findings string) {
		cols := []string{p.statusWord(st, 8), pad(ui, 8), pad(golden, 8), pad(findings, 18), human.Printable(r.Capture.Path)}
		if p.Timings {
			cols = append([]string{pad(human.Duration(r.Elapsed.Milliseconds(), 2), 8)}, cols...)
		}
		dst = append(dst, strings.Join(cols, " ")+"\n"...)
	}
	if r.Err != nil {
		row(Error, "-", "-", "-")
	}
	for k := range r.Runs {
		run := &r.Runs[k]
		row(run.Status(), run.UI, string(run.Golden.Status), findingsCell(&run.Findings))
	}
	return dst
}

// findingsCell sums a findings comparison up in a table cell.
func findingsCell(f *FindingsResult) string {
	if f.Status != Fail {
		return string(f.Status) + " (" + strconv.Itoa(f.Found) + ")"
	}
	return fmt.Sprintf("+%d -%d ~%d", len(f.Unexpected), len(f.Missing), len(f.Changed))
}

// appendJSON renders a result as one line (docs/ci.md lists the keys).
func (p *Report) appendJSON(dst []byte, r *Result) []byte {
	dst = append(dst, `{"file":`...)
	dst = jsonx.AppendString(dst, r.Capture.Path)
	dst = append(dst, `,"status":`...)
	dst = jsonx.AppendString(dst, string(r.Status()))
	if r.Err != nil {
		dst = append(dst, `,"error":`...)
		dst = jsonx.AppendString(dst, r.Err.Error())
	}
	dst = append(dst, `,"uis":[`...)
	for k := range r.Runs {
		if k > 0 {
			dst = append(dst, ',')
		}
		dst = appendRunJSON(dst, &r.Runs[k])
	}
	dst = append(dst, ']')
	if r.Expect != "" {
		dst = append(dst, `,"expectations":`...)
		dst = jsonx.AppendString(dst, string(r.Expect))
	}
	if len(r.Notes) > 0 {
		dst = append(dst, `,"notes":[`...)
		for k, n := range r.Notes {
			if k > 0 {
				dst = append(dst, ',')
			}
			dst = jsonx.AppendString(dst, n)
		}
		dst = append(dst, ']')
	}
	if r.RedactedOnRead {
		dst = append(dst, `,"redactedOnRead":true`...)
	}
	if len(r.Info) > 0 {
		dst = append(dst, `,"info":[`...)
		for k, n := range r.Info {
			if k > 0 {
				dst = append(dst, ',')
			}
			dst = jsonx.AppendString(dst, n)
		}
		dst = append(dst, ']')
	}
	if p.Timings {
		dst = append(dst, `,"ms":`...)
		dst = jsonx.AppendInt(dst, r.Elapsed.Milliseconds())
	}
	return append(dst, "}\n"...)
}

func appendRunJSON(dst []byte, run *UIRun) []byte {
	dst = append(dst, `{"ui":`...)
	dst = jsonx.AppendString(dst, run.UI)
	dst = append(dst, `,"status":`...)
	dst = jsonx.AppendString(dst, string(run.Status()))
	g := &run.Golden
	dst = append(dst, `,"golden":{"file":`...)
	dst = jsonx.AppendString(dst, g.Path)
	dst = append(dst, `,"status":`...)
	dst = jsonx.AppendString(dst, string(g.Status))
	if g.Status == Fail {
		dst = append(dst, `,"line":`...)
		dst = jsonx.AppendInt(dst, int64(g.Line))
		dst = append(dst, `,"diff":`...)
		dst = jsonx.AppendString(dst, g.Diff)
	}
	f := &run.Findings
	dst = append(dst, `},"findings":{"file":`...)
	dst = jsonx.AppendString(dst, f.Path)
	dst = append(dst, `,"status":`...)
	dst = jsonx.AppendString(dst, string(f.Status))
	dst = append(dst, `,"found":`...)
	dst = jsonx.AppendInt(dst, int64(f.Found))
	if len(f.Unexpected) > 0 {
		dst = append(dst, `,"unexpected":[`...)
		for k := range f.Unexpected {
			if k > 0 {
				dst = append(dst, ',')
			}
			dst = f.Unexpected[k].AppendJSON(dst)
		}
		dst = append(dst, ']')
	}
	if len(f.Missing) > 0 {
		dst = append(dst, `,"missing":[`...)
		for k := range f.Missing {
			if k > 0 {
				dst = append(dst, ',')
			}
			dst = f.Missing[k].appendJSON(dst)
		}
		dst = append(dst, ']')
	}
	if len(f.Changed) > 0 {
		dst = append(dst, `,"changed":[`...)
		for k := range f.Changed {
			if k > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"expected":`...)
			dst = jsonx.AppendString(dst, f.Changed[k].Want)
			dst = append(dst, `,"finding":`...)
			dst = f.Changed[k].Finding.AppendJSON(dst)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	return append(dst, "}}"...)
}
