package check

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/clawtap/clawtap/internal/synth"
	"github.com/clawtap/clawtap/pkg/models"
	"github.com/clawtap/clawtap/pkg/replay"
)

// Every fixture gives exactly the findings it was made to show, the
// protocol's and, per UI, the replayed state's; the clean ones give no
// protocol warning or error.
func TestFixtures(t *testing.T) {
	want := map[string][]string{
		"demo.jsonl.zst":            nil,
		"streamed-run.jsonl.zst":    nil,
		"tool-run.jsonl.zst":        nil,
		"abort.jsonl.zst":           {RuleRunAborted},
		"slash-command.jsonl.zst":   nil,
		"exec-approval.jsonl.zst":   nil,
		"presence-burst.jsonl.zst":  nil,
		"reconnect.jsonl.zst":       nil,
		"bare-frames.jsonl":         nil,
		"error-run.jsonl.zst":       {RuleReplaceDelta, RuleReplaceDelta, RuleRunFailed, RuleDoubleError},
		"seq-gap.jsonl.zst":         {RuleSeqGap, RuleGatewaySeqGap, RuleGatewaySeqGap},
		"stale-terminal.jsonl.zst":  {RuleStaleTerminal},
		"duplicate-final.jsonl.zst": {RuleDuplicateTerminal},
		"truncated.jsonl.zst":       {RuleRunInFlight, RuleCaptureTruncated},
		// The wire after 2026.9.6: what the frames alone show.
		"append-only.jsonl.zst":            nil,
		"plan-continuation.jsonl.zst":      nil,
		"abort-not-saved.jsonl.zst":        {RuleRunAborted},
		"retraction.jsonl.zst":             {RuleReplaceDelta, RuleReplaceDelta},
		"status-mid-turn.jsonl.zst":        nil,
		"announce-double-answer.jsonl.zst": {RuleStaleTerminal, RuleEmptyFinal, RuleAnnounceDoubleAnswer, RuleAnnounceDoubleAnswer},
		"idempotency-conflict.jsonl.zst":   {RuleRequestFailed, RuleIdempotencyConflict},
		"junk.jsonl": {
			RuleInvalidFrame, RuleInvalidFrame, RuleInvalidFrame, RuleInvalidFrame, RuleInvalidFrame, RuleInvalidFrame,
			RuleInvalidFrame, RuleInvalidFrame, RuleInvalidFrame, RuleInvalidFrame, RuleUnknownEvent, RuleMalformedPayload,
			RuleMalformedPayload, RuleInvalidFrame, RuleInvalidFrame, RuleInvalidFrame, RuleInvalidFrame, RuleMalformedPayload,
			RuleSeqBackwards, RuleRunInFlight, RuleRunInFlight, RuleRunInFlight, RuleApprovalPending,
		},
	}
	// What each UI makes of the fixtures recorded in the real gateway's
	// order: clawboo@1211c16 loses every reply whose lifecycle end came
	// first (§7.2); Claw3D commits them, and loses the late final of a run
	// that another run replaced.
	state := map[replay.UI]map[string][]string{
		models.MustLookup("clawboo@1211c16"): {
			"demo.jsonl.zst":            {RuleLostReply, RuleGhostStream},
			"streamed-run.jsonl.zst":    {RuleLostReply, RuleGhostStream},
			"tool-run.jsonl.zst":        {RuleLostReply},
			"exec-approval.jsonl.zst":   {RuleLostReply, RuleGhostStream, RuleLostReply, RuleGhostStream},
			"reconnect.jsonl.zst":       {RuleLostReply, RuleLostReply},
			"bare-frames.jsonl":         {RuleLostReply},
			"seq-gap.jsonl.zst":         {RuleLostReply},
			"stale-terminal.jsonl.zst":  {RuleDroppedFinal, RuleGhostStream},
			"duplicate-final.jsonl.zst": {RuleLostReply},
			// Both clawboos read only message: frozen on the first words.
			"append-only.jsonl.zst":            {RuleLiveTextFrozen, RuleLostReply, RuleGhostStream},
			"plan-continuation.jsonl.zst":      {RuleLifecycleRestart, RuleLiveTextFrozen, RuleLostReply},
			"abort-not-saved.jsonl.zst":        {RuleLiveTextFrozen, RuleErrorAfterAborted},
			"retraction.jsonl.zst":             {RuleLifecycleRestart, RuleRetractionVisible, RuleLiveTextFrozen, RuleLostReply},
			"status-mid-turn.jsonl.zst":        {RuleStatusMidTurn, RuleLostReply},
			"announce-double-answer.jsonl.zst": {RuleDroppedFinal, RuleGhostStream, RuleGhostStream, RuleLostReply, RuleLostReply},
			"idempotency-conflict.jsonl.zst":   {RuleLostReply},
		},
		// The clawboo after it commits them all, and records no cost for
		// any: it reads usage.input_tokens and usage.output_tokens, which
		// the gateway does not send, and records nothing for no tokens.
		models.MustLookup("clawboo@59639f1"): {
			"demo.jsonl.zst":                   {RuleBilling},
			"streamed-run.jsonl.zst":           {RuleBilling},
			"tool-run.jsonl.zst":               {RuleBilling},
			"slash-command.jsonl.zst":          {RuleBilling},
			"exec-approval.jsonl.zst":          {RuleBilling, RuleBilling},
			"reconnect.jsonl.zst":              {RuleBilling, RuleBilling},
			"bare-frames.jsonl":                {RuleBilling},
			"seq-gap.jsonl.zst":                {RuleBilling},
			"stale-terminal.jsonl.zst":         {RuleBilling, RuleBilling},
			"duplicate-final.jsonl.zst":        {RuleBilling},
			"append-only.jsonl.zst":            {RuleLiveTextFrozen, RuleBilling},
			"plan-continuation.jsonl.zst":      {RuleLifecycleRestart, RuleLiveTextFrozen, RuleBilling},
			"abort-not-saved.jsonl.zst":        {RuleLiveTextFrozen, RuleErrorAfterAborted},
			"retraction.jsonl.zst":             {RuleLifecycleRestart, RuleRetractionVisible, RuleLiveTextFrozen, RuleBilling},
			"status-mid-turn.jsonl.zst":        {RuleStatusMidTurn, RuleBilling},
			"announce-double-answer.jsonl.zst": {RuleBilling, RuleGhostStream, RuleBilling, RuleBilling},
			"idempotency-conflict.jsonl.zst":   {RuleBilling},
		},
		models.MustLookup("claw3d"): {
			"stale-terminal.jsonl.zst": {RuleLostReply},
		},
	}
	// The hazards of the wire after 2026.9.6 are judged by every UI (a
	// warning where the UI shows it, information where it does not), so
	// each UI's replay reports them.
	for _, ui := range models.All() {
		m := state[ui]
		if m == nil {
			m = map[string][]string{}
			state[ui] = m
		}
		m["error-run.jsonl.zst"] = []string{RuleLifecycleRestart, RuleRetractionVisible}
		if ui.Version.UI == "clawboo" {
			continue
		}
		m["append-only.jsonl.zst"] = []string{RuleLiveTextFrozen}
		m["plan-continuation.jsonl.zst"] = []string{RuleLifecycleRestart, RuleLiveTextFrozen}
		m["abort-not-saved.jsonl.zst"] = []string{RuleLiveTextFrozen, RuleErrorAfterAborted}
		m["retraction.jsonl.zst"] = []string{RuleLifecycleRestart, RuleRetractionVisible, RuleLiveTextFrozen}
		m["status-mid-turn.jsonl.zst"] = []string{RuleStatusMidTurn}
	}
	for _, ui := range models.All() {
		for _, f := range synth.Fixtures() {
			w, ok := want[f.File]
			if !ok {
				t.Errorf("fixture %s has no expectation", f.File)
				continue
			}
			t.Run(ui.String()+"/"+f.Name, func(t *testing.T) {
				fs := analyzeFile(t, filepath.Join("..", "..", "fixtures", f.File), Options{}, ui)
				var proto, st []Finding
				for _, x := range fs {
					if slices.Contains(uiRules, x.Rule) {
						st = append(st, x)
					} else {
						proto = append(proto, x)
					}
				}
				expect(t, proto, w...)
				expect(t, st, state[ui][f.File]...)
			})
		}
	}
}
