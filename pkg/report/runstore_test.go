package report

import (
	"bytes"
	"fmt"
	"io"
	"math/rand"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/replay"
)

// A report whose runs wait in the spool (all but one or three of them on
// the heap, every id hash colliding) writes the same bytes as one that
// holds them all.
func TestRunsLetGoComeBackTheSame(t *testing.T) {
	data := large(t, 12_000)
	write := func(maxLive int, weakHash bool, maxBytes int, trace bool) ([]byte, int) {
		r, err := capture.NewReader(bytes.NewReader(data), capture.Options{})
		if err != nil {
			t.Fatal(err)
		}
		b := NewBuilder(Options{Name: "large", MaxBytes: maxBytes, NoBodies: trace})
		b.rep.runs.max = maxLive
		if weakHash {
			b.rep.runs.hash = func(id string) uint32 { return uint32(len(id) % 3) }
		}
		rep := runBuilder(t, b, r, replay.UI{})
		out := pageOrTrace(t, rep, trace)
		if maxLive < 3 && rep.runs.back == 0 {
			t.Errorf("max %d: no run came back from the spool", maxLive)
		}
		return out, rep.runs.len() - rep.runs.nlive()
	}
	for _, c := range []struct {
		maxBytes int
		trace    bool
	}{{0, false}, {MinMaxBytes, false}, {0, true}} {
		t.Run(fmt.Sprint(c.maxBytes, c.trace), func(t *testing.T) {
			want, spilled := write(maxLiveRuns, false, c.maxBytes, c.trace)
			if spilled != 0 {
				t.Fatalf("%d runs left the heap: the capture should have fewer than %d", spilled, maxLiveRuns)
			}
			for _, v := range []struct {
				maxLive, perPage int
				weak             bool
			}{{1, 1024, true}, {3, 1024, false}, {3, 2, false}, {1, 5, true}} {
				defer func(n, m, r int) { metaPerPage, maxMetaPages, maxRecentIDs = n, m, r }(metaPerPage, maxMetaPages, maxRecentIDs)
				// the runs' metas in pages of a few, most in the spool, and
				// their ids' hashes in segments of as many
				metaPerPage, maxMetaPages, maxRecentIDs = v.perPage, 1, v.perPage
				got, spilled := write(v.maxLive, v.weak, c.maxBytes, c.trace)
				metaPerPage, maxMetaPages, maxRecentIDs = 1024, 8, 1<<16
				if spilled < 100 {
					t.Fatalf("max %d: only %d runs left the heap", v.maxLive, spilled)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("max %d, %d metas a page, weak hash %v: the output differs from the one with every run on the heap", v.maxLive, v.perPage, v.weak)
				}
			}
		})
	}
}

// Every field of a run goes to the spool and comes back.
func TestRunEncodingRoundTrips(t *testing.T) {
	r := Run{ID: "run-é", Lane: 3, Track: 1, Start: -5, End: 1 << 40, Last: 7, FirstI: 1, LastI: 1 << 33, TermI: -1,
		Terminal: TermLifecycleError, Terminals: 2, Frames: 1 << 30, AgentDeltas: 4, ChatDeltas: 5, Tools: 6, Approvals: 7, Late: -1,
		TranscriptElided: 9, conns: []connTerm{{1, 2, 3, 1}, {3, 0, 0, 4}},
		transcript: []spooledLine{{Kind: "assistant", T: 4, Via: "history", text: spooledText{at: span{off: 1 << 35, n: 12}, n: 10}}},
		output:     []spooledText{{at: span{off: 3, n: 4}, n: 2}, {}}, hasOutput: true, hasLife: true, laneFixed: true}
	for _, flags := range [][4]bool{{true, true, true, true}, {false, true, false, true}, {true, false, true, false}} {
		r.hasOutput, r.hasChat, r.hasLife, r.laneFixed = flags[0], flags[1], flags[2], flags[3]
		var got Run
		d := decoder{b: appendRun(nil, &r)}
		d.run(&got)
		if d.bad || fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", r) {
			t.Fatalf("round trip (bad %v):\n got %+v\nwant %+v", d.bad, got, r)
		}
	}
}

