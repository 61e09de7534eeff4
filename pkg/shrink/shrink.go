// Package shrink cuts a capture down to the records that still show one
// of check's findings: delta debugging (ddmin) over the capture's records
// held in memory, with a predicate that runs check on each candidate. A
// large capture is read as a stream to find the finding, and only a window
// of it before the finding is held (window.go).
//
// Candidates are coherent captures, not arbitrary record sets: a kept
// frame keeps its connection's handshake (open and hello markers,
// challenge, connect request and response), a dropped connection takes its
// markers with it, and markers or a handshake are never kept on their own
// (see units.go). Every candidate therefore replays.
//
// The search cuts coarse pieces first — whole connections, then whole
// runs — and then single units, and caches every verdict by the set of
// records tested, so a capture of thousands of records takes a few dozen
// check passes (BenchmarkShrink: 27 for 20,000 records). It is deterministic: no randomness, no map order, and no
// clock; the same input and target give the same records and the same
// number of tests.
package shrink

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/check"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/replay"
)

// Target is the finding to keep: a check rule, optionally for one run,
// with the UI the replay models (it matters to rules that replay).
type Target struct {
	Rule string
	Run  string    // "" for any run
	UI   replay.UI // the zero UI is the default (models.Default)
	// SlowMs and IdleMs are check's thresholds (check.Options); 0 means
	// check's defaults.
	SlowMs, IdleMs int64
}

// options are the check options a pass runs with: the rule alone.
func (t Target) options() check.Options {
	return check.Options{Only: []string{t.Rule}, SlowMs: t.SlowMs, IdleMs: t.IdleMs}
}

// String describes the target for messages: "duplicate-terminal (run r1)".
func (t Target) String() string {
	if t.Run == "" {
		return t.Rule
	}
	return t.Rule + " (run " + t.Run + ")"
}

// Options tune a search.
type Options struct {
	// MaxTests bounds the check passes the search runs (verdicts answered
	// from the cache are free); 0 means no bound. When it is reached the
	// smallest capture found so far is the result (Result.Exhausted).
	MaxTests int
	// Progress, if set, is told when each stage of the search ends.
	Progress func(Progress)
	// Anchor, when set, is the finding to keep, its I an index of the
	// records given (Window's): the search checks that they show it,
	// instead of taking the rule's first finding in them.
	Anchor *check.Finding
	// Tested counts the check passes already run for this search (Locate's
	// and Window's): they count toward MaxTests and in Result.Tests.
	Tested int
}

// The stages of a search, in order.
const (
	StageConnections = "connections"
	StageRuns        = "runs"
	StageRecords     = "records"
)

// Progress is where a search stands.
type Progress struct {
	Stage string // the stage that just ended
	Kept  int    // records kept so far
	Total int    // records in the input
	Tests int    // check passes run so far
}

// Result is a shrunk capture.
type Result struct {
	// Kept holds the indices of the input records kept, increasing.
	Kept  []int
	Total int // records in the input
	Tests int // check passes run
	// Exhausted: Options.MaxTests was reached before the search ended;
	// Kept still shows the finding but may not be minimal.
	Exhausted bool
	// Finding is the target's finding in the kept records (its record
	// index counts kept records only).
	Finding check.Finding
	// Replays reports that the rule needs the replay, so the UI matters.
	Replays bool
}

// Records returns the kept records of recs, in order.
func (r *Result) Records(recs []capture.Record) []capture.Record {
	out := make([]capture.Record, 0, len(r.Kept))
	for _, i := range r.Kept {
		out = append(out, recs[i])
	}
	return out
}

// ErrNotShown is matched by a NotShownError.
var ErrNotShown = errors.New("the capture does not show the finding")

// NotShownError says that the input capture does not show the target at
// all, so there is nothing to shrink.
type NotShownError struct {
	Target Target
	// Runs lists the runs the rule's findings concern when the target
	// names a run and the rule fires for others, sorted.
	Runs []string
}

func (e *NotShownError) Error() string {
	under := ""
	if !e.Target.UI.IsZero() {
		under = " under " + e.Target.UI.String()
	}
	if e.Target.Run == "" {
		return fmt.Sprintf("check reports no %s finding%s", e.Target.Rule, under)
	}
	if len(e.Runs) == 0 {
		return fmt.Sprintf("check reports no %s finding for run %s%s", e.Target.Rule, e.Target.Run, under)
	}
	return fmt.Sprintf("check reports no %s finding for run %s%s (it does for run %s)", e.Target.Rule, e.Target.Run, under, strings.Join(e.Runs, ", "))
}

