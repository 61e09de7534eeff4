package runs

import (
	"fmt"
	"testing"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
)

// frame classifies one chat or agent frame of run id.
func frame(t *testing.T, raw string) *bridge.Event {
	t.Helper()
	ev := bridge.Classify([]byte(raw), 0)
	return &ev
}

func chat(id, state string) string {
	return fmt.Sprintf(`{"type":"event","event":"chat","payload":{"runId":%q,"sessionKey":"agent:main:main","state":%q}}`, id, state)
}

func lifecycle(id, phase string) string {
	return fmt.Sprintf(`{"type":"event","event":"agent","payload":{"runId":%q,"stream":"lifecycle","sessionKey":"agent:main:main","data":{"phase":%q}}}`, id, phase)
}

// A run is born at its first frame, numbered in birth order, ended at its
// first terminal of either stream on any connection, and is the same run
// on every connection.
func TestBornEndedNamedOnce(t *testing.T) {
	tb := New(0)
	rec := func(i, conn int) *capture.Record { return &capture.Record{Index: i, T: int64(1000 + i), Conn: conn} }
	a := tb.Record(rec(0, 1), frame(t, lifecycle("a", "start")))
	b := tb.Record(rec(1, 1), frame(t, chat("b", "delta")))
	if a == nil || b == nil || a.N != 1 || b.N != 2 || a.Agent != "main" || a.Session != "agent:main:main" {
		t.Fatalf("born: %+v %+v", a, b)
	}
	if again := tb.Record(rec(2, 2), frame(t, chat("a", "delta"))); again != a || a.Conn != 1 || a.LastI != 2 {
		t.Fatalf("a run seen on a second connection is the same run: %+v", again)
	}
	if tb.Record(rec(3, 2), frame(t, lifecycle("a", "end"))); a.EndI != 3 || !a.Ended() {
		t.Fatalf("the lifecycle end ends it: %+v", a)
	}
	tb.Record(rec(4, 1), frame(t, chat("a", "final")))
	if a.EndI != 3 {
		t.Fatalf("the first terminal ends it; a later one does not move the end: %+v", a)
	}
	if r := tb.Record(rec(5, 1), frame(t, `{"type":"event","event":"tick","payload":{}}`)); r != nil {
		t.Fatalf("a frame that names no run has none: %+v", r)
	}
	resp := `{"type":"res","id":"1","ok":true,"payload":{"runId":"c","status":"started"}}`
	ev := frame(t, resp)
	ev.Method = "chat.send" // the classifier learns it from the request
	if c := tb.Record(rec(6, 1), ev); c == nil || c.N != 3 {
		t.Fatalf("a chat.send response gives the run its birth: %+v", c)
	}
	if tb.Born() != 3 || tb.Len() != 3 || tb.Lookup("b") != b || tb.Lookup("") != nil || (*Table)(nil).Lookup("b") != nil {
		t.Fatal("lookup")
	}
}

// Runs are let go first born, first gone: when MaxRuns newer runs crowd
// them out, then the rest at Finish (Kept); each once, in number order,
// with its fields forgotten; an id seen again after is a new, Reopened run.
func TestLetGoInOrderOnce(t *testing.T) {
	const max = 3
	tb := New(max)
	type note struct{ n int }
	f := NewField[note](tb)
	var gone []*Run
	tb.OnLetGo = func(r *Run) {
		if got := f.Peek(r); got == nil || got.n != r.N {
			t.Errorf("run %d let go without its field", r.N)
		}
		gone = append(gone, r)
	}
	for i := range 10 {
		r := tb.Record(&capture.Record{Index: i}, frame(t, chat(fmt.Sprintf("r%d", i), "delta")))
		f.Of(r).n = r.N
	}
	if tb.Len() != max || tb.Crowded() != 10-max || len(gone) != 10-max {
		t.Fatalf("held %d, crowded %d, let go %d", tb.Len(), tb.Crowded(), len(gone))
	}
	old := gone[0]
	if f.Peek(old) != nil {
		t.Error("a run let go keeps its fields")
	}
	r := tb.Record(&capture.Record{Index: 10}, frame(t, chat("r0", "final")))
	if r == old || r.N != 11 || !r.Reopened || f.Peek(r) != nil {
		t.Fatalf("an id let go and seen again is a new run, marked reopened: %+v", r)
	}
	f.Of(r).n = r.N
	tb.Finish()
	if tb.Len() != 0 || len(gone) != 11 {
		t.Fatalf("Finish lets every run go: %d held, %d let go", tb.Len(), len(gone))
	}
	for k, g := range gone {
		if g.N != k+1 || g.Kept != (k >= 11-max) {
			t.Fatalf("run %d let go %dth (kept %v): first born, first let go; the last %d kept", g.N, k+1, g.Kept, max)
		}
	}
}

// Fields are made before the first run: one made later would not fit in
// the runs already born.
func TestFieldAfterBirthPanics(t *testing.T) {
	tb := New(0)
	tb.Record(&capture.Record{}, frame(t, chat("a", "delta")))
	defer func() {
		if recover() == nil {
			t.Fatal("a field made after the first run was born")
		}
	}()
	NewField[int](tb)
}

// The table's memory follows its bound, not the capture's length: the
// held runs and the ids it remembers letting go.
func TestMemoryIsBounded(t *testing.T) {
	const max = 8
	tb := New(max)
	for i := range 10_000 {
		tb.Record(&capture.Record{Index: i}, frame(t, chat(fmt.Sprintf("r%d", i), "delta")))
	}
	if len(tb.byID) != max || len(tb.held)-tb.head != max || cap(tb.held) > 4*max+128 || len(tb.gone.set) > max*goneMemory {
		t.Fatalf("byID %d, held %d (cap %d), gone %d", len(tb.byID), len(tb.held)-tb.head, cap(tb.held), len(tb.gone.set))
	}
}
