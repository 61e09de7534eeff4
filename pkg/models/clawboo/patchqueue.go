package clawboo

import "github.com/clawtap/clawtap/pkg/ui"

// Merge results of PatchQueue.Enqueue.
const (
	MergeNew     = "new"     // the agent had nothing pending
	MergeMerged  = "merge"   // shallow-merged over the pending patch
	MergeReplace = "replace" // both runIds non-empty and different: replaced
)

// PatchQueue is the reference's animation-frame patch queue
// (createPatchQueue): live patches are coalesced per agent and written to
// the store at most once per agent per frame.
//
// Frames come from requestFrame, which plays requestAnimationFrame; a
// replay backs it with its fake clock. With a nil requestFrame nothing
// flushes on its own, as the reference behaves without rAF.
type PatchQueue struct {
	requestFrame func(fn func()) (cancel func())
	onFlush      func(batch []ui.AgentPatch)
	onFrame      func() // q.frame, bound once: a frame is asked for per delta

	pending []ui.AgentPatch // first-enqueue order
	index   map[string]int
	cancel  func()
	batch   []ui.AgentPatch
}

// NewPatchQueue returns a queue that calls onFlush with each batch. The
// batch slice is reused: onFlush must not keep it. requestFrame schedules
// fn for the next animation frame; the queue has at most one frame
// scheduled, and its cancel must keep fn from running, as
// cancelAnimationFrame does.
func NewPatchQueue(requestFrame func(fn func()) (cancel func()), onFlush func(batch []ui.AgentPatch)) *PatchQueue {
	q := &PatchQueue{requestFrame: requestFrame, onFlush: onFlush}
	q.onFrame = q.frame
	return q
}

// frame is the animation frame: it flushes what is pending.
func (q *PatchQueue) frame() {
	if q.cancel == nil { // defensive: the frame was cancelled
		return
	}
	q.cancel = nil
	q.Flush()
}

// Pending returns the pending patches in first-enqueue order. The slice is
// valid until the next call on the queue.
func (q *PatchQueue) Pending() []ui.AgentPatch { return q.pending }

// FramePending reports whether a frame is scheduled.
func (q *PatchQueue) FramePending() bool { return q.cancel != nil }

func (q *PatchQueue) find(agentID string) int {
	if q.index != nil {
		if i, ok := q.index[agentID]; ok {
			return i
		}
		return -1
	}
	for i := range q.pending {
		if q.pending[i].AgentID == agentID {
			return i
		}
	}
	return -1
}

// Enqueue merges patch into the agent's pending entry and schedules a
// frame if none is scheduled. The merge rule is the reference's: if the
// pending and incoming runIds are both non-empty strings and differ, the
// incoming patch replaces the pending one wholesale; otherwise the incoming
// keys are shallow-merged over it, last write wins, and a key present with
// null overrides. It returns which of the three happened and the merged
// patch.
func (q *PatchQueue) Enqueue(agentID string, patch ui.Patch) (string, *ui.AgentPatch) {
	mode := MergeNew
	i := q.find(agentID)
	if i < 0 {
		q.pending = append(q.pending, ui.AgentPatch{AgentID: agentID, Patch: patch, Patches: 1})
		i = len(q.pending) - 1
		if q.index != nil {
			q.index[agentID] = i
		} else if len(q.pending) > 16 {
			q.index = make(map[string]int, 32)
			for j := range q.pending {
				q.index[q.pending[j].AgentID] = j
			}
		}
	} else {
		e := &q.pending[i]
		existing, _ := e.Patch.RunID.Value()
		incoming, _ := patch.RunID.Value()
		if existing != "" && incoming != "" && existing != incoming {
			mode = MergeReplace
			e.Patch, e.Patches = patch, 1
		} else {
			mode = MergeMerged
			e.Patch.Merge(&patch)
			e.Patches++
		}
	}
	if q.cancel == nil && q.requestFrame != nil {
		q.cancel = q.requestFrame(q.onFrame)
	}
	return mode, &q.pending[i]
}

func (q *PatchQueue) cancelFrame() {
	if q.cancel != nil {
		q.cancel()
		q.cancel = nil
	}
}

// Flush cancels the scheduled frame and, if anything is pending, calls
// onFlush once with every agent's patch in first-enqueue order, then
// clears the queue.
func (q *PatchQueue) Flush() {
	q.cancelFrame()
	if len(q.pending) == 0 {
		return
	}
	// Swap buffers so onFlush may enqueue again without aliasing.
	q.batch, q.pending = q.pending, q.batch[:0]
	if q.index != nil {
		clear(q.index)
	}
	if q.onFlush != nil {
		q.onFlush(q.batch)
	}
	clear(q.batch) // drop string references
	q.batch = q.batch[:0]
}

// Dispose cancels the scheduled frame and drops pending patches without
// flushing them. It returns what was dropped; the slice is valid until the
// next call on the queue.
func (q *PatchQueue) Dispose() []ui.AgentPatch {
	q.cancelFrame()
	dropped := q.pending
	q.batch, q.pending = q.pending, q.batch[:0]
	if q.index != nil {
		clear(q.index)
	}
	return dropped
}