func (e *NotShownError) Is(target error) bool { return target == ErrNotShown }

// unshrinkable names rules a shrunk capture cannot show, and why.
var unshrinkable = map[string]string{
	check.RuleCaptureTruncated: "it is about how the file ends (a recorder killed mid-write), not about its records, and a shrunk capture is written whole",
}

// Validate checks a target: a known rule that records can show.
func (t Target) Validate() error {
	if _, ok := check.LookupRule(t.Rule); !ok {
		return fmt.Errorf("unknown rule %q", t.Rule)
	}
	if why, ok := unshrinkable[t.Rule]; ok {
		return fmt.Errorf("%s cannot be shrunk: %s", t.Rule, why)
	}
	if t.SlowMs < 0 || t.IdleMs < 0 {
		return errors.New("the slow and idle thresholds must not be negative")
	}
	return nil
}

// Shrink returns the fewest records of recs it finds that still show the
// target, under h: the target's first finding in recs, at the same
// record, with the same severity (and message, for the frame seq rules).
// It returns a NotShownError when recs do not show the target at all.
func Shrink(h *capture.Header, recs []capture.Record, t Target, opts Options) (*Result, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	pr := newPredicate(h, recs, t)
	all := indices(len(recs))
	var shown bool
	var found check.Finding
	var runs []string
	var err error
	if a := opts.Anchor; a != nil {
		pr.anchor, pr.anchorI = *a, a.I
		var f *check.Finding
		if shown, f, err = pr.test(all); shown {
			found = *f
		}
	} else {
		shown, found, runs, err = pr.full(all)
	}
	if err != nil {
		return nil, err
	}
	if !shown {
		return nil, &NotShownError{Target: t, Runs: runs}
	}
	p := newPlan(recs)
	s := &search{
		plan:     p,
		test:     pr.test,
		maxTests: opts.MaxTests,
		tests:    opts.Tested + 1, // and the pass over the whole capture
		cache:    map[string]verdict{},
		mask:     make([]bool, len(recs)),
		keptRecs: len(recs),
		found:    found,
	}
	s.kept = make([]int, len(p.units))
	for k := range s.kept {
		s.kept[k] = k
	}
	s.cache[s.keyOf(all)] = verdict{ok: true, finding: found}
	report := func(stage string) {
		if opts.Progress != nil {
			opts.Progress(Progress{Stage: stage, Kept: s.keptRecs, Total: len(recs), Tests: s.tests})
		}
	}

	// Whole connections first, then whole runs, then single units.
	s.byConnection()
	report(StageConnections)
	s.byRun()
	report(StageRuns)
	s.byUnit()
	report(StageRecords)
	if s.err != nil {
		return nil, s.err
	}
	return &Result{
		Kept:      p.expand(s.kept, s.mask),
		Total:     len(recs),
		Tests:     s.tests,
		Exhausted: s.exhausted,
		Finding:   s.found,
		Replays:   pr.replays,
	}, nil
}

// byConnection drops whole connections.
func (s *search) byConnection() {
	items := make([][]int, len(s.plan.conns))
	for _, k := range s.kept {
		c := s.plan.units[k].conn
		items[c] = append(items[c], k)
	}
	items = slices.DeleteFunc(items, func(it []int) bool { return len(it) == 0 })
	if len(items) > 1 {
		s.kept = flatten(s.ddmin(nil, items))
	}
}

// byRun drops whole runs, keeping every record that belongs to none.
func (s *search) byRun() {
	items := make([][]int, s.plan.runs)
	var base []int
	for _, k := range s.kept {
		if r := s.plan.units[k].run; r >= 0 {
			items[r] = append(items[r], k)
		} else {
			base = append(base, k)
		}
	}
	items = slices.DeleteFunc(items, func(it []int) bool { return len(it) == 0 })
	if len(items) == 0 || s.stopped() {
		return
	}
	left := s.ddmin(base, items)
	s.kept = flatten(append(left, base))
}

// byUnit drops single units until none can go.
func (s *search) byUnit() {
	if s.stopped() {
		return
	}
	items := make([][]int, len(s.kept))
	for i, k := range s.kept {
		items[i] = []int{k}
	}
	if len(items) > 1 {
		s.kept = flatten(s.ddmin(nil, items))
	}
}

