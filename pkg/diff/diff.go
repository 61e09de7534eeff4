package diff

import (
	"slices"
	"strconv"
	"strings"

	"github.com/clawtap/clawtap/pkg/human"
	"github.com/clawtap/clawtap/pkg/pipeline"
)

// Pair is two aligned steps; one side is nil for a step only one capture has.
type Pair struct {
	A, B *Step
}

// Divergence is a place where the captures part: a step that differs
// after the first step or after an equal one.
type Divergence struct {
	Step    int    // number of aligned steps before it
	Context []Pair // equal steps just before it (since the divergence before)
	A, B    []Step // the next steps of each side, from the divergence on
}

// KindCount counts differing steps of one kind.
type KindCount struct {
	Changed int `json:"changed"`
	OnlyA   int `json:"onlyA"`
	OnlyB   int `json:"onlyB"`
}

// Result is the outcome of a comparison.
type Result struct {
	Equal      bool                  `json:"equal"`
	Steps      int                   `json:"steps"` // aligned steps compared
	Same       int                   `json:"same"`
	Changed    int                   `json:"changed"`
	OnlyA      int                   `json:"onlyA"`
	OnlyB      int                   `json:"onlyB"`
	ByKind     map[string]*KindCount `json:"byKind"`
	FinalState []string              `json:"finalState"` // differences of the replayed state at the end
	// Parted counts the divergences; Divergences holds the first of them,
	// as many as Options.Divergences asks for.
	Parted      int           `json:"divergences"`
	Divergences []*Divergence `json:"-"`
	// MarkersOf is the capture ("A" or "B") whose connection markers were
	// left out of the comparison because the other starts without any
	// (bare frames, a console copy); MarkersLeftOut counts them.
	MarkersOf      string `json:"markersOf,omitempty"`
	MarkersLeftOut int    `json:"markersLeftOut,omitempty"`
	MetaA          Meta   `json:"-"`
	MetaB          Meta   `json:"-"`
}

// queue is a step look-ahead buffer.
type queue struct {
	s       *stepper
	buf     []*Step
	done    bool
	noMarks bool // leave the connection markers out
	dropped int  // markers left out
}

func (q *queue) fill(n int) {
	for len(q.buf) < n && !q.done {
		st := q.s.next()
		if st == nil {
			q.done = true
			return
		}
		if q.noMarks && isMark(st) {
			q.dropped++
			continue
		}
		q.buf = append(q.buf, st)
	}
}

func isMark(st *Step) bool { return strings.HasPrefix(st.Kind, "mark ") }

// leaveMarksOut compares the captures without their connection markers
// when one starts with a marker and the other does not: a recording (whose
// first record is its connection's open marker) against bare frames, which
// have none. Markers are what the recorder saw of the connections, not
// what the UI did, so the comparison is of the frames; the result says
// which side's markers were left out.
func leaveMarksOut(qa, qb *queue, res *Result) {
	qa.fill(1)
	qb.fill(1)
	if len(qa.buf) == 0 || len(qb.buf) == 0 || isMark(qa.buf[0]) == isMark(qb.buf[0]) {
		return
	}
	res.MarkersOf = "A"
	if isMark(qb.buf[0]) {
		res.MarkersOf = "B"
	}
	for _, q := range []*queue{qa, qb} {
		q.noMarks = true
		kept := q.buf[:0]
		for _, st := range q.buf {
			if isMark(st) {
				q.dropped++
			} else {
				kept = append(kept, st)
			}
		}
		q.buf = kept
	}
}

func (q *queue) pop() *Step {
	st := q.buf[0]
	q.buf = q.buf[1:]
	if len(q.buf) == 0 {
		q.buf = q.buf[:0:0] // let the backing array go
	}
	return st
}

