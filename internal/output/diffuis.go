package output

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/clawtap/clawtap/pkg/diff"
	"github.com/clawtap/clawtap/pkg/human"
)

// DiffUIs prints a comparison of one capture under two UIs as it goes:
// JSON Lines with one {"run":…} per run, as each is compared, then
// {"summary":…}; text and table keep the runs that differ and show them,
// field by field, under a header once the comparison is over.
type DiffUIs struct {
	W      io.Writer
	Format Format
	Style  Style
	Path   string

	differ []diff.RunOutcomes // text and table: the runs that differ
}

// Run takes one run's comparison.
func (p *DiffUIs) Run(r *diff.RunOutcomes) error {
	if p.Format == JSON {
		return writeKeyed(p.W, "run", r)
	}
	if len(r.Differs) > 0 {
		p.differ = append(p.differ, *r)
	}
	return nil
}

// Summary ends the output.
func (p *DiffUIs) Summary(res *diff.UIResult) error {
	if p.Format == JSON {
		return writeKeyed(p.W, "summary", res)
	}
	style := p.Style
	var b strings.Builder
	fmt.Fprintf(&b, "%s under %s and %s: %d run(s)\n", p.Path, res.UIs[0], res.UIs[1], res.MetaRuns)
	if p.Format == Table {
		sp := &statsPrinter{w: &b, style: style, table: true}
		var rows [][]string
		for k := range p.differ {
			r := &p.differ[k]
			for _, f := range r.Differs {
				rows = append(rows, []string{runLabel(r.RunID), r.AgentID, "#" + strconv.Itoa(r.I), f, outcomeField(f, &r.A), outcomeField(f, &r.B)})
			}
		}
		if len(rows) > 0 {
			b.WriteString("\n")
			sp.rows([]string{"run", "agent", "record", "differs", res.UIs[0], res.UIs[1]}, rows)
		}
		if sp.err != nil {
			return sp.err
		}
	} else {
		for k := range p.differ {
			r := &p.differ[k]
			fmt.Fprintf(&b, "\n%s (agent %s, record #%d):\n", style.Paint("run "+runLabel(r.RunID), Bold...), r.AgentID, r.I)
			for _, f := range r.Differs {
				fmt.Fprintf(&b, "  %-7s %s: %s\n", f, res.UIs[0], outcomeField(f, &r.A))
				fmt.Fprintf(&b, "  %-7s %s: %s\n", "", res.UIs[1], outcomeField(f, &r.B))
			}
		}
		b.WriteString("\n")
	}
	if res.Equal() {
		fmt.Fprintf(&b, "%s: every run ends the same under both UIs\n", style.Paint("equivalent", Good...))
	} else {
		fmt.Fprintf(&b, "%s: %d of %d run(s) end differently (first: run %s, record #%d)\n",
			style.Paint("different", Bad...), res.Differ, res.MetaRuns, runLabel(res.First.RunID), res.First.I)
	}
	_, err := io.WriteString(p.W, b.String())
	return err
}

func runLabel(id string) string {
	if id == "" {
		return "(no run id)"
	}
	return human.Printable(human.Clip(id, 40))
}

// outcomeField says, in a few words, what one UI left for one field.
func outcomeField(field string, o *diff.Outcome) string {
	if !o.Seen {
		return "never saw the run"
	}
	switch field {
	case "seen":
		return "saw the run"
	case "reply":
		if o.Committed {
			return "reply committed to the transcript"
		}
		if o.Why != "" {
			return "reply lost: " + human.Printable(o.Why)
		}
		return "reply never reached the transcript"
	case "status":
		if o.Status == "" {
			return "status unknown"
		}
		return "agent left " + o.Status
	case "ghost":
		if o.Ghost == "" {
			return "no ghost run"
		}
		return "idle agent still holds " + human.Printable(human.Clip(o.Ghost, 100))
	case "bubble":
		if o.Bubble == "" {
			return "no streaming bubble"
		}
		return fmt.Sprintf("streaming bubble stays on screen: %q", human.Clip(o.Bubble, 60))
	case "billed":
		return fmt.Sprintf("billed %d turn(s)", *o.Billed)
	}
	return field
}
