package clawboo

import (
	"testing"

	"github.com/clawtap/clawtap/pkg/ui"
)

type frames struct {
	pending []func()
	asked   int
}

func (f *frames) request(fn func()) func() {
	f.asked++
	i := len(f.pending)
	f.pending = append(f.pending, fn)
	return func() { f.pending[i] = nil }
}

// fire runs the frame callbacks requested so far.
func (f *frames) fire() {
	cbs := f.pending
	f.pending = nil
	for _, fn := range cbs {
		if fn != nil {
			fn()
		}
	}
}

func patchJSON(p ui.Patch) string { return string(p.AppendJSON(nil)) }

func TestPatchQueueMerge(t *testing.T) {
	s, n := ui.SetStr, ui.NullStr
	for _, tc := range []struct {
		name  string
		in    []ui.Patch
		modes []string
		want  string
	}{
		{"same run merges", []ui.Patch{
			{RunID: s("r1"), StreamText: s("He")},
			{RunID: s("r1"), ThinkingTrace: s("hmm")},
			{RunID: s("r1"), StreamText: s("Hello")},
		}, []string{MergeNew, MergeMerged, MergeMerged}, `{"runId":"r1","streamText":"Hello","thinkingTrace":"hmm"}`},
		{"runId change replaces", []ui.Patch{
			{RunID: s("r1"), StreamText: s("old run text"), ThinkingTrace: s("old")},
			{RunID: s("r2"), StreamText: s("new")},
		}, []string{MergeNew, MergeReplace}, `{"runId":"r2","streamText":"new"}`},
		{"only incoming has a runId: merge, old text survives", []ui.Patch{
			{StreamText: s("orphan")},
			{RunID: s("r2"), ThinkingTrace: s("t")},
		}, []string{MergeNew, MergeMerged}, `{"runId":"r2","streamText":"orphan","thinkingTrace":"t"}`},
		{"only pending has a runId: merge", []ui.Patch{
			{RunID: s("r1"), StreamText: s("a")},
			{StreamText: s("b")},
		}, []string{MergeNew, MergeMerged}, `{"runId":"r1","streamText":"b"}`},
		{"null runId is not a string: merge", []ui.Patch{
			{RunID: s("r1"), StreamText: s("a")},
			{RunID: n(), StreamText: s("b")},
		}, []string{MergeNew, MergeMerged}, `{"runId":null,"streamText":"b"}`},
		{"empty runId counts as none: merge", []ui.Patch{
			{RunID: s("r1"), StreamText: s("a")},
			{RunID: s(""), ThinkingTrace: s("b")},
		}, []string{MergeNew, MergeMerged}, `{"runId":"","streamText":"a","thinkingTrace":"b"}`},
		{"present null overrides a value", []ui.Patch{
			{RunID: s("r1"), StreamText: s("a"), LastActivityAt: ui.SetInt(5)},
			{RunID: s("r1"), StreamText: n()},
		}, []string{MergeNew, MergeMerged}, `{"runId":"r1","streamText":null,"lastActivityAt":5}`},
		{"missing key leaves the pending value", []ui.Patch{
			{RunID: s("r1"), StreamText: s("a")},
			{LastActivityAt: ui.SetInt(9)},
		}, []string{MergeNew, MergeMerged}, `{"runId":"r1","streamText":"a","lastActivityAt":9}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []ui.AgentPatch
			fr := &frames{}
			q := NewPatchQueue(fr.request, func(b []ui.AgentPatch) { got = append(got, b...) })
			for i, p := range tc.in {
				mode, _ := q.Enqueue("main", p)
				if mode != tc.modes[i] {
					t.Fatalf("enqueue %d: mode %s, want %s", i, mode, tc.modes[i])
				}
			}
			if fr.asked != 1 {
				t.Fatalf("%d frames requested, want 1", fr.asked)
			}
			fr.fire()
			if len(got) != 1 || patchJSON(got[0].Patch) != tc.want {
				t.Fatalf("flushed %+v, want %s", got, tc.want)
			}
		})
	}
}

func TestPatchQueueFlushOrderAndFrames(t *testing.T) {
	fr := &frames{}
	var batches [][]string
	q := NewPatchQueue(fr.request, func(b []ui.AgentPatch) {
		var ids []string
		for _, p := range b {
			ids = append(ids, p.AgentID+":"+patchJSON(p.Patch))
		}
		batches = append(batches, ids)
	})
	q.Enqueue("b", ui.Patch{RunID: ui.SetStr("r1"), StreamText: ui.SetStr("1")})
	q.Enqueue("a", ui.Patch{RunID: ui.SetStr("r2"), StreamText: ui.SetStr("2")})
	q.Enqueue("b", ui.Patch{RunID: ui.SetStr("r3"), StreamText: ui.SetStr("3")}) // replace keeps b first
	fr.fire()
	want := []string{`b:{"runId":"r3","streamText":"3"}`, `a:{"runId":"r2","streamText":"2"}`}
	if len(batches) != 1 || len(batches[0]) != 2 || batches[0][0] != want[0] || batches[0][1] != want[1] {
		t.Fatalf("batches %v, want one batch %v", batches, want)
	}
	// After a flush the next enqueue asks for a new frame.
	q.Enqueue("a", ui.Patch{StreamText: ui.SetStr("x")})
	if fr.asked != 2 || !q.FramePending() {
		t.Fatalf("asked %d", fr.asked)
	}
	// An explicit flush cancels the frame; the frame callback is then inert.
	q.Flush()
	if q.FramePending() || len(batches) != 2 {
		t.Fatalf("flush: pending %v batches %d", q.FramePending(), len(batches))
	}
	fr.fire()
	if len(batches) != 2 {
		t.Fatal("cancelled frame flushed")
	}
	// Flushing nothing emits nothing.
	q.Flush()
	if len(batches) != 2 {
		t.Fatal("empty flush emitted a batch")
	}
}

func TestPatchQueueDispose(t *testing.T) {
	fr := &frames{}
	flushed := 0
	q := NewPatchQueue(fr.request, func(b []ui.AgentPatch) { flushed++ })
	q.Enqueue("a", ui.Patch{StreamText: ui.SetStr("x")})
	q.Enqueue("a", ui.Patch{StreamText: ui.SetStr("y")})
	dropped := q.Dispose()
	if len(dropped) != 1 || dropped[0].Patches != 2 {
		t.Fatalf("dropped %+v", dropped)
	}
	fr.fire()
	if flushed != 0 || len(q.Pending()) != 0 {
		t.Fatal("dispose flushed")
	}
}

func TestPatchQueueNoFrames(t *testing.T) {
	flushed := 0
	q := NewPatchQueue(nil, func(b []ui.AgentPatch) { flushed++ })
	q.Enqueue("a", ui.Patch{StreamText: ui.SetStr("x")})
	if flushed != 0 || q.FramePending() {
		t.Fatal("auto-flushed without frames")
	}
	q.Flush()
	if flushed != 1 {
		t.Fatal("explicit flush failed")
	}
}

// TestPatchQueueManyAgents exercises the index used past 16 agents.
func TestPatchQueueManyAgents(t *testing.T) {
	fr := &frames{}
	var got []ui.AgentPatch
	q := NewPatchQueue(fr.request, func(b []ui.AgentPatch) { got = append(got, b...) })
	for round := 0; round < 2; round++ {
		for i := 0; i < 40; i++ {
			q.Enqueue(string(rune('A'+i)), ui.Patch{StreamText: ui.SetStr(string(rune('0' + round)))})
		}
	}
	fr.fire()
	if len(got) != 40 || got[0].AgentID != "A" || got[39].Patches != 2 || patchJSON(got[5].Patch) != `{"streamText":"1"}` {
		t.Fatalf("got %d, first %+v", len(got), got[0])
	}
	got = nil
	q.Enqueue("Z", ui.Patch{})
	fr.fire()
	if len(got) != 1 || got[0].Patches != 1 {
		t.Fatalf("after flush: %+v", got)
	}
}
