package report

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// stackOnTracks is the placing as written plainly: each lane's runs
// sorted by start (in the order they came among equals), each on the
// first track free by then.
func stackOnTracks(runLane []int32, lanes int, start, until []int64) (tracks []int32, perLane []int) {
	tracks, perLane = make([]int32, len(runLane)), make([]int, lanes)
	for l := range lanes {
		var ids []int
		for k, rl := range runLane {
			if int(rl) == l {
				ids = append(ids, k)
			}
		}
		slices.SortStableFunc(ids, func(x, y int) int { return cmpInt64(start[x], start[y]) })
		var ends []int64
		for _, k := range ids {
			t := 0
			for t < len(ends) && ends[t] >= start[k] {
				t++
			}
			if t == len(ends) {
				ends = append(ends, until[k])
			} else {
				ends[t] = until[k]
			}
			tracks[k] = int32(t)
		}
		perLane[l] = max(len(ends), 1)
	}
	return tracks, perLane
}

// Runs that come in order of start are placed as they are let go; runs
// that do not are placed again in order, read back: either way as
// stackOnTracks places them.
func TestTracksWhetherStartsGoBackOrNot(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for round := range 200 {
		n, lanes := 1+rng.Intn(60), 1+rng.Intn(4)
		back := round%2 == 1
		runLane, start, until := make([]int32, n), make([]int64, n), make([]int64, n)
		var at int64 = 1000
		for k := range n {
			at += int64(rng.Intn(50))
			if back && rng.Intn(5) == 0 {
				at -= int64(rng.Intn(200))
			}
			runLane[k], start[k], until[k] = int32(rng.Intn(lanes)), at, at+int64(rng.Intn(300))
		}
		l := newRunList(&spool{f: &memFile{}})
		for k := range n {
			l.add(&Run{Lane: int(runLane[k]), Start: start[k], Last: start[k], End: until[k], hasChat: true})
		}
		if !back && !l.tr.sorted {
			t.Fatalf("round %d: starts in order taken for out of order", round)
		}
		if !l.tr.sorted {
			l.placeSorted()
		}
		tracks, tr := l.tracks, &l.tr
		want, perLane := stackOnTracks(runLane, lanes, start, until)
		if !slices.Equal(tracks, want) {
			t.Fatalf("round %d (back %v): tracks %v, want %v", round, back, tracks, want)
		}
		for l := range lanes {
			if tr.tracks(l) != perLane[l] {
				t.Fatalf("round %d: lane %d has %d tracks, want %d", round, l, tr.tracks(l), perLane[l])
			}
		}
	}
}

// A capture whose clock goes back between two overlapping runs of a
// session stacks them by start, not by the order they came.
func TestRunsStackByStartWhenTheClockGoesBack(t *testing.T) {
	var lines []string
	lines = append(lines, `{"clawtap":1,"createdAt":"2026-11-22T03:23:55Z","source":{"tool":"test","mode":"record"},"redaction":{"credentials":true,"content":false}}`,
		`{"t":5000,"conn":1,"mark":"open","url":"ws://x/"}`)
	chat := func(t int, run, state string) string {
		return fmt.Sprintf(`{"t":%d,"conn":1,"dir":"in","frame":{"type":"event","event":"chat","payload":{"runId":%q,"sessionKey":"agent:main:main","state":%q,"message":{"role":"assistant","content":[{"type":"text","text":"hi"}]}}}}`, t, run, state)
	}
	// a: 5000–5100; b (after a in the capture, its clock back): 4000–6000;
	// c: 5050–5060, overlapping both
	lines = append(lines, chat(5000, "a", "delta"), chat(5100, "a", "final"), chat(4000, "b", "delta"),
		chat(5050, "c", "delta"), chat(5060, "c", "final"), chat(6000, "b", "final"))
	rep := buildBytes(t, []byte(strings.Join(lines, "\n")+"\n"), Options{})
	got := map[string]int{}
	for _, r := range allRuns(t, rep) {
		got[r.ID] = r.Track
	}
	// by start: b (4000) on track 0, a (5000) on 1, c (5050) on 2
	if got["b"] != 0 || got["a"] != 1 || got["c"] != 2 || rep.Lanes[0].Tracks != 3 {
		t.Errorf("tracks %v, lane %+v", got, rep.Lanes[0])
	}
}
