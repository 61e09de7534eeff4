package stats_test

import (
	"path/filepath"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/check"
	"github.com/clawtap/clawtap/pkg/finding"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/stats"
)

// seen keeps every finding the pass hands its FindingObservers.
type seen []finding.Finding

func (*seen) Needs() pipeline.Needs { return 0 }
func (s *seen) Finding(f *finding.Finding) error {
	*s = append(*s, *f)
	return nil
}

// check, stats and any other FindingObserver are peers in one pass: each
// receives every finding check reports, numbered with its run, and stats
// counts what check counted.
func TestFindingsReachEveryPeer(t *testing.T) {
	for _, name := range []string{"stale-terminal.jsonl.zst", "demo.jsonl.zst", "exec-approval.jsonl.zst"} {
		r, err := capture.Open(filepath.Join("..", "..", "fixtures", name), capture.Options{})
		if err != nil {
			t.Fatal(err)
		}
		an, err := check.New(check.Options{})
		if err != nil {
			t.Fatal(err)
		}
		c, got := stats.New(), &seen{}
		if err := pipeline.New(pipeline.Options{}, got, an, c).Run(pipeline.Records(r)); err != nil {
			t.Fatal(err)
		}
		r.Close()
		sum, st := an.Summary(), c.Result()
		if len(*got) != sum.Errors+sum.Warnings+sum.Infos || len(*got) == 0 {
			t.Fatalf("%s: %d findings seen, check counted %+v", name, len(*got), sum)
		}
		if st.Findings == nil || st.Findings.Error != sum.Errors || st.Findings.Warn != sum.Warnings || st.Findings.Info != sum.Infos {
			t.Errorf("%s: stats counted %+v, check %+v", name, st.Findings, sum)
		}
		for _, f := range *got {
			if f.RunID != "" && f.Run <= 0 {
				t.Errorf("%s: %s finding of run %s carries no run number", name, f.Rule, f.RunID)
			}
		}
	}
}
