package controlui

import (
	"slices"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/replay"
)

// chat handles a chat frame in its pane, in the order the pane's
// handleChatEvent does (docs/ui-controlui.md, "Chat frames").
func (h *host) chat(ev *bridge.Event) {
	f := readChat(ev)
	p := h.paneFor(ev)
	if p == nil {
		h.ignore(ev, "no pane: the frame's session is not one the UI would show (no sessionKey, or an agentId not the key's)")
		return
	}
	hadRun := p.runID != ""
	var proj *projRun
	prev := ""
	if f.hasRun && f.runID != "" && f.state != "status" {
		proj = p.run(f.runID)
		prev = proj.status
		if s := f.projected(); s != "" && !(terminal(prev) && s == runStreaming) {
			proj.status = s
		}
	}
	// A late frame of a run that had ended.
	if proj != nil && terminal(prev) {
		h.late(p, &f, proj)
		return
	}
	// Adoption: the first frame of a run with a runId, while none is
	// followed; a status never adopts one.
	if p.runID == "" && f.hasRun && f.runID != "" && f.state != "status" {
		p.runID = f.runID
		p.runError = ""
		h.cancelHistory(p)
		h.intent(p, IntentAdopt, f.runID, "", "")
		h.writeRun(p)
	}
	if p.runID != "" && (!f.hasRun || f.runID != p.runID) {
		if f.state == "final" && f.msg.ok && !f.msg.hidden {
			h.appendMessage(p, f.runID, f.msg.text, IntentAppend)
			if proj != nil {
				proj.accepted = append(proj.accepted, f.msg.id)
			}
			return
		}
		h.ignore(ev, "another run is adopted: "+p.runID)
		return
	}
	switch f.state {
	case "status":
		h.ignore(ev, "a status shows only as the run's start-up phase")
	case "delta":
		next, ok := nextStream(p.stream, &f)
		if !ok || !streamShown(next, &f) {
			h.ignore(ev, "no text the bubble shows (none, NO_REPLY or a heartbeat acknowledgement)")
			return
		}
		h.setStream(p, &next)
		h.intent(p, IntentStream, f.runID, next, "")
	case "final":
		if f.msg.ok && !f.msg.hidden {
			h.setStream(p, nil)
			h.appendMessage(p, f.runID, f.msg.text, IntentAppend)
			if proj != nil {
				proj.accepted = append(proj.accepted, f.msg.id)
			}
		} else {
			h.keepStream(p, f.runID)
			if f.runID == p.runID && proj != nil && proj.status == runCompleted {
				h.reloadHistory(p) // the final said nothing: read it from the history
			}
		}
		h.endRun(p, &f, proj, hadRun)
	case "aborted":
		if f.msg.ok && f.msg.array && !f.msg.hidden {
			h.setStream(p, nil)
			h.appendMessage(p, f.runID, f.msg.text, IntentAppend)
		} else {
			h.keepStream(p, f.runID)
		}
		if f.hasError {
			h.banner(p, f.runID, errorText(f.errorMessage, true, f.msg), proj)
		}
		h.endRun(p, &f, proj, hadRun)
	case "error":
		if hadRun {
			switch {
			case f.msg.ok && !f.msg.hidden && f.msg.text != "" && f.msg.text != f.errorMessage:
				if p.stream != nil && *p.stream != "" && !covers(f.msg.text, *p.stream) {
					h.keepStream(p, f.runID)
				}
				h.setStream(p, nil)
				h.appendMessage(p, f.runID, f.msg.text, IntentAppend)
			default:
				h.keepStream(p, f.runID)
			}
		}
		h.banner(p, f.runID, errorText(f.errorMessage, f.hasError, f.msg), proj)
		h.endRun(p, &f, proj, hadRun)
	default:
		h.ignore(ev, "an unknown chat state: the run stays adopted")
	}
}

