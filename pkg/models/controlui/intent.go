package controlui

import (
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/ui"
)

// Intent kinds: what the pane did with a frame.
const (
	IntentAdopt      = "adoptRun"    // the pane follows the run: busy, the Stop button
	IntentStream     = "stream"      // the streaming bubble's text
	IntentAppend     = "append"      // a message appended to the list
	IntentKeep       = "keepStream"  // the stream kept as a message
	IntentInsert     = "insert"      // a message placed before others (by its transcript sequence)
	IntentReplace    = "replace"     // a message took the place of the one it is
	IntentClear      = "clear"       // a session reset emptied the list
	IntentEnd        = "endRun"      // the run ended: done or interrupted
	IntentBanner     = "errorBanner" // the error banner
	IntentTool       = "toolCard"    // a tool card added or updated
	IntentDisconnect = "disconnect"  // the connection went: run, stream and tool cards cleared
	IntentIgnore     = ui.IgnoreKind // the frame changed nothing, and why
)

// Intent is one thing the Control UI's chat pane did with a frame.
type Intent struct {
	Kind       string
	SessionKey string
	AgentID    string
	RunID      string
	Text       string // the stream's text, a message's, the banner's
	Role       string // append
	Phase      string // endRun: done, interrupted, or "" for a yielded run
	Reason     string // ignore
}

// IntentKind and IntentAgent make it a ui.Intent.
func (in *Intent) IntentKind() string  { return in.Kind }
func (in *Intent) IntentAgent() string { return in.AgentID }

// AppendJSONAt appends the intent as JSON: its kind, then the fields it
// uses.
func (in *Intent) AppendJSONAt(dst []byte, _ int64) []byte {
	dst = append(dst, `{"kind":`...)
	dst = jsonx.AppendString(dst, in.Kind)
	str := func(k, v string) {
		if v != "" {
			dst = append(dst, ',', '"')
			dst = append(dst, k...)
			dst = append(dst, '"', ':')
			dst = jsonx.AppendString(dst, v)
		}
	}
	str("sessionKey", in.SessionKey)
	str("runId", in.RunID)
	switch in.Kind {
	case IntentStream, IntentAppend, IntentKeep, IntentInsert, IntentReplace, IntentBanner:
		str("role", in.Role)
		dst = append(dst, `,"text":`...)
		dst = jsonx.AppendString(dst, in.Text)
	case IntentEnd:
		str("phase", in.Phase)
	case IntentTool:
		str("card", in.Text)
	case IntentIgnore:
		str("reason", in.Reason)
	}
	return append(dst, '}')
}

// ClipTexts is the intent with its text cut to n runes (ui.Clipper).
func (in *Intent) ClipTexts(n int) ui.Intent {
	if len(in.Text) <= n {
		return in
	}
	c := *in
	c.Text = ui.CutRunes(c.Text, n)
	return &c
}
