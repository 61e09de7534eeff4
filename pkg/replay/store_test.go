package replay

import (
	"strings"
	"testing"
)

// RemoveLine takes a line out of a full ring (the Control UI's pane empties
// its list on a session reset); the next push fills the room it left
// without dropping the oldest.
func TestRemoveLineFromAFullRing(t *testing.T) {
	s := &State{layout: Layout{TranscriptCap: 3}, agents: map[string]*Agent{}}
	a := s.EnsureAgent("main")
	texts := func() string {
		var out []string
		for _, l := range a.Lines() {
			out = append(out, l.Text)
		}
		return strings.Join(out, " ")
	}
	for _, x := range []string{"a", "b", "c", "d"} {
		s.PushLine(a, Line{Text: x})
	}
	if got := texts(); got != "b c d" || a.LinesDropped() != 1 {
		t.Fatalf("after the pushes: %q, %d dropped", got, a.LinesDropped())
	}
	if s.RemoveLine(a, 0) {
		t.Error("line 0 was dropped by the cap: nothing to remove")
	}
	if !s.RemoveLine(a, 2) {
		t.Fatal("line 2 (c) was not removed")
	}
	if got := texts(); got != "b d" {
		t.Fatalf("after removing c: %q", got)
	}
	if l, ok := a.lineByNumber(2); !ok || l.Text != "d" {
		t.Errorf("d is not line 2: %+v %v", l, ok)
	}
	if s.PushLine(a, Line{Text: "e"}) {
		t.Error("the push into the room the removal left dropped a line")
	}
	if got := texts(); got != "b d e" || a.LinesDropped() != 1 {
		t.Errorf("after the push: %q, %d dropped", got, a.LinesDropped())
	}
	s.PushLine(a, Line{Text: "f"})
	if got := texts(); got != "d e f" || a.LinesDropped() != 2 {
		t.Errorf("after the next push: %q, %d dropped", got, a.LinesDropped())
	}
}
