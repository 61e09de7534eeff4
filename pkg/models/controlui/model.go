package controlui

import (
	"github.com/clawtap/clawtap/pkg/replay"
	"github.com/clawtap/clawtap/pkg/ui"
)

// Model is the OpenClaw Control UI's chat pane as the engine replays it.
type Model struct{}

// V2026_9_6 is the Control UI in npm openclaw 2026.9.6 (build eb377ac59e6c).
var V2026_9_6 = ui.Version{
	UI: "control-ui", Name: "2026.9.6", Title: "the Control UI",
	Source: "npm openclaw@2026.9.6 dist/control-ui (build eb377ac59e6c); openclaw ui/src/pages/chat/chat-gateway.ts (code index id 57703858626), " +
		"ui/src/lib/sessions/session-key.ts (id 57630460108); for session events the bundle's assets (docs/ui-controlui.md)",
	Summary: "a pane per session: the run it adopts, deltaText appended, the final's message or the streamed text kept, the user's messages from session.message, an error banner; no fleet store, no billing",
}

// Versions lists the Control UI's versions, oldest first.
func (Model) Versions() []ui.Version { return []ui.Version{V2026_9_6} }

// Layout is the pane's state: messages an agent (each saying its session),
// and a pane per session with its run, status, banner and tool cards.
func (Model) Layout(ui.Version) replay.Layout {
	return replay.Layout{TranscriptCap: 2000, RequestKinds: []string{ReqChatHistory, ReqChatStartup}, Panes: true}
}

// New builds the Control UI on the engine's host.
func (Model) New(_ ui.Version, h *replay.Host) replay.Runtime { return newHost(h) }
