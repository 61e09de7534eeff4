package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/finding"
	"github.com/clawtap/clawtap/pkg/pipeline"
)

// reporter is a Reporter of the pass: it reports what at makes of each
// record (before the report sees it), and what end makes at the end.
type reporter struct {
	report func(*finding.Finding) error
	at     func(f *pipeline.Frame) []finding.Finding
	end    []finding.Finding
}

func (c *reporter) Needs() pipeline.Needs                     { return 0 }
func (c *reporter) SetReport(fn func(*finding.Finding) error) { c.report = fn }
func (c *reporter) Before(f *pipeline.Frame) error            { return c.send(c.at(f)) }
func (c *reporter) End(*pipeline.End) error                   { return c.send(c.end) }
func (c *reporter) send(fs []finding.Finding) error {
	for k := range fs {
		if err := c.report(&fs[k]); err != nil {
			return err
		}
	}
	return nil
}

// buildWith builds the report of a capture (a file, or its bytes) with
// c's findings.
func buildWith(t *testing.T, path string, data []byte, c *reporter, opts Options) *Report {
	t.Helper()
	var r *capture.Reader
	var err error
	if path != "" {
		r, err = capture.Open(path, capture.Options{})
	} else {
		r, err = capture.NewReader(bytes.NewReader(data), capture.Options{})
	}
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	return runPass(t, pipeline.Options{}, r, c, NewBuilder(opts))
}

// Findings come back sorted by record then rule, the whole capture's
// last, each on its run (by number, or, until every Reporter sets it, by
// the id the table holds) or else on its session's lane.
func TestFindingsSortedAndPlaced(t *testing.T) {
	path := fixturePath(t, "demo.jsonl.zst")
	run := runAt(t, buildFile(t, path, Options{}), 0)
	c := &reporter{at: func(f *pipeline.Frame) []finding.Finding {
		switch {
		case f.Rec.Index == 0: // before its run was born: its number places it
			return []finding.Finding{{Rule: "z-early", Severity: finding.Warn, I: 5, Run: 1, RunID: run.ID, Message: "by number"},
				{Rule: "a-capture", Severity: finding.Error, I: -1, Message: "the whole capture"}}
		case f.Run != nil && f.Rec.Index == run.TermI:
			return []finding.Finding{{Rule: "m-id", Severity: finding.Info, I: 5, RunID: run.ID, Message: "by id"}}
		}
		return nil
	}, end: []finding.Finding{{Rule: "a-early", Severity: finding.Info, I: 5, RunID: "no-such-run", SessionKey: "agent:main:main", Message: "on the lane"}}}
	rep := buildWith(t, path, nil, c, Options{})
	fs := allFindings(t, rep)
	if len(fs) != 4 || rep.Summary.FindingsError != 1 || rep.Summary.FindingsWarn != 1 || rep.Summary.FindingsInfo != 2 {
		t.Fatalf("findings %+v, summary %+v", fs, rep.Summary)
	}
	var got []string
	for _, f := range fs {
		got = append(got, fmt.Sprintf("%s run %d lane %d: %s", f.Rule, f.Run, f.Lane, f.Message))
	}
	want := []string{"a-early run 0 lane 0: on the lane", "m-id run 1 lane 0: by id", "z-early run 1 lane 0: by number", "a-capture run 0 lane -1: the whole capture"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("findings:\n got %q\nwant %q", got, want)
	}
}

// scattered makes many findings out of order: pinned on records up to 60
// back, on the record's run, on runs by number, on lanes, on the whole
// capture, under rules in no order.
func scattered(f *pipeline.Frame) []finding.Finding {
	i := f.Rec.Index
	if i%3 != 0 {
		return nil
	}
	rules := [...]string{"r3", "r0", "r4", "r1", "r2"}
	fd := finding.Finding{Rule: rules[i%5], Severity: finding.Info, I: max(i-(i*7)%60, 0), T: f.Rec.T, Conn: f.Rec.Conn, Message: fmt.Sprint("finding ", i, strings.Repeat("·", i%40))}
	switch i % 4 {
	case 0:
		fd.RunID, fd.SessionKey = f.Event.RunID, f.Event.SessionKey
	case 1:
		fd.Run = 1 + i%7
	case 2:
		fd.RunID, fd.SessionKey = "no-such-run", f.Event.SessionKey
	}
	if i%97 == 0 {
		fd.I = -1
	}
	return []finding.Finding{fd}
}

