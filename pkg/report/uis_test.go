package report

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/check"
	"github.com/clawtap/clawtap/pkg/finding"
	"github.com/clawtap/clawtap/pkg/models"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/replay"
	"github.com/clawtap/clawtap/pkg/stats"
)

// pageFindings is what the page's data says of the checked UIs and of
// each finding's.
type pageFindings struct {
	Meta struct {
		UI  string   `json:"ui"`
		UIs []string `json:"uis"`
	} `json:"meta"`
	Findings []struct {
		Rule   string    `json:"rule"`
		I      int       `json:"i"`
		Run    int       `json:"run"`
		UIs    *[]string `json:"uis"`
		NotUIs *[]string `json:"notUis"`
	} `json:"findings"`
}

func readPage(t *testing.T, rep *Report) pageFindings {
	t.Helper()
	var d pageFindings
	if err := json.Unmarshal(dataOf(t, pageOrTrace(t, rep, false)), &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// With several UIs checked, the data names them, and each finding the
// ones that show it and those that do not, through the findings' spool
// and its sorted blocks; a page of one UI has none of those keys.
func TestFindingUIsInTheData(t *testing.T) {
	path := fixturePath(t, "demo.jsonl.zst")
	uis := []string{"a@1", "b@2", "c@3"}
	made := func(f *pipeline.Frame) []finding.Finding {
		if f.Rec.Index != 3 {
			return nil
		}
		return []finding.Finding{
			{Rule: "by-ui", Severity: finding.Warn, I: 3, UIs: []string{"b@2"}, NotUIs: []string{"a@1", "c@3"}, Message: "some"},
			{Rule: "none", Severity: finding.Info, I: 3, UIs: []string{}, NotUIs: uis, Message: "none shows it"},
			{Rule: "protocol", Severity: finding.Info, I: 3, Message: "every UI alike"},
		}
	}
	for _, block := range []int{1, 1 << 20} {
		func() {
			defer func(n int) { findBlock = n }(findBlock)
			findBlock = block
			rep := buildWith(t, path, nil, &reporter{at: made}, Options{UIs: uis})
			d := readPage(t, rep)
			if fmt.Sprint(d.Meta.UIs) != fmt.Sprint(uis) {
				t.Errorf("meta.uis %v", d.Meta.UIs)
			}
			got := ""
			for _, f := range d.Findings {
				if f.UIs == nil || f.NotUIs == nil {
					got += fmt.Sprintf("%s: no lists (%v %v); ", f.Rule, f.UIs, f.NotUIs)
					continue
				}
				got += fmt.Sprintf("%s: %v not %v; ", f.Rule, *f.UIs, *f.NotUIs)
			}
			if want := "by-ui: [b@2] not [a@1 c@3]; none: [] not [a@1 b@2 c@3]; protocol: no lists (<nil> <nil>); "; got != want {
				t.Errorf("blocks of %d bytes: %s\nwant %s", block, got, want)
			}
			trace := pageOrTrace(t, buildWith(t, path, nil, &reporter{at: made}, Options{UIs: uis, NoBodies: true}), true)
			if !bytes.Contains(trace, []byte(`"uis":["b@2"],"notUis":["a@1","c@3"]`)) || !bytes.Contains(trace, []byte(`"uis":["a@1","b@2","c@3"]},"traceEvents"`)) {
				t.Errorf("the trace lacks the finding's UIs:\n%.600s", trace)
			}
		}()
	}
	one := pageOrTrace(t, buildWith(t, path, nil, &reporter{at: func(*pipeline.Frame) []finding.Finding { return nil }}, Options{UIs: uis[:1]}), false)
	if bytes.Contains(one, []byte(`"uis"`)) || bytes.Contains(one, []byte(`"notUis"`)) {
		t.Error("a page of one UI names the UIs")
	}
}

// The page of every UI replays the first: its timeline, details, runs and
// transcripts are the first UI's page's; its findings are check.Multi's.
func TestReportAllReplaysTheFirstUI(t *testing.T) {
	for _, name := range []string{"streamed-run", "stale-terminal", "exec-approval", "reconnect"} {
		data, err := os.ReadFile(fixturePath(t, name+".jsonl.zst"))
		if err != nil {
			t.Fatal(err)
		}
		all := reportAll(t, data, Options{Name: name})
		one := buildBytesUI(t, data, Options{Name: name}, models.All()[0])
		var a, b map[string]json.RawMessage
		if json.Unmarshal(dataOf(t, pageOrTrace(t, all, false)), &a) != nil || json.Unmarshal(dataOf(t, pageOrTrace(t, one, false)), &b) != nil {
			t.Fatal("the data is not JSON")
		}
		for _, k := range []string{"conns", "lanes", "runs", "approvals", "gaps", "rows", "bodies", "timers", "view", "labels"} {
			if !bytes.Equal(a[k], b[k]) {
				t.Errorf("%s: %q differs from the first UI's page", name, k)
			}
		}
		// Its findings: those of the first UI's page, and those only
		// another UI shows, each with its lists.
		mine := map[string]bool{}
		for _, f := range allFindings(t, one) {
			mine[fmt.Sprint(f.Rule, f.I, f.Run)] = true
		}
		for _, f := range allFindings(t, all) {
			k := fmt.Sprint(f.Rule, f.I, f.Run)
			first := f.UIs == nil || len(f.UIs) > 0 && f.UIs[0] == all.Meta.UIs[0]
			if first != mine[k] {
				t.Errorf("%s: %s shown by %v not by %v; on the first UI's page: %v", name, k, f.UIs, f.NotUIs, mine[k])
			}
			delete(mine, k)
		}
		if len(mine) > 0 {
			t.Errorf("%s: findings of the first UI's page missing: %v", name, mine)
		}
	}
}

// lateReporter reports, at some records, a finding about a record well
// before, as check does about a run its table let go; it notes whether
// that record's details were kept when the finding came.
type lateReporter struct {
	reporter
	b       *Builder
	keptNow map[int]bool // by record: its details were kept when its finding came
}

// A finding that comes records after its record is pinned on that record
// and run all the same; the record's details, kept still when it came,
// become critical and outlast the plain ones kept after them; and one
// whose record's details were elided already is on the page too.
func TestLateFindingPinnedAndItsDetailsKept(t *testing.T) {
	data := large(t, 3000)
	c := &lateReporter{keptNow: map[int]bool{}}
	var runOf []int // the run of each record, from the pass
	c.at = func(f *pipeline.Frame) []finding.Finding {
		n := 0
		if f.Run != nil {
			n = f.Run.N
		}
		runOf = append(runOf, n)
		j := f.Rec.Index
		if j < 40 || j%25 != 0 {
			return nil
		}
		i := j - 40
		k, ok := slices.BinarySearchFunc(c.b.rep.Bodies, i, func(x Body, i int) int { return cmp.Compare(x.I, i) })
		c.keptNow[i] = ok && c.b.rep.Bodies[k].at.n > 0
		return []finding.Finding{{Rule: "late", Severity: finding.Info, I: i, Run: runOf[i], Message: fmt.Sprint("about record ", i)}}
	}
	c.b = NewBuilder(Options{Name: "large", MaxBytes: 256 << 10})
	r, err := capture.NewReader(bytes.NewReader(data), capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep := runPass(t, pipeline.Options{}, r, c, c.b)
	fs := allFindings(t, rep)
	if len(fs) != len(c.keptNow) {
		t.Fatalf("%d findings pinned, %d made", len(fs), len(c.keptNow))
	}
	kept, gone := 0, 0
	for _, f := range fs {
		if f.Run != runOf[f.I] {
			t.Errorf("finding about #%d pinned on run %d, want %d", f.I, f.Run, runOf[f.I])
		}
		k, ok := slices.BinarySearchFunc(rep.Bodies, f.I, func(x Body, i int) int { return cmp.Compare(x.I, i) })
		now := ok && rep.Bodies[k].at.n > 0
		switch {
		case c.keptNow[f.I] && !now:
			t.Errorf("#%d: its details were kept when its finding came, and were elided after", f.I)
		case c.keptNow[f.I] && rep.Bodies[k].Prio != prioCritical:
			t.Errorf("#%d: its details are not critical", f.I)
		case c.keptNow[f.I]:
			kept++
		default:
			gone++
		}
	}
	if kept == 0 || gone == 0 || rep.Summary.BodiesElided == 0 {
		t.Errorf("%d kept, %d elided before their finding, %d elided in all: the test wants some of each", kept, gone, rep.Summary.BodiesElided)
	}
}

// reportAll builds the report of a capture checked under every UI
// version, as clawtap report --ui all does.
func reportAll(t *testing.T, data []byte, opts Options) *Report {
	t.Helper()
	r, err := capture.NewReader(bytes.NewReader(data), capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	uis := models.All()
	for _, u := range uis {
		opts.UIs = append(opts.UIs, u.String())
	}
	m, err := check.NewMulti(check.Options{}, uis)
	if err != nil {
		t.Fatal(err)
	}
	b := NewBuilder(opts)
	st := stats.New()
	b.opts.Stats = func() ([]byte, error) { return json.Marshal(st.Result()) }
	if err := m.InlinePass(pipeline.Options{}, st, b).Run(pipeline.Records(r)); err != nil {
		t.Fatal(err)
	}
	rep := b.Report()
	t.Cleanup(func() {
		if err := rep.Close(); err != nil {
			t.Error(err)
		}
	})
	return rep
}

func buildBytesUI(t testing.TB, data []byte, opts Options, ui replay.UI) *Report {
	t.Helper()
	r, err := capture.NewReader(bytes.NewReader(data), capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return buildUI(t, r, opts, ui)
}
