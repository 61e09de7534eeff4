package report

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/pipeline"
)

// Every field of a run goes to the spool and comes back.
func TestRunEncodingRoundTrips(t *testing.T) {
	r := Run{ID: "run-é", Start: -5, End: 1 << 40, Last: 7, FirstI: 1, LastI: 1 << 33, TermI: -1,
		Terminal: TermLifecycleError, Terminals: 2, Frames: 1 << 30, AgentDeltas: 4, ChatDeltas: 5, Tools: 6, Approvals: 7, Late: -1,
		TranscriptElided: 9, conns: []connTerm{{1, 2, 3, 1}, {3, 0, 0, 4}},
		transcript: []spooledLine{{Kind: "assistant", T: 4, Via: "history", text: spooledText{at: span{off: 1 << 35, n: 12}, n: 10}}},
		output:     []spooledText{{at: span{off: 3, n: 4}, n: 2}, {}}}
	for _, flags := range [][4]bool{{true, true, true, true}, {false, true, false, true}, {true, false, true, false}} {
		r.hasOutput, r.hasChat, r.hasLife, r.Reopened = flags[0], flags[1], flags[2], flags[3]
		var got Run
		d := decoder{b: appendRun(nil, &r)}
		d.run(&got)
		if d.bad || fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", r) {
			t.Fatalf("round trip (bad %v):\n got %+v\nwant %+v", d.bad, got, r)
		}
	}
	// With anything after it, or cut short, it is not a run.
	whole := appendRun(nil, &Run{ID: "x", transcript: []spooledLine{{Kind: "assistant"}}})
	for _, b := range [][]byte{append(whole, 0), whole[:len(whole)-1]} {
		var got Run
		d := decoder{b: b}
		if d.run(&got); !d.bad {
			t.Errorf("%d bytes (a run takes %d) decoded as a run: %+v", len(b), len(whole), got)
		}
	}
}

// chatLine is a chat event of run in session main, at time t.
func chatLine(t int, run, state string) string {
	return fmt.Sprintf(`{"t":%d,"conn":1,"dir":"in","frame":{"type":"event","event":"chat","payload":{"runId":%q,"sessionKey":"agent:main:main","state":%q,"message":{"role":"assistant","content":[{"type":"text","text":"hi"}]}}}}`, t, run, state)
}

// A run id seen again after the pass let its run go is a bar of its own,
// numbered when it is born again, and marked reopened on the page and in
// the trace; each run is written once, in the order of its number.
func TestReopenedRunIsABarOfItsOwn(t *testing.T) {
	lines := []string{`{"t":1000,"conn":1,"mark":"open","url":"ws://x/"}`,
		chatLine(1001, "a", "delta"), chatLine(1002, "a", "final"), chatLine(1003, "b", "delta"), chatLine(1004, "b", "final"),
		chatLine(1005, "c", "delta"), chatLine(1006, "c", "final"), // a is let go: the table holds two
		chatLine(1007, "a", "delta")}
	r, err := capture.NewReader(strings.NewReader(strings.Join(lines, "\n")+"\n"), capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep := runPass(t, pipeline.Options{MaxRuns: 2}, r, NewBuilder(Options{}))
	var got []string
	for _, x := range allRuns(t, rep) {
		got = append(got, fmt.Sprintln(x.N, x.ID, x.Reopened, x.Terminal))
	}
	want := []string{"1 a false final\n", "2 b false final\n", "3 c false final\n", "4 a true \n"}
	if !slices.Equal(got, want) {
		t.Fatalf("runs %q, want %q", got, want)
	}
	var onRun []int32
	for row := range rep.Rows.All() {
		onRun = append(onRun, row.Run)
	}
	if !slices.Equal(onRun, []int32{-1, 0, 0, 1, 1, 2, 2, 3}) {
		t.Errorf("rows' runs %v: the reopened id's frame is on the fourth bar", onRun)
	}
	if data := AppendData(nil, rep); bytes.Count(data, []byte(`"reopened":true`)) != 1 {
		t.Errorf("the page marks %d runs reopened, want 1", bytes.Count(data, []byte(`"reopened":true`)))
	}
	if trace := pageOrTrace(t, rep, true); bytes.Count(trace, []byte(`"reopened":true`)) != 1 {
		t.Errorf("the trace marks %d runs reopened, want 1", bytes.Count(trace, []byte(`"reopened":true`)))
	}
}

// However small the pass's run table, the report has a bar for every run
// it was born, once, in order, and the same capture gives the same page.
func TestEveryRunBornIsWrittenOnce(t *testing.T) {
	skipLarge(t) // five passes over 6,000 frames; the pass runs no goroutine of its own
	data := large(t, 6000)
	build := func(maxRuns int) (*Report, []byte) {
		r, err := capture.NewReader(bytes.NewReader(data), capture.Options{})
		if err != nil {
			t.Fatal(err)
		}
		b := NewBuilder(Options{Name: "large"})
		p := pipeline.New(pipeline.Options{MaxRuns: maxRuns}, b)
		if err := p.Run(pipeline.Records(r)); err != nil {
			t.Fatal(err)
		}
		rep := b.Report()
		t.Cleanup(func() { rep.Close() })
		if rep.NumRuns() != p.Runs().Born() {
			t.Fatalf("max %d: %d runs on the page, %d born", maxRuns, rep.NumRuns(), p.Runs().Born())
		}
		return rep, pageOrTrace(t, rep, false)
	}
	whole, _ := build(0)
	for _, max := range []int{1, 3} {
		rep, page := build(max)
		if _, again := build(max); !bytes.Equal(page, again) {
			t.Errorf("max %d: two pages of the same capture differ", max)
		}
		reopened := 0
		for k, x := range allRuns(t, rep) {
			if x.N != k+1 {
				t.Fatalf("max %d: run %d read back as number %d", max, k+1, x.N)
			}
			if x.Reopened {
				reopened++
			}
		}
		if rep.NumRuns() <= whole.NumRuns() || reopened == 0 {
			t.Errorf("max %d: %d runs (%d reopened), %d with the default table: runs seen again were not split", max, rep.NumRuns(), reopened, whole.NumRuns())
		}
	}
}