// A run's bytes with anything after them, or cut short, are not a run.
func TestRunDecoderRefusesTrailingBytes(t *testing.T) {
	whole := appendRun(nil, &Run{ID: "x", transcript: []spooledLine{{Kind: "assistant"}}})
	for _, b := range [][]byte{append(whole, 0), whole[:len(whole)-1]} {
		var got Run
		d := decoder{b: b}
		if d.run(&got); !d.bad {
			t.Errorf("%d bytes (a run takes %d) decoded as a run: %+v", len(b), len(whole), got)
		}
	}
}

// Bytes that are not a run are reported, never a panic or a huge
// allocation.
func FuzzRunDecoder(f *testing.F) {
	f.Add(appendRun(nil, &Run{ID: "r", conns: []connTerm{{conn: 1, terminals: 1}}, output: []spooledText{{}}}))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		var r Run
		d := decoder{b: b}
		d.run(&r)
		if !d.bad {
			if again := appendRun(nil, &r); !bytes.Equal(again, b) && len(again) > len(b) {
				t.Fatalf("a run decoded from %d bytes encodes to %d", len(b), len(again))
			}
		}
	})
}

// earlyChecker pins findings on runs before, while and after they appear.
type earlyChecker struct {
	sink  func(Finding)
	runID string
}

func (c *earlyChecker) Needs() pipeline.Needs { return 0 }
func (c *earlyChecker) Sink(fn func(Finding)) { c.sink = fn }
func (c *earlyChecker) Before(f *pipeline.Frame) error {
	switch f.Rec.Index {
	case 0: // the run has not appeared yet: it is found at the end
		c.sink(Finding{Rule: "z-early", Severity: "warn", I: 5, RunID: c.runID, Message: "before its run"})
		c.sink(Finding{Rule: "a-capture", Severity: "error", I: -1, Message: "the whole capture"})
	}
	return nil
}

func (c *earlyChecker) End(*pipeline.End) error {
	c.sink(Finding{Rule: "a-early", Severity: "info", I: 5, RunID: "no-such-run", SessionKey: "agent:main:main", Message: "on the lane"})
	return nil
}

// Findings wait in the spool and come back sorted by record then rule,
// the whole capture's last, each on its run (found at the end when it
// appeared later) or lane.
func TestFindingsComeBackSortedAndPlaced(t *testing.T) {
	path := fixturePath(t, "demo.jsonl.zst")
	plain := buildFile(t, path, Options{})
	run := runAt(t, plain, 0)
	c := &earlyChecker{runID: run.ID}
	rep := buildFile(t, path, Options{Checker: c})
	fs := allFindings(t, rep)
	if len(fs) != 3 || rep.Summary.FindingsError != 1 || rep.Summary.FindingsWarn != 1 || rep.Summary.FindingsInfo != 1 {
		t.Fatalf("findings %+v, summary %+v", fs, rep.Summary)
	}
	if fs[0].Rule != "a-early" || fs[1].Rule != "z-early" || fs[2].Rule != "a-capture" {
		t.Errorf("order: %s, %s, %s", fs[0].Rule, fs[1].Rule, fs[2].Rule)
	}
	if fs[1].Run != 0 || fs[1].Lane != run.Lane || fs[1].RunID != run.ID || message(t, rep, &fs[1]) != "before its run" {
		t.Errorf("the early finding is not on its run (lane %d): %+v", run.Lane, fs[1])
	}
	if fs[0].Run != -1 || fs[0].Lane != run.Lane || fs[0].SessionKey != "agent:main:main" {
		t.Errorf("the lane's finding is not on the main session's lane %d: %+v", run.Lane, fs[0])
	}
	if fs[2].Run != -1 || fs[2].Lane != -1 || fs[2].I != -1 {
		t.Errorf("the capture's finding: %+v", fs[2])
	}
}

