package output

import (
	"io"
	"strconv"
	"strings"

	"github.com/clawtap/clawtap/pkg/human"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/replay"
	"github.com/clawtap/clawtap/pkg/ui"
	"github.com/fatih/color"
)

// What a replay prints after its steps.
const (
	ReplaySteps      = iota // every step, then the final state
	ReplayFinal             // the final state only
	ReplayTranscript        // each agent's transcript only
)

// Replay prints a replay as it runs: its steps (json: one object per step,
// docs/replay.md; text: a block per step; table: a row per step), then the
// final state or the transcripts.
type Replay struct {
	W      io.Writer
	Format Format
	Style  Style
	// Show is ReplaySteps, ReplayFinal or ReplayTranscript.
	Show int
	// All also prints records that changed nothing.
	All bool
	// Window narrows the printed steps; Filter keeps one agent or session.
	Window replay.Window
	Filter replay.Filter
	// Width clips frames and values in text and table output (0 = 120).
	Width int

	f      replay.Formatter
	buf    []byte
	headed bool
}

func (p *Replay) Needs() pipeline.Needs { return pipeline.Replay }

func (p *Replay) formatter(t0 int64) *replay.Formatter {
	p.f.T0, p.f.Width = t0, p.Width
	if p.Format == Text && p.Style.On {
		p.f.Style = ReplayStyle(p.Style)
	}
	return &p.f
}

// Step prints one step, if it is in the window and concerns the filter.
func (p *Replay) Step(s *replay.Step) error {
	if p.Show != ReplaySteps || !(p.All || s.Changed()) || !p.Window.Contains(s, s.T0) {
		return nil
	}
	if s = p.Filter.Apply(s, s.State); s == nil {
		return nil
	}
	f := p.formatter(s.T0)
	switch p.Format {
	case JSON:
		p.buf = f.AppendStepJSON(p.buf[:0], s)
	case Table:
		p.buf = p.appendRow(p.buf[:0], f, s)
	default:
		p.buf = f.AppendStepText(p.buf[:0], s)
	}
	_, err := p.W.Write(p.buf)
	return err
}

// appendRow renders a step as one table row: what it was, what the UI
// decided and did, and what changed.
func (p *Replay) appendRow(dst []byte, f *replay.Formatter, s *replay.Step) []byte {
	pad := human.Pad
	if !p.headed {
		p.headed = true
		dst = append(dst, p.Style.Paint(strings.Join([]string{pad("#", 6), pad("TIME", 9), pad("STEP", 24), pad("INTENTS", 28), pad("EFFECTS", 28), "CHANGES"}, " "), Bold...)...)
		dst = append(dst, '\n')
	}
	what := s.Timer
	if what == "" && s.Event != nil {
		what = string(s.Event.Kind)
		if d := EventDetail(s.Event); d != "" {
			what += " " + d
		}
	} else {
		what = "timer " + what
	}
	var intents, effects, changes []string
	for _, in := range s.Intents {
		intents = append(intents, in.IntentKind())
	}
	for i := range s.Effects {
		e := &s.Effects[i]
		name := e.Type
		if e.Action != "" {
			name += " " + e.Action
		}
		effects = append(effects, name)
	}
	for i := range s.Diff {
		c := &s.Diff[i]
		changes = append(changes, c.Path.String()+"="+f.ValueText(c.To))
	}
	w := p.Width
	if w <= 0 {
		w = 120
	}
	dst = append(dst, strings.Join([]string{pad(strconv.Itoa(s.I), 6), pad(human.Secs(s.T-s.T0), 9),
		pad(human.Clip(human.Printable(what), 24), 24), pad(human.Clip(strings.Join(intents, ","), 28), 28),
		pad(human.Clip(strings.Join(effects, ","), 28), 28), human.Clip(human.Printable(strings.Join(changes, " ")), max(w-90, 30))}, " ")...)
	return append(dst, '\n')
}

