package report

import "slices"

// Runs of a lane stack in tracks when they overlap: taken in order of
// their start, a run goes on the first track free by then. The runs come
// in the order they appeared, which is the order of their starts unless
// the capture's clock went back, so the end of the pass places them as it
// reads them, and only a capture whose starts go back has them sorted
// first: then each run's span is read again. Either way, nothing a run
// is kept on the heap for the placing.

// tracker places runs on their lanes' tracks.
type tracker struct {
	ends   [][]int64 // by lane: each track's end
	last   []int64   // by lane: the start of the run placed last
	runs   []int     // by lane: runs placed
	sorted bool      // every lane's runs came in order of start
}

func newTracker(lanes int) *tracker {
	return &tracker{ends: make([][]int64, lanes), last: make([]int64, lanes), runs: make([]int, lanes), sorted: true}
}

// place puts a run that starts at start and lasts until until on its lane
// and returns its track.
func (tr *tracker) place(lane int, start, until int64) int32 {
	if tr.runs[lane] > 0 && start < tr.last[lane] {
		tr.sorted = false
	}
	tr.last[lane] = start
	tr.runs[lane]++
	ends := tr.ends[lane]
	t := 0
	for t < len(ends) && ends[t] >= start {
		t++
	}
	if t == len(ends) {
		ends = append(ends, until)
	} else {
		ends[t] = until
	}
	tr.ends[lane] = ends
	return int32(t)
}

// tracks is how many tracks lane has (one at least).
func (tr *tracker) tracks(lane int) int { return max(len(tr.ends[lane]), 1) }

// placeSorted places the runs again in order of start on each lane, when
// they did not come so; span(k) is run k's start and the end of its bar.
func placeSorted(runLane []int32, lanes int, tracks []int32, span func(k int) (start, until int64)) *tracker {
	type bar struct {
		k            int32
		start, until int64
	}
	byLane := make([][]bar, lanes)
	for k, l := range runLane {
		start, until := span(k)
		byLane[l] = append(byLane[l], bar{int32(k), start, until})
	}
	tr := newTracker(lanes)
	for l, bars := range byLane {
		slices.SortStableFunc(bars, func(x, y bar) int { return cmpInt64(x.start, y.start) })
		for _, b := range bars {
			tracks[b.k] = tr.place(l, b.start, b.until)
		}
	}
	return tr
}