// A run or finding that does not read back whole is an error of the
// report, not a wrong page.
func TestCorruptSpoolIsAnError(t *testing.T) {
	for _, what := range []string{"run", "finding"} {
		rep := buildFile(t, fixturePath(t, "demo.jsonl.zst"), Options{Checker: &earlyChecker{}})
		switch what {
		case "run":
			r := rep.runs.view(0)
			rep.runs.slots[rep.runs.meta.get(0).slot] = nil // let go, and read back from a span cut short
			rep.runs.meta.edit(0).slot = -1
			rep.runs.set(0, r)
			if rep.runs.meta.get(0).n == 0 {
				t.Fatal("the run did not go to the spool")
			}
			rep.runs.meta.edit(0).n--
		case "finding":
			rep.finds.pins.at(0).n--
		}
		if err := WriteHTML(io.Discard, rep); err == nil {
			t.Errorf("%s: a page was written from a corrupt spool", what)
		}
	}
}

// manyRules names a rule per finding, in no order.
type manyRules struct{ sink func(Finding) }

func (c *manyRules) Needs() pipeline.Needs { return 0 }
func (c *manyRules) Sink(fn func(Finding)) { c.sink = fn }
func (c *manyRules) Before(f *pipeline.Frame) error {
	if i := f.Rec.Index; i < 6 {
		for _, r := range []string{"r4", "r1", "r3", "r0", "r2", "r1"} {
			c.sink(Finding{Rule: r, Severity: "info", I: 5 - i%3, Message: r})
		}
	}
	return nil
}

// Past the rule table's size, findings still sort by rule.
func TestFindingsSortPastTheRuleTable(t *testing.T) {
	path := fixturePath(t, "demo.jsonl.zst")
	order := func() []string {
		var rules []string
		for _, f := range allFindings(t, buildFile(t, path, Options{Checker: &manyRules{}})) {
			rules = append(rules, fmt.Sprint(f.I, " ", f.Rule))
		}
		return rules
	}
	want := order()
	defer func(n uint16) { maxRules = n }(maxRules)
	maxRules = 2
	got := order()
	if fmt.Sprint(got) != fmt.Sprint(want) || len(want) != 36 || want[0] != "3 r0" || want[35] != "5 r4" {
		t.Errorf("with 2 rules in the table:\n got %v\nwant %v", got, want)
	}
}

// Runs let go are found by id, short or long, whether the hashes collide
// or not, and whether their ids' hashes wait in the spool or not.
func TestRunStoreFindsRunsLetGo(t *testing.T) {
	defer func(n int) { maxRecentIDs = n }(maxRecentIDs)
	for _, c := range []struct {
		weak   bool
		recent int
	}{{false, 1 << 16}, {true, 1 << 16}, {false, 3}, {true, 2}, {false, 1}} {
		weak := c.weak
		maxRecentIDs = c.recent
		s := newRunStore(&spool{f: &memFile{}})
		s.max = 1
		if weak {
			s.hash = func(string) uint32 { return 1 }
		}
		var ids []string
		for k := range 40 {
			id := fmt.Sprintf("run-%d-%s", k, strings.Repeat("x", k*k))
			ids = append(ids, id)
			if got := s.add(&Run{ID: id, Frames: int32(k)}); got != k {
				t.Fatalf("run %d added at %d", k, got)
			}
			if k%7 == 0 {
				s.sp.flush() // some on file, some waiting to be written
			}
		}
		for k, id := range ids {
			got, ok := s.find(id)
			if !ok || got != k || s.view(k).Frames != int32(k) {
				t.Errorf("weak %v, %d recent ids: run %d (id of %d bytes) found at %d, %v", weak, c.recent, k, len(id), got, ok)
			}
		}
		if _, ok := s.find("run-3-x"); ok {
			t.Errorf("weak %v, %d recent ids: a run that never was is found", weak, c.recent)
		}
		if c.recent < 40 && !weak && len(s.ids.segs) == 0 { // one hash for all: every id but the first goes to collide
			t.Errorf("%d recent ids: no segment was written", c.recent)
		}
		if s.sp.err != nil {
			t.Fatal(s.sp.err)
		}
	}
}

