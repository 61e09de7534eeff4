package report

import (
	"strconv"

	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/models/clawboo"
	"github.com/clawtap/clawtap/pkg/replay"
	"github.com/clawtap/clawtap/pkg/ui"
)

// itemText appends, as a JSON string, the line `clawtap replay` prints
// for one intent, effect or diff entry (line appends it to the scratch
// buffer), without its marker.
func (b *Builder) itemText(dst []byte, line func([]byte) []byte) []byte {
	b.f.T0 = b.t0
	b.scratch = line(b.scratch[:0])
	s := b.scratch
	for len(s) > 0 && s[len(s)-1] == '\n' {
		s = s[:len(s)-1]
	}
	return jsonx.AppendBytes(dst, s)
}

func (b *Builder) intentText(dst []byte, in ui.Intent) []byte {
	return b.itemText(dst, func(s []byte) []byte { return b.f.AppendIntentLine(s, in) })
}

func (b *Builder) effectText(dst []byte, e *replay.Effect) []byte {
	return b.itemText(dst, func(s []byte) []byte { return b.f.AppendEffectLine(s, e) })
}

func (b *Builder) diffText(dst []byte, c *replay.Change) []byte {
	return b.itemText(dst, func(s []byte) []byte { return b.f.AppendChangeLine(s, c) })
}

// emit receives the replay engine's steps.
func (b *Builder) emit(s *replay.Step) error {
	if s.Timer != "" {
		b.timerStep(s)
		return nil
	}
	b.cur.replayed, b.cur.step = true, s
	for k := range s.Effects {
		if e := &s.Effects[k]; e.Type == replay.EffGuard {
			p := prioKey
			if e.Action == clawboo.Hazard {
				p = prioCritical
			}
			b.cur.prio = max(b.cur.prio, p)
		}
	}
	if !b.opts.NoBodies {
		b.transcripts(s.Effects, b.cur.run)
	}
	return nil
}

// appendItems appends n items' texts as the array member key (which
// opens it), or nothing when there are none.
func appendItems(j []byte, key string, n int, text func([]byte, int) []byte) []byte {
	if n == 0 {
		return j
	}
	return append(appendList(append(j, key...), n, text), ']')
}

// appendList appends n items' texts, comma-separated.
func appendList(j []byte, n int, text func([]byte, int) []byte) []byte {
	for k := range n {
		if k > 0 {
			j = append(j, ',')
		}
		j = text(j, k)
	}
	return j
}

// timerStep keeps a timer step that changed something, once per agent it
// touched, narrowed to that agent. Summary.TimersElided counts the steps
// none of whose parts is kept: a step refused whole, or one whose last
// kept part is evicted (see evict).
func (b *Builder) timerStep(s *replay.Step) {
	if !s.Changed() {
		return
	}
	if b.opts.NoBodies {
		return
	}
	b.transcripts(s.Effects, nil)
	b.timerSteps++
	if !b.canFit(256, prioPlain) {
		b.rep.Summary.TimersElided++
		return
	}
	kept, refused := false, false
	st := b.st
	b.f.T0 = b.t0
	for _, id := range st.AgentIDs() {
		flt := b.filters[id]
		if flt == nil {
			flt = &replay.Filter{Agent: id}
			if len(b.filters) < 4096 {
				b.filters[id] = flt
			}
		}
		fs := flt.Apply(s, st)
		if fs == nil || !fs.Changed() {
			continue
		}
		j := b.buf[:0]
		j = append(j, `{"after":`...)
		j = strconv.AppendInt(j, int64(s.I), 10)
		j = append(j, `,"t":`...)
		j = strconv.AppendInt(j, b.rel(s.T), 10)
		j = append(j, `,"timer":`...)
		j = jsonx.AppendString(j, s.Timer)
		j = append(j, `,"agent":`...)
		j = jsonx.AppendString(j, id)
		j = append(j, `,"effects":[`...)
		j = appendList(j, len(fs.Effects), func(j []byte, k int) []byte { return b.effectText(j, &fs.Effects[k]) })
		j = append(j, `],"diff":[`...)
		j = appendList(j, len(fs.Diff), func(j []byte, k int) []byte { return b.diffText(j, &fs.Diff[k]) })
		j = append(j, "]}"...)
		b.buf = j
		if !b.room(len(j)+2, prioPlain) {
			refused = true
			continue
		}
		kept = true
		b.keep(slot{timer: true, k: len(b.rep.Timers)}, prioPlain, len(j)+2)
		b.rep.Timers = append(b.rep.Timers, Timer{After: s.I, Agent: id, at: b.spool(j), step: b.timerSteps})
	}
	if refused && !kept {
		b.rep.Summary.TimersElided++
	}
}

// transcripts copies the lines a step's append and history effects added
// to transcripts into their runs: an append goes to the record's run (nil:
// the agent's latest), a history merge to the run it names, each while the
// table holds it. The lines of one step are the newest ones of each
// agent's transcript, in effect order.
func (b *Builder) transcripts(effects []replay.Effect, run *Run) {
	var total map[string]int
	for k := range effects {
		if e := &effects[k]; (e.Type == replay.EffAppend || e.Type == replay.EffHistory) && e.Count > 0 {
			if total == nil {
				total = map[string]int{}
			}
			total[e.AgentID] += int(e.Count)
		}
	}
	if total == nil {
		return
	}
	seen := map[string]int{}
	for k := range effects {
		e := &effects[k]
		if (e.Type != replay.EffAppend && e.Type != replay.EffHistory) || e.Count <= 0 {
			continue
		}
		a := b.st.Agent(e.AgentID)
		if a == nil {
			continue
		}
		n := a.NumLines()
		from := n - total[e.AgentID] + seen[e.AgentID]
		seen[e.AgentID] += int(e.Count)
		to := min(from+int(e.Count), n)
		from = max(from, 0)
		r := run
		if e.Type == replay.EffHistory {
			r = b.runNamed(e.RunID)
		}
		if r == nil {
			r = b.state(b.agentRun[e.AgentID])
		}
		if r == nil || from >= to {
			continue
		}
		via := ""
		if e.Type == replay.EffHistory {
			via = "history"
		}
		for k := from; k < to; k++ { // read in place: a transcript holds up to the UI's cap
			l := a.Line(k)
			b.addLine(r, &l, via)
		}
	}
}

// addLine copies a transcript line into r, or counts it elided.
func (b *Builder) addLine(r *Run, l *replay.Line, via string) {
	text := cut(l.Text, MaxLineText)
	size := len(text) + 48
	if !b.room(size, prioKey) {
		r.TranscriptElided++
		b.linesCut++
		return
	}
	b.bodyBytes += size
	r.transcript = append(r.transcript, spooledLine{Kind: l.Kind, T: b.rel(l.TS), Via: via, text: b.text(text)})
}

// runOutput keeps the output lines of the run's first commitChat: what the
// gateway's terminal said, whether or not the UI committed it.
func (b *Builder) runOutput(r *Run, lines []string) {
	if r.hasOutput {
		return
	}
	r.hasOutput = true
	for _, l := range lines {
		l = cut(l, MaxLineText)
		if !b.room(len(l)+8, prioKey) {
			r.TranscriptElided++
			b.linesCut++
			continue
		}
		b.bodyBytes += len(l) + 8
		r.output = append(r.output, b.text(l))
	}
}
