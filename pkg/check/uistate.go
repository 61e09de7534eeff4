package check

import (
	"fmt"

	"github.com/clawtap/clawtap/pkg/outcome"
	"github.com/clawtap/clawtap/pkg/runs"
)

// The rules that read the replayed UI state: what the user ended up with,
// run by run (pkg/outcome), under the UI the replay models.

// stateRules are the rules the outcome ledger serves; uiRules all the
// rules whose findings depend on the UI the replay models.
var (
	stateRules = []string{RuleLostReply, RuleGhostStream, RuleBilling}
	uiRules    = append(append([]string{RuleDroppedFinal}, stateRules...), hazardRules...)
)

// RunDone explains a run the pass's run table let go, if what the UI
// made of it went wrong: when newer runs crowded it out, or at the end of
// the capture. Then check forgets it.
func (a *Analyzer) RunDone(tr *runs.Run, o *outcome.Run) {
	if a.states && o != nil { // nil: the replay never saw the run
		a.outcome(o)
	}
	a.letGo(tr)
}

// outcome explains what the UI left the user with of one run.
func (a *Analyzer) outcome(r *outcome.Run) {
	ui := r.UI.Title()
	if a.names != nil {
		ui = a.names(r.UI)
	}
	lost := r.Terminal == "final" && r.HasReply && !r.Committed
	if lost && !(r.Dropped == "guard" && r.ClosedByRun != "" && r.ClosedByRun != r.ID && a.enabled[RuleDroppedFinal]) {
		a.lostReply(ui, r)
	}
	if r.Ghost {
		a.add(RuleGhostStream, 0, r.GhostI, r.GhostT, r.Conn, nil, r.ID, r.AgentID, r.Session, ghostSentence(ui, r))
	} else if r.Bubble != "" && !lost {
		a.add(RuleGhostStream, 0, r.EndI, r.EndT, r.Conn, nil, r.ID, r.AgentID, r.Session, fmt.Sprintf(
			"After run %s ended, %s still shows a streaming bubble %s for session %s: only an applied commitChat clears it.", r.ID, ui, clipQuote(r.Bubble, 60), r.Session))
	}
	if r.Billing && r.Terminal == "final" && !lost {
		switch {
		case r.Bills > 1:
			a.add(RuleBilling, 0, r.TerminalI, r.TerminalT, r.Conn, nil, r.ID, r.AgentID, r.Session, fmt.Sprintf(
				"%s billed run %s %d times (first at record %d): every commitChat it applies bills the turn, and this run's final was committed more than once (a continuation after an approval, or a final delivered again after the run was reopened).", ui, r.ID, r.Bills, r.BillI))
		case r.Bills == 0 && r.Committed && r.NotBilled != "":
			// The UI read the turn's cost as nothing: a dashboard that
			// shows no spend, not a charge gone wrong.
			a.add(RuleBilling, Info, r.TerminalI, r.TerminalT, r.Conn, nil, r.ID, r.AgentID, r.Session, fmt.Sprintf(
				"%s committed run %s's reply (record %d) but recorded no cost: %s.", ui, r.ID, r.CommitI, r.NotBilled))
		case r.Bills == 0 && r.Committed:
			a.add(RuleBilling, 0, r.TerminalI, r.TerminalT, r.Conn, nil, r.ID, r.AgentID, r.Session, fmt.Sprintf(
				"%s committed run %s's reply (record %d) but never billed it: the final carried no cost a UI can record.", ui, r.ID, r.CommitI))
		}
	}
}

func (a *Analyzer) lostReply(ui string, r *outcome.Run) {
	why := r.LostWhy()
	a.add(RuleLostReply, 0, r.TerminalI, r.TerminalT, r.Conn, nil, r.ID, r.AgentID, r.Session, fmt.Sprintf(
		"%s never shows run %s's reply %s: %s.", ui, r.ID, clipQuote(r.Reply, 60), why))
}

func ghostSentence(ui string, r *outcome.Run) string {
	s := fmt.Sprintf("After run %s ended, %s left agent %s %s but still holding %s (from record %d)", r.ID, ui, r.AgentID, orNone(r.Status), r.GhostWhat, r.GhostI)
	if r.GhostPane != "" {
		return fmt.Sprintf("After run %s ended (record %d), %s's pane for session %s still follows it (%s): the pane applied no chat terminal of it; the UI shows a run that is over as still running.", r.ID, r.GhostI, ui, r.GhostPane, r.GhostWhat)
	}
	if r.Dropped == "guard" && r.GhostI == r.TerminalI {
		s += ": a delta queued after the lifecycle end was flushed by the final's clearPendingLivePatch, and the final's commitChat that would have cleared it was dropped"
	}
	return s + "; the UI shows a run that is over as still streaming."
}
