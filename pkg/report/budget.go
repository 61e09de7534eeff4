package report

import (
	"strconv"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
)

// Body priorities: when the budget runs short, plain bodies (deltas,
// traffic) go first, then key ones (run starts and terminals, lifecycle,
// tool calls, approvals, chat.send, replay guard decisions), and critical ones (markers, invalid
// records, gaps, records with findings, replay hazards) last.
const (
	prioPlain int8 = iota
	prioKey
	prioCritical
)

// rowShare is the part of MaxBytes the timeline's plain rows may take.
func (b *Builder) rowShare() int { return b.opts.MaxBytes * 3 / 10 }

// slot names a kept body (or timer step) for eviction.
type slot struct {
	timer bool
	k     int
}

func (b *Builder) keep(s slot, prio int8, size int) {
	b.stacks[prio] = append(b.stacks[prio], s)
	b.levels[prio] += size
	b.bodyBytes += size
}

// over is how many bytes past MaxBytes the data would be with size more.
func (b *Builder) over(size int) int {
	return b.skel + b.rowBytes + b.bodyBytes + size - b.opts.MaxBytes
}

// canFit reports whether a body of size bytes and priority prio can be
// kept, evicting bodies of lower priority if need be.
func (b *Builder) canFit(size int, prio int8) bool {
	over := b.over(size)
	for l := prioPlain; l < prio && over > 0; l++ {
		over -= b.levels[l]
	}
	return over <= 0
}

// room makes room for size bytes of priority prio: when the budget is
// spent, the most recently kept bodies of lower priority are elided, plain
// ones first. It reports whether the body may be kept.
func (b *Builder) room(size int, prio int8) bool {
	if !b.canFit(size, prio) {
		return false
	}
	for l := prioPlain; l < prio && b.over(size) > 0; l++ {
		b.evict(l, b.over(size))
	}
	return true
}

// evict drops the latest kept bodies of one priority until need bytes are
// free or none is left.
func (b *Builder) evict(prio int8, need int) {
	st := b.stacks[prio]
	for len(st) > 0 && need > 0 {
		s := st[len(st)-1]
		st = st[:len(st)-1]
		var n int
		if s.timer {
			n = len(b.rep.Timers[s.k].JSON) + 2
			b.rep.Timers[s.k].JSON = nil
			b.rep.Summary.TimersElided++
		} else {
			n = len(b.rep.Bodies[s.k].JSON) + 2
			b.rep.Bodies[s.k].JSON = nil
			b.rep.Summary.BodiesElided++
		}
		b.levels[prio] -= n
		b.bodyBytes -= n
		need -= n
	}
	b.stacks[prio] = st
}

// wantBody reports whether the current record's body could still be kept;
// it saves formatting work once the budget is spent.
func (b *Builder) wantBody() bool { return !b.opts.NoBodies && b.canFit(256, b.cur.prio) }

// body serialises the record's details and keeps them if they fit.
func (b *Builder) body(rec *capture.Record, ev *bridge.Event, prio int8) {
	if !b.canFit(128, prio) {
		b.rep.Summary.BodiesElided++
		return
	}
	var text string
	switch {
	case rec.Mark != "":
		l := rec.AppendJSON(nil)
		text = string(l[:len(l)-1])
	case rec.Frame != nil:
		text = string(rec.Frame)
	default:
		text = string(rec.Raw)
	}
	cutBytes := 0
	if len(text) > MaxFrameText {
		c := cut(text, MaxFrameText)
		cutBytes = len(text) - (len(c) - len("…"))
		text = c
		b.rep.Summary.FramesCut++
	}
	var j []byte
	j = append(j, `{"i":`...)
	j = strconv.AppendInt(j, int64(rec.Index), 10)
	j = append(j, `,"line":`...)
	j = strconv.AppendInt(j, int64(rec.Line), 10)
	j = append(j, `,"frame":`...)
	j = jsonx.AppendString(j, text)
	if cutBytes > 0 {
		j = append(j, `,"cut":`...)
		j = strconv.AppendInt(j, int64(cutBytes), 10)
	}
	if ev.Kind == bridge.Invalid && ev.Reason != "" {
		j = append(j, `,"reason":`...)
		j = jsonx.AppendString(j, ev.Reason)
	}
	j = append(j, `,"intents":[`...)
	for k := range b.intents {
		if k > 0 {
			j = append(j, ',')
		}
		j = b.intentText(j, b.intents[k])
	}
	j = append(j, ']')
	if !b.cur.replayed {
		j = append(j, `,"replayed":false`...)
	}
	if len(b.cur.effects) > 0 {
		j = append(j, `,"effects":[`...)
		for k, e := range b.cur.effects {
			if k > 0 {
				j = append(j, ',')
			}
			j = append(j, e...)
		}
		j = append(j, ']')
	}
	if len(b.cur.diff) > 0 {
		j = append(j, `,"diff":[`...)
		for k, d := range b.cur.diff {
			if k > 0 {
				j = append(j, ',')
			}
			j = append(j, d...)
		}
		j = append(j, ']')
	}
	j = append(j, '}')
	if !b.room(len(j)+2, prio) {
		b.rep.Summary.BodiesElided++
		return
	}
	b.keep(slot{k: len(b.rep.Bodies)}, prio, len(j)+2)
	b.rep.Bodies = append(b.rep.Bodies, Body{I: rec.Index, Prio: prio, JSON: j})
}
