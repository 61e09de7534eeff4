package check

import (
	"strconv"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/models"
	"github.com/clawtap/clawtap/pkg/replay"
	"github.com/clawtap/clawtap/pkg/runs"

	"github.com/clawtap/clawtap/internal/synth"
	"github.com/clawtap/clawtap/pkg/capture"
)

// stateOnly runs only the rules that read the replayed UI state.
var stateOnly = Options{Only: uiRules}

// realOrder builds a run the way real gateways end it (§7.2): lifecycle
// end first, then, with lateDelta, the chat stream's last throttled delta,
// then the chat final.
func realOrder(lateDelta bool) []capture.Record {
	s, _, r := streamed()
	r.End()
	if lateDelta {
		s.Advance(1)
		r.SayChatFirst(" More.")
	}
	r.Final()
	s.Advance(2000) // let the frames and timers settle
	return s.Records()
}

func TestStateRules(t *testing.T) {
	finalFirst := func() []capture.Record {
		s, c, r := streamed()
		r.Final()
		r.End()
		s.Advance(2000)
		_ = c
		return s.Records()
	}
	cases := []struct {
		name string
		recs []capture.Record
		ui   replay.UI
		want []string
		says []string // in the first finding's message
	}{
		{"§7.2 with a late delta, clawboo", realOrder(true), models.MustLookup("clawboo@1211c16"), []string{RuleLostReply, RuleGhostStream},
			[]string{"clawboo never shows run", "came after the run's own lifecycle end", "never billed", "streaming bubble"}},
		{"§7.2 with a late delta, Claw3D", realOrder(true), models.MustLookup("claw3d"), nil, nil},
		{"§7.2 without a late delta, clawboo", realOrder(false), models.MustLookup("clawboo@1211c16"), []string{RuleLostReply}, []string{"closed-run guard dropped the final's commitChat"}},
		{"§7.2 without a late delta, Claw3D", realOrder(false), models.MustLookup("claw3d"), nil, nil},
		{"final before the lifecycle end, clawboo", finalFirst(), models.MustLookup("clawboo@1211c16"), nil, nil},
		{"final before the lifecycle end, Claw3D", finalFirst(), models.MustLookup("claw3d"), nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fs := analyzeUI(t, tc.recs, stateOnly, false, tc.ui)
			expect(t, fs, tc.want...)
			for _, w := range tc.says {
				if !strings.Contains(fs[0].Message, w) {
					t.Errorf("message lacks %q: %s", w, fs[0].Message)
				}
			}
			for _, f := range fs {
				if f.RunID == "" || f.I < 0 || f.T == 0 || f.Severity != Warn {
					t.Errorf("a finding must name its run, record and time, at warn: %s", f.AppendJSON(nil))
				}
			}
		})
	}
}

// TestLostReplyNamesTheRecords: the lost reply points at the final and at
// the lifecycle end that closed the run, by index.
func TestLostReplyNamesTheRecords(t *testing.T) {
	recs := realOrder(false)
	fs := analyzeUI(t, recs, Options{Only: []string{RuleLostReply}}, false, models.MustLookup("clawboo@1211c16"))
	expect(t, fs, RuleLostReply)
	final, end := -1, -1
	for i, r := range recs {
		f := string(r.Frame)
		if strings.Contains(f, `"state":"final"`) {
			final = i
		}
		if strings.Contains(f, `"phase":"end"`) {
			end = i
		}
	}
	if fs[0].I != final || !strings.Contains(fs[0].Message, "(record "+strconv.Itoa(end)+")") {
		t.Fatalf("final #%d, end #%d: %s", final, end, fs[0].AppendJSON(nil))
	}
}

// billedTwice records a run whose final clawboo commits, and bills, twice:
// while an approval is pending clawboo skips the final's status patch, so
// the run stays open and the continuation's final is committed again.
func billedTwice() (*synth.Session, *synth.Conn, *synth.Run) {
	s := synth.New(42)
	c := s.Open(synth.ConnOptions{Caps: []string{"tool-events", "approvals"}})
	s.Advance(500)
	r := c.ChatSend(mainKey, "Clean the build.")
	r.Prepare()
	s.Advance(300)
	r.Say("Removing it.")
	s.Advance(75)
	a := r.RequestApproval("rm -rf build")
	s.Advance(50)
	r.Final() // the final before the pause: billed, the run kept open
	s.Advance(500)
	a.Resolve(nil, "allow-once", "operator", "removed")
	s.Advance(100)
	r.Say(" Done.")
	s.Advance(100)
	r.Final() // the continuation's final, same runId
	r.End()
	s.Advance(2000)
	return s, c, r
}

func TestBilledTwice(t *testing.T) {
	s, _, _ := billedTwice()
	fs := analyzeUI(t, s.Records(), Options{Only: []string{RuleBilling}}, false, models.MustLookup("clawboo@1211c16"))
	expect(t, fs, RuleBilling)
	if !strings.Contains(fs[0].Message, "2 times") {
		t.Fatalf("%s", fs[0].Message)
	}
	// Claw3D bills nothing, so billing never fires there.
	expect(t, analyzeUI(t, s.Records(), Options{Only: []string{RuleBilling}}, false, models.MustLookup("claw3d")))
}

// A run the table lets go (runs.DefaultMax runs later) is judged as one kept to
// the end: its double bill is still found.
func TestBilledTwiceJudgedWhenForgotten(t *testing.T) {
	s, c, r := billedTwice()
	for k := 0; k <= runs.DefaultMax; k++ {
		s.Advance(500)
		more := c.ChatSend("agent:ops:main", "Again.")
		more.Start()
		more.Say("Yes.")
		more.End()
		more.Final()
	}
	fs := analyzeUI(t, s.Records(), Options{Only: []string{RuleBilling}}, false, models.MustLookup("clawboo@1211c16"))
	expect(t, fs, RuleBilling)
	if fs[0].RunID != r.ID || !strings.Contains(fs[0].Message, "2 times") {
		t.Fatalf("%s", fs[0].AppendJSON(nil))
	}
}

// TestAgentOnlyRunLeavesABubble: clawboo's chat store clears a session's
// streaming text only on an applied commitChat; a run that ends without a
// chat terminal leaves the bubble on screen.
func TestAgentOnlyRunLeavesABubble(t *testing.T) {
	s, _, r := streamed()
	r.End()
	s.Advance(2000)
	fs := analyzeUI(t, s.Records(), stateOnly, false, models.MustLookup("clawboo@1211c16"))
	expect(t, fs, RuleGhostStream)
	if !strings.Contains(fs[0].Message, "streaming bubble") || fs[0].I < 0 {
		t.Fatalf("%s", fs[0].AppendJSON(nil))
	}
}
