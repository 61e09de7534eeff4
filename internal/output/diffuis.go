package output

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/clawtap/clawtap/pkg/diff"
	"github.com/clawtap/clawtap/pkg/human"
)

// DiffUIs prints a comparison of one capture under two UIs: JSON Lines
// with one {"run":…} per run then {"summary":…}; text and table show the
// runs that differ, field by field.
func DiffUIs(w io.Writer, format Format, style Style, res *diff.UIResult, path string) error {
	if format == JSON {
		return writeDiffUIsJSON(w, res)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s under %s and %s: %d run(s)\n", path, res.UIs[0], res.UIs[1], res.MetaRuns)
	if format == Table {
		sp := &statsPrinter{w: &b, style: style, table: true}
		var rows [][]string
		for k := range res.Runs {
			r := &res.Runs[k]
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
		for k := range res.Runs {
			r := &res.Runs[k]
			if len(r.Differs) == 0 {
				continue
			}
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
	_, err := io.WriteString(w, b.String())
	return err
}

func writeDiffUIsJSON(w io.Writer, res *diff.UIResult) error {
	for k := range res.Runs {
		b, _ := json.Marshal(map[string]any{"run": &res.Runs[k]})
		if _, err := w.Write(append(b, '\n')); err != nil {
			return err
		}
	}
	b, _ := json.Marshal(map[string]any{"summary": res})
	_, err := w.Write(append(b, '\n'))
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
