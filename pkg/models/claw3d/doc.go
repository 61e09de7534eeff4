// Package claw3d models Claw3D's runtime event pipeline
// (createGatewayRuntimeEventHandler, pipeline-spec §4) as a pure package,
// the way pkg/handler models clawboo's: no clock, no goroutines, no I/O.
// Time, timers and every store write come through Deps, so a replay host
// can run it on its fake clock and its own stores.
//
// # What is modelled
//
// Handler.Handle takes one classified record (bridge.Event) at Deps.Now()
// and returns the commands Claw3D ran for it, in order, as Intent values
// with stable camelCase JSON (AppendJSON); their effects go through Deps
// as they run. A timer's commands (the lifecycle fallback, a history
// refresh, the summary load, an approval's expiry) go to
// Deps.TimerIntents. Claw3D's metrics (late_event_ignored_closed_run,
// stale_terminal_chat_event_ignored, lifecycle_fallback_replaced_by_chat_final)
// and clawtap's own decisions (a closed run expiring, a fallback firing, …)
// go to Deps.Observer as Decision values.
//
//   - Classification and ingress (§4.1): presence and heartbeat are
//     summary refreshes, chat and agent runtime frames, everything else is
//     ignored; exec.approval.requested/resolved with their validity rules
//     (exec.approval.pending is not recognised), an approval leaving when
//     expiresAtMs <= now; cron "finished" lines with their dedupe key.
//   - Agent resolution: a chat frame's agent is the one whose session key
//     is trim-equal, else the agent:<id>: id if that agent is hydrated; an
//     agent frame falls back to the agent running its run; payload.agentId
//     is never read; no agent, no frame.
//   - The chat workflow (§4.2) step by step, the agent streams (§4.3) with
//     MergeRuntimeStream, ShouldPublishAssistantStream and the reasoning
//     quirk (a stream of deltas shows its latest chunk), tool lines from
//     agent tool frames, the terminal and fallback state machine (§4.4),
//     the closed-run fence (30 s, no cap, expired when expiresAt <= now,
//     pruned only on chat and agent frames, with the run's terminal
//     state), per-run seq staleness, per-run tool-line dedupe, the
//     300 ms markActivity throttle, history refreshes (chat final 0 ms,
//     first tool result 750 ms when thinking traces are shown, run start
//     250 ms; each once per run and reason), the summary refresh (§4.5)
//     and dispose.
//   - The host's side: LivePatchQueue with MergePendingLivePatch (§4.7; a
//     clear discards one agent's patch), Transcript (appendOutput's
//     entryId upserts, kind and role from the line prefix, fnv1a
//     fingerprints, the 600-entry cap), Agent and Patch (set/null
//     semantics like ui.Patch), MergeTranscriptEntriesWithHistory and
//     BuildHistoryLines (§4.8).
//   - Claw3D's extraction (§3, the [C3D] differences): Text, Thinking and
//     ToolLines, StripUIMetadata with Claw3D's auto-resume marker,
//     IsUIMetadataPrefix, NormalizeAssistantDisplayText, FormatThinking.
//
// Where Claw3D ends in a bad state on a real capture the model shows it:
// a second chat error with a lower seq is stale and only rewrites
// latestPreview; a lifecycle end that arrives before the chat stream's
// last delta was flushed commits the older text as the fallback (until the
// chat final replaces it); a reasoning stream of deltas shows one chunk.
//
// # The roster
//
// Claw3D drops every frame of an agent it has not hydrated. It hydrates
// its fleet from the agents.list answer, each agent's main session being
// agent:<id>:<mainKey> ("global" under the global session scope). A
// capture holds that answer only when the recording client asked for it,
// so the Roster hydrates from what the capture holds, in this order:
//
//   - an agents.list response is authoritative: the roster becomes its
//     agents and stops learning (hydrateAgent and removeAgent intents say
//     what changed);
//   - before it, the hello-ok snapshot (sessionDefaults: mainKey, scope,
//     defaultAgentId with its mainSessionKey; health.agents) and
//     sessions.list responses add agents;
//   - and the agent of every agent:<id>:… session key a chat, agent or
//     cron frame carries is added when first seen: the fleet Claw3D would
//     have hydrated before the recording began.
//
// Options.StrictRoster turns the learning off, to see what Claw3D does
// with a capture whose fleet answer it never got. A host may also add
// agents itself (Roster.Add).
//
// # Readings the spec left open
//
// The spec gives Claw3D's rules, not its code; where it is silent the
// model takes these readings, each pinned by a test: snake_case thinking
// keys rank after the camelCase ones; stripUiMetadata's anchored steps
// allow leading whitespace and a [message_id:…] marker goes with the
// whitespace around it, joining the words beside it; a UI-metadata summary
// patch carries lastActivityAt alone; the stale check, commit and close
// apply to every terminal chat state (final, aborted, error), the history
// refresh, lastResult and the latest update to finals only; a final's
// [[meta]] line is written when it has text or a trace, and its time is
// the message's (assistant finals) or now; a fallback's [[meta]] carries
// thinkingDurationMs when the run's thinking start was recorded; the
// run-start history refresh fires after 250 ms even if chat frames came
// meanwhile; a reasoning frame's own delta is preferred to its text;
// showThinkingTraces is on (Claw3D's default); a date in a message is
// read in UTC; an approval's markActivity is not throttled (the ingress
// dispatches it, not the runtime handler), and a pending approval is
// removed at its expiresAtMs; a cron line goes to the agent's main session
// as a runtime-agent assistant entry.
//
// # What is left out
//
//   - The Office screen's path, which bypasses the live queue.
//   - Answers to requests: loadSummarySnapshot, requestHistoryRefresh and
//     refreshHeartbeatLatestUpdate are effects the host records; the
//     history merge helpers are here for a host that answers from a
//     capture, but mergeHistoryWithPending and resolveHistoryRunStatePatch
//     are not.
//   - The socket client's frame-seq gap detection (§4.9), which belongs to
//     the connection, not the runtime handler.
//   - Per-run maps of runs never closed (a frame of an agent that is not
//     hydrated still marks its run as seen) grow with the number of runs,
//     as in Claw3D; nothing grows per frame.
package claw3d
