package clawboo

import (
	"slices"

	"github.com/clawtap/clawtap/pkg/replay"
)

// The history refresh, answered.
//
// On the real gateway a run's lifecycle end arrives a few milliseconds
// before its chat final, so the reference Handler has already recorded the
// run closed when the final comes and drops its commitChat: the final text
// never reaches the transcript through the pipeline. What puts it there in
// a real UI is the history refresh the same final asks for (a final without
// thinking emits requestHistoryRefresh, which is not guarded): the host
// re-reads chat.history, which holds every final the gateway persisted, and
// merges it into the transcript.
//
// Replay models that answer from the capture itself: the finals whose
// commitChat the guard dropped are what the gateway persisted but the
// transcript lacks. When the UI requests a history refresh for an agent,
// those finals' lines (exactly what commitChat would have appended) are
// merged in at once, each run once, in the order the finals arrived, and
// the step shows a "history" effect. A final dropped while no refresh
// follows (a final that carried thinking) stays lost, as in the reference.
// It is an approximation clawboo does not make (its refresh lists sessions
// and discards the result), so it is off unless Options.HistorySync
// (replay --history-sync) asks for it.

// maxUnsynced bounds the dropped finals remembered per agent, and
// maxShown the runs remembered as already in the transcript.
const (
	maxUnsynced = 64
	maxShown    = 256
)

type histEntry struct {
	runID      string
	sessionKey string
	lines      []string
}

type histSync struct {
	dropped   []string // runIds whose commitChat the guard dropped this step
	requested []string // agents that asked for a history refresh this step
	unsynced  map[string][]histEntry
	shown     map[string][]string // per agent: runs whose final is in the transcript
}

// markShown remembers that run's final lines are in agent's transcript, so
// a duplicate final is never merged again (history holds each message once).
func (h *histSync) markShown(agentID, runID string) {
	if h.shown == nil {
		h.shown = make(map[string][]string)
	}
	list := h.shown[agentID]
	if slices.Contains(list, runID) {
		return
	}
	if len(list) >= maxShown {
		list = list[1:]
	}
	h.shown[agentID] = append(list, runID)
}

func (h *histSync) beginStep() {
	h.dropped = h.dropped[:0]
	h.requested = h.requested[:0]
}

// syncHistory remembers this step's dropped finals and answers this step's
// history refresh requests.
func (c *host) syncHistory() {
	h := &c.hist
	for i := range c.intents {
		in := &c.intents[i]
		runID, ok := in.RunID.Value()
		if in.Kind != CommitChat || !ok || len(in.Lines) == 0 {
			continue
		}
		if !slices.Contains(h.dropped, runID) {
			h.markShown(in.AgentID, runID) // committed through the pipeline
			continue
		}
		if slices.Contains(h.shown[in.AgentID], runID) {
			continue
		}
		if h.unsynced == nil {
			h.unsynced = make(map[string][]histEntry)
		}
		list := h.unsynced[in.AgentID]
		if slices.ContainsFunc(list, func(x histEntry) bool { return x.runID == runID }) {
			continue // a duplicate final: the gateway persisted it once
		}
		if len(list) >= maxUnsynced {
			list = list[1:]
		}
		h.unsynced[in.AgentID] = append(list, histEntry{runID: runID, sessionKey: in.SessionKey, lines: slices.Clone(in.Lines)})
	}
	for _, agentID := range h.requested {
		list := h.unsynced[agentID]
		if len(list) == 0 {
			continue
		}
		delete(h.unsynced, agentID)
		a := c.st.EnsureAgent(agentID)
		for _, x := range list {
			h.markShown(agentID, x.runID)
			n := c.appendLines(a, x.lines, replay.Line{Kind: replay.LineAssistant, TS: c.h.Now()})
			c.h.Effect(replay.Effect{Type: replay.EffHistory, Action: "merged", AgentID: agentID, SessionKey: x.sessionKey, RunID: x.runID, Count: int64(n)})
		}
	}
}