// Findings that fill several blocks, each sorted and written to the spool,
// merged as they are read back, give the page and trace that one block
// gives.
func TestFindingBlocksMergeTheSame(t *testing.T) {
	skipLarge(t) // eight passes over 3,000 frames; the blocks are sorted and merged on one goroutine
	data := large(t, 3000)
	write := func(block int, trace bool) ([]byte, *Report) {
		defer func(n int) { findBlock = n }(findBlock)
		findBlock = block
		rep := buildWith(t, "", data, &reporter{at: scattered}, Options{Name: "large", NoBodies: trace})
		return pageOrTrace(t, rep, trace), rep
	}
	for _, trace := range []bool{false, true} {
		want, rep := write(1<<30, trace)
		if n := rep.NumFindings(); n < 900 || len(rep.finds.blocks) != 1 {
			t.Fatalf("%d findings in %d blocks: the test wants many, in one block", n, len(rep.finds.blocks))
		}
		for _, block := range []int{1, 200, 5000} {
			got, rep := write(block, trace)
			if len(rep.finds.blocks) < 2 {
				t.Errorf("blocks of %d bytes: %d block(s)", block, len(rep.finds.blocks))
			}
			if !bytes.Equal(got, want) {
				t.Errorf("trace %v, blocks of %d bytes: the output differs from one block's", trace, block)
			}
		}
	}
}

// A finding on a lane without a run follows its lane when the lanes are
// compacted: here the lane run a opened before a frame named its session
// is dropped, and the other session's lane moves down by one.
func TestFindingLaneFollowsCompaction(t *testing.T) {
	lines := []string{
		`{"clawtap":1,"createdAt":"2026-11-22T03:23:55Z","source":{"tool":"test","mode":"record"},"redaction":{"credentials":true,"content":false}}`,
		`{"t":1000,"conn":1,"mark":"open","url":"ws://x/"}`,
		`{"t":1001,"conn":1,"dir":"in","frame":{"type":"event","event":"agent","payload":{"runId":"a","stream":"lifecycle","data":{"phase":"start"}}}}`,
		chatLine(1002, "a", "delta"),
		`{"t":1003,"conn":1,"dir":"in","frame":{"type":"event","event":"chat","payload":{"runId":"b","sessionKey":"agent:main:other","state":"delta","message":{"role":"assistant","content":[{"type":"text","text":"yo"}]}}}}`,
	}
	c := &reporter{at: func(*pipeline.Frame) []finding.Finding { return nil },
		end: []finding.Finding{{Rule: "on-lane", Severity: finding.Info, I: 3, SessionKey: "agent:main:other", Message: "the other session"}}}
	rep := buildWith(t, "", []byte(strings.Join(lines, "\n")+"\n"), c, Options{})
	if rep.Rows.remap == nil {
		t.Fatalf("no lane was dropped (lanes %+v): the capture no longer has what this test needs", rep.Lanes)
	}
	fs := allFindings(t, rep)
	if len(fs) != 1 || fs[0].Run != 0 || fs[0].Lane < 0 || fs[0].Lane >= len(rep.Lanes) || rep.Lanes[fs[0].Lane].SessionKey != "agent:main:other" {
		t.Fatalf("finding %+v, lanes %+v", fs, rep.Lanes)
	}
}

// A run or finding that does not read back whole is an error of the
// report, not a wrong page.
func TestCorruptSpoolIsAnError(t *testing.T) {
	for _, what := range []string{"run", "finding"} {
		rep := buildFile(t, fixturePath(t, "demo.jsonl.zst"), Options{})
		switch what {
		case "run":
			rep.runs.sp.end-- // the last run is cut short
		case "finding":
			rep.finds.blocks[0].n--
		}
		if err := WriteHTML(io.Discard, rep); err == nil {
			t.Errorf("%s: a page was written from a corrupt spool", what)
		}
	}
}
