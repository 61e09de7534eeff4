package report

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/finding"
	"github.com/clawtap/clawtap/pkg/gaps"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/pipeline"
)

// heldFinding is a finding not pinned yet, with its message.
type heldFinding struct {
	pinned
	message string
}

// pinHeld pins the findings not pinned yet on the timeline: on their run,
// or else on the lane of their agent and session. Their messages go to
// the spool with them. Before the end, the kept details of a record a
// finding came late for become critical; at the end (the runs let go
// then, End) no details are kept any more, so it would change nothing.
func (b *Builder) pinHeld(atEnd bool) {
	for k := range b.held {
		p := &b.held[k].pinned
		if !atEnd && p.i >= 0 {
			b.critical(p.i)
		}
		msg := cut(b.held[k].message, 2048)
		if p.run < 0 && (p.agentID != "" || p.session != "") {
			agent := p.agentID
			if agent == "" {
				agent = bridge.SessionAgentID(p.session)
			}
			if l, ok := b.lanes[laneKey{agent, p.session}]; ok {
				p.lane = l
				for l >= len(b.findLanes) {
					b.findLanes = append(b.findLanes, false)
				}
				b.findLanes[l] = true
			}
		}
		b.textBuf = jsonx.AppendString(b.textBuf[:0], msg)
		p.msg = b.textBuf
		b.rep.finds.add(p)
		b.skel += skelPerItem + len(msg)
		for _, u := range p.uis {
			b.skel += len(u) + 3
		}
		for _, u := range p.notUIs {
			b.skel += len(u) + 3
		}
		switch sum := &b.rep.Summary; p.sev {
		case finding.Error:
			sum.FindingsError++
		case finding.Warn:
			sum.FindingsWarn++
		default:
			sum.FindingsInfo++
		}
	}
	clear(b.held)
	b.held = b.held[:0]
}

// text puts s in the text spool as a JSON string.
func (b *Builder) text(s string) spooledText {
	b.textBuf = jsonx.AppendString(b.textBuf[:0], s)
	return spooledText{at: b.rep.text.put(b.textBuf), n: len(s)}
}

// End closes the runs and completes the report (see Report); the replay
// has drained its timers by now. The Builder takes no more records.
func (b *Builder) End(e *pipeline.End) error {
	if b.done {
		return nil
	}
	b.pinHeld(true)
	b.done = true
	if b.err != nil {
		return b.err
	}
	b.cur.run = nil
	rep := &b.rep
	rep.Meta.Truncated = e.Stats.Truncated
	if e.Engine != nil {
		b.skipped, b.skippedC = e.Engine.Skipped()
		rep.Meta.UI = e.Engine.UI().String()
	}
	sum := &rep.Summary
	sum.Start, sum.End = b.minT, b.maxT

	// Runs: every one was let go and written by now (RunDone), in order,
	// placed on its lane's tracks.
	runs := rep.runs
	runs.maxT = b.maxT
	sum.Runs = runs.n
	if !runs.tr.sorted {
		runs.placeSorted()
	}
	for k := range rep.Approvals {
		if r := rep.Approvals[k].Run; r >= 0 {
			rep.Approvals[k].Lane = int(runs.lanes[r])
		}
	}
	for k := range rep.Gaps {
		if r := rep.Gaps[k].Run; r >= 0 {
			rep.Gaps[k].Lane = int(runs.lanes[r])
		}
	}

	laneWas := b.compactLanes(runs.lanes)
	// Rows follow their run's final lane.
	rep.Rows.runLane = runs.lanes
	rep.View = viewRange(&rep.Rows, b.minT, b.maxT)
	if !b.opts.NoBodies { // a page, not a trace
		rep.Rows.renderAhead()
	}

	// Lanes: their runs, placed on tracks above.
	agents := map[string]bool{}
	for l := range rep.Lanes {
		ln := &rep.Lanes[l]
		ln.Runs, ln.Tracks = runs.tr.count(laneWas[l]), runs.tr.tracks(laneWas[l])
		if ln.AgentID != "" {
			agents[ln.AgentID] = true
		}
	}
	sum.Lanes, sum.Agents = len(rep.Lanes), len(agents)

	// Connections.
	sum.Connections = len(rep.Conns)
	for k := range rep.Conns {
		c := &rep.Conns[k]
		if !c.HasClose {
			c.Close = c.Last
		}
		if c.Reconnect {
			sum.Reconnects++
		}
	}
	for _, g := range rep.Gaps {
		switch g.Kind {
		case gaps.Gap:
			sum.Gaps++
			sum.Missing += max(g.Received-g.Expected, 0)
		case gaps.Duplicate:
			sum.Duplicates++
		case gaps.Backwards:
			sum.Backwards++
		case gaps.GatewayGap:
			sum.GatewayGaps++
		}
	}

	rep.finds.finish()
	if b.opts.Stats != nil {
		js, err := b.opts.Stats()
		if err != nil {
			return fmt.Errorf("report: the header's numbers: %w", err)
		}
		rep.Stats = js
	}

	// Notes.
	if n, conns := b.skipped, b.skippedC; n > 0 {
		rep.Notes = append(rep.Notes, "replay followed the UI's connection; "+strconv.Itoa(n)+" record(s) of concurrent connection(s) "+joinInts(conns)+" (other clients) have intents but no replayed effects or state diff")
	}
	b.trim()
	return nil
}

