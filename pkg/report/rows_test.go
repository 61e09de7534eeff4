package report

import (
	"math"
	"slices"
	"testing"
)

// Rows gives back what it was given, whatever the values, with a run's
// row on the run's lane and a patched run.
func TestRowsRoundTrip(t *testing.T) {
	in := []Row{
		{},
		{I: 12345, T: -7, Conn: 3, Dir: -1, Type: 14, Label: 4095, Lane: -1, Run: -1, Seq: -1},
		{I: math.MaxInt64, T: math.MinInt64, Conn: math.MaxInt32, Dir: 1, Type: 2, Label: math.MaxInt32, Lane: 7, Run: -1, Seq: math.MaxInt64},
		{I: math.MinInt64, T: math.MaxInt64, Conn: math.MinInt32, Label: -3, Lane: 0, Run: 1, Seq: math.MinInt64},
		{I: 1, T: 1, Lane: 2, Run: -1, Seq: 0},
	}
	for len(in) < 20000 { // several chunks
		k := len(in)
		in = append(in, Row{I: k, T: int64(k * 3), Conn: int32(k % 5), Dir: int8(k%3 - 1), Type: int8(k % 15), Label: int32(k % 50), Lane: -1, Run: int32(k%3 - 1), Seq: int64(k) << 20})
	}
	var rs Rows
	pos := make([]int, len(in))
	for k := range in {
		pos[k] = rs.add(&in[k])
	}
	rs.setRun(pos[4], 0)
	rs.runLane = []int{5, 6}
	want := slices.Clone(in)
	want[4].Run = 0
	for k := range want {
		if r := want[k].Run; r >= 0 {
			want[k].Lane = int32(rs.runLane[r])
		}
	}
	got := slices.Collect(rs.All())
	if rs.Len() != len(want) || len(got) != len(want) {
		t.Fatalf("%d rows, %d read, want %d", rs.Len(), len(got), len(want))
	}
	for k := range want {
		if got[k] != want[k] {
			t.Fatalf("row %d: %+v, want %+v", k, got[k], want[k])
		}
	}
}
