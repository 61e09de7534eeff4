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
	"github.com/clawtap/clawtap/pkg/recent"
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

// maxRuns bounds the per-run seq memory.
const maxRuns = 4096

type connState struct {
	last    int64
	hasLast bool
}

// Tracker consumes classified records in capture order.
type Tracker struct {
	conns    map[int]*connState
	runs     map[runKey]*int64 // the highest payload seq of each run
	runFIFO  []runKey
	lastRuns recent.Cache[runKey, *int64] // the runs looked up last: the frames of interleaved runs
	reported map[runKey]int64             // the seq the gateway's last seq-gap event said a run received
	sum      Summary
}

// NewTracker returns an empty Tracker.
func NewTracker() *Tracker {
	return &Tracker{conns: map[int]*connState{}, runs: map[runKey]*int64{}, reported: map[runKey]int64{}}
}

// Summary returns the counts so far.
func (t *Tracker) Summary() Summary { return t.sum }

// Observe takes one record's classification and appends what it found.
func (t *Tracker) Observe(dst []Finding, i int, ts int64, conn int, dir string, ev *bridge.Event) []Finding {
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
			if len(t.reported) < maxRuns {
				t.reported[runKey{conn, ev.RunID}] = f.Received
			}
			return append(dst, f)
		}
	}
	if (ev.Kind == bridge.RuntimeAgent || ev.Kind == bridge.RuntimeChat) && ev.RunID != "" {
		raw, _ := ev.Member("seq") // captured by the classifier: no second walk
		seq, ok := jsonx.Int(raw)
		if !ok {
			return dst
		}
		key := runKey{conn, ev.RunID}
		last, cached := t.lastRuns.Get(key)
		if !cached {
			last = t.runs[key]
		}
		switch {
		case last == nil:
			last = new(int64)
			*last = seq
			t.rememberRun(key, last)
		case seq > *last+1:
			t.sum.RunSeqJumps++
			// A merge, unless the frames before it were lost or the
			// gateway itself reported this jump.
			reported, ok := t.reported[key]
			coalesced := textDelta(ev) && !frameGap && !(ok && reported == seq)
			dst = append(dst, Finding{Kind: RunSeqJump, I: i, T: ts, Conn: conn, RunID: ev.RunID, Expected: *last + 1, Received: seq, Coalesced: coalesced})
			fallthrough
		case seq > *last:
			*last = seq
		}
		if !cached {
			t.lastRuns.Put(key, last)
		}
		delete(t.reported, key)
	}
	return dst
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

// runKey names a run on a connection (payload seq counts per run).
type runKey struct {
	conn int
	run  string
}

func (t *Tracker) rememberRun(key runKey, seq *int64) {
	if len(t.runFIFO) >= maxRuns {
		delete(t.runs, t.runFIFO[0])
		t.lastRuns.Forget(t.runFIFO[0])
		t.runFIFO = t.runFIFO[1:]
	}
	t.runFIFO = append(t.runFIFO, key)
	t.runs[key] = seq
}

func mustGet(obj []byte, keys ...string) []byte {
	v, _ := jsonx.GetPath(obj, keys...)
	return v
}
