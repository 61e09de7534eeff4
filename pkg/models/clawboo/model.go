package clawboo

import (
	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/replay"
	"github.com/clawtap/clawtap/pkg/ui"
)

// Model is clawboo's web app (@clawboo/events and its host,
// useGatewayEvents) as the engine replays it, at each version modelled.
type Model struct{}

// V1211c16 is clawboo at commit 1211c16: the closed-run guard closes a run
// at its lifecycle end, so a chat final that follows is dropped
// (pipeline-spec §2–3, §7.2).
var V1211c16 = ui.Version{
	UI: "clawboo", Name: "1211c16", Title: "clawboo",
	Source:      "github.com/clawboo/clawboo@1211c16: packages/events/src/{bridge,policy,handler,patch-queue}.ts, apps/web/src/features/connection/useGatewayEvents.ts",
	Summary:     "the closed-run guard closes a run at its lifecycle end and drops the chat final that follows",
	Bills:       true,
	PureIntents: true,
}

// V59639f1 is clawboo after its closed-run guard was fixed (pipeline-spec
// §8): the handler as its tests at a28711e pin it, the host as its tests
// at 59639f1 do (the code index names no commit for the files
// themselves; docs/ui-clawboo.md).
var V59639f1 = ui.Version{
	UI: "clawboo", Name: "59639f1", Title: "clawboo",
	Source: "github.com/clawboo/clawboo: packages/events/src/handler.ts (its tests at a28711e), " +
		"apps/web/src/features/connection/useGatewayEvents.ts (its tests at 59639f1)",
	Summary:     "a run its lifecycle end closed still commits its chat final; prose recovery for runs that end without a reply; a notice for silent failures",
	Bills:       true,
	PureIntents: true,
}

// behaviour is what differs between the versions modelled.
type behaviour struct {
	// byCommitGuard: the closed-run guard tells a run closed by a commit
	// from one closed by a lifecycle terminal (Deps.ByCommitGuard).
	byCommitGuard bool
	// recovery: a terminal that said nothing keeps the streamed text as
	// the reply, and a silent failure gets a notice (host_recovery.go).
	recovery bool
	// stampLines: transcript entries carry their session, role and run
	// (recovery reads them).
	stampLines bool
	// The 1211c16 model's own simplifications, kept so that its outputs
	// stay as they were made; the later model does what clawboo's code
	// does at both commits (docs/ui-clawboo.md, "Versions"):
	// anchorOnAppend: the stream-start anchor is used up by the lines
	// that carry it, not cleared by an applied commit; skipZeroBill:
	// recordChatCost records nothing for a turn of no tokens.
	anchorOnAppend bool
	skipZeroBill   bool
}

func behaviourOf(v ui.Version) behaviour {
	if v.Name == V1211c16.Name {
		return behaviour{}
	}
	return behaviour{byCommitGuard: true, recovery: true, stampLines: true, anchorOnAppend: true, skipZeroBill: true}
}

// Versions lists clawboo's versions, oldest first.
func (Model) Versions() []ui.Version { return []ui.Version{V1211c16, V59639f1} }

// Layout is clawboo's stores: 500 transcript lines an agent, three kinds
// of request, no metrics.
func (Model) Layout(ui.Version) replay.Layout {
	return replay.Layout{TranscriptCap: TranscriptCap, RequestKinds: requestKinds, AnswersHistory: true}
}

// New builds version v's pipeline on the engine's host.
func (Model) New(v ui.Version, h *replay.Host) replay.Runtime { return newHost(h, behaviourOf(v)) }

// NewDeriver derives clawboo's intents from frames alone (derivePolicy).
func (Model) NewDeriver(ui.Version) replay.Deriver { return &deriver{} }

type deriver struct {
	d   Deriver
	buf []Intent
}

func (d *deriver) Derive(dst []ui.Intent, ev *bridge.Event) []ui.Intent {
	d.buf = d.d.Append(d.buf[:0], ev)
	for i := range d.buf {
		dst = append(dst, &d.buf[i])
	}
	return dst
}
