package report

import (
	"cmp"
	"slices"
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

// spool puts a kept body or timer step's JSON in the spool, compacting
// the spool first when evictions have left it mostly holes.
func (b *Builder) spool(js []byte) span {
	sp := b.rep.spool
	if sp.wantsCompaction() {
		sp.compact(b.liveSpans())
	}
	return sp.put(js)
}

// liveSpans lists the kept bodies' and timer steps' spans in the order
// they lie in the spool (each list is in the order it was written).
func (b *Builder) liveSpans() []*span {
	bodies, timers := b.rep.Bodies, b.rep.Timers
	out := make([]*span, 0, len(b.stacks[prioPlain])+len(b.stacks[prioKey])+len(b.stacks[prioCritical]))
	for len(bodies) > 0 || len(timers) > 0 {
		var at *span
		if len(timers) == 0 || len(bodies) > 0 && bodies[0].at.off < timers[0].at.off {
			at, bodies = &bodies[0].at, bodies[1:]
		} else {
			at, timers = &timers[0].at, timers[1:]
		}
		if at.n > 0 {
			out = append(out, at)
		}
	}
	return out
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
		var at *span
		if s.timer {
			at = &b.rep.Timers[s.k].at
			if b.lastPartOfStep(s.k) {
				b.rep.Summary.TimersElided++
			}
		} else {
			at = &b.rep.Bodies[s.k].at
			b.rep.Summary.BodiesElided++
		}
		n := int(at.n) + 2
		b.rep.spool.drop(*at)
		at.n = 0
		b.levels[prio] -= n
		b.bodyBytes -= n
		need -= n
	}
	b.stacks[prio] = st
}

// lastPartOfStep reports whether timer part k is the only part of its
// step still kept. A step's parts lie side by side in Report.Timers.
func (b *Builder) lastPartOfStep(k int) bool {
	ts := b.rep.Timers
	for _, d := range []int{-1, 1} {
		for j := k + d; j >= 0 && j < len(ts) && ts[j].step == ts[k].step; j += d {
			if ts[j].at.n > 0 {
				return false
			}
		}
	}
	return true
}

// critical makes the kept details of record i critical: a finding about
// it came after them (made as its run was let go, many records later),
// and from now on they are evicted as late as those of a record whose
// finding came in time. Details elided already stay elided.
func (b *Builder) critical(i int) {
	bodies := b.rep.Bodies
	k, ok := slices.BinarySearchFunc(bodies, i, func(x Body, i int) int { return cmp.Compare(x.I, i) })
	if !ok || bodies[k].at.n == 0 || bodies[k].Prio == prioCritical {
		return
	}
	prio := bodies[k].Prio
	at := slices.IndexFunc(b.stacks[prio], func(s slot) bool { return !s.timer && s.k == k })
	if at < 0 {
		return
	}
	b.stacks[prio] = slices.Delete(b.stacks[prio], at, at+1)
	size := int(bodies[k].at.n) + 2
	b.levels[prio] -= size
	b.stacks[prioCritical] = append(b.stacks[prioCritical], slot{k: k})
	b.levels[prioCritical] += size
	bodies[k].Prio = prioCritical
}

// body serialises the record's details and keeps them if they fit.
func (b *Builder) body(rec *capture.Record, ev *bridge.Event, prio int8) {
	if !b.canFit(128, prio) {
		b.rep.Summary.BodiesElided++
		return
	}
	var raw []byte // the frame's text; cut, when longer than MaxFrameText
	switch {
	case rec.Mark != "":
		b.mark = rec.AppendJSON(b.mark[:0])
		raw = b.mark[:len(b.mark)-1]
	case rec.Frame != nil:
		raw = rec.Frame
	default:
		raw = rec.Raw
	}
	cutText, cutBytes := "", 0
	if len(raw) > MaxFrameText {
		cutText = cut(string(raw), MaxFrameText)
		cutBytes = len(raw) - (len(cutText) - len("…"))
		b.rep.Summary.FramesCut++
	}
	// A body that cannot fit even before its intents, effects and diff are
	// written is not written: room would refuse it all the same.
	floor := len(`{"i":,"line":,"frame":"","intents":[]}`) + intLen(int64(rec.Index)) + intLen(int64(rec.Line)) + 2
	if cutBytes > 0 {
		floor += len(cutText)
	} else {
		floor += len(raw)
	}
	if !b.canFit(floor, prio) {
		b.rep.Summary.BodiesElided++
		return
	}
	j := b.buf[:0]
	j = append(j, `{"i":`...)
	j = strconv.AppendInt(j, int64(rec.Index), 10)
	j = append(j, `,"line":`...)
	j = strconv.AppendInt(j, int64(rec.Line), 10)
	j = append(j, `,"frame":`...)
	if cutBytes > 0 {
		j = jsonx.AppendString(j, cutText)
		j = append(j, `,"cut":`...)
		j = strconv.AppendInt(j, int64(cutBytes), 10)
	} else {
		j = jsonx.AppendBytes(j, raw)
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
	if s := b.cur.step; s != nil {
		j = appendItems(j, `,"effects":[`, len(s.Effects), func(j []byte, k int) []byte { return b.effectText(j, &s.Effects[k]) })
		j = appendItems(j, `,"diff":[`, len(s.Diff), func(j []byte, k int) []byte { return b.diffText(j, &s.Diff[k]) })
	}
	j = append(j, '}')
	b.buf = j
	if !b.room(len(j)+2, prio) {
		b.rep.Summary.BodiesElided++
		return
	}
	b.keep(slot{k: len(b.rep.Bodies)}, prio, len(j)+2)
	b.rep.Bodies = append(b.rep.Bodies, Body{I: rec.Index, Prio: prio, at: b.spool(j)})
}