// The runs' metas read back as they were last set, however few pages stay
// on the heap and whichever run is used.
func TestMetaTableKeepsWhatWasSet(t *testing.T) {
	defer func(n, m int) { metaPerPage, maxMetaPages = n, m }(metaPerPage, maxMetaPages)
	rng := rand.New(rand.NewSource(5))
	for _, c := range [][2]int{{1, 1}, {3, 1}, {4, 2}, {1024, 8}} {
		metaPerPage, maxMetaPages = c[0], c[1]
		tab := metaTable{sp: &spool{f: &memFile{}}}
		var want []runMeta
		for step := range 3000 {
			switch {
			case len(want) == 0 || rng.Intn(3) == 0:
				m := runMeta{off: int64(step) << 20, n: int32(step), slot: -1}
				if k := tab.add(m); k != len(want) {
					t.Fatalf("%v: run %d added at %d", c, len(want), k)
				}
				want = append(want, m)
			case rng.Intn(2) == 0:
				k := rng.Intn(len(want))
				m := tab.edit(k)
				m.off, m.slot = int64(step), int32(step%7)
				want[k] = *m
			default:
				k := rng.Intn(len(want))
				if got := tab.get(k); got != want[k] {
					t.Fatalf("%v, step %d: run %d's meta is %+v, want %+v", c, step, k, got, want[k])
				}
			}
			if tab.held > maxMetaPages+1 {
				t.Fatalf("%v: %d pages on the heap", c, tab.held)
			}
		}
		for k := range want {
			if got := tab.get(k); got != want[k] {
				t.Fatalf("%v, at the end: run %d's meta is %+v, want %+v", c, k, got, want[k])
			}
		}
		if tab.sp.err != nil {
			t.Fatal(tab.sp.err)
		}
	}
}

// The index finds every run added, by a hash many ids share or one each,
// and seldom reads a segment for a hash it never had.
func TestRunIndexFindsEveryRun(t *testing.T) {
	defer func(n int) { maxRecentIDs = n }(maxRecentIDs)
	maxRecentIDs = 500
	x := newRunIndex(&spool{f: &memFile{}})
	hashOf := func(k int) uint32 {
		if k%10 == 0 {
			return uint32(k % 7) // shared by many
		}
		return hashID(fmt.Sprint("run-", k))
	}
	const n = 5000
	for k := range n {
		x.add(hashOf(k), fmt.Sprint("run-", k), int32(k))
	}
	if len(x.segs) != 9 || len(x.recent) == 0 {
		t.Fatalf("%d segments and %d recent ids, want 9 and some", len(x.segs), len(x.recent))
	}
	for k := range n {
		var seen []int32
		found := x.each(hashOf(k), fmt.Sprint("run-", k), func(c int32) bool {
			seen = append(seen, c)
			return int(c) == k
		})
		if !found {
			t.Fatalf("run %d not found; candidates %v", k, seen)
		}
	}
	reads := 0
	for k := n; k < 2*n; k++ {
		id := fmt.Sprint("run-", k)
		x.buf = x.buf[:0]
		if x.each(hashID(id), id, func(int32) bool { return true }) && hashID(id) >= 7 {
			t.Fatalf("%s, never added, is found", id)
		}
		if len(x.buf) > 0 {
			reads++
		}
	}
	if reads > n/8 { // 9 filters of about 0.8% false positives each: about 7%
		t.Errorf("%d of %d new ids read a segment", reads, n)
	}
}