// late handles a frame of a run whose terminal the projection holds.
func (h *host) late(p *pane, f *chatFrame, proj *projRun) {
	switch f.state {
	case "delta":
		h.ignoreRun(p, f.runID, "a delta of a run that has ended")
	case "error", "aborted":
		owner := p.runID
		if owner == "" {
			owner = p.lastEnded
		}
		// The projection keeps a run's first error: a later one (2026.9.6's
		// dispatch-failure copy) changes nothing, an error after an abort
		// (2026.9.7) is the first.
		if owner == f.runID && f.hasError && proj.errText == "" {
			h.banner(p, f.runID, errorText(f.errorMessage, true, f.msg), proj)
			return
		}
		h.ignoreRun(p, f.runID, "a second terminal of a run that has ended, saying nothing new")
	case "final":
		if !f.msg.ok || f.msg.hidden || slices.Contains(proj.accepted, f.msg.id) {
			h.ignoreRun(p, f.runID, "a final of a run that has ended, with no message or one it shows already")
			return
		}
		proj.accepted = append(proj.accepted, f.msg.id)
		h.appendMessage(p, f.runID, f.msg.text, IntentAppend)
	default:
		h.ignoreRun(p, f.runID, "a frame of a run that has ended")
	}
}

// covers reports whether a message's text holds the streamed text.
func covers(msg, stream string) bool { return len(msg) >= len(stream) && msg[:len(stream)] == stream }

// endRun is the pane's "reconcile owned terminal": a terminal of the run
// it follows clears the run and the stream and shows done or interrupted
// for statusMs (a yielded run shows neither).
func (h *host) endRun(p *pane, f *chatFrame, proj *projRun, hadRun bool) {
	if proj == nil || f.runID != p.runID || !terminal(proj.status) {
		return
	}
	phase := phaseInterrupted
	switch proj.status {
	case runCompleted:
		phase = phaseDone
	case runYielded:
		phase = ""
	}
	p.runID = ""
	h.setStream(p, nil)
	if hadRun {
		p.lastEnded = f.runID
	}
	p.status = phase
	p.statusGen++
	if phase != "" {
		gen := p.statusGen
		h.h.After(statusMs, TimerRunStatus, func() {
			if p.statusGen == gen {
				p.status = ""
				h.writeRun(p)
			}
		})
	}
	h.writeRun(p)
	h.intent(p, IntentEnd, f.runID, "", phase)
}

// keepStream turns a non-empty stream into a message (the pane's
// materialisation of the live text).
func (h *host) keepStream(p *pane, runID string) {
	if p.stream == nil || *p.stream == "" {
		h.setStream(p, nil)
		return
	}
	text := *p.stream
	h.setStream(p, nil)
	h.appendMessage(p, runID, text, IntentKeep)
}

func (h *host) banner(p *pane, runID, text string, proj *projRun) {
	p.runError = text
	if proj != nil {
		proj.errText = text
	}
	h.writeRun(p)
	h.intent(p, IntentBanner, runID, text, "")
}

func (h *host) setStream(p *pane, s *string) {
	p.stream = s
	v := replay.NStr{}
	if s != nil {
		v = replay.NStr{Valid: true, V: *s}
	}
	h.st.SetChatStream(p.key, v)
}

// writeRun mirrors the pane's run, status and banner into the state.
func (h *host) writeRun(p *pane) {
	opt := func(s string) replay.NStr { return replay.NStr{Valid: s != "", V: s} }
	h.st.SetPaneRun(p.key, opt(p.runID), opt(p.status), opt(p.runError))
}

// appendMessage adds an assistant message to the pane's list.
func (h *host) appendMessage(p *pane, runID, text, kind string) {
	a := h.st.EnsureAgent(p.agent)
	now := h.h.Now()
	if h.st.PushLine(a, replay.Line{Text: text, Kind: replay.LineAssistant, Role: "assistant", RunID: runID, SessionKey: p.key, TS: now}) {
		h.h.Effect(replay.Effect{Type: replay.EffTrim, AgentID: p.agent, Count: 1})
	}
	reason := ""
	if kind == IntentKeep {
		reason = "the streamed text kept as the message"
	}
	h.h.Effect(replay.Effect{Type: replay.EffAppend, AgentID: p.agent, SessionKey: p.key, Count: 1, At: replay.NInt{Valid: true, V: now}, Reason: reason})
	h.intent(p, kind, runID, text, "")
}
