// Package ui is the neutral ground of clawtap's chat UI models: what every
// model (pkg/models/clawboo, pkg/models/claw3d, pkg/models/controlui) and the replay
// engine that drives them share, and nothing any one UI owns.
//
//   - Version describes one modelled version of a UI: its name as --ui
//     takes it, where it was read from, what it does differently, and the
//     traits the engine and the observers ask about (does it bill turns,
//     are its intents a function of each frame alone).
//   - Intent is one thing a UI's policy decided for a frame or a timer;
//     each model's intents render themselves.
//   - Patch, AgentPatch and ClosedRun are the fleet store's vocabulary:
//     the optional, nullable agent fields a patch assigns, and the entries
//     of a UI's closed-run map.
//   - The guard actions name what a closed-run guard or fence decided, so
//     that replay output, the run table and check read them the same way
//     whichever UI decided.
//
// The engine (pkg/replay) depends on this package and not on any model;
// the models depend on the engine; pkg/models lists them.
package ui

import (
	"fmt"
	"strings"
)

// Version is one modelled version of one UI.
type Version struct {
	// UI is the model's name, as --ui takes it: clawboo, claw3d, control-ui.
	UI string
	// Name is the version: a commit of the UI's repository (1211c16) or a
	// release of the package that ships it (2026.9.6).
	Name string
	// Title names the UI in a sentence: "clawboo", "Claw3D", "the Control UI".
	Title string
	// Source is what the model was read from: repository@commit, or
	// package@release and the files.
	Source string
	// Summary says in one line what this version does differently from
	// the one before it (for the first, what it is).
	Summary string

	// Bills: the UI bills a turn for each reply it commits, so a reply
	// committed twice, or never billed, is a finding.
	Bills bool
	// PureIntents: the UI's intents follow from each frame alone (clawboo's
	// derivePolicy), so they can be derived without replaying.
	PureIntents bool
}

// String is the version as --ui takes it: clawboo@1211c16.
func (v Version) String() string {
	if v.UI == "" {
		return ""
	}
	return v.UI + "@" + v.Name
}

// IsZero reports whether v names no version.
func (v Version) IsZero() bool { return v.UI == "" }

// Ref is a UI as a user names it: NAME or NAME@VERSION.
type Ref struct {
	UI      string
	Version string // "" is the UI's newest modelled version
}

// ParseRef reads NAME or NAME@VERSION. Names are matched without regard
// to case; the version as written.
func ParseRef(s string) (Ref, error) {
	s = strings.TrimSpace(s)
	name, ver, hasVer := strings.Cut(s, "@")
	name = strings.ToLower(strings.TrimSpace(name))
	ver = strings.TrimSpace(ver)
	switch {
	case name == "":
		return Ref{}, fmt.Errorf("no UI name in %q", s)
	case hasVer && ver == "":
		return Ref{}, fmt.Errorf("no version after @ in %q", s)
	}
	return Ref{UI: name, Version: ver}, nil
}

func (r Ref) String() string {
	if r.Version == "" {
		return r.UI
	}
	return r.UI + "@" + r.Version
}

// Intent is one thing a UI's policy decided for a frame or a timer:
// clawboo's EventIntent, a Claw3D command, a Control UI handler step. Each
// renders itself in its UI's own shape.
type Intent interface {
	// IntentKind is the intent's kind: queueLivePatch, ignore, …
	IntentKind() string
	// IntentAgent is the agent it concerns ("" for none).
	IntentAgent() string
	// AppendJSONAt appends the intent as JSON, its times less base.
	AppendJSONAt(dst []byte, base int64) []byte
}

// Clipper is an Intent whose texts can be shortened for a person to read:
// ClipTexts returns the intent with every text longer than n runes cut
// (the intent itself when none is).
type Clipper interface {
	ClipTexts(n int) Intent
}

// Describer is an Intent that says what it changes beyond its effects,
// for a semantic diff: "commitChat main <run> lines=2". run names a run id
// as the diff normalises it; text asks for the committed text too. ""
// means nothing worth comparing.
type Describer interface {
	Describe(run func(string) string, text bool) string
}

// Intent kinds every UI shares.
const (
	// IgnoreKind is the kind of an intent that does nothing, in every UI.
	IgnoreKind = "ignore"
)

// The actions of a closed-run guard or fence, as a replay step's guard
// effects report them.
const (
	// GuardDropped: a commit or terminal status update was dropped because
	// its run is closed.
	GuardDropped = "dropped-closed-run"
	// GuardFailOpen: a commit or terminal had no run id, so the guard could
	// not apply and it went through.
	GuardFailOpen = "fail-open"
	// GuardClosed: a run was recorded closed.
	GuardClosed = "closed-run-recorded"
	// GuardHazard: the run recorded closed is not the incoming frame's run:
	// a terminal of another run closed the live one.
	GuardHazard = "hazard"
	// GuardPassed: a commit went through for a run its own lifecycle
	// terminal had closed (no other run live): the run's reply, not a
	// replay.
	GuardPassed = "closed-run-passed"
	// GuardKeptOpen: a terminal was dispatched but the agent's run id
	// survived, so the run stays open.
	GuardKeptOpen = "run-kept-open"
	// GuardExpired: a closed-run entry expired.
	GuardExpired = "closed-run-expired"
	// GuardEvicted: a closed-run entry was evicted by the map's cap.
	GuardEvicted = "closed-run-evicted"
)
