package output

import (
	"io"
	"strconv"
	"strings"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/human"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/models/clawboo"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/replay"
	"github.com/clawtap/clawtap/pkg/ui"
	"github.com/fatih/color"
)

// Intents prints the intents the UI derives from each record: json is
// {"i","t",["seq",]"intent":{…}} per intent, the intent in the reference's
// EventIntent shape; text is a line per intent, table a row per intent.
type Intents struct {
	W      io.Writer
	Format Format
	Style  Style
	// Width clips text and table lines (0 = 120).
	Width int
	// Match keeps the events whose intents are printed; nil keeps all.
	Match func(*bridge.Event) bool
	// SkipIgnore leaves out ignore intents.
	SkipIgnore bool

	start  int64
	f      replay.Formatter
	buf    []byte
	headed bool
}

func (p *Intents) Needs() pipeline.Needs { return pipeline.Intents }

func (p *Intents) head() error {
	if p.headed || p.Format != Table {
		return nil
	}
	p.headed = true
	pad := human.Pad
	_, err := io.WriteString(p.W, p.Style.Paint(strings.Join([]string{pad("#", 6), pad("TIME", 10), pad("SEQ", 6), pad("KIND", 22), pad("AGENT", 10), "DETAIL"}, " "), Bold...)+"\n")
	return err
}

// End writes the column names of an empty table.
func (p *Intents) End(*pipeline.End) error { return p.head() }

// After prints a record's intents: derived by the Policy, or by the UI's
// replay when the UI has no pure policy.
func (p *Intents) After(f *pipeline.Frame) error {
	rec, ev := f.Rec, f.Event
	if err := p.head(); err != nil {
		return err
	}
	if p.start == 0 && rec.T > 0 {
		p.start = rec.T
		p.f.T0 = rec.T
	}
	if p.Match != nil && !p.Match(ev) {
		return nil
	}
	width := p.Width
	if width <= 0 {
		width = 120
	}
	for _, in := range f.Intents {
		kind := in.IntentKind()
		if p.SkipIgnore && kind == ui.IgnoreKind {
			continue
		}
		b := p.buf[:0]
		switch p.Format {
		case JSON:
			b = append(b, `{"i":`...)
			b = jsonx.AppendInt(b, int64(rec.Index))
			b = append(b, `,"t":`...)
			b = jsonx.AppendInt(b, rec.T)
			if ev.HasSeq {
				b = append(b, `,"seq":`...)
				b = jsonx.AppendInt(b, ev.Seq)
			}
			b = append(b, `,"intent":`...)
			b = in.AppendJSONAt(b, 0)
			b = append(b, '}', '\n')
		case Table:
			seq := ""
			if ev.HasSeq {
				seq = strconv.FormatInt(ev.Seq, 10)
			}
			detail := p.f.IntentText(in)
			detail = strings.TrimPrefix(strings.TrimPrefix(detail, kind), " ")
			if kind == ui.IgnoreKind {
				detail = strings.TrimPrefix(detail, ": ")
			}
			pad := human.Pad
			b = append(b, strings.Join([]string{pad(strconv.Itoa(rec.Index), 6), pad(human.Offset(rec.T, p.start), 10), pad(seq, 6),
				p.Style.Paint(pad(kind, 22), intentColor(kind)...), pad(human.Clip(human.Printable(in.IntentAgent()), 10), 10),
				human.Clip(human.Printable(detail), max(width-58, 20))}, " ")...)
			b = append(b, '\n')
		default:
			lead := "#" + strconv.Itoa(rec.Index) + " " + human.Offset(rec.T, p.start) + " "
			line := human.Clip(human.Printable(lead+p.f.IntentText(in)), width)
			// The kind in its colour, as in the table; clipped plain first,
			// so that colour never changes where a line is cut.
			if rest, ok := strings.CutPrefix(line, lead+kind); ok {
				line = lead + p.Style.Paint(kind, intentColor(kind)...) + rest
			}
			b = append(b, line...)
			b = append(b, '\n')
		}
		p.buf = b
		if _, err := p.W.Write(b); err != nil {
			return err
		}
	}
	return nil
}

func intentColor(kind string) []color.Attribute {
	switch kind {
	case clawboo.Ignore:
		return Faint
	case clawboo.CommitChat, clawboo.UpdateAgentStatus:
		return []color.Attribute{color.FgGreen}
	case clawboo.ApprovalPending, clawboo.ApprovalResolved:
		return Warning
	}
	return []color.Attribute{color.FgCyan}
}
