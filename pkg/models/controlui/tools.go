package controlui

import (
	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/jsonx"
)

// agent handles an agent frame: the pane takes no text from the agent
// stream, and neither adopts nor ends a run on a lifecycle event; tool and
// item frames of the session's runs make tool cards.
func (c *host) agent(ev *bridge.Event) {
	stream := ev.Stream
	if stream != "tool" && stream != "item" {
		return // assistant, thinking, lifecycle, …: nothing the pane shows
	}
	p := c.paneFor(ev)
	if p == nil {
		return
	}
	data, _ := ev.Member("data")
	if jsonx.KindOf(data) != jsonx.Object {
		return
	}
	id, _ := jsonx.GetStr(data, "toolCallId")
	if stream == "item" {
		// An item that fits the item schema is a card without a result,
		// for the run the pane follows or while it follows none.
		itemID, ok1 := jsonx.GetStr(data, "itemId")
		_, ok2 := jsonx.GetStr(data, "phase")
		kind, ok3 := jsonx.GetStr(data, "kind")
		if !ok1 || !ok2 || !ok3 || kind == "preamble" || p.runID != "" && p.runID != ev.RunID {
			return
		}
		if id == "" {
			id = itemID
		}
	}
	if id == "" {
		return
	}
	key := ev.RunID + ":" + id
	if p.tools[key] {
		return // updated in place: the count does not change
	}
	if len(p.toolOrder) >= maxTools {
		delete(p.tools, p.toolOrder[0])
		p.toolOrder = p.toolOrder[1:]
	}
	p.tools[key] = true
	p.toolOrder = append(p.toolOrder, key)
	c.st.SetPaneTools(p.key, int64(len(p.toolOrder)))
	c.intent(p, IntentTool, ev.RunID, key, "")
}
