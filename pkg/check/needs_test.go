package check

import (
	"testing"

	"github.com/clawtap/clawtap/pkg/gaps"
	"github.com/clawtap/clawtap/pkg/pipeline"
)

// Every kind the seq detector finds is one of gapRules, and the check asks
// the pass for the detector exactly when one of them runs: the lanes of a
// check under several UIs, which run only the rules that depend on the UI,
// do without it.
func TestNeedsGapsForGapRulesOnly(t *testing.T) {
	for _, k := range []string{gaps.Gap, gaps.Duplicate, gaps.Backwards, gaps.FirstSeq, gaps.GatewayGap, gaps.RunSeqJump} {
		r := gapRule(k)
		found := false
		for _, g := range gapRules {
			found = found || g == r
		}
		if r == "" || !found {
			t.Errorf("the seq detector's %q finding has rule %q, not among gapRules", k, r)
		}
	}
	for _, c := range []struct {
		only []string
		want bool
	}{
		{nil, true},
		{[]string{RuleSeqGap}, true},
		{[]string{RuleRunSeqJump}, true},
		{uiRules, false},
		{[]string{RuleDroppedFinal}, false},
	} {
		a, err := New(Options{Only: c.only})
		if err != nil {
			t.Fatal(err)
		}
		if got := a.Needs()&pipeline.Gaps != 0; got != c.want {
			t.Errorf("only %v: needs gaps %v, want %v", c.only, got, c.want)
		}
	}
}
