package report

// Runs of a lane stack in tracks when they overlap: taken in order of
// their start, a run goes on the first track free by then. The runs come
// in the order they were born, which is the order of their starts unless
// the capture's clock went back, so they are placed as the pass lets them
// go, and only a capture whose starts go back has them placed again at
// the end, sorted (runList.placeSorted).

// trackPlacer places runs on their lanes' tracks.
type trackPlacer struct {
	ends   [][]int64 // by lane: each track's end
	last   []int64   // by lane: the start of the run placed last
	runs   []int     // by lane: runs placed
	sorted bool      // every lane's runs came in order of start
}

// place puts a run that starts at start and lasts until until on its lane
// and returns its track.
func (tr *trackPlacer) place(lane int, start, until int64) int32 {
	for lane >= len(tr.runs) {
		tr.ends, tr.last, tr.runs = append(tr.ends, nil), append(tr.last, 0), append(tr.runs, 0)
	}
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

// count is how many runs lane has.
func (tr *trackPlacer) count(lane int) int {
	if lane < len(tr.runs) {
		return tr.runs[lane]
	}
	return 0
}

// tracks is how many tracks lane has (one at least).
func (tr *trackPlacer) tracks(lane int) int {
	if lane < len(tr.ends) {
		return max(len(tr.ends[lane]), 1)
	}
	return 1
}
