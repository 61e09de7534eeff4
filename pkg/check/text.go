package check

import (
	"fmt"
	"strings"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/message"
)

// minDoubling is the shortest text whose exact doubling is reported: a
// genuine reply can repeat a short token ("ha" → "haha").
const minDoubling = 8

// newCallText handles the first text of an agent stream after the run
// called the model again (called): the gateway streams each call's
// message afresh there, while the chat stream goes on appending. A text
// that starts over is then no gateway bug: it is reported once per run at
// info, for what it does to a UI that shows the agent stream per run, and
// the track starts again from it (a later bug in it is still reported).
// It reports whether it took the text.
func (a *Analyzer) newCallText(rec *capture.Record, r *runState, tr *textTrack, called *bool, what, next string, replace bool) bool {
	if !*called {
		return false
	}
	*called = false
	if replace || !tr.set || strings.HasPrefix(next, tr.s) {
		return false
	}
	if !r.callReported {
		r.callReported = true
		a.addRun(RuleTextNotCumulative, Info, rec.Index, rec.T, r, fmt.Sprintf("Streamed %s text of run %s started over (%d → %d chars) after the run called the model again (lifecycle model, record %d): the gateway streams each call's message afresh on the agent stream, while the chat stream goes on appending. A UI that shows the agent stream's text per run replaces the earlier message in its live bubble.", what, r.key.id, len(tr.s), len(next), r.callI))
	}
	*tr = textTrack{s: next, set: true}
	return true
}

// trackText checks that a cumulative text only grows by extension.
func (a *Analyzer) trackText(rec *capture.Record, r *runState, tr *textTrack, what, next string, replace bool) {
	prev := tr.s
	was := tr.set
	tr.s, tr.set = next, true
	if replace || !was {
		tr.doubled = 0
		return
	}
	if strings.HasPrefix(next, prev) {
		// An exact doubling is remembered, not reported: a reply may
		// repeat itself. Falling back to the original length afterwards
		// is the bug's signature (n → 2n → n).
		tr.doubled = 0
		if len(prev) >= minDoubling && len(next) == 2*len(prev) && next[len(prev):] == prev {
			tr.doubled = len(prev)
		}
		return
	}
	if tr.doubled > 0 && len(next) == tr.doubled && strings.HasPrefix(prev, next) {
		tr.doubled = 0
		if !tr.reported {
			tr.reported = true
			a.addRun(RuleTextNotCumulative, 0, rec.Index, rec.T, r, fmt.Sprintf("Streamed %s text of run %s doubled and then un-doubled (%d → %d → %d chars): a snapshot replayed as an increment; UIs that merge by \"contains\" keep the doubled text.", what, r.key.id, len(next), 2*len(next), len(next)))
		}
		return
	}
	tr.doubled = 0
	if tr.reported {
		return
	}
	tr.reported = true
	if strings.HasPrefix(prev, next) {
		a.addRun(RuleTextNotCumulative, 0, rec.Index, rec.T, r, fmt.Sprintf("Streamed %s text of run %s shrank from %d to %d chars without replace; it ended %s.", what, r.key.id, len(prev), len(next), tailQuote(next, 30)))
		return
	}
	k := commonPrefix(prev, next)
	a.addRun(RuleTextNotCumulative, 0, rec.Index, rec.T, r, fmt.Sprintf("Streamed %s text of run %s is not an extension of the previous one (%d → %d chars, they differ at char %d: %s vs %s).", what, r.key.id, len(prev), len(next), k, around(prev, k), around(next, k)))
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// around quotes up to 24 bytes of s from k, backed off to a rune start.
func around(s string, k int) string {
	for k > 0 && k < len(s) && s[k]&0xC0 == 0x80 {
		k--
	}
	if k >= len(s) {
		return `""`
	}
	return clipQuote(s[k:], 24)
}

// tailQuote quotes the last n runes of s.
func tailQuote(s string, n int) string {
	rs := []rune(s)
	if len(rs) <= n {
		return clipQuote(s, n+1)
	}
	return clipQuote("…"+string(rs[len(rs)-n:]), n+2)
}

// silentTokens are stripped by the gateway from the chat stream and leave a
// final without a message.
var silentTokens = []string{"NO_REPLY", "HEARTBEAT_OK"}

// finalText compares a chat final's text with the last streamed chat text.
func (a *Analyzer) finalText(rec *capture.Record, r *runState, ev *bridge.Event, hasMsg bool) {
	if !r.chat.set {
		return // no delta: /status and other non-agent runs, or no chat stream seen
	}
	streamed := strings.TrimSpace(r.chat.s)
	if !hasMsg {
		if streamed == "" || isSilent(streamed) {
			return
		}
		a.addRun(RuleFinalTextMismatch, 0, rec.Index, rec.T, r, fmt.Sprintf("Chat final of run %s carries no message, but %d chars were streamed (ending %s).", r.key.id, len(streamed), tailQuote(streamed, 30)))
		return
	}
	final, ok := ev.MessageText(nil) // the message's, derived once per event
	if !ok {
		return
	}
	final = strings.TrimSpace(final)
	if final == streamed || strings.HasPrefix(final, streamed) {
		return
	}
	if strings.HasPrefix(streamed, final) {
		a.addRun(RuleFinalTextMismatch, 0, rec.Index, rec.T, r, fmt.Sprintf("Chat final of run %s is %d chars, shorter than the %d chars streamed: the final ends %s, the stream ended %s.", r.key.id, len(final), len(streamed), tailQuote(final, 30), tailQuote(streamed, 30)))
		return
	}
	k := commonPrefix(final, streamed)
	a.addRun(RuleFinalTextMismatch, 0, rec.Index, rec.T, r, fmt.Sprintf("Chat final of run %s differs from the streamed text at char %d (final %d chars, streamed %d): %s vs %s.", r.key.id, k, len(final), len(streamed), around(final, k), around(streamed, k)))
}

func isSilent(s string) bool {
	for _, t := range silentTokens {
		if s == t {
			return true
		}
	}
	return false
}

// leak checks a terminal message's raw text for an unbalanced thinking tag.
func (a *Analyzer) leak(rec *capture.Record, r *runState, msg []byte, what string) {
	if !message.MayHaveTag(msg) {
		return // no '<' in it, so no tag: nothing to decode
	}
	if role, _ := jsonx.GetStr(msg, "role"); role != "" && role != "assistant" {
		return
	}
	if s, ok := message.RawText(msg); ok {
		a.leakText(rec, r, s, what)
	}
}

func (a *Analyzer) leakText(rec *capture.Record, r *runState, s, what string) {
	if r.leakReported || !message.HasThinkingTagLeak(s) {
		return
	}
	r.leakReported = true
	a.addRun(RuleThinkingLeak, 0, rec.Index, rec.T, r, fmt.Sprintf("The %s of run %s has an unbalanced thinking tag (%s): UIs show the reasoning as reply text.", what, r.key.id, firstTag(s)))
}

// firstTag quotes the text around the first '<' that starts a thinking tag.
func firstTag(s string) string {
	low := strings.ToLower(s)
	best := -1
	for _, t := range []string{"<think", "</think", "<analysis", "</analysis", "< think", "< /think"} {
		if k := strings.Index(low, t); k >= 0 && (best < 0 || k < best) {
			best = k
		}
	}
	if best < 0 {
		return "tag"
	}
	return clipQuote(s[best:], 30)
}
