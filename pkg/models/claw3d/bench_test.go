package claw3d

import (
	"fmt"
	"testing"

	"github.com/clawtap/clawtap/internal/uitest"
	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
)

// benchHost is the lightest host that still does what a replay does per
// frame: the agent store, the live queue on a fake clock, no logging.
type benchHost struct {
	clock  *uitest.Clock
	agent  Agent
	queue  *LivePatchQueue
	h      *Handler
	out    []Intent
	cls    *bridge.Classifier
	frames [][]byte
}

func newBenchHost() *benchHost {
	b := &benchHost{clock: uitest.NewClock(T0), cls: bridge.NewClassifier()}
	b.queue = NewLivePatchQueue(nil, func(batch []PendingPatch) {
		for i := range batch {
			b.agent.Apply(&batch[i].Patch)
		}
	})
	b.h = New(Deps{
		Now:        b.clock.Now,
		SetTimeout: b.clock.SetTimeout,
		Agent:      func(string) Agent { return b.agent },
		Dispatch: func(a *Action) {
			if a.Type == ActionUpdateAgent {
				b.agent.Apply(&a.Patch)
			}
		},
		QueueLivePatch:        func(id string, p *Patch) { b.queue.Enqueue(id, p) },
		ClearPendingLivePatch: func(id string) { b.queue.Clear(id) },
	}, Options{})
	b.h.Roster().Add("main", "", "", FromHost)
	return b
}

// streamFrames is one streamed reply as a 2026.9.6 gateway sends it: an
// agent assistant frame and a chat delta per step, the text cumulative.
func streamFrames(steps int) [][]byte {
	var fs [][]byte
	fs = append(fs, []byte(lifecycle("r1", "start")))
	text := ""
	for i := 0; i < steps; i++ {
		d := fmt.Sprintf(" word%d", i)
		text += d
		fs = append(fs, []byte(js(obj{"type": "event", "event": "agent", "seq": 2 * i, "payload": obj{"runId": "r1", "sessionKey": mainKey, "stream": "assistant", "seq": i, "data": obj{"text": text, "delta": d}}})))
		fs = append(fs, []byte(js(obj{"type": "event", "event": "chat", "seq": 2*i + 1, "payload": obj{"runId": "r1", "sessionKey": mainKey, "state": "delta", "seq": i, "deltaText": d, "message": assistantMsg(text)}})))
	}
	return fs
}

// BenchmarkDelta measures the delta path: one op is one agent assistant
// frame plus one chat delta of a 200-word reply, classified as a replay
// classifies them, with a flush every few frames.
func BenchmarkDelta(b *testing.B) {
	bh := newBenchHost()
	frames := streamFrames(200)
	recs := make([]capture.Record, len(frames))
	for i, f := range frames {
		recs[i] = capture.Record{T: T0, Conn: 1, Dir: capture.DirIn, Frame: f, Line: i + 1}
	}
	// Start the run once; then loop over the deltas.
	ev := bh.cls.Record(&recs[0])
	bh.h.Handle(nil, &ev)
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for i := 0; i < b.N; i++ {
		for k := 0; k < 2; k++ {
			j := 1 + n%(len(recs)-1)
			n++
			bh.clock.Set(bh.clock.Now() + 20)
			ev := bh.cls.Record(&recs[j])
			bh.out = bh.h.Handle(bh.out[:0], &ev)
		}
		if i%4 == 3 {
			bh.queue.Flush()
		}
	}
}

func TestDeltaPathAllocations(t *testing.T) {
	bh := newBenchHost()
	frames := streamFrames(50)
	recs := make([]capture.Record, len(frames))
	for i, f := range frames {
		recs[i] = capture.Record{T: T0, Conn: 1, Dir: capture.DirIn, Frame: f, Line: i + 1}
	}
	ev := bh.cls.Record(&recs[0])
	bh.h.Handle(nil, &ev)
	n := 0
	allocs := testing.AllocsPerRun(100, func() {
		for k := 0; k < 2; k++ {
			j := 1 + n%(len(recs)-1)
			n++
			bh.clock.Set(bh.clock.Now() + 20)
			ev := bh.cls.Record(&recs[j])
			bh.out = bh.h.Handle(bh.out[:0], &ev)
		}
		bh.queue.Flush()
	})
	// The decoded cumulative text, shared by the two streams through the
	// memo, is the one allocation a delta pair needs; more is a regression.
	if allocs > 1 {
		t.Fatalf("%.1f allocations per delta pair, want at most 1", allocs)
	}
}

// BenchmarkDeltaClassify is BenchmarkDelta's classification alone, the
// baseline the model's cost is read against.
func BenchmarkDeltaClassify(b *testing.B) {
	cls := bridge.NewClassifier()
	frames := streamFrames(200)
	recs := make([]capture.Record, len(frames))
	for i, f := range frames {
		recs[i] = capture.Record{T: T0, Conn: 1, Dir: capture.DirIn, Frame: f, Line: i + 1}
	}
	b.ReportAllocs()
	n := 0
	for i := 0; i < b.N; i++ {
		for k := 0; k < 2; k++ {
			j := 1 + n%(len(recs)-1)
			n++
			_ = cls.Record(&recs[j])
		}
	}
}
