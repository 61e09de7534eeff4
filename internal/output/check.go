package output

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/clawtap/clawtap/pkg/check"
	"github.com/clawtap/clawtap/pkg/human"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/fatih/color"
)

// Text output bounds: the findings shown for a rule, or for one field of
// the schema; the groups kept (the rest are counted per rule).
const (
	CheckShowPerRule  = 20
	CheckShowPerField = 3
	checkMaxGroups    = 1000
)

// Check prints check's findings: json is one finding per line as it is
// found, then a {"summary":…} line; text groups them by severity and rule
// with a verdict; table is a row per finding, then the verdict. It is an
// observer that takes an Analyzer's findings (see Attach).
type Check struct {
	W      io.Writer
	Format Format
	Style  Style
	// Rules orders the groups of text output; nil is check's rules.
	Rules []check.Rule

	start  int64
	buf    []byte
	groups map[checkKey]*checkGroup
	order  []checkKey
	other  map[checkKey]int // per severity and rule, past checkMaxGroups
	rows   int
}

// checkKey groups findings for text output: by severity (a few rules
// lower theirs where the evidence says so), rule, and for schema findings
// the field of the schema (see schemaField).
type checkKey struct {
	sev   check.Severity
	rule  string
	field string
}

// checkGroup collects one rule's findings for text output.
type checkGroup struct {
	shown []check.Finding
	n     int
}

func (p *Check) Needs() pipeline.Needs { return 0 }

// Before notes the first record's time, the origin of offsets.
func (p *Check) Before(f *pipeline.Frame) error {
	if p.start == 0 && f.Rec.T > 0 {
		p.start = f.Rec.T
	}
	return nil
}

// Finding takes one finding as the pass reports it.
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
		msg := f.Message
		if f.Schema != "" {
			msg = f.Schema + " " + f.Pointer + ": expected " + f.Expected + ", got " + f.Actual
			if f.Count > 1 {
				msg += " (" + strconv.Itoa(f.Count) + " frames)"
			}
		}
		row := strings.Join([]string{p.Style.Paint(pad(f.Severity.String(), 8), SeverityColor(f.Severity)...), pad(f.Rule, 22), pad(strconv.Itoa(f.I), 7),
			pad(human.Offset(f.T, p.start), 9), pad(connText(f.Conn), 4), pad(human.Clip(human.Printable(f.RunID), 14), 14), human.Printable(msg + uiNote(f))}, " ")
		_, err := io.WriteString(p.W, row+"\n")
		return err
	}
	p.group(f)
	return nil
}

func (p *Check) group(f *check.Finding) {
	if p.groups == nil {
		p.groups, p.other = make(map[checkKey]*checkGroup), make(map[checkKey]int)
	}
	k := checkKey{f.Severity, f.Rule, schemaField(f)}
	g := p.groups[k]
	if g == nil {
		if len(p.groups) >= checkMaxGroups {
			p.other[checkKey{sev: f.Severity, rule: f.Rule}]++
			return
		}
		g = &checkGroup{}
		p.groups[k] = g
		p.order = append(p.order, k)
	}
	g.n++
	limit := CheckShowPerRule
	if k.field != "" {
		limit = CheckShowPerField
	}
	if len(g.shown) < limit {
		g.shown = append(g.shown, *f)
	}
}

