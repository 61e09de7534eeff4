package replay

import (
	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/ui"
)

// Model is one chat UI as the engine replays it: the versions it models
// and a constructor for each. A model lives in a package of its own
// (pkg/models/clawboo, pkg/models/claw3d, pkg/models/controlui) and pkg/models
// lists it; versions of one UI are settings of its model, not copies.
type Model interface {
	// Versions lists the versions modelled, oldest first: the last is
	// what the UI's name alone means.
	Versions() []ui.Version
	// Layout says how the engine's stores look under version v.
	Layout(v ui.Version) Layout
	// New builds version v's pipeline and host on the engine's host.
	New(v ui.Version, h *Host) Runtime
}

// Deriving is a Model whose intents follow from each frame alone
// (Version.PureIntents): a pass that wants intents without replaying
// derives them with it.
type Deriving interface {
	NewDeriver(v ui.Version) Deriver
}

// Deriver derives the intents of one classified frame, appending them to
// dst; what they point to is valid until the next call.
type Deriver interface {
	Derive(dst []ui.Intent, ev *bridge.Event) []ui.Intent
}

// Layout is what the engine keeps and shows for a UI.
type Layout struct {
	// TranscriptCap is how many committed lines the UI keeps per agent.
	TranscriptCap int
	// RequestKinds are the requests the UI makes, in output order.
	RequestKinds []string
	// Panes: the UI's chat state is a pane per session (the Control UI):
	// each chat session shows its run, status, error and tool cards.
	Panes bool
	// AgentDetails: the agent store has Claw3D's extra fields
	// (sessionCreated, latestPreview, …), shown in the final state.
	AgentDetails bool
	// Metrics: the UI logs metrics, counted in the state.
	Metrics bool
	// AnswersHistory: the model can answer the UI's history refreshes from
	// the capture (Options.HistorySync).
	AnswersHistory bool
}

// Runtime is a chat UI's event pipeline with its host, running on the
// engine: it takes each record at the engine's clock, adds what it decided
// to the step's intents (Host.Intent) and writes into the engine's stores,
// each write an effect of the step (Host.Effect).
type Runtime interface {
	// Record processes one classified record.
	Record(rec *capture.Record, ev *bridge.Event)
	// Dispose tears the pipeline down as the host's cleanup does, at a
	// close or before a reconnect; the stores survive.
	Dispose(reason string)
	// ClosedRuns lists the runs the pipeline holds closed, oldest first.
	ClosedRuns() []ui.ClosedRun
	// BeginStep lets the UI forget what only the last step pointed at.
	BeginStep()
}

// UI is one version of one model: what the engine runs.
type UI struct {
	Model   Model
	Version ui.Version
}

// String is the UI as --ui names it: clawboo@1211c16.
func (u UI) String() string { return u.Version.String() }

// IsZero reports whether u names no UI.
func (u UI) IsZero() bool { return u.Model == nil }

// Title names the UI in a sentence: "clawboo", "Claw3D".
func (u UI) Title() string {
	if u.Version.Title == "" {
		return u.Version.UI
	}
	return u.Version.Title
}

// Layout is the model's layout for the version.
func (u UI) Layout() Layout { return u.Model.Layout(u.Version) }

// Deriver returns the UI's intent deriver when its intents follow from
// each frame alone, else nil.
func (u UI) Deriver() Deriver {
	if d, ok := u.Model.(Deriving); ok && u.Version.PureIntents {
		return d.NewDeriver(u.Version)
	}
	return nil
}