// Report is the report, complete once the pass has ended.
func (b *Builder) Report() *Report { return &b.rep }

// compactLanes drops lanes that ended up with nothing on them (a run's
// first frame can open a lane before a later frame names its session),
// and returns what each lane left was before.
func (b *Builder) compactLanes(runLane []int32) (was []int) {
	rep := &b.rep
	used := make([]bool, len(rep.Lanes))
	for _, l := range runLane {
		used[l] = true
	}
	for l := range used {
		if rep.Rows.usesLane(l) {
			used[l] = true
		}
	}
	for l, on := range b.findLanes {
		used[l] = used[l] || on
	}
	for _, a := range rep.Approvals {
		if a.Lane >= 0 && a.Run < 0 {
			used[a.Lane] = true
		}
	}
	for _, g := range rep.Gaps {
		if g.Lane >= 0 && g.Run < 0 {
			used[g.Lane] = true
		}
	}
	remap := make([]int, len(rep.Lanes))
	var lanes []Lane
	for k, l := range rep.Lanes {
		remap[k] = -1
		if used[k] {
			remap[k] = len(lanes)
			lanes = append(lanes, l)
			was = append(was, k)
		}
	}
	if len(lanes) == len(rep.Lanes) {
		return was
	}
	rep.Lanes = lanes
	for k, l := range runLane {
		runLane[k] = int32(remap[l])
	}
	rep.Rows.remap = remap // the findings' lanes too, as they are read
	for k := range rep.Approvals {
		if l := rep.Approvals[k].Lane; l >= 0 {
			rep.Approvals[k].Lane = remap[l]
		}
	}
	for k := range rep.Gaps {
		if l := rep.Gaps[k].Lane; l >= 0 {
			rep.Gaps[k].Lane = remap[l]
		}
	}
	return was
}

