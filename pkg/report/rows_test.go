package report

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Rows gives back what it was given, whatever the values, with a run's
// row on the run's lane and a patched run, whether its chunks stay on the
// heap or wait in a spool (on file or in memory), patched there.
func TestRowsRoundTrip(t *testing.T) {
	skipLarge(t) // 200,000 rows, three times, on one goroutine
	for _, where := range []string{"heap", "file", "memory"} {
		t.Run(where, func(t *testing.T) {
			var sp *spool
			switch where {
			case "file":
				sp = &spool{dir: t.TempDir()}
			case "memory":
				sp = &spool{f: &memFile{}}
			}
			if sp != nil {
				t.Cleanup(func() { sp.close() })
			}
			testRowsRoundTrip(t, sp)
		})
	}
}

func testRowsRoundTrip(t *testing.T, sp *spool) {
	in := []Row{
		{},
		{I: 12345, T: -7, Conn: 3, Dir: -1, Type: 14, Label: 4095, Lane: -1, Run: -1, Seq: -1},
		{I: math.MaxInt64, T: math.MinInt64, Conn: math.MaxInt32, Dir: 1, Type: 2, Label: math.MaxInt32, Lane: 7, Run: -1, Seq: math.MaxInt64},
		{I: math.MinInt64, T: math.MaxInt64, Conn: math.MinInt32, Label: -3, Lane: 0, Run: 1, Seq: math.MinInt64},
		{I: 1, T: 1, Lane: 2, Run: -1, Seq: 0},
	}
	for len(in) < 200_000 { // more chunks than the spool holds before it writes
		k := len(in)
		in = append(in, Row{I: k, T: int64(k * 3), Conn: int32(k % 5), Dir: int8(k%3 - 1), Type: int8(k % 15), Label: int32(k % 50), Lane: -1, Run: int32(k%3 - 1), Seq: int64(k) << 20})
	}
	rs := Rows{sp: sp}
	pos := make([]int, len(in))
	for k := range in {
		pos[k] = rs.add(&in[k])
	}
	// Patched in the first chunk (on file by now), in the one before
	// last (waiting to be written) and in the last (on the heap).
	patched := []int{4, len(in) - 6000, len(in) - 2}
	for _, k := range patched {
		rs.setRun(pos[k], 0)
	}
	rs.runLane = []int32{5, 6}
	want := slices.Clone(in)
	for _, k := range patched {
		want[k].Run = 0
	}
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
	checkRowCounts(t, &rs, got)
	// Lanes compacted: rows without a run move with their lanes.
	rs.remap = []int{0, -1, 1, -1, -1, -1, -1, 2}
	checkRowCounts(t, &rs, slices.Collect(rs.All()))
	if sp != nil {
		if sp.err != nil {
			t.Fatal(sp.err)
		}
		if held := len(rs.chunks) - 1; held < 10 || rs.chunks[0] != nil || rs.chunks[held-1] != nil {
			t.Fatalf("%d chunks, the first and the one before last should wait in the spool", held+1)
		}
	}
}

// checkRowCounts checks what Rows keeps as the rows come against the rows
// read back: the text's length, the lanes of rows without a run (got's
// lanes must be as added), and rows' times read alone around each chunk's
// start and at the end.
func checkRowCounts(t *testing.T, rs *Rows, got []Row) {
	t.Helper()
	n, lanes := 0, map[int]bool{}
	for k := range got {
		n += rowLen(&got[k])
		if got[k].Run < 0 && got[k].Lane >= 0 {
			lanes[int(got[k].Lane)] = true
		}
	}
	if l := rs.textLen(); l != n {
		t.Errorf("textLen %d, the rows' text is %d", l, n)
	}
	if rs.remap == nil {
		for l := range 10 {
			if u := rs.usesLane(l); u != lanes[l] {
				t.Errorf("usesLane(%d) = %v, want %v", l, u, lanes[l])
			}
		}
	}
	for _, k := range []int{0, len(got) - 1} {
		if rs.timeAt(k) != got[k].T {
			t.Fatalf("timeAt(%d) = %d, want %d", k, rs.timeAt(k), got[k].T)
		}
	}
	for _, st := range rs.starts[1:] {
		for _, k := range []int{st.k - 1, st.k, st.k + 1} {
			if rs.timeAt(k) != got[k].T {
				t.Fatalf("timeAt(%d) = %d, want %d", k, rs.timeAt(k), got[k].T)
			}
		}
	}
}

