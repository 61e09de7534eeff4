package claw3d

// How an enqueued patch met the agent's pending one.
const (
	MergeNew      = "new"       // the agent had nothing pending
	MergeMerged   = "merge"     // shallow-merged over the pending patch
	MergeDropText = "drop-text" // only the incoming patch had a runId: pending text dropped, then merged
	MergeReplace  = "replace"   // both runIds non-empty and different: replaced
)

// PendingPatch is one agent's coalesced live patch.
type PendingPatch struct {
	AgentID string
	Patch   Patch
	// Patches counts the enqueues coalesced into Patch since the entry
	// was created or last replaced.
	Patches int
}

// LivePatchQueue is the host side of Claw3D's live patches (§4.7): a
// pending patch per agent (a JavaScript Map, so first-enqueue order),
// merged with MergePendingLivePatch and flushed on an animation frame as
// one updateAgent per agent. Unlike clawboo's queue, Clear discards an
// agent's pending patch instead of flushing everything.
//
// Frames come from requestFrame (requestAnimationFrame); with a nil
// requestFrame nothing flushes on its own. The queue has at most one frame
// scheduled; cancel must keep its callback from running.
type LivePatchQueue struct {
	requestFrame func(fn func()) (cancel func())
	onFlush      func(batch []PendingPatch)
	onFrame      func() // q.frame, bound once

	pending []PendingPatch
	cancel  func()
	batch   []PendingPatch
}

// NewLivePatchQueue returns a queue that calls onFlush with each batch, in
// first-enqueue order. The batch is reused: onFlush must not keep it.
func NewLivePatchQueue(requestFrame func(fn func()) (cancel func()), onFlush func(batch []PendingPatch)) *LivePatchQueue {
	q := &LivePatchQueue{requestFrame: requestFrame, onFlush: onFlush}
	q.onFrame = q.frame
	return q
}

func (q *LivePatchQueue) frame() {
	if q.cancel == nil { // cancelled
		return
	}
	q.cancel = nil
	q.Flush()
}

func (q *LivePatchQueue) find(agentID string) int {
	// A fleet is a handful of agents: a scan beats a map.
	for i := range q.pending {
		if q.pending[i].AgentID == agentID {
			return i
		}
	}
	return -1
}

// Pending returns the pending patches in first-enqueue order; the slice is
// valid until the next call on the queue.
func (q *LivePatchQueue) Pending() []PendingPatch { return q.pending }

// FramePending reports whether a frame is scheduled.
func (q *LivePatchQueue) FramePending() bool { return q.cancel != nil }

// Enqueue merges patch into the agent's pending entry and schedules a
// frame if none is. It returns how the patch was merged and the entry.
func (q *LivePatchQueue) Enqueue(agentID string, patch *Patch) (string, *PendingPatch) {
	mode := MergeNew
	i := q.find(agentID)
	if i < 0 {
		q.pending = append(q.pending, PendingPatch{AgentID: agentID, Patch: *patch, Patches: 1})
		i = len(q.pending) - 1
	} else {
		e := &q.pending[i]
		mode = MergePendingLivePatch(&e.Patch, patch)
		if mode == MergeReplace {
			e.Patches = 1
		} else {
			e.Patches++
		}
	}
	if q.cancel == nil && q.requestFrame != nil {
		q.cancel = q.requestFrame(q.onFrame)
	}
	return mode, &q.pending[i]
}

// Clear is clearPendingLivePatch: it discards the agent's pending patch
// and, when nothing is left pending, cancels the frame. It returns what
// was discarded (ok false when the agent had nothing pending).
func (q *LivePatchQueue) Clear(agentID string) (dropped PendingPatch, ok bool) {
	if i := q.find(agentID); i >= 0 {
		dropped, ok = q.pending[i], true
		n := len(q.pending)
		copy(q.pending[i:], q.pending[i+1:])
		q.pending[n-1] = PendingPatch{} // drop the stale copy's strings
		q.pending = q.pending[:n-1]
	}
	if len(q.pending) == 0 {
		q.cancelFrame()
	}
	return dropped, ok
}

func (q *LivePatchQueue) cancelFrame() {
	if q.cancel != nil {
		q.cancel()
		q.cancel = nil
	}
}

// Flush cancels the frame and, if anything is pending, calls onFlush once
// with every agent's patch in first-enqueue order, then empties the queue.
func (q *LivePatchQueue) Flush() {
	q.cancelFrame()
	if len(q.pending) == 0 {
		return
	}
	q.batch, q.pending = q.pending, q.batch[:0]
	if q.onFlush != nil {
		q.onFlush(q.batch)
	}
	clear(q.batch)
	q.batch = q.batch[:0]
}

// Dispose cancels the frame and drops what is pending without flushing
// it; it returns what was dropped, valid until the next call.
func (q *LivePatchQueue) Dispose() []PendingPatch {
	q.cancelFrame()
	dropped := q.pending
	q.batch, q.pending = q.pending, q.batch[:0]
	return dropped
}
