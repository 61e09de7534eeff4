package shrink

import (
	"bytes"
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/clawtap/clawtap/pkg/models"

	"github.com/clawtap/clawtap/internal/synth"
	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/check"
	"github.com/clawtap/clawtap/pkg/pipeline"
)

// opener reads the capture in data from its start at every call, and
// counts the calls.
func opener(t *testing.T, data []byte, opens *int) Opener {
	return func() (pipeline.Source, func(), error) {
		*opens++
		r, err := capture.NewReader(bytes.NewReader(data), capture.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return pipeline.Records(r), func() { r.Close() }, nil
	}
}

func fileOpener(path string) Opener {
	return func() (pipeline.Source, func(), error) {
		r, err := capture.Open(path, capture.Options{})
		if err != nil {
			return nil, nil, err
		}
		return pipeline.Records(r), func() { r.Close() }, nil
	}
}

// Locate, reading the capture as a stream, finds the finding that the
// search over the records in memory anchors on, for every rule a fixture
// fires, under every UI; and a window that ends at that finding's record
// shows it (the fixtures hold no finding judged against a later record,
// which would need the whole capture).
func TestLocateFindsTheSearchAnchor(t *testing.T) {
	skipLarge(t)
	cases, windowed := 0, 0
	for _, ui := range models.All() {
		fired := rulesFired(t, ui)
		for _, name := range sortedKeys(fired) {
			h, recs := load(t, fixture(name))
			for _, rule := range fired[name] {
				if rule == check.RuleCaptureTruncated {
					continue
				}
				target := Target{Rule: rule, UI: ui}
				pr := newPredicate(h, recs, target)
				_, want, _, err := pr.full(indices(len(recs)))
				if err != nil {
					t.Fatal(err)
				}
				at, err := Locate(fileOpener(fixture(name)), target)
				if err != nil {
					t.Fatalf("%s %s %s: %v", name, rule, ui, err)
				}
				if !reflect.DeepEqual(at.Finding, want) || at.Records != len(recs) {
					t.Errorf("%s %s %s: located %+v in %d records, the search anchors on %+v in %d", name, rule, ui, at.Finding, at.Records, want, len(recs))
				}
				cases++
				wh, win, anchorI, _, err := Window(fileOpener(fixture(name)), target, at, 1<<30)
				if err != nil || win == nil {
					t.Errorf("%s %s %s: no window shows the finding at record %d (%v)", name, rule, ui, at.Finding.I, err)
					continue
				}
				anchor := at.Finding
				anchor.I = anchorI
				res, err := Shrink(wh, win, target, Options{Anchor: &anchor})
				if err != nil || res.Finding.Rule != rule || res.Finding.RunID != at.Finding.RunID || res.Finding.Severity != at.Finding.Severity {
					t.Errorf("%s %s %s: the window shrinks to %+v (%v), want the located %+v", name, rule, ui, res, err, at.Finding)
					continue
				}
				windowed++
			}
		}
	}
	if cases < 15 || windowed != cases {
		t.Fatalf("%d cases ran, %d shrunk in a window", cases, windowed)
	}
	_, err := Locate(fileOpener(fixture("demo.jsonl.zst")), Target{Rule: check.RuleSeqGap})
	var ns *NotShownError
	if !errors.As(err, &ns) {
		t.Errorf("a rule the capture does not show: %v", err)
	}
}

// generated is synth's session of n frames, held in memory.
func generated(t *testing.T, n int) []capture.Record {
	t.Helper()
	var recs []capture.Record
	if err := synth.LargeEach(n, 1, func(r *capture.Record) error {
		recs = append(recs, *r.Clone())
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return recs
}

// session is a generated session of n frames with one frame lost at
// record lost (a seq-gap there) and, when dupAt > 0, a copy of the first
// chat final planted at record dupAt (a duplicate-terminal that needs the
// original, far before it).
func session(t *testing.T, n, lost, dupAt int) []byte {
	t.Helper()
	recs := generated(t, n)
	recs = slices.Delete(recs, lost, lost+1)
	if dupAt > 0 {
		cls := bridge.NewClassifier()
		for i := range recs {
			if ev := cls.Record(&recs[i]); ev.Kind == bridge.RuntimeChat && ev.State == "final" {
				dup := *recs[i].Clone()
				dup.T = recs[dupAt].T
				recs = slices.Insert(recs, dupAt, dup)
				break
			}
		}
	}
	_, _, data, err := encode(synth.NewHeader("window test"), recs)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A finding in the middle of a long session is searched in the window
// before it, which the search then shrinks to the few records that show
// it, 1-minimal.
func TestWindowBeforeTheFinding(t *testing.T) {
	skipLarge(t)
	data := session(t, 20_000, 10_000, 0)
	opens := 0
	target := Target{Rule: check.RuleSeqGap}
	at, err := Locate(opener(t, data, &opens), target)
	if err != nil {
		t.Fatal(err)
	}
	if at.Records < 19_000 || at.Finding.I < 9_000 || at.Bytes < 1<<20 {
		t.Fatalf("located %+v in %d records, %d bytes: the session no longer has what this test needs", at.Finding, at.Records, at.Bytes)
	}
	h, recs, anchorI, tests, err := Window(opener(t, data, &opens), target, at, 64<<20)
	if err != nil || recs == nil {
		t.Fatalf("no window (%v)", err)
	}
	if opens != 1+tests {
		t.Errorf("the capture was read %d times for %d window(s) and the pass that located the finding", opens, tests)
	}
	if tests != 1 || len(recs) > FirstWindow+20 || len(recs) < FirstWindow || anchorI != len(recs)-2 {
		t.Errorf("the first window should do: %d tests, %d records, the finding at %d", tests, len(recs), anchorI)
	}
	if tail := recs[len(recs)-1]; tail.T != at.last.T || !bytes.Equal(tail.Frame, at.last.Frame) {
		t.Errorf("the window should end with the capture's last record")
	}
	anchor := at.Finding
	anchor.I = anchorI
	res, err := Shrink(h, recs, target, Options{Anchor: &anchor, Tested: 1 + tests})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Kept) > 10 || res.Finding.Message != at.Finding.Message || res.Tests < 3 {
		t.Errorf("kept %d records in %d tests, finding %q, want the located %q", len(res.Kept), res.Tests, res.Finding.Message, at.Finding.Message)
	}
	assertMinimalAt(t, h, recs, target, anchor, res)
}

// A finding that needs a record long before it (a final repeated 6,000
// records after the first) makes the window grow until it holds both.
func TestWindowGrowsUntilItShowsTheFinding(t *testing.T) {
	skipLarge(t)
	data := session(t, 20_000, 100, 8_000)
	opens := 0
	target := Target{Rule: check.RuleDuplicateTerminal}
	at, err := Locate(opener(t, data, &opens), target)
	if err != nil {
		t.Fatal(err)
	}
	if at.Finding.I < FirstWindow*3/2 {
		t.Fatalf("the duplicate is at record %d: the session no longer has what this test needs", at.Finding.I)
	}
	h, recs, anchorI, tests, err := Window(opener(t, data, &opens), target, at, 64<<20)
	if err != nil || recs == nil {
		t.Fatalf("no window (%v)", err)
	}
	if opens != 1+tests {
		t.Errorf("the capture was read %d times for %d window(s) and the pass that located the finding", opens, tests)
	}
	if tests != 2 || len(recs) <= FirstWindow {
		t.Errorf("want the second window: %d tests, %d records", tests, len(recs))
	}
	anchor := at.Finding
	anchor.I = anchorI
	res, err := Shrink(h, recs, target, Options{Anchor: &anchor})
	if err != nil {
		t.Fatal(err)
	}
	assertMinimalAt(t, h, recs, target, anchor, res)

	// Bounded to less than the second window, none is given.
	_, recs, _, _, err = Window(opener(t, data, &opens), target, at, at.Bytes/8)
	if err != nil || recs != nil {
		t.Errorf("a window past its bound: %d records (%v)", len(recs), err)
	}
}

// assertMinimalAt checks that the result shows the anchor and that no
// unit of it can go.
func assertMinimalAt(t *testing.T, h *capture.Header, recs []capture.Record, target Target, anchor check.Finding, res *Result) {
	t.Helper()
	pr := newPredicate(h, recs, target)
	pr.anchor, pr.anchorI = anchor, anchor.I
	if err := coherent(recs, res.Kept); err != nil {
		t.Fatal(err)
	}
	// The window kept the connection's handshake, long before it, so the
	// small capture replays as a whole session.
	marks := map[string]bool{}
	for _, i := range res.Kept {
		marks[recs[i].Mark] = true
	}
	if !marks[capture.MarkOpen] || !marks[capture.MarkHello] {
		t.Errorf("the result lacks its connection's handshake: %v", marks)
	}
	assertMinimalUnder(t, pr, res)
}

// A connection that closed before the window is left out of it, handshake
// and all: kept, it would look open, and the replay, which follows one
// connection at a time, would skip the one the finding is on.
func TestWindowLeavesClosedConnectionsOut(t *testing.T) {
	skipLarge(t)
	recs := generated(t, 12_000)
	// Connection 1 closes at record 2000 and the session goes on as
	// connection 2, which opens with a handshake of its own.
	const at = 2000
	reopen := []capture.Record{{T: recs[at].T, Conn: 1, Mark: capture.MarkClose, Code: 1012}}
	for _, r := range recs[:5] {
		r = *r.Clone()
		r.T, r.Conn = recs[at].T+1, 2
		reopen = append(reopen, r)
	}
	for i := at; i < len(recs); i++ {
		recs[i].Conn = 2
	}
	recs = slices.Insert(recs, at, reopen...)
	if recs[at+1].Mark != capture.MarkOpen || recs[at+5].Mark != capture.MarkHello {
		t.Fatalf("the session no longer starts with a handshake: %q … %q", recs[at+1].Mark, recs[at+5].Mark)
	}
	_, _, data, err := encode(synth.NewHeader("window test"), recs)
	if err != nil {
		t.Fatal(err)
	}
	opens := 0
	open := opener(t, data, &opens)
	all, err := findings(nil, recs, check.RuleLostReply, boo1211c16)
	if err != nil {
		t.Fatal(err)
	}
	var run string
	for _, f := range all {
		if f.I > at+2*FirstWindow {
			run = f.RunID
			break
		}
	}
	if run == "" {
		t.Fatalf("no lost reply past record %d: the session no longer has what this test needs", at+2*FirstWindow)
	}
	target := Target{Rule: check.RuleLostReply, Run: run, UI: boo1211c16}
	loc, err := Locate(open, target)
	if err != nil {
		t.Fatal(err)
	}
	_, win, _, tests, err := Window(open, target, loc, 64<<20)
	if err != nil || win == nil {
		t.Fatalf("no window (%v)", err)
	}
	if tests != 1 {
		t.Errorf("%d windows tried: the first should show the finding", tests)
	}
	for _, r := range win {
		if r.Conn != 2 {
			t.Fatalf("the window holds connection %d's %q, closed before it", r.Conn, r.Mark)
		}
	}
}

// A run left without a terminal is judged against the capture's end (its
// silence before it): the window ends with the capture's last record, so
// the first window shows it, and the shrunk capture keeps that record.
func TestWindowEndsWhenTheCaptureDoes(t *testing.T) {
	skipLarge(t)
	recs := generated(t, 20_000)
	cls := bridge.NewClassifier()
	evs := make([]bridge.Event, len(recs))
	for i := range recs {
		evs[i] = cls.Record(&recs[i])
	}
	var run string
	for i := 6000; i < len(recs) && run == ""; i++ {
		if evs[i].Kind == bridge.RuntimeAgent && evs[i].Phase == "start" {
			run = evs[i].RunID
		}
	}
	// The run's terminals are lost: it goes silent after its last delta.
	var kept []capture.Record
	for i := range recs {
		ev := &evs[i]
		terminal := ev.State == "final" || ev.State == "aborted" || ev.State == "error" || ev.Phase == "end" || ev.Phase == "error"
		if run != "" && ev.RunID == run && terminal {
			continue
		}
		kept = append(kept, recs[i])
	}
	_, _, data, err := encode(synth.NewHeader("window test"), kept)
	if err != nil {
		t.Fatal(err)
	}
	opens := 0
	target := Target{Rule: check.RuleRunUnterminated, Run: run}
	at, err := Locate(opener(t, data, &opens), target)
	if err != nil {
		t.Fatalf("run %q: %v", run, err)
	}
	if at.Records-at.Finding.I < 1000 {
		t.Fatalf("the run ends at record %d of %d: the session no longer has what this test needs", at.Finding.I, at.Records)
	}
	h, win, anchorI, tests, err := Window(opener(t, data, &opens), target, at, 64<<20)
	if err != nil || win == nil || tests != 1 {
		t.Fatalf("want the first window: %d records after %d tests (%v)", len(win), tests, err)
	}
	anchor := at.Finding
	anchor.I = anchorI
	res, err := Shrink(h, win, target, Options{Anchor: &anchor})
	if err != nil {
		t.Fatal(err)
	}
	if last := res.Kept[len(res.Kept)-1]; last != len(win)-1 {
		t.Errorf("the shrunk capture should end with the capture's last record (%d), kept %v", len(win)-1, res.Kept)
	}
	assertMinimalAt(t, h, win, target, anchor, res)
}
