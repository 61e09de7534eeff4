// Package gaps finds holes in the gateway's frame-level seq, following the
// real rules: seq counts per connection and restarts with every connection;
// connect.challenge, responses and (on older gateways) targeted frames carry
// none; a duplicate or lower seq is reported as such, not as a gap. It also
// reports the gateway's own "seq gap" agent error events and, as
// information only, jumps in the per-run payload seq (which are normal:
// throttling, merging and targeted tool events all skip numbers).
package gaps

import (
	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/runs"
)

// Finding kinds.
const (
	Gap        = "gap"          // frame seq jumped forward: frames were lost
	Duplicate  = "duplicate"    // the same frame seq again
	Backwards  = "backwards"    // a lower frame seq than the last
	FirstSeq   = "first-seq"    // a connection's first seq is not 1 (info: older gateways share one counter)
	GatewayGap = "gateway-gap"  // the gateway's agent stream:"error" reason:"seq gap" event
	RunSeqJump = "run-seq-jump" // per-run payload seq skipped numbers (info)
)

// Finding is one observation.
type Finding struct {
	Kind     string
	I        int   // record index
	T        int64 // record time
	Conn     int
	Expected int64
	Received int64
	RunID    string // GatewayGap, RunSeqJump
	// Coalesced: a RunSeqJump at a text delta (a chat delta that does not
	// replace, an agent assistant or thinking event with a string delta):
	// deltas merged for a busy connection (2026.9.2+) or by pacing, whose
	// payload seq is the last merged event's. Not lost frames.
	Coalesced bool
}

// Missing is how many seq numbers a gap or jump skipped.
func (f Finding) Missing() int64 {
	if f.Received > f.Expected {
		return f.Received - f.Expected
	}
	return 0
}

// Info reports whether the finding is information only.
func (f Finding) Info() bool { return f.Kind == FirstSeq || f.Kind == RunSeqJump }

