package shrink

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/models"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/check"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/replay"
)

// plantedDuplicate is the capture: 40 records of a streamed run
// (fixtures/streamed-run: its handshake, the run's start and first deltas,
// then its end, final and a tick) with the chat final delivered a second
// time 3 ms later. It returns the capture and the two finals' indices.
func plantedDuplicate(t testing.TB) (*capture.Header, []capture.Record, [2]int) {
	t.Helper()
	h, src := load(t, fixture("streamed-run.jsonl.zst"))
	final := slices.IndexFunc(src, func(r capture.Record) bool {
		return bytes.Contains(r.Frame, []byte(`"state":"final"`))
	})
	if final != 52 || len(src) != 54 {
		t.Fatalf("streamed-run changed (final at %d of %d): rebuild this capture", final, len(src))
	}
	recs := slices.Clone(src[:32])          // handshake, chat.send, startup, first deltas
	recs = append(recs, src[47:final+1]...) // usage, lifecycle to end, last delta, final
	dup := src[final]                       // the same frame again, 3 ms later
	dup.T += 3                              //
	recs = append(recs, dup, src[final+1])  // and the tick
	if len(recs) != 40 {
		t.Fatalf("planted capture has %d records, want 40", len(recs))
	}
	return h, recs, [2]int{37, 38}
}

func TestPlantedDuplicateFinalShrinksToAHandful(t *testing.T) {
	h, recs, finals := plantedDuplicate(t)
	target := Target{Rule: check.RuleDuplicateTerminal}
	var stages []Progress
	res, err := Shrink(h, recs, target, Options{Progress: func(p Progress) { stages = append(stages, p) }})
	if err != nil {
		t.Fatal(err)
	}
	// The handshake (open, challenge, connect, hello-ok, hello) and the
	// two finals: nothing else is needed for a second terminal.
	if len(res.Kept) > 8 {
		t.Fatalf("kept %d of 40 records, want a handful: %v", len(res.Kept), res.Kept)
	}
	for _, i := range finals {
		if !slices.Contains(res.Kept, i) {
			t.Errorf("final at record %d dropped; kept %v", i, res.Kept)
		}
	}
	if res.Total != 40 || res.Exhausted || res.Finding.Rule != check.RuleDuplicateTerminal {
		t.Errorf("result: total %d, exhausted %v, finding %+v", res.Total, res.Exhausted, res.Finding)
	}
	if len(stages) != 3 || stages[2].Kept != len(res.Kept) || stages[2].Tests != res.Tests || stages[0].Stage != StageConnections {
		t.Errorf("progress: %+v", stages)
	}
	// The capture as written still shows it, and replays.
	gh, got, _, err := encode(Header(h, recs, target, res), res.Records(recs))
	if err != nil {
		t.Fatal(err)
	}
	fs, err := findings(gh, got, target.Rule, replay.UI{})
	if err != nil || len(fs) != 1 {
		t.Fatalf("the shrunk capture shows %d %s findings (%v)", len(fs), target.Rule, err)
	}
	if err := replays(got, replay.UI{}); err != nil {
		t.Fatalf("the shrunk capture does not replay: %v", err)
	}
	if err := coherent(recs, res.Kept); err != nil {
		t.Fatal(err)
	}
}

// Shrinking a shrunk capture keeps every record, byte for byte.
func TestIdempotent(t *testing.T) {
	h, recs, _ := plantedDuplicate(t)
	target := Target{Rule: check.RuleDuplicateTerminal}
	first, err := Shrink(h, recs, target, Options{})
	if err != nil {
		t.Fatal(err)
	}
	gh, small, data, err := encode(Header(h, recs, target, first), first.Records(recs))
	if err != nil {
		t.Fatal(err)
	}
	again, err := Shrink(gh, small, target, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Kept) != len(small) {
		t.Fatalf("shrinking again kept %d of %d records", len(again.Kept), len(small))
	}
	for i, rec := range again.Records(small) {
		if !bytes.Equal(rec.Frame, small[i].Frame) || rec.Mark != small[i].Mark {
			t.Fatalf("record %d changed on the second shrink", i)
		}
	}
	_, _, data2, err := encode(Header(gh, small, target, again), again.Records(small))
	if err != nil {
		t.Fatal(err)
	}
	// Only the header's note differs: it now says 7 of 7.
	if a, b := afterHeader(data), afterHeader(data2); !bytes.Equal(a, b) {
		t.Fatalf("records differ after a second shrink:\n%s\n---\n%s", a, b)
	}
}

