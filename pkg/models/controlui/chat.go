package controlui

import (
	"slices"
	"strings"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/jsstr"
	"github.com/clawtap/clawtap/pkg/replay"
)

// chat handles a chat frame in its pane, in the order the pane's
// handleChatEvent does (docs/ui-controlui.md, "Chat frames").
func (h *host) chat(ev *bridge.Event) {
	f := readChat(ev, &h.texts)
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
			if !terminal(prev) && f.hasRaw {
				proj.noteMessage(&f) // the run's projected message: a live frame's
			}
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
			h.showTerminal(p, &f, f.runID)
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
		h.reconcilePersisted(p)
		h.intent(p, IntentStream, f.runID, next, "")
	case "final":
		if f.msg.ok && !f.msg.hidden {
			h.setStream(p, nil)
			h.showTerminal(p, &f, h.terminalRun(p, &f))
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
			h.showTerminal(p, &f, h.terminalRun(p, &f))
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
				h.showTerminal(p, &f, h.terminalRun(p, &f))
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
		if proj.text == "" {
			proj.noteMessage(f) // a final accepted over a message with nothing to show
		}
		h.showTerminal(p, f, h.terminalRun(p, f))
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
	p.persisted = ""
	h.setStream(p, nil)
	switch {
	case phase == "":
		p.lastEnded = "" // a yielded run arms no terminal reconcile
	case hadRun:
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

// keepStream turns the stream into a message: the pane's materialised
// live text, less the start the run's transcript rows already show
// (materializeVisibleAssistantStreamMessages with the current stream).
func (h *host) keepStream(p *pane, runID string) {
	if p.stream == nil {
		return
	}
	text := visibleStream(*p.stream, p.persisted)
	h.setStream(p, nil)
	if jsstr.Trim(text) == "" {
		return
	}
	id := ident{role: "assistant", runID: p.runID} // the stream names the run it follows
	id.contentKey = contentKey(textMessage(text), "assistant")
	e := &entry{ident: id, rawRole: "assistant", text: text, lineRun: runID, ts: h.h.Now()}
	for _, x := range p.entries {
		if x.msgSeq != 0 {
			e.after, e.hasAfter = x.msgSeq, true
		}
	}
	h.publish(p, append(p.entries[:len(p.entries):len(p.entries)], e), "the streamed text kept as the message")
	h.intentRole(p, IntentKeep, runID, "assistant", text)
}

// visibleStream is the stream the bubble shows: less the start its run's
// transcript rows hold, and the blanks after it.
func visibleStream(stream, persisted string) string {
	if persisted == "" || !strings.HasPrefix(stream, persisted) {
		return stream
	}
	return jsstr.TrimStart(stream[len(persisted):])
}

// terminalRun is the run a terminal's message is published for: its own,
// else the adopted one.
func (h *host) terminalRun(p *pane, f *chatFrame) string {
	if f.hasRun && f.runID != "" {
		return f.runID
	}
	return p.runID
}

// showTerminal publishes a chat terminal's message as
// publishVisibleTerminal does: through the projection, taking the place of
// the entry it is, else at the end of the list; not at all when a durable
// transcript row of it is there already.
func (h *host) showTerminal(p *pane, f *chatFrame, runID string) {
	id, _ := readIdent(f.raw, envelope{runID: runID, messageID: f.messageID, messageSeq: f.messageSeq}, "assistant")
	e := &entry{ident: id, rawRole: "assistant", text: f.msg.text, finalOf: f.runID, lineRun: f.runID, ts: h.h.Now()}
	e.msgSeq = metaSeq(f.raw)
	_, out, at := project(p.entries, e, p.runs)
	switch out {
	case dropped:
		h.ignoreRun(p, f.runID, "the pane shows this message already: its transcript row came first")
		return
	case replaced:
		next := append([]*entry(nil), p.entries...)
		next[at] = e
		h.publish(p, next, "a transcript row replaced by the run's terminal message")
		h.intentRole(p, IntentReplace, f.runID, "assistant", f.msg.text)
		return
	}
	h.publish(p, append(p.entries[:len(p.entries):len(p.entries)], e), "")
	h.intentRole(p, IntentAppend, f.runID, "assistant", f.msg.text)
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
