package outcome

import (
	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/jsonx"
)

// bridgeMessage is a chat frame's payload.message.
func bridgeMessage(ev *bridge.Event) ([]byte, bool) { return jsonx.Get(ev.Payload, "message") }

// jsonReason reads an intent's "reason".
func jsonReason(b []byte) string {
	s, _ := jsonx.GetStr(b, "reason")
	return s
}