// Compare reads both captures to the end, each in one pass, and compares
// them.
func Compare(a, b pipeline.Source, opts Options) *Result {
	if opts.Context <= 0 {
		opts.Context = 3
	}
	if opts.Window <= 0 {
		opts.Window = 64
	}
	qa := &queue{s: newStepper(a, &opts)}
	qb := &queue{s: newStepper(b, &opts)}
	if opts.Divergences <= 0 {
		opts.Divergences = 1
	}
	res := &Result{ByKind: map[string]*KindCount{}}
	leaveMarksOut(qa, qb, res)
	var ctx []Pair  // the equal steps since the last mismatch, the last Context of them
	parted := false // the last step compared was a mismatch
	kc := func(kind string) *KindCount {
		k := res.ByKind[kind]
		if k == nil {
			k = &KindCount{}
			res.ByKind[kind] = k
		}
		return k
	}
	// diverge is called at every mismatch: one that follows an equal
	// step (or starts the comparison) is a new divergence.
	diverge := func() {
		if parted {
			return
		}
		parted = true
		res.Parted++
		if len(res.Divergences) < opts.Divergences {
			qa.fill(opts.Context)
			qb.fill(opts.Context)
			d := &Divergence{Step: res.Steps, Context: slices.Clone(ctx)}
			for k := 0; k < len(qa.buf) && k < opts.Context; k++ {
				d.A = append(d.A, *qa.buf[k])
			}
			for k := 0; k < len(qb.buf) && k < opts.Context; k++ {
				d.B = append(d.B, *qb.buf[k])
			}
			res.Divergences = append(res.Divergences, d)
		}
		ctx = ctx[:0]
	}
	for {
		qa.fill(1)
		qb.fill(1)
		if len(qa.buf) == 0 && len(qb.buf) == 0 {
			break
		}
		if len(qa.buf) == 0 || len(qb.buf) == 0 {
			diverge()
			for len(qa.buf) > 0 {
				kc(qa.pop().Kind).OnlyA++
				res.OnlyA++
				qa.fill(1)
			}
			for len(qb.buf) > 0 {
				kc(qb.pop().Kind).OnlyB++
				res.OnlyB++
				qb.fill(1)
			}
			continue
		}
		if qa.buf[0].Desc == qb.buf[0].Desc {
			pa, pb := qa.pop(), qb.pop()
			res.Steps++
			res.Same++
			parted = false
			if len(res.Divergences) < opts.Divergences {
				if len(ctx) == opts.Context {
					ctx = append(ctx[:0], ctx[1:]...)
				}
				ctx = append(ctx, Pair{pa, pb})
			}
			continue
		}
		diverge()
		// Re-synchronise: the nearest pair of equal steps in the window.
		qa.fill(opts.Window)
		qb.fill(opts.Window)
		bi, bj := -1, -1
		for sum := 1; sum < 2*opts.Window && bi < 0; sum++ {
			for i := 0; i <= sum; i++ {
				j := sum - i
				if i < len(qa.buf) && j < len(qb.buf) && qa.buf[i].Desc == qb.buf[j].Desc {
					bi, bj = i, j
					break
				}
			}
		}
		if bi < 0 {
			pa, pb := qa.pop(), qb.pop()
			res.Steps++
			res.Changed++
			kind := pa.Kind
			if pb.Kind != kind {
				kind = pa.Kind + " / " + pb.Kind
			}
			kc(kind).Changed++
			continue
		}
		// Where both sides skip steps, pair them up as changed.
		for bi > 0 && bj > 0 {
			pa, pb := qa.pop(), qb.pop()
			bi--
			bj--
			res.Steps++
			res.Changed++
			kind := pa.Kind
			if pb.Kind != kind {
				kind = pa.Kind + " / " + pb.Kind
			}
			kc(kind).Changed++
		}
		for ; bi > 0; bi-- {
			kc(qa.pop().Kind).OnlyA++
			res.OnlyA++
		}
		for ; bj > 0; bj-- {
			kc(qb.pop().Kind).OnlyB++
			res.OnlyB++
		}
	}
	res.MarkersLeftOut = qa.dropped + qb.dropped
	res.FinalState = finalState(qa.s, qb.s)
	res.MetaA, res.MetaB = qa.s.meta, qb.s.meta
	res.Equal = res.Changed == 0 && res.OnlyA == 0 && res.OnlyB == 0 && len(res.FinalState) == 0
	return res
}

// finalState compares what the UI holds at the end of each replay.
func finalState(a, b *stepper) []string {
	sa, sb := a.eng.State(), b.eng.State()
	ids := slices.Clone(sa.AgentIDs())
	for _, id := range sb.AgentIDs() {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	var out []string
	cmp := func(what, x, y string) {
		if x != y {
			out = append(out, what+": "+x+" vs "+y)
		}
	}
	for _, id := range ids {
		xa, xb := sa.Agent(id), sb.Agent(id)
		if xa == nil || xb == nil {
			out = append(out, "agents."+id+": only in "+map[bool]string{true: "B", false: "A"}[xa == nil])
			continue
		}
		cmp("agents."+id+".status", nstr(xa.Status), nstr(xb.Status))
		ra, rb := "null", "null"
		if xa.RunID.Valid {
			ra = a.run(xa.RunID.V)
		}
		if xb.RunID.Valid {
			rb = b.run(xb.RunID.V)
		}
		cmp("agents."+id+".runId", ra, rb)
		la, lb := xa.Lines(), xb.Lines()
		cmp("agents."+id+".outputLines", strconv.Itoa(len(la)), strconv.Itoa(len(lb)))
		if len(la) == len(lb) && a.text && b.text {
			for k := range la {
				// A meta line's text is the message's wall-clock timestamp: compare its kind only.
				if la[k].Kind != lb[k].Kind || la[k].Kind != "meta" && la[k].Text != lb[k].Text {
					out = append(out, "agents."+id+".outputLines."+strconv.Itoa(k)+": "+strconv.Quote(human.Clip(la[k].Text, 60))+" vs "+strconv.Quote(human.Clip(lb[k].Text, 60)))
					break
				}
			}
		}
		cmp("agents."+id+".pendingApprovals", strconv.Itoa(xa.PendingApprovals()), strconv.Itoa(xb.PendingApprovals()))
	}
	cmp("approvals", strconv.Itoa(len(sa.ApprovalIDs())), strconv.Itoa(len(sb.ApprovalIDs())))
	return out
}