// predicate runs check over candidate record sets.
type predicate struct {
	h       *capture.Header
	recs    []capture.Record
	t       Target
	replays bool
	// anchor is the input's finding a candidate must still show: the
	// same rule and severity, at the same input record (and, for the
	// frame seq rules, whose evidence is the seq numbers around it, with
	// the same message).
	anchor   check.Finding
	anchorI  int // the anchor's record, as an index of the input
	sameText bool
}

func newPredicate(h *capture.Header, recs []capture.Record, t Target) *predicate {
	pr := &predicate{h: h, recs: recs, t: t}
	if an, err := check.New(t.options()); err == nil {
		pr.replays = an.Needs()&pipeline.Replay != 0
	}
	rule, _ := check.LookupRule(t.Rule)
	pr.sameText = rule.Group == "seq"
	return pr
}

// errFound ends a pass at the first matching finding.
var errFound = errors.New("found")

// test reports whether the records with these indices (increasing) show
// the anchor finding.
func (pr *predicate) test(idx []int) (bool, *check.Finding, error) {
	var hit *check.Finding
	err := pr.run(idx, func(f *check.Finding) error {
		if pr.same(f, idx) {
			c := *f
			hit = &c
			return errFound
		}
		return nil
	})
	if err != nil && !errors.Is(err, errFound) {
		return false, nil, err
	}
	return hit != nil, hit, nil
}

// full runs check over the whole input (idx is every index) and anchors
// the predicate on the target's first finding. When there is none, it
// returns the runs the rule fires for, to explain a run that shows
// nothing.
func (pr *predicate) full(idx []int) (bool, check.Finding, []string, error) {
	first := firstOf{pr: pr}
	err := pr.run(idx, first.see)
	if err != nil || first.hit == nil {
		return false, check.Finding{}, first.sortedRuns(), err
	}
	pr.anchor, pr.anchorI = *first.hit, first.hit.I
	return true, *first.hit, nil, nil
}

// firstOf keeps, of the findings of a pass over the whole input, the
// target's first, and the runs the rule fires for (to explain a run that
// shows nothing).
type firstOf struct {
	pr   *predicate
	hit  *check.Finding
	runs []string
}

func (c *firstOf) see(f *check.Finding) error {
	if c.pr.matches(f) && c.hit == nil {
		h := *f
		c.hit = &h
	}
	if f.RunID != "" && !slices.Contains(c.runs, f.RunID) {
		c.runs = append(c.runs, f.RunID)
	}
	return nil
}

func (c *firstOf) sortedRuns() []string {
	slices.Sort(c.runs)
	return c.runs
}

// matches: the target's rule, and its run when one is given.
func (pr *predicate) matches(f *check.Finding) bool {
	return f.Rule == pr.t.Rule && (pr.t.Run == "" || f.RunID == pr.t.Run)
}

// same reports whether f, made on the records idx, is the anchor.
func (pr *predicate) same(f *check.Finding, idx []int) bool {
	if !pr.matches(f) || f.Severity != pr.anchor.Severity || f.RunID != pr.anchor.RunID {
		return false
	}
	at := -1
	if f.I >= 0 && f.I < len(idx) {
		at = idx[f.I]
	}
	if at != pr.anchorI {
		return false
	}
	return !pr.sameText || f.Message == pr.anchor.Message
}

// run is one pipeline pass of check, with only the target's rule on,
// over the records with these indices.
func (pr *predicate) run(idx []int, onFinding func(*check.Finding) error) error {
	an, err := check.New(pr.t.options())
	if err != nil {
		return err
	}
	an.OnFinding = onFinding
	opts := pipeline.Options{Replay: replay.Options{UI: pr.t.UI}}
	return pipeline.New(opts, an).Run(&picked{h: pr.h, recs: pr.recs, idx: idx})
}

// picked is the records of recs at idx, in order, as a Source: each
// record's Index is its position among them, as pipeline.Slice numbers
// them, without a copy of the records.
type picked struct {
	h    *capture.Header
	recs []capture.Record
	idx  []int
	k    int
	rec  capture.Record
}

func (s *picked) Next() (*capture.Record, *bridge.Event, error) {
	if s.k >= len(s.idx) {
		return nil, nil, io.EOF
	}
	s.rec = s.recs[s.idx[s.k]]
	s.rec.Index = s.k
	s.k++
	return &s.rec, nil, nil
}

func (s *picked) Header() *capture.Header { return s.h }
func (s *picked) Stats() capture.Stats    { return capture.Stats{Records: s.k} }
