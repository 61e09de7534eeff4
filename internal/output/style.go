package output

import "github.com/fatih/color"

// Style paints text for a terminal, or leaves it plain. The decision is
// made once per output (--color, NO_COLOR, TERM=dumb, whether the output
// is a terminal) and carried here, never read from globals or the
// environment while printing.
type Style struct{ On bool }

// Paint wraps text in the attributes' escape codes when the style is on.
func (s Style) Paint(text string, attrs ...color.Attribute) string {
	if !s.On || len(attrs) == 0 {
		return text
	}
	c := color.New(attrs...)
	c.EnableColor() // color.New honours NO_COLOR itself; the decision is ours
	return c.Sprint(text)
}

// Painter returns a function that paints with attrs, or nil when the style
// is off (renderers that take optional painters print plain text for nil).
func (s Style) Painter(attrs ...color.Attribute) func(string) string {
	if !s.On {
		return nil
	}
	return func(text string) string { return s.Paint(text, attrs...) }
}

// Common attribute sets, so one meaning has one colour everywhere.
var (
	Bold    = []color.Attribute{color.Bold}
	Faint   = []color.Attribute{color.Faint}
	Good    = []color.Attribute{color.FgGreen}
	Warning = []color.Attribute{color.FgYellow}
	Bad     = []color.Attribute{color.FgRed, color.Bold}
)
