package shrink

import (
	"slices"
	"testing"

	"github.com/clawtap/clawtap/internal/synth"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/check"
)

// BenchmarkShrink shrinks a generated 20,000-frame session (many runs of
// three agents) for a failed run and for a frame lost in the middle; it
// reports the check passes each search ran and the records it kept.
func BenchmarkShrink(b *testing.B) {
	var recs []capture.Record
	if err := synth.LargeEach(20_000, 1, func(r *capture.Record) error {
		recs = append(recs, *r.Clone())
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	recs = slices.Delete(recs, len(recs)/2, len(recs)/2+1) // a frame lost
	h := synth.NewHeader("benchmark")
	for _, rule := range []string{check.RuleRunFailed, check.RuleSeqGap} {
		b.Run(rule, func(b *testing.B) {
			var res *Result
			for b.Loop() {
				var err error
				if res, err = Shrink(&h, recs, Target{Rule: rule}, Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(res.Tests), "tests")
			b.ReportMetric(float64(len(res.Kept)), "kept")
			b.ReportMetric(float64(len(recs)), "records")
		})
	}
}
