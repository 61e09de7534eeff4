package output

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/clawtap/clawtap/pkg/diff"
	"github.com/clawtap/clawtap/pkg/human"
	"github.com/fatih/color"
)

// Diff prints a comparison of two captures: json is a {"divergence":…}
// line per divergence kept and a {"summary":…} line; text shows the
// divergences kept in context and a verdict with counts per kind; table
// the same as tables. nameA and nameB name the captures.
func Diff(w io.Writer, format Format, style Style, res *diff.Result, nameA, nameB string) error {
	switch format {
	case JSON:
		return writeDiffJSON(w, res)
	case Table:
		return writeDiffTable(w, style, res, nameA, nameB)
	}
	return writeDiffText(w, style, res, nameA, nameB)
}

type stepJSON struct {
	I    int    `json:"i"`
	T    int64  `json:"t"`
	Kind string `json:"kind"`
	Desc string `json:"desc"`
}

func toStepJSON(s *diff.Step) *stepJSON {
	if s == nil {
		return nil
	}
	return &stepJSON{s.I, s.T, s.Kind, s.Desc}
}

func writeDiffJSON(w io.Writer, res *diff.Result) error {
	for _, d := range res.Divergences {
		type pair struct {
			A *stepJSON `json:"a"`
			B *stepJSON `json:"b"`
		}
		out := struct {
			Step    int         `json:"step"`
			Context []pair      `json:"context"`
			A       []*stepJSON `json:"a"`
			B       []*stepJSON `json:"b"`
		}{Step: d.Step, Context: []pair{}, A: []*stepJSON{}, B: []*stepJSON{}}
		for _, p := range d.Context {
			out.Context = append(out.Context, pair{toStepJSON(p.A), toStepJSON(p.B)})
		}
		for k := range d.A {
			out.A = append(out.A, toStepJSON(&d.A[k]))
		}
		for k := range d.B {
			out.B = append(out.B, toStepJSON(&d.B[k]))
		}
		if err := writeKeyed(w, "divergence", out); err != nil {
			return err
		}
	}
	if res.FinalState == nil {
		res.FinalState = []string{}
	}
	return writeKeyed(w, "summary", res)
}

func writeDiffText(w io.Writer, style Style, res *diff.Result, pa, pb string) error {
	var b strings.Builder
	diffHeader(&b, style, res, pa, pb)
	for k, d := range res.Divergences {
		fmt.Fprintf(&b, "\n%s\n", style.Paint(divergenceTitle(res, k), Bold...))
		for _, p := range d.Context {
			fmt.Fprintf(&b, "  %s\n", style.Paint("  A "+stepLine(p.A), Faint...))
			if p.A.I != p.B.I || p.A.T != p.B.T {
				fmt.Fprintf(&b, "  %s\n", style.Paint(fmt.Sprintf("  B #%d +%s (same)", p.B.I, secsText(p.B.T)), Faint...))
			}
		}
		red, green := []color.Attribute{color.FgRed}, []color.Attribute{color.FgGreen}
		for k := range d.A {
			fmt.Fprintf(&b, "  %s\n", style.Paint("- A "+stepLine(&d.A[k]), red...))
		}
		if len(d.A) == 0 {
			fmt.Fprintf(&b, "  %s\n", style.Paint("- A (ends here)", red...))
		}
		for k := range d.B {
			fmt.Fprintf(&b, "  %s\n", style.Paint("+ B "+stepLine(&d.B[k]), green...))
		}
		if len(d.B) == 0 {
			fmt.Fprintf(&b, "  %s\n", style.Paint("+ B (ends here)", green...))
		}
	}
	if more := moreDivergences(res); more != "" {
		fmt.Fprintf(&b, "\n%s\n", style.Paint(more, Faint...))
	}
	if len(res.Divergences) > 0 {
		b.WriteString("\n")
	}
	diffVerdict(&b, style, res)
	for _, k := range diffKinds(res) {
		c := res.ByKind[k]
		fmt.Fprintf(&b, "  %s: %d changed, %d only in A, %d only in B\n", human.Printable(k), c.Changed, c.OnlyA, c.OnlyB)
	}
	diffSpan(&b, style, res)
	diffFinal(&b, res)
	_, err := io.WriteString(w, b.String())
	return err
}

// diffSpan says, under the counts, which divergences they cover when not
// all are shown, and which markers were left out.
func diffSpan(b *strings.Builder, style Style, res *diff.Result) {
	if n := res.Parted; n > len(res.Divergences) {
		fmt.Fprintf(b, "%s\n", style.Paint(fmt.Sprintf("  (these counts are of all %d divergences; %d shown: --divergences %d shows each)", n, len(res.Divergences), n), Faint...))
	}
	if res.MarkersOf != "" {
		other := "B"
		if res.MarkersOf == "B" {
			other = "A"
		}
		fmt.Fprintf(b, "%s\n", style.Paint(fmt.Sprintf("connection markers not compared: %s starts with none (bare frames), so %s's %s left out", other, res.MarkersOf, human.Count(res.MarkersLeftOut, "marker was", "markers were")), Faint...))
	}
}

