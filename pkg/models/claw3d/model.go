package claw3d

import (
	"github.com/clawtap/clawtap/pkg/replay"
	"github.com/clawtap/clawtap/pkg/ui"
)

// Model is Claw3D Studio's runtime event pipeline and its host as the
// engine replays it.
type Model struct{}

// Veeb6f31 is Claw3D at commit eeb6f31 (pipeline-spec §4).
var Veeb6f31 = ui.Version{
	UI: "claw3d", Name: "eeb6f31", Title: "Claw3D",
	Source:  "github.com/iamlukethedev/Claw3D@eeb6f31 (2026-05-31): src/features/agents/state/*, src/lib/text/message-extract.ts",
	Summary: "closed-run fence per run, a lifecycle fallback that commits the streamed text, transcript upserts by entryId",
}

// Versions lists Claw3D's versions, oldest first.
func (Model) Versions() []ui.Version { return []ui.Version{Veeb6f31} }

// requestKinds are Claw3D's requests (and its heartbeat tick), in output
// order.
var requestKinds = []string{replay.ReqHeartbeatRefresh, replay.ReqHeartbeatTick, replay.ReqHistoryRefresh, replay.ReqSummaryReload}

// Layout is Claw3D's stores: 600 transcript entries an agent, its agent
// store's extra fields, and its metrics.
func (Model) Layout(ui.Version) replay.Layout {
	return replay.Layout{TranscriptCap: MaxTranscriptEntries, RequestKinds: requestKinds, AgentDetails: true, Metrics: true}
}

// New builds Claw3D's pipeline on the engine's host.
func (Model) New(_ ui.Version, h *replay.Host) replay.Runtime { return newHost(h) }