// schemaField is what text output groups a schema finding by: its
// definition, its pointer with array indices as *, and what it breaks.
func schemaField(f *check.Finding) string {
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

func connText(conn int) string {
	if conn == 0 {
		return "-"
	}
	return strconv.Itoa(conn)
}

// Counts are the totals a summary line states.
type Counts struct {
	Errors, Warnings, Infos, Records int
}

// Summary prints the end: json, a {"summary":…} line holding summary;
// text, the groups then the verdict; table, the verdict. detail follows
// the record count in the verdict, in parentheses.
func (p *Check) Summary(summary any, c Counts, detail string) error {
	if p.Format == JSON {
		return writeKeyed(p.W, "summary", summary)
	}
	if p.Format == Text {
		if err := p.writeGroups(); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(p.W, "%s in %d records (%s)\n", p.verdict(c), c.Records, detail)
	return err
}

func (p *Check) writeGroups() error {
	rules := p.Rules
	if rules == nil {
		rules = check.Rules()
	}
	pad := human.Pad
	for _, sev := range []check.Severity{check.Error, check.Warn, check.Info} {
		for _, rule := range rules {
			var keys []checkKey
			n := p.other[checkKey{sev: sev, rule: rule.ID}]
			for _, k := range p.order {
				if k.sev == sev && k.rule == rule.ID {
					keys = append(keys, k)
					n += p.groups[k].n
				}
			}
			if n == 0 {
				continue
			}
			if _, err := fmt.Fprintf(p.W, "%s %s (%d)\n", p.Style.Paint(pad(strings.ToUpper(sev.String()), 5), SeverityColor(sev)...), p.Style.Paint(rule.ID, Bold...), n); err != nil {
				return err
			}
			for _, k := range keys {
				if err := p.writeGroup(k, p.groups[k]); err != nil {
					return err
				}
			}
			if o := p.other[checkKey{sev: sev, rule: rule.ID}]; o > 0 {
				if _, err := fmt.Fprintf(p.W, "  %s\n", p.Style.Paint(fmt.Sprintf("… and %d more in other fields (use --format json for all)", o), Faint...)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (p *Check) writeGroup(k checkKey, g *checkGroup) error {
	pad := human.Pad
	indent := "  "
	if k.field != "" {
		if _, err := fmt.Fprintf(p.W, "  %s (%d)\n", human.Printable(k.field), g.n); err != nil {
			return err
		}
		indent = "    "
	}
	for _, f := range g.shown {
		text := f.Message
		if k.field != "" && f.Rule != validateV3 {
			switch {
			case f.Keyword == "additionalProperties" && f.Count > 1:
				text = fmt.Sprintf("holds %s; %d frames from this one on have it", f.Actual, f.Count)
			case f.Keyword == "additionalProperties":
				text = "holds " + f.Actual
			case f.Keyword == "required" && f.Actual == "absent":
				text = "absent"
			default:
				text = "got " + f.Actual
			}
			if f.RunID != "" {
				text += " (run " + f.RunID + ")"
			}
		}
		where := "conn " + strconv.Itoa(f.Conn)
		if f.Conn == 0 {
			where = "-"
		}
		if _, err := fmt.Fprintf(p.W, "%s%s %s %s %s\n", indent, pad("#"+strconv.Itoa(f.I), 7), pad(human.Offset(f.T, p.start), 9), pad(where, 7), human.Printable(text+uiNote(&f))); err != nil {
			return err
		}
	}
	if more := g.n - len(g.shown); more > 0 {
		if _, err := fmt.Fprintf(p.W, "%s%s\n", indent, p.Style.Paint(fmt.Sprintf("… and %d more (use --format json for all)", more), Faint...)); err != nil {
			return err
		}
	}
	return nil
}

// uiNote says which of the UI versions checked show a finding, when
// several were.
func uiNote(f *check.Finding) string {
	if f.UIs == nil {
		return ""
	}
	if len(f.NotUIs) == 0 {
		return " [every UI checked: " + check.UIList(f.UIs) + "]"
	}
	if len(f.UIs) == 0 {
		return " [shown by no UI checked: " + check.UIList(f.NotUIs) + "]"
	}
	return " [shown by " + check.UIList(f.UIs) + "; not by " + check.UIList(f.NotUIs) + "]"
}

// validateV3 is validate's rule for a protocol 3 difference, whose
// message explains itself.
const validateV3 = "schema-v3-difference"

func (p *Check) verdict(c Counts) string {
	if c.Errors+c.Warnings+c.Infos == 0 {
		return p.Style.Paint("no findings", Good...)
	}
	return fmt.Sprintf("%s, %s, %s",
		p.Style.Paint(fmt.Sprintf("%d error(s)", c.Errors), SeverityColor(check.Error)...),
		p.Style.Paint(fmt.Sprintf("%d warning(s)", c.Warnings), SeverityColor(check.Warn)...),
		fmt.Sprintf("%d info", c.Infos))
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
	width := 0
	for _, r := range check.Rules() {
		width = max(width, len(r.ID))
	}
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
			line = human.Pad(r.ID, width) + " " + human.Pad(r.Severity.String(), 5) + " " + r.Summary + def
		}
		if _, err := io.WriteString(w, line+"\n"); err != nil {
			return err
		}
	}
	return nil
}
