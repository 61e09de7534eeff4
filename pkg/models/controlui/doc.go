// Package controlui models the OpenClaw Control UI, the web UI every
// gateway ships (npm openclaw's dist/control-ui), as the replay engine
// drives it: how its chat pane turns chat and agent frames into the
// messages, the streaming bubble, the Stop button and the error banner a
// user sees.
//
// The model is read from the 2026.9.6 bundle (build eb377ac59e6c) and
// openclaw's ui/src/pages/chat/chat-gateway.ts (code index id
// 57703858626, which matches the bundle almost line for line), with the
// session match of ui/src/lib/sessions/session-key.ts (id 57630460108),
// and checked against the real UI running in headless Chromium
// (docs/ui-controlui.md; e2e/controlui_test.go).
//
// # What is modelled
//
// The Control UI keeps its chat state in a pane per selected session. The
// model keeps one pane per session the capture shows, as if the user had
// each open from the start (the real pane sees nothing before it mounts:
// compare with a lead, serve --lead):
//
//   - the session match: keys trimmed and lower-cased, the main alias
//     resolved through hello-ok's sessionDefaults, an agentId that must be
//     the key's agent (a missing one is the default agent's);
//   - a run projection per pane: each run's status (streaming, completed,
//     aborted, error, timeout, yielded) and the finals it accepted, which
//     decides what a late frame of an ended run does;
//   - run adoption: the first frame of a run with a runId (not a status)
//     adopts it while no run is adopted, and clears the error banner;
//     frames of another run are ignored, but for a visible final, which is
//     appended;
//   - the stream text: deltaText appended, replace:true replacing, the
//     cumulative message winning when it disagrees (so the 2026.9.7
//     append-only wire works), NO_REPLY and heartbeat acks not applied;
//   - terminals: a final's visible message replaces the stream, else the
//     stream is kept as a message; an abort keeps its partial text; an
//     error shows "Error: …" in the banner; the run's end clears the run
//     and the stream and shows done or interrupted for 5 s, which hides
//     the Stop button of a run adopted meanwhile;
//   - tool cards from tool and item frames of the session's runs;
//   - session.message rows (docs/ui-controlui.md, "Session messages"; the
//     bundle's assets, read where each file of this package says): the
//     user's rows, a previous or finishing run's assistant rows, placed by
//     their identity and sequence in one list with the chat terminals, so
//     that a final whose run's row is shown already is not shown again;
//     a sessions.changed reset empties the list;
//   - a disconnect (a close, or a frame whose envelope seq skips) clears
//     the run, the stream and the tool cards and keeps the messages;
//   - the requests it makes: chat.startup at each connection, and the
//     chat.history reloads after a final without a message and on session
//     events.
//
// What is left out: the answers to those requests (a recorded chat.startup
// or chat.history response is not merged), the session rows the session
// events carry (the UI's sessions list), stream segments, the redaction
// the error banner applies, preamble segments, and the pane's start-up
// phase label.
package controlui
