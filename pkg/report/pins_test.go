package report

import (
	"bytes"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/replay"
)

// scatterChecker makes many findings, out of order: pinned on records
// up to 60 back, on runs seen, on runs not yet seen or never seen, on the
// whole capture, under rules in no order.
type scatterChecker struct {
	sink func(Finding)
	ids  []string // the capture's run ids, named in no order
}

func (c *scatterChecker) Needs() pipeline.Needs { return 0 }
func (c *scatterChecker) Sink(fn func(Finding)) { c.sink = fn }
func (c *scatterChecker) Before(f *pipeline.Frame) error {
	i := f.Rec.Index
	if i%3 != 0 {
		return nil
	}
	rules := [...]string{"r3", "r0", "r4", "r1", "r2"}
	fd := Finding{Rule: rules[i%5], Severity: "info", I: max(i-(i*7)%60, 0), T: f.Rec.T, Conn: f.Rec.Conn, Message: fmt.Sprint("finding ", i)}
	switch i % 4 {
	case 0:
		fd.RunID, fd.SessionKey = f.Event.RunID, f.Event.SessionKey
	case 1: // often a run not seen yet
		fd.RunID = c.ids[(i*13)%len(c.ids)]
	case 2:
		fd.RunID, fd.SessionKey = "no-such-run", f.Event.SessionKey
	}
	if i%97 == 0 {
		fd.I = -1
	}
	c.sink(fd)
	return nil
}

// Findings whose pins fill several blocks, which wait in the spool and are
// merged at the end, give the page and trace the one block gives, rules
// from the table or from the spool.
func TestPinsMergedFromTheSpoolTheSame(t *testing.T) {
	data := large(t, 3000)
	var ids []string
	for _, r := range allRuns(t, buildBytes(t, data, Options{})) {
		ids = append(ids, r.ID)
	}
	write := func(perBlock int, rules uint16, trace bool) ([]byte, *Report) {
		defer func(n int, r uint16) { pinsPerBlock, maxRules = n, r }(pinsPerBlock, maxRules)
		pinsPerBlock, maxRules = perBlock, rules
		r, err := capture.NewReader(bytes.NewReader(data), capture.Options{})
		if err != nil {
			t.Fatal(err)
		}
		b := NewBuilder(Options{Name: "large", Checker: &scatterChecker{ids: ids}, NoBodies: trace})
		rep := runBuilder(t, b, r, replay.UI{})
		return pageOrTrace(t, rep, trace), rep
	}
	for _, trace := range []bool{false, true} {
		want, rep := write(1<<15, 1<<16-1, trace)
		if n := rep.NumFindings(); n < 900 || rep.finds.pins.merged {
			t.Fatalf("%d findings, merged %v: the test wants many, in one block", n, rep.finds.pins.merged)
		}
		for _, c := range []struct {
			perBlock int
			rules    uint16
		}{{1, 1<<16 - 1}, {7, 1<<16 - 1}, {256, 2}, {1000, 1<<16 - 1}} {
			got, rep := write(c.perBlock, c.rules, trace)
			if !rep.finds.pins.merged {
				t.Errorf("%d a block: the pins were not merged", c.perBlock)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("trace %v, %d pins a block, %d rules in the table: output differs", trace, c.perBlock, c.rules)
			}
		}
	}
}

// A pin list sorts stably whatever its blocks, and keeps what each changed.
func TestPinListSortsStably(t *testing.T) {
	defer func(n int) { pinsPerBlock = n }(pinsPerBlock)
	rng := rand.New(rand.NewSource(3))
	cmp := func(x, y pinned) int { return x.i - y.i }
	for _, perBlock := range []int{1, 2, 5, 64, 1 << 15} {
		pinsPerBlock = perBlock
		for _, n := range []int{0, 1, 5, 300} {
			l := pinList{sp: &spool{f: &memFile{}}}
			var want []pinned
			for k := range n {
				p := pinned{i: rng.Intn(20), off: int64(k), n: int32(k), run: -1, lane: int32(k % 3), rule: uint16(k % 7), hasRunID: k%2 == 0}
				l.add(p)
				want = append(want, p)
			}
			l.each(func(p *pinned) bool { // every third pin finds its run
				if p.off%3 == 0 {
					p.run = int32(p.off)
					return true
				}
				return false
			})
			for k := range want {
				if k%3 == 0 {
					want[k].run = int32(k)
				}
			}
			slices.SortStableFunc(want, cmp)
			l.sort(cmp)
			if l.len() != n {
				t.Fatalf("%d a block: %d pins of %d", perBlock, l.len(), n)
			}
			for k := range n {
				if got := *l.at(k); got != want[k] {
					t.Fatalf("%d a block, %d pins: pin %d is %+v, want %+v", perBlock, n, k, got, want[k])
				}
			}
			if n > 0 && *l.at(0) != want[0] { // read again, after the last
				t.Errorf("%d a block, %d pins: pin 0 read again is %+v", perBlock, n, *l.at(0))
			}
			if l.sp.err != nil {
				t.Fatal(l.sp.err)
			}
		}
	}
}

