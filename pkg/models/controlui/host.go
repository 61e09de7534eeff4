package controlui

import (
	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/replay"
	"github.com/clawtap/clawtap/pkg/ui"
)

// Timer names of the Control UI's timer steps.
const (
	TimerRunStatus   = "runStatus"   // a done or interrupted status clears
	TimerHistoryLoad = "historyLoad" // a chat.history reload after a final that said nothing
)

// Request kinds: the pane's history loads.
const (
	ReqChatStartup = "chatStartup"
	ReqChatHistory = "chatHistory"
)

// historyDelays are the pane's chat.history reloads after a final
// without a message: at once, then after 100, 400, 1500 and 3000 ms more,
// until a new run is adopted.
var historyDelays = []int64{0, 100, 400, 1500, 3000}

// maxTools bounds a pane's tool cards, as the pane does.
const maxTools = 50

// host is the Control UI on the engine: its panes, one per session, and
// the connection they share.
type host struct {
	h     *replay.Host
	st    *replay.State
	def   defaults
	panes map[string]*pane
	keys  []string // the panes' keys, in the order they were made

	conn    int   // the connection whose frames the UI reads
	lastSeq int64 // its envelope seq, 0 before the first
	started bool  // a chat.startup was asked on this connection

	out []Intent // the step's intents, which the step points at
	// texts decodes the messages' texts: a streamed reply's frames each
	// carry the text so far, decoded by what it adds.
	texts jsonx.StrMemo
	// publishes counts the panes' publishes: each marks the entries it
	// keeps (publish).
	publishes uint64
}

func newHost(h *replay.Host) *host {
	return &host{h: h, st: h.State(), def: initialDefaults(), panes: map[string]*pane{}}
}

// Record handles one record: a connection's marks, the envelope seq, the
// hello-ok's session defaults, then chat and agent frames in their panes.
func (c *host) Record(rec *capture.Record, ev *bridge.Event) {
	if rec.Conn != c.conn {
		c.conn, c.lastSeq, c.started = rec.Conn, 0, false
	}
	switch ev.Kind {
	case bridge.Marker:
		switch rec.Mark {
		case capture.MarkClose, capture.MarkError:
			c.disconnect("the connection closed")
		case capture.MarkOpen, capture.MarkHello:
			c.lastSeq = 0
		}
		return
	case bridge.Response:
		if ev.Method == "connect" && ev.OK != nil && *ev.OK {
			c.def.read(ev.Payload)
			c.lastSeq = 0
			if !c.started {
				c.started = true
				c.h.Request(ReqChatStartup, "", "mount")
			}
		}
		return
	}
	if ev.HasSeq && rec.Dir == capture.DirIn {
		if c.lastSeq > 0 && ev.Seq > c.lastSeq+1 {
			// The pane's socket drops the frame that skipped ahead and
			// reconnects at once.
			c.disconnect("event gap: expected seq " + itoa(c.lastSeq+1) + ", got " + itoa(ev.Seq) + "; the frame is dropped and the UI reconnects")
			c.lastSeq = ev.Seq
			c.h.Request(ReqChatStartup, "", "reconnect")
			return
		}
		c.lastSeq = ev.Seq
	}
	switch ev.Kind {
	case bridge.RuntimeChat:
		c.chat(ev)
		c.replayReload(ev)
	case bridge.RuntimeAgent:
		c.agent(ev)
	case bridge.Unknown:
		switch ev.Event {
		case "session.message":
			c.sessionMessage(ev)
		case "sessions.changed":
			c.sessionsChanged(ev)
		}
	}
}

// paneFor is the pane of a chat or agent frame's session, made when first
// met; nil when no pane takes the frame.
func (c *host) paneFor(ev *bridge.Event) *pane {
	key, _ := ev.MemberStr("sessionKey")
	agent, hasAgent := ev.MemberStr("agentId")
	k, a, ok := c.def.match(key, agent, hasAgent)
	if !ok {
		return nil
	}
	return c.pane(k, a)
}

// pane is the pane of a session key and its agent, made when first met.
func (c *host) pane(k, a string) *pane {
	p := c.panes[k]
	if p == nil {
		p = newPane(k, a)
		c.panes[k] = p
		c.keys = append(c.keys, k)
	}
	return p
}

// disconnect is what a lost connection does to every pane: the run, the
// stream and the tool cards go, the messages stay.
func (c *host) disconnect(why string) {
	for _, k := range c.keys {
		p := c.panes[k]
		if p.runID == "" && p.stream == nil && len(p.tools) == 0 {
			continue
		}
		p.runID = ""
		p.persisted = ""
		c.cancelHistory(p)
		c.setStream(p, nil)
		clear(p.tools)
		p.toolOrder = p.toolOrder[:0]
		c.st.SetPaneTools(p.key, 0)
		c.writeRun(p)
		c.out = append(c.out, Intent{Kind: IntentDisconnect, SessionKey: p.key, AgentID: p.agent, Reason: why})
		c.h.Intent(&c.out[len(c.out)-1])
	}
}

// reloadHistory arms the pane's chat.history reloads.
// The recovery takes over a session.message's pending reload.
func (c *host) reloadHistory(p *pane) {
	c.cancelHistory(p)
	p.reload = false
	var cancels []func()
	var at int64
	for _, d := range historyDelays {
		at += d
		cancels = append(cancels, c.h.After(at, TimerHistoryLoad, func() {
			c.h.Request(ReqChatHistory, p.agent, "a final without a message")
		}))
	}
	p.history = func() {
		for _, cancel := range cancels {
			cancel()
		}
	}
}

func (c *host) cancelHistory(p *pane) {
	if p.history != nil {
		p.history()
		p.history = nil
	}
}

func (c *host) intent(p *pane, kind, runID, text, phase string) {
	c.out = append(c.out, Intent{Kind: kind, SessionKey: p.key, AgentID: p.agent, RunID: runID, Text: text, Phase: phase})
	c.h.Intent(&c.out[len(c.out)-1])
}

// intentRole is a message's intent: its role and text.
func (c *host) intentRole(p *pane, kind, runID, role, text string) {
	c.out = append(c.out, Intent{Kind: kind, SessionKey: p.key, AgentID: p.agent, RunID: runID, Role: role, Text: text})
	c.h.Intent(&c.out[len(c.out)-1])
}

func (c *host) ignore(ev *bridge.Event, reason string) {
	c.out = append(c.out, Intent{Kind: IntentIgnore, AgentID: ev.AgentID, RunID: ev.RunID, Reason: reason})
	c.h.Intent(&c.out[len(c.out)-1])
}

func (c *host) ignoreRun(p *pane, runID, reason string) {
	c.out = append(c.out, Intent{Kind: IntentIgnore, SessionKey: p.key, AgentID: p.agent, RunID: runID, Reason: reason})
	c.h.Intent(&c.out[len(c.out)-1])
}

// Dispose: the stores survive a connection's end; what the pane drops is
// the disconnect's (Record at the close mark).
func (c *host) Dispose(string) {}

// ClosedRuns: the Control UI keeps no closed-run map.
func (c *host) ClosedRuns() []ui.ClosedRun { return nil }

// BeginStep forgets the last step's intents (a step's intents point into
// out; one that outgrows it leaves the earlier ones where they were).
func (c *host) BeginStep() {
	clear(c.out)
	c.out = c.out[:0]
}

func itoa(n int64) string { return string(jsonx.AppendInt(nil, n)) }