// End prints the final state or the transcripts.
func (p *Replay) End(e *pipeline.End) error {
	eng := e.Engine
	st := eng.State()
	f := p.formatter(eng.T0())
	sf := replay.StateFilter{Agent: p.Filter.AgentID()}
	b := p.buf[:0]
	switch {
	case p.Show == ReplayTranscript && p.Format == JSON:
		b = f.AppendTranscriptJSON(b, st, sf)
	case p.Show == ReplayTranscript && p.Format == Table:
		b = p.appendTranscriptTable(b, st, sf)
	case p.Show == ReplayTranscript:
		b = f.AppendTranscriptText(b, st, sf)
	case p.Format == JSON:
		b = f.AppendFinalJSON(b, st, eng.Now(), eng.ClosedRuns(), sf)
	case p.Format == Table:
		b = p.appendFinalTable(b, f, eng, sf)
	default:
		b = f.AppendFinalText(b, st, eng.Now(), eng.ClosedRuns(), sf)
	}
	p.buf = b
	_, err := p.W.Write(b)
	return err
}

// appendFinalTable renders the final state as a table of agents, then
// cost and requests.
func (p *Replay) appendFinalTable(dst []byte, f *replay.Formatter, eng *replay.Engine, sf replay.StateFilter) []byte {
	st := eng.State()
	var sb strings.Builder
	sp := &statsPrinter{w: &sb, style: p.Style, table: true}
	sp.heading("final state at " + human.Secs(eng.Now()-eng.T0()))
	var rows [][]string
	for _, id := range st.AgentIDs() {
		if sf.Agent != "" && id != sf.Agent {
			continue
		}
		a := st.Agent(id)
		rows = append(rows, []string{id, nstr(a.Status), nstr(a.RunID), human.Clip(human.Printable(nstr(a.StreamText)), 40),
			strconv.Itoa(len(a.Lines())), strconv.Itoa(a.PendingApprovals())})
	}
	sp.rows([]string{"agent", "status", "runId", "streamText", "lines", "approvals"}, rows)
	rows = rows[:0]
	for _, id := range st.CostAgents() {
		if sf.Agent != "" && id != sf.Agent {
			continue
		}
		for _, m := range st.CostModels(id) {
			c := st.Cost(id, m)
			rows = append(rows, []string{id, m, strconv.FormatInt(c.Turns, 10), string(ui.AppendNumber(nil, c.InputTokens)), strconv.FormatInt(c.InputUnknown, 10), string(ui.AppendNumber(nil, c.OutputTokens))})
		}
	}
	if len(rows) > 0 {
		sp.rows([]string{"agent", "model", "turns", "input", "input unknown", "output"}, rows)
	}
	rows = rows[:0]
	for _, k := range st.RequestKinds() {
		r := st.Requests(k)
		last := "-"
		if r.LastAt.Valid {
			last = human.Secs(r.LastAt.V - eng.T0())
		}
		rows = append(rows, []string{k, strconv.FormatInt(r.Count, 10), last})
	}
	sp.rows([]string{"request", "count", "last"}, rows)
	return append(dst, sb.String()...)
}

// appendTranscriptTable renders the transcripts as a row per line.
func (p *Replay) appendTranscriptTable(dst []byte, st *replay.State, sf replay.StateFilter) []byte {
	var sb strings.Builder
	sp := &statsPrinter{w: &sb, style: p.Style, table: true}
	var rows [][]string
	for _, id := range st.AgentIDs() {
		if sf.Agent != "" && id != sf.Agent {
			continue
		}
		a := st.Agent(id)
		for i, l := range a.Lines() {
			rows = append(rows, []string{id, strconv.FormatInt(a.LinesDropped()+int64(i), 10), l.Kind, human.Clip(human.Printable(l.Text), 80)})
		}
	}
	sp.rows([]string{"agent", "line", "kind", "text"}, rows)
	return append(dst, sb.String()...)
}

func nstr(s replay.NStr) string {
	if !s.Valid {
		return "null"
	}
	return s.V
}

// ReplayStyle colours replay's text output.
func ReplayStyle(s Style) replay.Style {
	return replay.Style{
		Header: s.Painter(color.Bold),
		Time:   s.Painter(color.FgBlue),
		Frame:  s.Painter(color.Faint),
		Intent: s.Painter(color.FgCyan),
		Effect: s.Painter(color.FgYellow),
		Guard:  s.Painter(color.FgMagenta),
		Hazard: s.Painter(color.FgRed, color.Bold),
		Path:   nil,
		From:   s.Painter(color.FgRed),
		To:     s.Painter(color.FgGreen),
		Dim:    s.Painter(color.Faint),
	}
}
