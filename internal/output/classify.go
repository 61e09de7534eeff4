package output

import (
	"io"
	"strconv"
	"strings"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/human"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/fatih/color"
)

// Classify prints what the Bridge made of each record: json is one
// classified event per line (bridge.Event's documented schema), table an
// aligned row per record, text one line per record.
type Classify struct {
	W      io.Writer
	Format Format
	Style  Style
	// Match keeps the events to print; nil keeps all.
	Match func(*bridge.Event) bool

	start  int64
	buf    []byte
	headed bool
}

func (p *Classify) Needs() pipeline.Needs { return 0 }

// head writes the table's column names once, before the first row.
func (p *Classify) head() error {
	if p.headed || p.Format != Table {
		return nil
	}
	p.headed = true
	_, err := io.WriteString(p.W, p.TableHeader()+"\n")
	return err
}

// End writes the column names of an empty table.
func (p *Classify) End(*pipeline.End) error { return p.head() }

// Before prints one record.
func (p *Classify) Before(f *pipeline.Frame) error {
	rec, ev := f.Rec, f.Event
	if p.start == 0 && rec.T > 0 {
		p.start = rec.T
	}
	if err := p.head(); err != nil {
		return err
	}
	if p.Match != nil && !p.Match(ev) {
		return nil
	}
	switch p.Format {
	case JSON:
		m := bridge.Meta{I: rec.Index, T: rec.T, Conn: rec.Conn, Dir: rec.Dir}
		if ev.Kind == bridge.Invalid {
			m.Raw = rec.Raw
			if m.Raw == nil {
				m.Raw = rec.Frame
			}
		}
		p.buf = append(ev.AppendJSON(p.buf[:0], m), '\n')
	case Table:
		p.buf = append(append(p.buf[:0], p.tableRow(rec.Index, human.Offset(rec.T, p.start), rec.Conn, rec.Dir, ev)...), '\n')
	default:
		p.buf = append(append(p.buf[:0], p.textLine(rec.Index, human.Offset(rec.T, p.start), rec.Conn, rec.Dir, ev)...), '\n')
	}
	_, err := p.W.Write(p.buf)
	return err
}

// TableHeader is the table's first line.
func (p *Classify) TableHeader() string {
	pad := human.Pad
	return p.Style.Paint(strings.Join([]string{pad("#", 6), pad("TIME", 10), pad("CONN", 4), pad("DIR", 3), pad("SEQ", 6), pad("KIND", 15), pad("EVENT", 24), pad("AGENT", 10), pad("RUN", 14), "DETAIL"}, " "), Bold...)
}

func (p *Classify) tableRow(i int, at string, conn int, dir string, ev *bridge.Event) string {
	pad, clip, line := human.Pad, human.Clip, human.Printable
	seq := ""
	if ev.HasSeq {
		seq = strconv.FormatInt(ev.Seq, 10)
	}
	name := ev.Event
	if name == "" {
		name = ev.Method
	}
	return strings.Join([]string{
		pad(strconv.Itoa(i), 6), pad(at, 10), pad(strconv.Itoa(conn), 4), pad(dir, 3), pad(seq, 6),
		p.Style.Paint(pad(string(ev.Kind), 15), KindColor(ev.Kind)...),
		pad(clip(line(name), 24), 24), pad(clip(line(ev.AgentID), 10), 10), pad(clip(line(ev.RunID), 14), 14),
		line(EventDetail(ev)),
	}, " ")
}

func (p *Classify) textLine(i int, at string, conn int, dir string, ev *bridge.Event) string {
	var b strings.Builder
	b.WriteString("#" + strconv.Itoa(i) + " " + at + " conn" + strconv.Itoa(conn))
	if dir != "" {
		b.WriteString(" " + dir)
	}
	if ev.HasSeq {
		b.WriteString(" seq=" + strconv.FormatInt(ev.Seq, 10))
	}
	b.WriteString(" " + p.Style.Paint(string(ev.Kind), KindColor(ev.Kind)...))
	if name := ev.Event; name != "" {
		b.WriteString(" " + human.Printable(name))
	}
	if ev.AgentID != "" {
		b.WriteString(" agent=" + human.Printable(ev.AgentID))
	}
	if ev.RunID != "" {
		b.WriteString(" run=" + human.Printable(ev.RunID))
	}
	if d := EventDetail(ev); d != "" {
		b.WriteString(" " + human.Printable(d))
	}
	return b.String()
}

// KindColor gives each event kind its colour in human output.
func KindColor(k bridge.Kind) []color.Attribute {
	switch k {
	case bridge.RuntimeChat:
		return []color.Attribute{color.FgCyan}
	case bridge.RuntimeAgent:
		return []color.Attribute{color.FgBlue}
	case bridge.SummaryRefresh:
		return []color.Attribute{color.FgMagenta}
	case bridge.Approval:
		return []color.Attribute{color.FgYellow}
	case bridge.Invalid:
		return []color.Attribute{color.FgRed, color.Bold}
	case bridge.Marker:
		return []color.Attribute{color.Bold}
	case bridge.Request, bridge.Response:
		return []color.Attribute{color.FgGreen}
	}
	return []color.Attribute{color.Faint}
}

// EventDetail summarises what distinguishes an event inside its kind:
// state=delta stream=assistant method=chat.send ok=false …
func EventDetail(ev *bridge.Event) string {
	var parts []string
	add := func(k, v string) {
		if v != "" {
			parts = append(parts, k+"="+v)
		}
	}
	add("state", ev.State)
	add("stream", ev.Stream)
	add("phase", ev.Phase)
	if ev.Kind == bridge.Request || ev.Kind == bridge.Response {
		add("method", ev.Method)
		add("id", ev.ID)
	}
	if ev.OK != nil && !*ev.OK {
		parts = append(parts, "ok=false")
	}
	add("code", ev.Code)
	add("mark", ev.Mark)
	add("reason", ev.Reason)
	return strings.Join(parts, " ")
}
