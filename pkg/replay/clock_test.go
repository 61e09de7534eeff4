package replay

import (
	"slices"
	"testing"
)

func TestFrameClock(t *testing.T) {
	f := newFrameClock(0, 0, 0) // 1000/60
	for _, tc := range [][2]int64{{0, 17}, {16, 17}, {17, 34}, {33, 34}, {34, 50}, {49, 50}, {50, 67}, {999, 1000}, {1000, 1017}} {
		if got := f.next(tc[0]); got != tc[1] {
			t.Errorf("60 Hz: next(%d) = %d, want %d", tc[0], got, tc[1])
		}
	}
	f = newFrameClock(100, 50, 1)
	for _, tc := range [][2]int64{{100, 150}, {149, 150}, {150, 200}} {
		if got := f.next(tc[0]); got != tc[1] {
			t.Errorf("50 ms: next(%d) = %d, want %d", tc[0], got, tc[1])
		}
	}
	// A million frames in, no drift: frame 60 000 000 is exactly 1 000 000 s.
	f = newFrameClock(0, 0, 0)
	if got := f.boundary(60_000_000); got != 1_000_000_000 {
		t.Fatalf("boundary drifted: %d", got)
	}
}

func TestSchedulerOrder(t *testing.T) {
	var s scheduler
	var got []string
	add := func(due int64, name string) *timer { return s.at(due, name, func() { got = append(got, name) }) }
	add(20, "c")
	add(10, "a")
	x := add(10, "x")
	add(10, "b")
	add(5, "first")
	s.cancel(x)
	for tm := s.next(100); tm != nil; tm = s.next(100) {
		tm.fn()
	}
	if want := []string{"first", "a", "b", "c"}; !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v (due time, then creation order)", got, want)
	}
}

func TestPathStrings(t *testing.T) {
	for _, tc := range []struct {
		p    Path
		want string
	}{
		{Path{sec: secAgents, key: "main", field: fStatus}, "agents.main.status"},
		{Path{sec: secAgents, key: "a.b", field: fLine, n: 3}, `agents["a.b"].outputLines.3`},
		{Path{sec: secCost, key: "main", key2: "gpt-4.1", field: fTurns}, `cost.main["gpt-4.1"].turns`},
		{Path{sec: secApprovals, key: ""}, `approvals[""]`},
		{Path{sec: secRequests, key: ReqSummaryReload, field: fCount}, "requests.summaryReload.count"},
	} {
		if got := tc.p.String(); got != tc.want {
			t.Errorf("path %q, want %q", got, tc.want)
		}
	}
}