// AppendJSON appends the finding as one JSON object.
func (f Finding) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"kind":`...)
	dst = jsonx.AppendString(dst, f.Kind)
	dst = append(dst, `,"i":`...)
	dst = jsonx.AppendInt(dst, int64(f.I))
	dst = append(dst, `,"t":`...)
	dst = jsonx.AppendInt(dst, f.T)
	dst = append(dst, `,"conn":`...)
	dst = jsonx.AppendInt(dst, int64(f.Conn))
	if f.RunID != "" {
		dst = append(dst, `,"runId":`...)
		dst = jsonx.AppendString(dst, f.RunID)
	}
	dst = append(dst, `,"expected":`...)
	dst = jsonx.AppendInt(dst, f.Expected)
	dst = append(dst, `,"received":`...)
	dst = jsonx.AppendInt(dst, f.Received)
	dst = append(dst, `,"missing":`...)
	dst = jsonx.AppendInt(dst, f.Missing())
	if f.Info() {
		dst = append(dst, `,"info":true`...)
	}
	if f.Coalesced {
		dst = append(dst, `,"coalesced":true`...)
	}
	return append(dst, '}')
}

// Summary counts findings over a capture.
type Summary struct {
	Connections int   `json:"connections"`
	SeqFrames   int   `json:"seqFrames"` // frames that carried a frame seq
	Gaps        int   `json:"gaps"`
	Missing     int64 `json:"missing"`
	Duplicates  int   `json:"duplicates"`
	Backwards   int   `json:"backwards"`
	FirstSeq    int   `json:"firstSeq"`
	GatewayGaps int   `json:"gatewayGaps"`
	RunSeqJumps int   `json:"runSeqJumps"`
}

type connState struct {
	last    int64
	hasLast bool
}

// Detector consumes classified records in capture order.
type Detector struct {
	conns map[int]*connState
	seqs  runs.Field[runSeqs] // the highest payload seq of each run, per connection
	sum   Summary
}

// runSeqs is a run's highest payload seq on each connection that saw it:
// the seq counts per run, and every client is sent its own.
type runSeqs []connSeq

type connSeq struct {
	conn int
	last int64 // the highest payload seq, once seen
	seen bool
	// reported is the seq the gateway's last seq-gap event on conn said
	// the run received, -1 when none since the run's last frame there: a
	// jump the gateway reported is not a merge.
	reported int64
}

// NewDetector returns an empty Detector that keeps what it knows of a run
// in the pass's run table t.
func NewDetector(t *runs.Table) *Detector {
	return &Detector{conns: map[int]*connState{}, seqs: runs.NewField[runSeqs](t)}
}

// Summary returns the counts so far.
func (t *Detector) Summary() Summary { return t.sum }

// Observe takes one record's classification, and its run in the table
// (nil when it names none), and appends what it found.
func (t *Detector) Observe(dst []Finding, i int, ts int64, conn int, dir string, ev *bridge.Event, run *runs.Run) []Finding {
	if ev.Kind == bridge.Marker {
		// A new connection (open) always restarts the counter.
		if ev.Mark == "open" {
			delete(t.conns, conn)
		}
		return dst
	}
	if dir == "out" {
		return dst
	}
	cs := t.conns[conn]
	if cs == nil {
		cs = &connState{}
		t.conns[conn] = cs
		t.sum.Connections++
	}
	frameGap := false // frames were lost just before this one
	if ev.HasSeq && ev.Type == "event" {
		t.sum.SeqFrames++
		f := Finding{I: i, T: ts, Conn: conn, Received: ev.Seq}
		switch {
		case !cs.hasLast:
			if ev.Seq != 1 {
				f.Kind, f.Expected = FirstSeq, 1
				t.sum.FirstSeq++
				dst = append(dst, f)
			}
		case ev.Seq > cs.last+1:
			f.Kind, f.Expected = Gap, cs.last+1
			frameGap = true
			t.sum.Gaps++
			t.sum.Missing += f.Missing()
			dst = append(dst, f)
		case ev.Seq == cs.last:
			f.Kind, f.Expected = Duplicate, cs.last+1
			t.sum.Duplicates++
			dst = append(dst, f)
		case ev.Seq < cs.last:
			f.Kind, f.Expected = Backwards, cs.last+1
			t.sum.Backwards++
			dst = append(dst, f)
		}
		// The official clients let the last seq win; a duplicate or a step
		// back would then make the next good frame look like a gap, so
		// clawtap keeps the highest seq seen as the baseline.
		if !cs.hasLast || ev.Seq > cs.last {
			cs.last, cs.hasLast = ev.Seq, true
		}
	}
	if ev.Kind == bridge.RuntimeAgent && ev.Stream == "error" {
		if reason, _ := jsonx.GetPath(ev.Payload, "data", "reason"); string(reason) == `"seq gap"` {
			f := Finding{Kind: GatewayGap, I: i, T: ts, Conn: conn, RunID: ev.RunID}
			f.Expected, _ = jsonx.Int(mustGet(ev.Payload, "data", "expected"))
			f.Received, _ = jsonx.Int(mustGet(ev.Payload, "data", "received"))
			t.sum.GatewayGaps++
			if run != nil {
				t.seqs.Of(run).on(conn).reported = f.Received
			}
			return append(dst, f)
		}
	}
	if (ev.Kind == bridge.RuntimeAgent || ev.Kind == bridge.RuntimeChat) && run != nil {
		raw, _ := ev.Member("seq") // captured by the classifier: no second walk
		seq, ok := jsonx.Int(raw)
		if !ok {
			return dst
		}
		c := t.seqs.Of(run).on(conn)
		switch {
		case !c.seen:
			c.last, c.seen = seq, true
		case seq > c.last+1:
			t.sum.RunSeqJumps++
			// A merge, unless the frames before it were lost or the
			// gateway itself reported this jump.
			coalesced := textDelta(ev) && !frameGap && c.reported != seq
			dst = append(dst, Finding{Kind: RunSeqJump, I: i, T: ts, Conn: conn, RunID: ev.RunID, Expected: c.last + 1, Received: seq, Coalesced: coalesced})
			fallthrough
		case seq > c.last:
			c.last = seq
		}
		c.reported = -1
	}
	return dst
}

// on is the run's entry for conn, added when conn has not seen it.
func (s *runSeqs) on(conn int) *connSeq {
	for k := range *s {
		if (*s)[k].conn == conn {
			return &(*s)[k]
		}
	}
	*s = append(*s, connSeq{conn: conn, reported: -1})
	return &(*s)[len(*s)-1]
}

// textDelta reports a frame that merges: a chat delta that does not
// replace, or an agent assistant or thinking event with a string delta.
// Their payload seq is the last merged event's when the gateway coalesced
// several (2026.9.2+ for a busy connection; pacing before).
func textDelta(ev *bridge.Event) bool {
	switch {
	case ev.Kind == bridge.RuntimeChat && ev.State == "delta":
		dt, _ := ev.Member("deltaText")
		rv, _ := ev.Member("replace")
		return jsonx.KindOf(dt) == jsonx.String && !jsonx.Truthy(rv)
	case ev.Kind == bridge.RuntimeAgent && (ev.Stream == "assistant" || bridge.IsReasoningStream(ev.Stream)):
		d, _ := ev.DataMember("delta")
		return jsonx.KindOf(d) == jsonx.String
	}
	return false
}

func mustGet(obj []byte, keys ...string) []byte {
	v, _ := jsonx.GetPath(obj, keys...)
	return v
}
