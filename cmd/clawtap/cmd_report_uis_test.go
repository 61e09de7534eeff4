package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// reportFinding is a finding as the page's data and check's json have it.
type reportFinding struct {
	Rule   string   `json:"rule"`
	I      int      `json:"i"`
	RunID  string   `json:"runId"`
	Run    int      `json:"run"`
	UIs    []string `json:"uis"`
	NotUIs []string `json:"notUis"`
}

func (f reportFinding) String() string {
	return fmt.Sprintf("%s #%d %s shown by %v not by %v", f.Rule, f.I, f.RunID, f.UIs, f.NotUIs)
}

// report --ui all replays the first UI and shows check --ui all's
// findings, each with the UI versions that show it and those that do
// not, pinned on its record (whose details it keeps) and run.
func TestReportUIsAll(t *testing.T) {
	dir := t.TempDir()
	in := fixture(t, "streamed-run.jsonl.zst")
	out := filepath.Join(dir, "all.html")
	r := run(t, "", "report", "--ui", "all", in, "-o", out)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	page := readFile(t, out)
	data, _ := reportData(t, page)
	golden(t, "report-streamed-run.uis-all.data.json", data)

	var d struct {
		Meta struct {
			UI  string   `json:"ui"`
			UIs []string `json:"uis"`
		} `json:"meta"`
		Runs     []struct{ RunID string } `json:"runs"`
		Findings []reportFinding          `json:"findings"`
		Bodies   []struct{ I int }        `json:"bodies"`
	}
	if err := json.Unmarshal([]byte(data), &d); err != nil {
		t.Fatal(err)
	}
	all := []string{"clawboo@1211c16", "clawboo@59639f1", "claw3d@eeb6f31", "control-ui@2026.9.6"}
	if d.Meta.UI != all[0] || fmt.Sprint(d.Meta.UIs) != fmt.Sprint(all) {
		t.Errorf("meta: replayed as %q, checked under %v; want %q and %v", d.Meta.UI, d.Meta.UIs, all[0], all)
	}

	// The same findings as check --ui all, in the page's order.
	c := run(t, "", "check", "--ui", "all", "--format", "json", in)
	var want []reportFinding
	for _, line := range strings.Split(strings.TrimSpace(c.stdout), "\n") {
		var f reportFinding
		if err := json.Unmarshal([]byte(line), &f); err != nil {
			t.Fatal(err)
		}
		if f.Rule != "" {
			want = append(want, f)
		}
	}
	got := map[string]bool{}
	kept := map[int]bool{}
	for _, b := range d.Bodies {
		kept[b.I] = true
	}
	lost := false
	for _, f := range d.Findings {
		if f.Run < 0 || d.Runs[f.Run].RunID != f.RunID {
			t.Errorf("%v: pinned on run %d, not its own", f, f.Run)
		}
		if !kept[f.I] {
			t.Errorf("%v: record #%d lost its details", f, f.I)
		}
		f.Run = 0
		got[f.String()] = true
		lost = lost || f.Rule == "lost-reply" && fmt.Sprint(f.UIs) == "[clawboo@1211c16]"
	}
	for _, f := range want {
		if !got[f.String()] {
			t.Errorf("check --ui all found %v; the page lacks it", f)
		}
	}
	if len(d.Findings) != len(want) || !lost {
		t.Errorf("%d findings on the page, %d from check; lost-reply under clawboo@1211c16 alone: %v", len(d.Findings), len(want), lost)
	}
	if !strings.Contains(r.stderr, fmt.Sprintf("%d finding(s)", len(want))) {
		t.Errorf("summary: %s", r.stderr)
	}

	// The same bytes again: the lanes' timing is not in the page.
	again := filepath.Join(dir, "again.html")
	if r := run(t, "", "report", "--ui", "all", in, "-o", again); r.code != 0 || readFile(t, again) != page {
		t.Errorf("a second run differs (exit %d %s)", r.code, r.stderr)
	}

	// The trace carries the lists in the findings' args.
	tr := run(t, "", "report", "--ui", "all", "--format", "trace", in, "-o", "-")
	var v struct {
		OtherData   struct{ UIs []string } `json:"otherData"`
		TraceEvents []struct {
			Name string
			Args reportFinding
		}
	}
	if err := json.Unmarshal([]byte(tr.stdout), &v); err != nil {
		t.Fatalf("trace: %v (exit %d %s)", err, tr.code, tr.stderr)
	}
	n := 0
	for _, e := range v.TraceEvents {
		if e.Name == "finding: lost-reply" {
			n++
			if fmt.Sprint(e.Args.UIs, e.Args.NotUIs) != fmt.Sprint(all[:1], all[1:]) {
				t.Errorf("trace's lost-reply: shown by %v, not by %v", e.Args.UIs, e.Args.NotUIs)
			}
		}
	}
	if n != 1 || fmt.Sprint(v.OtherData.UIs) != fmt.Sprint(all) {
		t.Errorf("trace: %d lost-reply finding(s), otherData.uis %v", n, v.OtherData.UIs)
	}
}

// A list of UIs is replayed as its first in the order 'clawtap uis' lists
// them (clawboo is its newest version); stale-terminal's findings tell
// clawboo from claw3d.
func TestReportUIsList(t *testing.T) {
	r := run(t, "", "report", "--ui", "claw3d,clawboo", fixture(t, "stale-terminal.jsonl.zst"), "-o", "-")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	data, _ := reportData(t, r.stdout)
	var d struct {
		Meta struct {
			UI  string   `json:"ui"`
			UIs []string `json:"uis"`
		} `json:"meta"`
		Findings []reportFinding `json:"findings"`
	}
	if err := json.Unmarshal([]byte(data), &d); err != nil {
		t.Fatal(err)
	}
	if d.Meta.UI != "clawboo@59639f1" || fmt.Sprint(d.Meta.UIs) != "[clawboo@59639f1 claw3d@eeb6f31]" {
		t.Errorf("replayed as %q, checked under %v", d.Meta.UI, d.Meta.UIs)
	}
	differ := false
	for _, f := range d.Findings {
		if f.UIs != nil && len(f.UIs)+len(f.NotUIs) != 2 {
			t.Errorf("%v: every UI checked is one or the other", f)
		}
		differ = differ || len(f.UIs) == 1 && len(f.NotUIs) == 1
	}
	if !differ {
		t.Errorf("no finding tells clawboo from claw3d: %v", d.Findings)
	}
	// --format otlp takes the same list: its findings' events carry it.
	o := run(t, "", "report", "--format", "otlp", "--ui", "claw3d,clawboo", fixture(t, "stale-terminal.jsonl.zst"), "-o", "-")
	if o.code != 0 || !strings.Contains(o.stdout, `"clawtap.finding.not_uis"`) || !strings.Contains(o.stdout, `"claw3d@eeb6f31"`) {
		t.Errorf("--format otlp: exit %d, no UI lists in the findings' events: %s", o.code, o.stderr)
	}
	for _, bad := range []string{"nosuch", "clawboo,nosuch"} {
		if r := run(t, "", "report", "--ui", bad, fixture(t, "demo.jsonl.zst"), "-o", "-"); r.code != 2 || !strings.Contains(r.stderr, "--ui") {
			t.Errorf("--ui %s: exit %d %q", bad, r.code, r.stderr)
		}
	}
}
