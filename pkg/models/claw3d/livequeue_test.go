package claw3d

import (
	"slices"
	"testing"

	"github.com/clawtap/clawtap/pkg/ui"
)

func pp(run, stream, thinking string) Patch {
	var p Patch
	if run != "" {
		p.RunID = ui.SetStr(run)
	}
	if stream != "" {
		p.StreamText = ui.SetStr(stream)
	}
	if thinking != "" {
		p.ThinkingTrace = ui.SetStr(thinking)
	}
	return p
}

// TestMergePendingLivePatch is §4.7's merge rule, case by case.
func TestMergePendingLivePatch(t *testing.T) {
	status := func(p Patch, s string) Patch { p.Status = ui.SetStr(s); return p }
	for _, tc := range []struct {
		name              string
		pending, incoming Patch
		want              Patch
		mode              string
	}{
		{"both runIds, different: incoming as it is", status(pp("r1", "old", "think"), "running"), pp("r2", "new", ""),
			pp("r2", "new", ""), MergeReplace},
		{"only incoming has a runId: pending text and thinking dropped", status(pp("", "old", "think"), "running"), pp("r1", "", ""),
			status(pp("r1", "", ""), "running"), MergeDropText},
		{"only incoming has a runId, its own text kept", pp("", "old", ""), pp("r1", "new", ""),
			pp("r1", "new", ""), MergeDropText},
		{"same runId: shallow merge", pp("r1", "old", "think"), pp("r1", "new", ""),
			pp("r1", "new", "think"), MergeMerged},
		{"runIds equal once trimmed", pp(" r1 ", "old", "think"), pp("r1", "", ""),
			pp("r1", "old", "think"), MergeMerged},
		{"only pending has a runId: merge keeps it", pp("r1", "old", ""), pp("", "new", ""),
			pp("r1", "new", ""), MergeMerged},
		{"neither has a runId: merge", pp("", "old", "t"), pp("", "", "t2"),
			pp("", "old", "t2"), MergeMerged},
		{"blank runId counts as none", pp("  ", "old", ""), pp("r1", "", ""),
			pp("r1", "", ""), MergeDropText},
	} {
		p := tc.pending
		mode := MergePendingLivePatch(&p, &tc.incoming)
		if mode != tc.mode || p != tc.want {
			t.Errorf("%s: got %s %s, want %s %s", tc.name, mode, p.AppendJSON(nil), tc.mode, tc.want.AppendJSON(nil))
		}
	}
	// A null in the incoming patch clears, as a shallow merge does.
	p := pp("r1", "old", "")
	in := Patch{RunID: ui.SetStr("r1"), StreamText: ui.NullStr()}
	MergePendingLivePatch(&p, &in)
	if !p.StreamText.Null {
		t.Fatalf("null not merged: %s", p.AppendJSON(nil))
	}
}

type frames struct {
	fns      []func()
	requests int
	cancels  int
}

func (f *frames) request(fn func()) func() {
	f.requests++
	i := len(f.fns)
	f.fns = append(f.fns, fn)
	return func() { f.cancels++; f.fns[i] = nil }
}

func (f *frames) fire() {
	fns := f.fns
	f.fns = nil
	for _, fn := range fns {
		if fn != nil {
			fn()
		}
	}
}

func TestLivePatchQueue(t *testing.T) {
	var fr frames
	var flushed []string
	q := NewLivePatchQueue(fr.request, func(batch []PendingPatch) {
		for _, e := range batch {
			flushed = append(flushed, e.AgentID+" "+string(e.Patch.AppendJSON(nil)))
		}
	})
	a1, b1, c1 := pp("r1", "a", ""), pp("r2", "b", ""), pp("r3", "c", "")
	q.Enqueue("a", &a1)
	q.Enqueue("b", &b1)
	if fr.requests != 1 || !q.FramePending() {
		t.Fatalf("one frame for the burst: %d", fr.requests)
	}
	a2 := pp("r1", "aa", "")
	if mode, e := q.Enqueue("a", &a2); mode != MergeMerged || e.Patches != 2 {
		t.Fatalf("merge: %s %d", mode, e.Patches)
	}
	// clearPendingLivePatch discards a's patch only; the frame stays for b.
	if d, ok := q.Clear("a"); !ok || d.AgentID != "a" || d.Patches != 2 {
		t.Fatalf("Clear(a) = %+v %v", d, ok)
	}
	if !q.FramePending() || len(q.Pending()) != 1 {
		t.Fatalf("b still pending, frame kept: %v %d", q.FramePending(), len(q.Pending()))
	}
	// a comes back after b: first-enqueue order, as a Map delete + set.
	q.Enqueue("c", &c1)
	q.Enqueue("a", &a1)
	fr.fire()
	want := []string{`b {"runId":"r2","streamText":"b"}`, `c {"runId":"r3","streamText":"c"}`, `a {"runId":"r1","streamText":"a"}`}
	if !slices.Equal(flushed, want) {
		t.Fatalf("flushed %q, want %q", flushed, want)
	}
	// Clearing the last pending patch cancels the frame; nothing flushes.
	flushed = nil
	q.Enqueue("a", &a1)
	cancels := fr.cancels
	q.Clear("a")
	if q.FramePending() || fr.cancels != cancels+1 {
		t.Fatal("frame not cancelled when nothing is left")
	}
	fr.fire()
	if len(flushed) != 0 {
		t.Fatalf("a discarded patch was flushed: %q", flushed)
	}
	// Clear of an agent with nothing pending.
	if _, ok := q.Clear("zzz"); ok {
		t.Fatal("Clear of nothing reported a patch")
	}
	// Dispose drops without flushing.
	q.Enqueue("b", &b1)
	if d := q.Dispose(); len(d) != 1 || q.FramePending() {
		t.Fatalf("dispose %v", d)
	}
	fr.fire()
	if len(flushed) != 0 {
		t.Fatal("flushed after dispose")
	}
}

func TestAgentApply(t *testing.T) {
	var a Agent
	a.Apply(&Patch{Status: ui.SetStr("running"), RunID: ui.SetStr("r1"), SessionCreated: SetBool(true)})
	a.Apply(&Patch{RunID: ui.NullStr(), LastResult: ui.SetStr("x")})
	if a.status() != "running" || a.activeRunID() != "" || !a.SessionCreated.V || a.LastResult.V != "x" {
		t.Fatalf("%+v", a)
	}
}

func TestPatchJSON(t *testing.T) {
	p := Patch{
		Status: ui.SetStr("idle"), RunID: ui.NullStr(), RunStartedAt: ui.NullInt(), StreamText: ui.SetStr("a\"b"),
		ThinkingTrace: ui.NullStr(), LastActivityAt: ui.SetInt(5), SessionCreated: SetBool(true),
		LatestPreview: ui.SetStr("p"), LastUserMessage: ui.SetStr("u"), LastResult: ui.SetStr("r"),
		LastAssistantMessageAt: ui.SetInt(7),
	}
	want := `{"status":"idle","runId":null,"runStartedAt":null,"streamText":"a\"b","thinkingTrace":null,"lastActivityAt":5,` +
		`"sessionCreated":true,"latestPreview":"p","lastUserMessage":"u","lastResult":"r","lastAssistantMessageAt":7}`
	if got := string(p.AppendJSON(nil)); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if got := string((&Patch{}).AppendJSON(nil)); got != "{}" {
		t.Fatalf("empty patch %s", got)
	}
	if got := string(p.AppendJSONAt(nil, 5)); got[len(got)-27:] != `"lastAssistantMessageAt":2}` {
		t.Fatalf("relative times: %s", got)
	}
}
