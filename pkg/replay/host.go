package replay

import "github.com/clawtap/clawtap/pkg/ui"

// Host is what the engine gives the UI model it runs: the fake clock and
// its timers, the step being built, and the stores. A model's Runtime
// holds it from New on; it is valid for the engine's life.
type Host struct{ e *Engine }

// Now is the fake clock, unix ms.
func (h *Host) Now() int64 { return h.e.sched.now }

// T0 is the replay's first record time.
func (h *Host) T0() int64 { return h.e.t0 }

// After schedules fn ms from now under a timer name (the timer step's
// name, unless the step renames it: NameTimer); the returned function
// cancels it, harmlessly once it fired.
func (h *Host) After(ms int64, name string, fn func()) (cancel func()) {
	return h.e.after(ms, name, fn)
}

// At schedules fn at a due time, as After does.
func (h *Host) At(due int64, name string, fn func()) (cancel func()) {
	t := h.e.sched.at(due, name, fn)
	gen := t.gen
	return func() { h.e.sched.cancelGen(t, gen) }
}

// RequestFrame is the UI's requestAnimationFrame on the engine's frame
// clock. A UI's patch queue has at most one frame scheduled.
func (h *Host) RequestFrame(fn func()) (cancel func()) { return h.e.requestFrame(fn) }

// FrameDue is the due time of the frame requested last.
func (h *Host) FrameDue() int64 { return h.e.frameDue }

// State is the stores the UI writes.
func (h *Host) State() *State { return &h.e.st }

// Options are the engine's.
func (h *Host) Options() Options { return h.e.opts }

// Intent adds an intent to the step; it must stay valid until the next
// step begins.
func (h *Host) Intent(in ui.Intent) { h.e.step.Intents = append(h.e.step.Intents, in) }

// Effect adds an effect to the step.
func (h *Host) Effect(ef Effect) { h.e.addEffect(ef) }

// LastEffect is the step's newest effect, for a detail known only after
// it was reported.
func (h *Host) LastEffect() *Effect { return h.e.lastEffect() }

// NameTimer names the timer step being run (a UI whose timers share a
// name until they run says which one it was).
func (h *Host) NameTimer(name string) { h.e.step.Timer = name }

// CopyPatches copies patches into the step's own storage, valid until the
// step ends: what an effect's Patches may point to.
func (h *Host) CopyPatches(src []ui.AgentPatch) []ui.AgentPatch { return h.e.copyPatches(src) }

// Request counts a request the UI would make to the gateway, as an effect
// and in the state.
func (h *Host) Request(kind, agentID, reason string) {
	h.e.st.countRequest(kind, h.e.sched.now)
	h.e.addEffect(Effect{Type: EffRequest, Action: kind, AgentID: agentID, Reason: reason})
}