// The view range is the same whether the rows come in time order (read
// off as they go) or not (sorted in a copy): the range of the times
// within a day and a hundred IQRs of the median.
func TestViewRange(t *testing.T) {
	want := func(ts []int64, lo, hi int64) [2]int64 {
		s := slices.Clone(ts)
		slices.Sort(s)
		n := len(s)
		med, iqr := s[n/2], s[3*n/4]-s[n/4]
		far := max(100*iqr, 24*3600*1000)
		a, z := hi, lo
		for _, x := range s {
			if x >= med-far && x <= med+far {
				a, z = min(a, x), max(z, x)
			}
		}
		return [2]int64{a, z}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 4; n < 3000; n += 1 + n/3 {
		for _, shape := range []string{"sorted", "far ends", "jumps", "shuffled"} {
			ts := make([]int64, n)
			for k := range ts {
				ts[k] = int64(k) * 10
			}
			switch shape {
			case "far ends": // still in order, the first and last absurd
				ts[0] -= 1e13
				ts[n-1] += 1e13
			case "jumps": // a clock jump back, and an absurd time
				ts[n/3] -= 1e13
				ts[n-1] += 1e13
			case "shuffled":
				rng.Shuffle(n, func(i, j int) { ts[i], ts[j] = ts[j], ts[i] })
			}
			var rs Rows
			lo, hi := slices.Min(ts), slices.Max(ts)
			for k, x := range ts {
				rs.add(&Row{I: k, T: x, Lane: -1, Run: -1})
			}
			if got, w := viewRange(&rs, lo, hi), want(ts, lo, hi); got != w {
				t.Fatalf("%d %s rows: view %v, want %v", n, shape, got, w)
			}
		}
	}
}

// The rows' text made ahead at the end of the pass, on a goroutine of its
// own, is the text the rows read back make, and the data that holds it is
// the data written without it. 12,000 frames: rows in three chunks, two
// of them in the spool, their text in several pieces.
func TestRowsRenderedAhead(t *testing.T) {
	rep := buildBytes(t, large(t, 12_000), Options{Name: "large"})
	defer rep.Close()
	spans, ok := rep.Rows.rendered()
	if !ok || len(rep.Rows.spans) == 0 {
		t.Fatalf("%d rows in %d chunks (%d in the spool): their text was not made ahead", rep.Rows.Len(), len(rep.Rows.chunks), len(rep.Rows.spans))
	}
	if len(rep.Rows.spans) < 2 || len(spans) < 2 {
		t.Fatalf("%d chunks in the spool, text in %d pieces: the test needs several of each", len(rep.Rows.spans), len(spans))
	}
	var got, want []byte
	for _, sp := range spans {
		got = rep.Rows.sp.appendTo(got, sp)
	}
	k := 0
	for x := range rep.Rows.All() {
		want = appendRowItem(want, &x, k)
		k++
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the rows' text made ahead (%d bytes) differs from the rows read back (%d bytes)", len(got), len(want))
	}
	ahead := AppendData(nil, rep)
	rep.Rows.text = nil
	if inline := AppendData(nil, rep); !bytes.Equal(ahead, inline) {
		t.Fatalf("the data with the rows made ahead (%d bytes) differs from the data without (%d bytes)", len(ahead), len(inline))
	}
	if err := rep.Err(); err != nil {
		t.Fatal(err)
	}
}
