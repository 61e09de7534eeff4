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

// behaviour is what differs between the versions modelled.
type behaviour struct{}

func behaviourOf(v ui.Version) behaviour { return behaviour{} }

// Versions lists clawboo's versions, oldest first.
func (Model) Versions() []ui.Version { return []ui.Version{V1211c16} }

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
