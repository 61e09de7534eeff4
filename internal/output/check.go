package output

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/clawtap/clawtap/internal/human"
	"github.com/clawtap/clawtap/pkg/check"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/fatih/color"
)

// CheckShowPerRule bounds the findings text output shows for one rule; the
// rest are counted.
const CheckShowPerRule = 20

// Check prints check's findings: json is one finding per line as it is
// found, then a {"summary":…} line; text groups them by severity and rule
// with a verdict; table is a row per finding, then the verdict. It is an
// observer that takes an Analyzer's findings (see Attach).
type Check struct {
	W      io.Writer
	Format Format
	Style  Style

	start  int64
	buf    []byte
	groups map[checkKey]*checkGroup
	rows   int
}

// checkKey groups findings for text output: a few rules lower their
// severity where the evidence says so.
type checkKey struct {
	sev  check.Severity
	rule string
}

// checkGroup collects one rule's findings for text output.
type checkGroup struct {
	shown []check.Finding
	n     int
}

// Attach makes the printer the analyzer's finding sink.
func (p *Check) Attach(an *check.Analyzer) { an.OnFinding = p.Finding }

func (p *Check) Needs() pipeline.Needs { return 0 }

// Before notes the first record's time, the origin of offsets.
func (p *Check) Before(f *pipeline.Frame) error {
	if p.start == 0 && f.Rec.T > 0 {
		p.start = f.Rec.T
	}
	return nil
}

// Finding takes one finding as the analyzer makes it.
func (p *Check) Finding(f *check.Finding) error {
	switch p.Format {
	case JSON:
		p.buf = append(f.AppendJSON(p.buf[:0]), '\n')
		_, err := p.W.Write(p.buf)
		return err
	case Table:
		if p.rows == 0 {
			pad := human.Pad
			if _, err := io.WriteString(p.W, p.Style.Paint(strings.Join([]string{pad("SEVERITY", 8), pad("RULE", 22), pad("#", 7), pad("TIME", 9), pad("CONN", 4), pad("RUN", 14), "MESSAGE"}, " "), Bold...)+"\n"); err != nil {
				return err
			}
		}
		p.rows++
		pad := human.Pad
		row := strings.Join([]string{p.Style.Paint(pad(f.Severity.String(), 8), SeverityColor(f.Severity)...), pad(f.Rule, 22), pad(strconv.Itoa(f.I), 7),
			pad(human.Offset(f.T, p.start), 9), pad(connText(f.Conn), 4), pad(human.Clip(human.Printable(f.RunID), 14), 14), human.Printable(f.Message)}, " ")
		_, err := io.WriteString(p.W, row+"\n")
		return err
	}
	if p.groups == nil {
		p.groups = make(map[checkKey]*checkGroup)
	}
	k := checkKey{f.Severity, f.Rule}
	g := p.groups[k]
	if g == nil {
		g = &checkGroup{}
		p.groups[k] = g
	}
	g.n++
	if len(g.shown) < CheckShowPerRule {
		g.shown = append(g.shown, *f)
	}
	return nil
}

func connText(conn int) string {
	if conn == 0 {
		return "-"
	}
	return strconv.Itoa(conn)
}

// Summary prints the end: the summary line (json) or the groups and the
// verdict (text), or the verdict under the table.
func (p *Check) Summary(sum *check.Summary) error {
	if p.Format == JSON {
		line, _ := json.Marshal(map[string]*check.Summary{"summary": sum})
		_, err := p.W.Write(append(line, '\n'))
		return err
	}
	if p.Format == Text {
		if err := p.writeGroups(); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(p.W, "%s in %d records (%d connection(s), %d run(s))\n", p.verdict(sum), sum.Records, sum.Connections, sum.Runs)
	return err
}

func (p *Check) writeGroups() error {
	for _, sev := range []check.Severity{check.Error, check.Warn, check.Info} {
		for _, rule := range check.Rules() {
			g := p.groups[checkKey{sev, rule.ID}]
			if g == nil {
				continue
			}
			pad := human.Pad
			if _, err := fmt.Fprintf(p.W, "%s %s (%d)\n", p.Style.Paint(pad(strings.ToUpper(sev.String()), 5), SeverityColor(sev)...), p.Style.Paint(rule.ID, Bold...), g.n); err != nil {
				return err
			}
			for _, f := range g.shown {
				where := "conn " + strconv.Itoa(f.Conn)
				if f.Conn == 0 {
					where = "-"
				}
				if _, err := fmt.Fprintf(p.W, "  %s %s %s %s\n", pad("#"+strconv.Itoa(f.I), 7), pad(human.Offset(f.T, p.start), 9), pad(where, 7), human.Printable(f.Message)); err != nil {
					return err
				}
			}
			if more := g.n - len(g.shown); more > 0 {
				if _, err := fmt.Fprintf(p.W, "  %s\n", p.Style.Paint(fmt.Sprintf("… and %d more (use --format json for all)", more), Faint...)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (p *Check) verdict(sum *check.Summary) string {
	if sum.Errors+sum.Warnings+sum.Infos == 0 {
		return p.Style.Paint("no findings", Good...)
	}
	return fmt.Sprintf("%s, %s, %s",
		p.Style.Paint(fmt.Sprintf("%d error(s)", sum.Errors), SeverityColor(check.Error)...),
		p.Style.Paint(fmt.Sprintf("%d warning(s)", sum.Warnings), SeverityColor(check.Warn)...),
		fmt.Sprintf("%d info", sum.Infos))
}

// SeverityColor gives each severity its colour.
func SeverityColor(s check.Severity) []color.Attribute {
	switch s {
	case check.Error:
		return Bad
	case check.Warn:
		return Warning
	}
	return Faint
}

// CheckRules lists the rules with their default severity (check --list).
func CheckRules(w io.Writer, format Format) error {
	for _, r := range check.Rules() {
		var line string
		switch format {
		case JSON:
			b, _ := json.Marshal(struct {
				ID       string `json:"rule"`
				Severity string `json:"severity"`
				Default  bool   `json:"default"`
				Summary  string `json:"summary"`
			}{r.ID, r.Severity.String(), r.Default, r.Summary})
			line = string(b)
		default:
			def := ""
			if !r.Default {
				def = " (off unless selected)"
			}
			line = human.Pad(r.ID, 21) + " " + human.Pad(r.Severity.String(), 5) + " " + r.Summary + def
		}
		if _, err := io.WriteString(w, line+"\n"); err != nil {
			return err
		}
	}
	return nil
}