// viewRange is the time range the page opens on: all records, unless some
// have absurd times (a bare frame without a timestamp, a corrupt line, a
// clock jump): a record further from the median than a day and a hundred
// times the interquartile range is left out of the initial view (it stays
// on the timeline).
func viewRange(rows *Rows, lo, hi int64) [2]int64 {
	n := rows.Len()
	if n < 4 {
		return [2]int64{lo, hi}
	}
	// The quartiles: read off the rows when their times only grow (a
	// capture's records mostly come in time order), sorted in a copy
	// otherwise.
	first, last, sorted := rows.sortedTimes()
	var q [3]int64 // the times at n/4, n/2 and 3n/4 in sorted order
	var ts []int64
	if sorted {
		q = [3]int64{rows.timeAt(n / 4), rows.timeAt(n / 2), rows.timeAt(3 * n / 4)}
	} else {
		ts = make([]int64, 0, n)
		for r := range rows.All() {
			ts = append(ts, r.T)
		}
		slices.Sort(ts)
		q = [3]int64{ts[n/4], ts[n/2], ts[3*n/4]}
	}
	med, iqr := q[1], q[2]-q[0]
	far := max(100*iqr, 24*3600*1000)
	a, z := hi, lo
	keep := func(t int64) {
		if t >= med-far && t <= med+far {
			a, z = min(a, t), max(z, t)
		}
	}
	switch {
	case ts != nil:
		for _, t := range ts {
			keep(t)
		}
	case first >= med-far && last <= med+far: // all of them, first to last
		keep(first)
		keep(last)
	default:
		for r := range rows.All() {
			keep(r.T)
		}
	}
	if a > z {
		return [2]int64{lo, hi}
	}
	return [2]int64{a, z}
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func joinInts(xs []int) string {
	var s []byte
	for k, x := range xs {
		if k > 0 {
			s = append(s, ", "...)
		}
		s = strconv.AppendInt(s, int64(x), 10)
	}
	return string(s)
}

// trim makes the whole embedded data fit in MaxBytes, measured exactly:
// it elides the latest plain bodies first, then key ones, then critical
// ones, then transcripts; then it writes the elision notes.
func (b *Builder) trim() {
	rep := &b.rep
	sum := &rep.Summary
	bodies, timers := rep.Bodies, rep.Timers
	rep.Bodies, rep.Timers = nil, nil
	skel := dataLen(rep) + 1024 // room for the counts and notes written below
	rep.Bodies, rep.Timers = bodies, timers
	b.skel, b.rowBytes = skel, 0
	b.bodyBytes = b.levels[prioPlain] + b.levels[prioKey] + b.levels[prioCritical]
	for _, l := range []int8{prioPlain, prioKey, prioCritical} {
		if o := b.over(0); o > 0 {
			b.evict(l, o)
		}
	}
	if over := b.over(0); over > 0 {
		freed, lines := rep.runs.cutTranscripts(over)
		b.skel -= freed
		b.linesCut += lines
	}
	rep.Bodies, rep.Timers = nil, nil
	for _, x := range bodies {
		if x.at.n > 0 {
			rep.Bodies = append(rep.Bodies, x)
		}
	}
	for _, x := range timers {
		if x.at.n > 0 {
			rep.Timers = append(rep.Timers, x)
		}
	}
	sum.Bodies = len(rep.Bodies)
	mb := limitText(b.opts.MaxBytes)
	if sum.BodiesElided > 0 || sum.TimersElided > 0 {
		rep.Notes = append(rep.Notes, "the details (frame text, intents, effects, state diff) of "+strconv.Itoa(sum.BodiesElided)+" of "+strconv.Itoa(sum.Records)+" record(s), and "+strconv.Itoa(sum.TimersElided)+" replay timer step(s), were elided to keep the report's data under "+mb+" (--max-bytes); markers, findings, run starts and terminals, approvals, tool calls and gaps were kept first. clawtap replay and classify show everything")
	}
	if sum.RowsElided > 0 {
		rep.Notes = append(rep.Notes, strconv.Itoa(sum.RowsElided)+" tick(s) were left off the timeline (deltas and traffic first): the timeline's rows would take more than 30% of "+mb+" (--max-bytes)")
	}
	if sum.FramesCut > 0 {
		rep.Notes = append(rep.Notes, strconv.Itoa(sum.FramesCut)+" frame(s) longer than "+strconv.Itoa(MaxFrameText>>10)+" KiB are shown cut")
	}
	if b.linesCut > 0 {
		rep.Notes = append(rep.Notes, strconv.Itoa(b.linesCut)+" transcript line(s) were elided by the size limit")
	}
	if b.over(0) > 0 {
		sum.Skeleton = b.skel
		rep.Notes = append(rep.Notes, "the timeline itself (its connections, runs, approvals, gaps, findings and the rows of key records) takes "+
			strconv.FormatFloat(float64(b.skel)/1e6, 'f', 1, 64)+" MB, more than "+mb+" (--max-bytes): it is never elided, so this report is larger than the limit")
	}
}

// limitText writes --max-bytes in the unit it was most likely given in
// (64 KiB, 20 MB), exactly.
func limitText(n int) string {
	for _, u := range []struct {
		size int
		name string
	}{{1 << 30, "GiB"}, {1e9, "GB"}, {1 << 20, "MiB"}, {1e6, "MB"}, {1 << 10, "KiB"}, {1e3, "kB"}} {
		if n%u.size == 0 {
			return strconv.Itoa(n/u.size) + " " + u.name
		}
	}
	return strconv.Itoa(n) + " bytes"
}
