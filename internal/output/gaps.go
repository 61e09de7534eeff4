package output

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/clawtap/clawtap/pkg/gaps"
	"github.com/clawtap/clawtap/pkg/human"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/fatih/color"
)

// Gaps prints the frame-seq findings: json is one finding per line and a
// last {"summary":…} line; table and text show a row or a sentence per
// finding and a verdict.
type Gaps struct {
	W      io.Writer
	Format Format
	Style  Style
	// FrameOnly leaves out gateway-reported gaps and run seq jumps.
	FrameOnly bool

	start   int64
	buf     []byte
	headed  bool
	summary gaps.Summary
}

func (p *Gaps) Needs() pipeline.Needs { return pipeline.Gaps }

// Summary is the capture's gap summary, once the pass ended.
func (p *Gaps) Summary() gaps.Summary { return p.summary }

func (p *Gaps) head() error {
	if p.headed || p.Format != Table {
		return nil
	}
	p.headed = true
	pad := human.Pad
	_, err := io.WriteString(p.W, p.Style.Paint(strings.Join([]string{pad("KIND", 13), pad("#", 7), pad("TIME", 10), pad("CONN", 4), pad("EXPECTED", 9), pad("RECEIVED", 9), pad("MISSING", 7), "RUN"}, " "), Bold...)+"\n")
	return err
}

// Before prints the record's findings.
func (p *Gaps) Before(f *pipeline.Frame) error {
	if err := p.head(); err != nil {
		return err
	}
	if p.start == 0 && f.Rec.T > 0 {
		p.start = f.Rec.T
	}
	for _, g := range f.Gaps {
		if p.FrameOnly && (g.Kind == gaps.GatewayGap || g.Kind == gaps.RunSeqJump) {
			continue
		}
		p.buf = p.buf[:0]
		switch p.Format {
		case JSON:
			p.buf = append(g.AppendJSON(p.buf), '\n')
		case Table:
			pad := human.Pad
			p.buf = append(p.buf, strings.Join([]string{p.Style.Paint(pad(g.Kind, 13), gapColor(&g)...), pad(strconv.Itoa(g.I), 7), pad(human.Offset(g.T, p.start), 10), pad(strconv.Itoa(g.Conn), 4),
				pad(strconv.FormatInt(g.Expected, 10), 9), pad(strconv.FormatInt(g.Received, 10), 9), pad(strconv.FormatInt(g.Missing(), 10), 7), human.Printable(g.RunID)}, " ")...)
			p.buf = append(p.buf, '\n')
		default:
			p.buf = append(p.buf, "#"+strconv.Itoa(g.I)+" "+human.Offset(g.T, p.start)+" conn "+strconv.Itoa(g.Conn)+" "+p.Style.Paint(g.Kind, gapColor(&g)...)+": "+gapSentence(&g)+"\n"...)
		}
		if _, err := p.W.Write(p.buf); err != nil {
			return err
		}
	}
	return nil
}

// gapSentence says what a finding means.
func gapSentence(g *gaps.Finding) string {
	run := ""
	if g.RunID != "" {
		run = " of run " + human.Printable(g.RunID)
	}
	switch g.Kind {
	case gaps.Gap:
		return fmt.Sprintf("expected seq %d, got %d: %d frame(s) lost", g.Expected, g.Received, g.Missing())
	case gaps.Duplicate:
		return fmt.Sprintf("seq %d again", g.Received)
	case gaps.Backwards:
		return fmt.Sprintf("seq %d after %d", g.Received, g.Expected-1)
	case gaps.FirstSeq:
		return fmt.Sprintf("the connection's first seq is %d, not 1 (gateways before 2026.4.22 share one counter)", g.Received)
	case gaps.GatewayGap:
		return fmt.Sprintf("the gateway reported a seq gap%s (expected %d, received %d)", run, g.Expected, g.Received)
	case gaps.RunSeqJump:
		if g.Coalesced {
			return fmt.Sprintf("the payload seq%s jumped from %d to %d at a merged delta (coalesced for a busy connection on 2026.9.2+, or paced): not lost", run, g.Expected-1, g.Received)
		}
		return fmt.Sprintf("the payload seq%s jumped from %d to %d (normal: throttled or merged deltas)", run, g.Expected-1, g.Received)
	}
	return fmt.Sprintf("expected %d, received %d", g.Expected, g.Received)
}

func gapColor(g *gaps.Finding) []color.Attribute {
	switch {
	case g.Info():
		return Faint
	case g.Kind != gaps.Gap:
		return Warning
	}
	return Bad
}

// End prints the summary.
func (p *Gaps) End(e *pipeline.End) error {
	if err := p.head(); err != nil {
		return err
	}
	s := e.Gaps
	p.summary = s
	if p.Format == JSON {
		line, _ := json.Marshal(map[string]gaps.Summary{"summary": s})
		_, err := p.W.Write(append(line, '\n'))
		return err
	}
	verdict := p.Style.Paint("no frame-level gaps", Good...)
	if s.Gaps > 0 {
		verdict = p.Style.Paint(fmt.Sprintf("%d gap(s), %d frame(s) missing", s.Gaps, s.Missing), Bad...)
	}
	_, err := fmt.Fprintf(p.W, "%s: %d connection(s), %d seq frames, %d duplicate(s), %d backwards, %d gateway-reported gap(s), %d run seq jump(s) (info)\n",
		verdict, s.Connections, s.SeqFrames, s.Duplicates, s.Backwards, s.GatewayGaps, s.RunSeqJumps)
	return err
}