func diffHeader(b *strings.Builder, style Style, res *diff.Result, pa, pb string) {
	fmt.Fprintf(b, "%s %s (%d records%s)\n", style.Paint("A", Bold...), human.Printable(pa), res.MetaA.Records, versions(res.MetaA.Versions))
	fmt.Fprintf(b, "%s %s (%d records%s)\n", style.Paint("B", Bold...), human.Printable(pb), res.MetaB.Records, versions(res.MetaB.Versions))
}

func diffVerdict(b *strings.Builder, style Style, res *diff.Result) {
	verdict := style.Paint("equivalent", Good...)
	if !res.Equal {
		verdict = style.Paint("different", Bad...)
	}
	fmt.Fprintf(b, "%s: %d step(s) aligned (%d equal, %d changed), %d only in A, %d only in B\n", verdict, res.Steps, res.Same, res.Changed, res.OnlyA, res.OnlyB)
}

func diffKinds(res *diff.Result) []string {
	kinds := make([]string, 0, len(res.ByKind))
	for k := range res.ByKind {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	return kinds
}

func diffFinal(b *strings.Builder, res *diff.Result) {
	if len(res.FinalState) == 0 {
		b.WriteString("final replayed state: equal\n")
		return
	}
	b.WriteString("final replayed state differs:\n")
	for _, s := range res.FinalState {
		fmt.Fprintf(b, "  %s\n", human.Printable(s))
	}
}

// writeDiffTable shows the divergence and the counts as tables.
func writeDiffTable(w io.Writer, style Style, res *diff.Result, pa, pb string) error {
	var b strings.Builder
	diffHeader(&b, style, res, pa, pb)
	sp := &statsPrinter{w: &b, style: style, table: true}
	for k, d := range res.Divergences {
		fmt.Fprintf(&b, "\n%s\n", style.Paint(divergenceTitle(res, k), Bold...))
		var rows [][]string
		row := func(side, mark string, s *diff.Step) {
			rows = append(rows, []string{mark + side, "#" + strconv.Itoa(s.I), "+" + secsText(s.T), s.Kind, human.Printable(human.Clip(s.Desc, 120))})
		}
		for _, p := range d.Context {
			row("A", "=", p.A)
		}
		for k := range d.A {
			row("A", "-", &d.A[k])
		}
		for k := range d.B {
			row("B", "+", &d.B[k])
		}
		sp.rows([]string{"side", "record", "time", "kind", "step"}, rows)
	}
	if more := moreDivergences(res); more != "" {
		fmt.Fprintf(&b, "\n%s\n", style.Paint(more, Faint...))
	}
	b.WriteString("\n")
	diffVerdict(&b, style, res)
	var rows [][]string
	for _, k := range diffKinds(res) {
		c := res.ByKind[k]
		rows = append(rows, []string{k, strconv.Itoa(c.Changed), strconv.Itoa(c.OnlyA), strconv.Itoa(c.OnlyB)})
	}
	if len(rows) > 0 {
		sp.rows([]string{"kind", "changed", "only in A", "only in B"}, rows)
	}
	diffSpan(&b, style, res)
	diffFinal(&b, res)
	if sp.err != nil {
		return sp.err
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// divergenceTitle heads divergence k (from 0) of the result.
func divergenceTitle(res *diff.Result, k int) string {
	d := res.Divergences[k]
	if k == 0 {
		return fmt.Sprintf("first divergence after %d equal step(s):", d.Step)
	}
	return fmt.Sprintf("divergence %d of %d, after %d equal step(s):", k+1, res.Parted, d.Step)
}

// moreDivergences says how many divergences are not shown, and how to see
// them; "" when none is left out.
func moreDivergences(res *diff.Result) string {
	n := res.Parted - len(res.Divergences)
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf("%s not shown: --divergences %d shows every one", human.Count(n, "more divergence", "more divergences"), res.Parted)
}

func versions(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return ", gateway " + human.Printable(strings.Join(v, ", "))
}

func secsText(ms int64) string { return fmt.Sprintf("%d.%03ds", ms/1000, ms%1000) }

func stepLine(s *diff.Step) string {
	return fmt.Sprintf("#%-5d +%-8s %s", s.I, secsText(s.T), human.Printable(human.Clip(s.Desc, 220)))
}