// Pins that do not come back from the spool are an error of the spool,
// not a crash: the merge stops, and the pins it could not give read as
// none.
func TestPinListLostFromTheSpool(t *testing.T) {
	defer func(n int) { pinsPerBlock = n }(pinsPerBlock)
	pinsPerBlock = 3
	l := pinList{sp: &spool{f: &memFile{}}}
	for k := range 10 {
		l.add(pinned{i: 10 - k, run: -1, lane: -1})
	}
	l.sp.flush()
	l.sp.f.(*memFile).b = nil // the file lost what was written
	l.sort(func(x, y pinned) int { return x.i - y.i })
	if l.sp.err == nil {
		t.Fatal("no error from a spool that lost its pins")
	}
	for k := range l.len() {
		if p := l.at(k); p.run != -1 && p.i == 0 {
			t.Errorf("pin %d: %+v", k, *p)
		}
	}
}

// laneChecker pins a finding on a session's lane, with no run.
type laneChecker struct{ sink func(Finding) }

func (c *laneChecker) Needs() pipeline.Needs          { return 0 }
func (c *laneChecker) Sink(fn func(Finding))          { c.sink = fn }
func (c *laneChecker) Before(f *pipeline.Frame) error { return nil }
func (c *laneChecker) End(*pipeline.End) error {
	c.sink(Finding{Rule: "on-lane", Severity: "info", I: 3, SessionKey: "agent:main:other", Message: "the other session"})
	return nil
}

// A finding on a lane without a run follows its lane when the lanes are
// compacted: here the lane run a opened before a frame named its session
// is dropped, and the other session's lane moves down by one.
func TestFindingLaneFollowsCompaction(t *testing.T) {
	lines := []string{
		`{"clawtap":1,"createdAt":"2026-11-22T03:23:55Z","source":{"tool":"test","mode":"record"},"redaction":{"credentials":true,"content":false}}`,
		`{"t":1000,"conn":1,"mark":"open","url":"ws://x/"}`,
		`{"t":1001,"conn":1,"dir":"in","frame":{"type":"event","event":"agent","payload":{"runId":"a","stream":"lifecycle","data":{"phase":"start"}}}}`,
		`{"t":1002,"conn":1,"dir":"in","frame":{"type":"event","event":"chat","payload":{"runId":"a","sessionKey":"agent:main:main","state":"delta","message":{"role":"assistant","content":[{"type":"text","text":"hi"}]}}}}`,
		`{"t":1003,"conn":1,"dir":"in","frame":{"type":"event","event":"chat","payload":{"runId":"b","sessionKey":"agent:main:other","state":"delta","message":{"role":"assistant","content":[{"type":"text","text":"yo"}]}}}}`,
	}
	rep := buildBytes(t, []byte(strings.Join(lines, "\n")+"\n"), Options{Checker: &laneChecker{}})
	if rep.Rows.remap == nil {
		t.Fatalf("no lane was dropped (lanes %+v): the capture no longer has what this test needs", rep.Lanes)
	}
	fs := allFindings(t, rep)
	if len(fs) != 1 || fs[0].Run != -1 || fs[0].Lane < 0 || fs[0].Lane >= len(rep.Lanes) || rep.Lanes[fs[0].Lane].SessionKey != "agent:main:other" {
		t.Fatalf("finding %+v, lanes %+v", fs, rep.Lanes)
	}
}