func afterHeader(b []byte) []byte {
	_, rest, _ := bytes.Cut(b, []byte("\n"))
	return rest
}

// The same input gives the same records, tests and bytes, every time.
func TestDeterministic(t *testing.T) {
	h, recs := load(t, fixture("stale-terminal.jsonl.zst"))
	target := Target{Rule: check.RuleDroppedFinal, UI: boo1211c16}
	var outs [][]byte
	var tests []int
	for range 3 {
		res, err := Shrink(h, recs, target, Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, _, data, err := encode(Header(h, recs, target, res), res.Records(recs))
		if err != nil {
			t.Fatal(err)
		}
		outs, tests = append(outs, data), append(tests, res.Tests)
	}
	for i := 1; i < len(outs); i++ {
		if !bytes.Equal(outs[0], outs[i]) || tests[0] != tests[i] {
			t.Fatalf("run %d differs: %d vs %d tests, equal bytes %v", i, tests[0], tests[i], bytes.Equal(outs[0], outs[i]))
		}
	}
}

// rulesFired lists, per fixture, the rules check reports on it (every
// rule selected, so those off by default too).
func rulesFired(t *testing.T, ui replay.UI) map[string][]string {
	t.Helper()
	var all []string
	for _, r := range check.Rules() {
		all = append(all, r.ID)
	}
	files, err := os.ReadDir(fixture(""))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, f := range files {
		name := f.Name()
		if !strings.HasSuffix(name, ".jsonl") && !strings.HasSuffix(name, ".jsonl.zst") {
			continue
		}
		r, err := capture.Open(fixture(name), capture.Options{})
		if err != nil {
			t.Fatal(err)
		}
		h, recs := readAll(t, r)
		st := r.Stats()
		r.Close()
		an, err := check.New(check.Options{Only: all})
		if err != nil {
			t.Fatal(err)
		}
		if err := runWithStats(an, h, recs, st, ui); err != nil {
			t.Fatal(err)
		}
		sum := an.Summary()
		out[name] = sum.RuleIDs()
	}
	return out
}

// Every rule that any bundled fixture triggers shrinks, under every UI,
// to a capture that is written validly, still shows the rule, replays, is
// coherent, and is 1-minimal: dropping any one of its units loses the
// finding.
func TestEveryFiringRuleShrinks(t *testing.T) {
	skipLarge(t)
	cases := 0
	for _, ui := range models.All() {
		fired := rulesFired(t, ui) // the rules that fire under this UI
		for _, name := range sortedKeys(fired) {
			h, recs := load(t, fixture(name))
			for _, rule := range fired[name] {
				t.Run(name+"/"+rule+"/"+ui.String(), func(t *testing.T) {
					target := Target{Rule: rule, UI: ui}
					res, err := Shrink(h, recs, target, Options{})
					if rule == check.RuleCaptureTruncated {
						// Made by how the file ends, not by its records.
						if err == nil || errors.Is(err, ErrNotShown) {
							t.Fatalf("capture-truncated: want a refusal, got %v", err)
						}
						return
					}
					if err != nil {
						t.Fatal(err)
					}
					cases++
					if len(res.Kept) == 0 || len(res.Kept) > len(recs) {
						t.Fatalf("kept %d of %d", len(res.Kept), len(recs))
					}
					if err := coherent(recs, res.Kept); err != nil {
						t.Fatal(err)
					}
					gh, got, _, err := encode(Header(h, recs, target, res), res.Records(recs))
					if err != nil {
						t.Fatal(err)
					}
					fs, err := findings(gh, got, rule, ui)
					if err != nil || len(fs) == 0 {
						t.Fatalf("the written capture shows no %s (%v)", rule, err)
					}
					if err := replays(got, ui); err != nil {
						t.Fatal(err)
					}
					assertOneMinimal(t, h, recs, target, res)
				})
			}
		}
	}
	if cases < 15 {
		t.Fatalf("only %d fixture × rule cases ran: the fixtures or the rules changed", cases)
	}
}

// assertOneMinimal checks that no unit of the result can go: each one
// removed, the anchored finding is gone.
func assertOneMinimal(t *testing.T, h *capture.Header, recs []capture.Record, target Target, res *Result) {
	t.Helper()
	pr := newPredicate(h, recs, target)
	if ok, _, _, err := pr.full(indices(len(recs))); !ok || err != nil {
		t.Fatalf("the input does not show the target (%v)", err)
	}
	assertMinimalUnder(t, pr, res)
}

// assertMinimalUnder checks that the result is a union of units that
// shows pr's anchor, and that no unit of it can go.
func assertMinimalUnder(t *testing.T, pr *predicate, res *Result) {
	t.Helper()
	recs := pr.recs
	p := newPlan(recs)
	mask := make([]bool, len(recs))
	var units []int
	for k, u := range p.units {
		if slices.ContainsFunc(u.recs, func(i int) bool { return slices.Contains(res.Kept, i) }) {
			units = append(units, k)
		}
	}
	if got := p.expand(units, mask); !slices.Equal(got, res.Kept) {
		t.Fatalf("the result is not a union of units: %v vs %v", got, res.Kept)
	}
	if ok, _, err := pr.test(res.Kept); !ok || err != nil {
		t.Fatalf("the result does not show the target (%v)", err)
	}
	for k := range units {
		less := slices.Delete(slices.Clone(units), k, k+1)
		recsLess := p.expand(less, mask)
		if len(recsLess) == 0 || slices.Equal(recsLess, res.Kept) {
			continue
		}
		if ok, _, _ := pr.test(recsLess); ok {
			t.Errorf("unit %d (records %v) can still go", units[k], p.units[units[k]].recs)
		}
	}
}

func TestRunHonoured(t *testing.T) {
	h, recs := load(t, fixture("junk.jsonl"))
	all, err := findings(h, recs, check.RuleRunInFlight, replay.UI{})
	if err != nil {
		t.Fatal(err)
	}
	var runs []string
	for _, f := range all {
		runs = append(runs, f.RunID)
	}
	if len(runs) < 2 {
		t.Fatalf("junk.jsonl should have several runs in flight: %v", runs)
	}
	for _, run := range runs {
		target := Target{Rule: check.RuleRunInFlight, Run: run}
		res, err := Shrink(h, recs, target, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Finding.RunID != run {
			t.Errorf("--run %s: the kept finding is for run %q", run, res.Finding.RunID)
		}
		_, got, _, err := encode(Header(h, recs, target, res), res.Records(recs))
		if err != nil {
			t.Fatal(err)
		}
		fs, _ := findings(h, got, target.Rule, replay.UI{})
		if !slices.ContainsFunc(fs, func(f check.Finding) bool { return f.RunID == run }) {
			t.Errorf("--run %s: the written capture shows %v", run, fs)
		}
	}
	// A run the rule does not fire for is refused, naming those it does.
	_, err = Shrink(h, recs, Target{Rule: check.RuleRunInFlight, Run: "no-such-run"}, Options{})
	var ns *NotShownError
	if !errors.As(err, &ns) || !errors.Is(err, ErrNotShown) || !slices.Equal(ns.Runs, sortedCopy(runs)) {
		t.Fatalf("unknown run: %v", err)
	}
	if !strings.Contains(err.Error(), runs[0]) {
		t.Errorf("the error does not name the runs that show it: %v", err)
	}
}

func TestMaxTests(t *testing.T) {
	h, recs, _ := plantedDuplicate(t)
	target := Target{Rule: check.RuleDuplicateTerminal}
	full, err := Shrink(h, recs, target, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, bound := range []int{1, 2, 5} {
		res, err := Shrink(h, recs, target, Options{MaxTests: bound})
		if err != nil {
			t.Fatal(err)
		}
		if res.Tests > bound || !res.Exhausted {
			t.Errorf("--max-tests %d: ran %d, exhausted %v", bound, res.Tests, res.Exhausted)
		}
		if len(res.Kept) < len(full.Kept) {
			t.Errorf("--max-tests %d: kept %d, fewer than the unbounded %d", bound, len(res.Kept), len(full.Kept))
		}
		// What it found so far still shows the finding.
		fs, _ := findings(h, res.Records(recs), target.Rule, replay.UI{})
		if len(fs) == 0 {
			t.Errorf("--max-tests %d: the result lost the finding", bound)
		}
		if note := Note(target, res); !strings.Contains(note, "--max-tests") {
			t.Errorf("the note does not say the search stopped early: %q", note)
		}
	}
	// A bound the search does not reach changes nothing.
	res, err := Shrink(h, recs, target, Options{MaxTests: full.Tests})
	if err != nil || res.Exhausted || !slices.Equal(res.Kept, full.Kept) {
		t.Fatalf("bound %d = tests needed: exhausted %v, kept %v vs %v (%v)", full.Tests, res.Exhausted, res.Kept, full.Kept, err)
	}
}

func TestRefusals(t *testing.T) {
	h, recs := load(t, fixture("demo.jsonl.zst"))
	_, err := Shrink(h, recs, Target{Rule: check.RuleDuplicateTerminal}, Options{})
	if !errors.Is(err, ErrNotShown) || !strings.Contains(err.Error(), "no duplicate-terminal finding") {
		t.Errorf("a capture without the finding: %v", err)
	}
	for _, target := range []Target{
		{Rule: "no-such-rule"},
		{Rule: check.RuleCaptureTruncated},
	} {
		if _, err := Shrink(h, recs, target, Options{}); err == nil || errors.Is(err, ErrNotShown) {
			t.Errorf("%+v: want a refusal, got %v", target, err)
		}
	}
	if _, err := Shrink(h, nil, Target{Rule: check.RuleSeqGap}, Options{}); !errors.Is(err, ErrNotShown) {
		t.Errorf("no records: %v", err)
	}
}

func TestHeader(t *testing.T) {
	h, recs, _ := plantedDuplicate(t)
	target := Target{Rule: check.RuleDuplicateTerminal}
	res, err := Shrink(h, recs, target, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := Header(h, recs, target, res)
	if got.CreatedAt != h.CreatedAt || got.Source != h.Source || got.Redaction == nil || fmt.Sprint(*got.Redaction) != fmt.Sprint(*h.Redaction) {
		t.Errorf("the header changed beyond its notes: %+v", got)
	}
	var note string
	if err := json.Unmarshal(got.Notes, &note); err != nil {
		t.Fatal(err)
	}
	var old string
	_ = json.Unmarshal(h.Notes, &old)
	want := fmt.Sprintf("Shrunk by clawtap shrink to %d of 40 records that still show duplicate-terminal (%d check passes). Original notes: %s", len(res.Kept), res.Tests, old)
	if note != want {
		t.Errorf("note:\n got %q\nwant %q", note, want)
	}
	// Bare frames have no header: the new one is dated by the first
	// record, not the clock, and claims no redaction.
	bh, bare := load(t, fixture("bare-frames.jsonl"))
	if bh != nil {
		t.Fatal("bare-frames.jsonl has a header")
	}
	nh := Header(nil, bare, target, res)
	if nh.CreatedAt == "" || nh.Redaction != nil || nh.Version != capture.Version || fmt.Sprint(nh) != fmt.Sprint(Header(nil, bare, target, res)) {
		t.Errorf("header for bare frames: %+v", nh)
	}
	// Notes that are not a string are kept as their JSON.
	obj := *h
	obj.Notes = json.RawMessage(`{"ticket":42}`)
	_ = json.Unmarshal(Header(&obj, recs, target, res).Notes, &note)
	if !strings.HasSuffix(note, `Original notes: {"ticket":42}`) {
		t.Errorf("object notes: %q", note)
	}
}

// The note names the UI only for a rule that replays.
func TestNoteUI(t *testing.T) {
	h, recs := load(t, fixture("stale-terminal.jsonl.zst"))
	for _, c := range []struct {
		rule string
		ui   bool
	}{{check.RuleDroppedFinal, true}, {check.RuleStaleTerminal, false}} {
		target := Target{Rule: c.rule, UI: boo1211c16}
		res, err := Shrink(h, recs, target, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(Note(target, res), "under the clawboo@1211c16 UI"); got != c.ui {
			t.Errorf("%s: note %q", c.rule, Note(target, res))
		}
	}
}

// The frame seq rules keep the gap itself, not any gap: the shrunk
// capture says the same number of frames were lost.
func TestSeqGapKeepsItsEvidence(t *testing.T) {
	h, recs := load(t, fixture("seq-gap.jsonl.zst"))
	before, _ := findings(h, recs, check.RuleSeqGap, replay.UI{})
	res, err := Shrink(h, recs, Target{Rule: check.RuleSeqGap}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	after, _ := findings(h, res.Records(recs), check.RuleSeqGap, replay.UI{})
	if len(before) != 1 || len(after) != 1 || before[0].Message != after[0].Message {
		t.Fatalf("before %v\nafter %v", before, after)
	}
}

// The plan's coherence rules on a hand-made capture of two connections:
// a frame of connection 2 brings its handshake, a close marker alone
// keeps nothing, and a connection that is only a handshake is one unit.
func TestPlanCoherence(t *testing.T) {
	fr := func(conn int, dir, f string) capture.Record {
		return capture.Record{T: 1, Conn: conn, Dir: dir, Frame: []byte(f)}
	}
	mk := func(conn int, mark string) capture.Record { return capture.Record{T: 1, Conn: conn, Mark: mark} }
	recs := []capture.Record{
		mk(1, capture.MarkOpen), // 0
		fr(1, "in", `{"type":"event","event":"connect.challenge","payload":{"nonce":"n"}}`), // 1
		fr(1, "out", `{"type":"req","id":"c1","method":"connect","params":{}}`),             // 2
		fr(1, "in", `{"type":"res","id":"c1","ok":true,"payload":{"type":"hello-ok"}}`),     // 3
		mk(1, capture.MarkHello), // 4
		fr(1, "in", `{"type":"event","event":"tick","payload":{},"seq":1}`), // 5
		mk(1, capture.MarkClose), // 6
		mk(2, capture.MarkOpen),  // 7
		fr(2, "out", `{"type":"req","id":"c2","method":"connect","params":{}}`), // 8
		fr(2, "in", `{"type":"res","id":"c2","ok":false,"error":{"code":"x"}}`), // 9
		mk(2, capture.MarkClose), // 10
		fr(3, "in", `{"type":"event","event":"chat","payload":{"runId":"r","state":"delta"},"seq":1}`), // 11
	}
	p := newPlan(recs)
	unitOf := func(i int) int {
		for k, u := range p.units {
			if slices.Contains(u.recs, i) {
				return k
			}
		}
		return -1
	}
	mask := make([]bool, len(recs))
	for _, c := range []struct {
		name string
		keep []int // records whose units are kept
		want []int
	}{
		{"a frame keeps its handshake", []int{5}, []int{0, 1, 2, 3, 4, 5}},
		{"a close alone keeps nothing", []int{6}, nil},
		{"a close goes with its connection", []int{5, 6}, []int{0, 1, 2, 3, 4, 5, 6}},
		{"a handshake-only connection is one unit", []int{8}, []int{7, 8, 9, 10}},
		{"a connection without handshake", []int{11}, []int{11}},
	} {
		var units []int
		for _, i := range c.keep {
			units = append(units, unitOf(i))
		}
		slices.Sort(units)
		if got := p.expand(slices.Compact(units), mask); !slices.Equal(got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
	for _, i := range []int{0, 1, 2, 3, 4} {
		if unitOf(i) >= 0 {
			t.Errorf("handshake record %d is a unit of its own", i)
		}
	}
	if p.runs != 1 || p.units[unitOf(11)].run != 0 {
		t.Errorf("runs: %d", p.runs)
	}
}

// runWithStats is one pass over records held in memory that ends with
// what the reader saw (a truncated file, say), as a pass over the file
// would.
func runWithStats(an *check.Analyzer, h *capture.Header, recs []capture.Record, st capture.Stats, ui replay.UI) error {
	p := pipeline.New(pipeline.Options{Replay: replay.Options{UI: ui}}, an)
	p.Begin(h)
	for i := range recs {
		rec := recs[i]
		rec.Index = i
		if _, err := p.Push(&rec, nil); err != nil {
			return err
		}
	}
	return p.Close(st)
}

func sortedKeys(m map[string][]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return slices.Compact(c)
}

// The before/after table in docs/shrink.md is what shrink does today.
func TestDocsTable(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "shrink.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `([^`]+)` \\| `([^`]+)` \\| (?:`([^`]+)`|—) \\| (\\d+) → (\\d+) \\| (\\d+) \\|$")
	rows := row.FindAllStringSubmatch(string(doc), -1)
	if len(rows) < 10 {
		t.Fatalf("only %d rows found in docs/shrink.md's table", len(rows))
	}
	for _, m := range rows {
		h, recs := load(t, fixture(m[1]))
		target := Target{Rule: m[2]}
		if m[3] != "" {
			target.UI = models.MustLookup(m[3])
		}
		res, err := Shrink(h, recs, target, Options{})
		if err != nil {
			t.Errorf("%s %s: %v", m[1], m[2], err)
			continue
		}
		if got := fmt.Sprintf("%d → %d | %d", len(recs), len(res.Kept), res.Tests); got != m[4]+" → "+m[5]+" | "+m[6] {
			t.Errorf("docs/shrink.md says %s %s: %s → %s records in %s passes; shrink does %s", m[1], m[2], m[4], m[5], m[6], got)
		}
	}
}

// boo1211c16 is the clawboo whose guard loses replies: the UI whose
// findings these tests shrink.
var boo1211c16 = models.MustLookup("clawboo@1211c16")
