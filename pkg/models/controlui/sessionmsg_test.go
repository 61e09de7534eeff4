package controlui_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
)

// events builds a capture like frames, each item an event and its
// payload, with the envelope seq running on.
func events(items ...[2]string) []*capture.Record {
	ps := make([]string, len(items))
	for i, it := range items {
		ps[i] = fmt.Sprintf(`{"type":"event","event":%q,"seq":%d,"payload":%s}`, it[0], i+1, it[1])
	}
	return frames(ps...)
}

func ev(payload string) [2]string { return [2]string{"chat", payload} }
func sm(payload string) [2]string { return [2]string{"session.message", payload} }
func sc(payload string) [2]string { return [2]string{"sessions.changed", payload} }

// userRow is a user's transcript row as the gateway sends it: the chat.send
// idempotency key (the run id) with ":user", an id and a sequence, and the
// session row saying a run is on.
func userRow(run, text string, seq int) string {
	return fmt.Sprintf(`{"sessionKey":"agent:main:main","agentId":"main","message":{"role":"user","content":%q,"idempotencyKey":"%s:user",`+
		`"__openclaw":{"id":"u%d","idempotencyKey":"%s:user","seq":%d}},"messageId":"u%d","messageSeq":%d,"session":{"key":"agent:main:main","hasActiveRun":true}}`,
		text, run, seq, run, seq, seq, seq)
}

// assistantRow is an assistant's transcript row of run; producer says the
// payload names the run too (a reply; a tool call's row does not), active
// what the session row says.
func assistantRow(run, text string, seq int, producer, active bool) string {
	p := ""
	if producer {
		p = fmt.Sprintf(`"runId":%q,`, run)
	}
	return fmt.Sprintf(`{"sessionKey":"agent:main:main","agentId":"main",%s"message":{"role":"assistant","content":[{"type":"text","text":%q}],"stopReason":"stop",`+
		`"__openclaw":{"runId":%q,"id":"a%d","seq":%d}},"messageId":"a%d","messageSeq":%d,"session":{"key":"agent:main:main","hasActiveRun":%v}}`,
		p, text, run, seq, seq, seq, seq, active)
}

// What the pane does with session.message and sessions.changed
// (docs/ui-controlui.md, "Session messages"): each scenario was played into
// the real 2026.9.6 UI in headless Chromium, which showed these messages
// and this stream.
func TestControlUISessionMessages(t *testing.T) {
	for _, c := range []struct {
		name   string
		items  [][2]string
		at     int64
		want   []string
		stream string
	}{
		{"user rows are shown; a final after its run's transcript row is not shown twice",
			[][2]string{sm(userRow("r1", "Hi?", 1)), ev(delta("r1", "Hello")), sm(assistantRow("r1", "Hello!", 2, true, true)), ev(chat("r1", "final", msg("Hello!"))),
				sm(userRow("r2", "More?", 3)), ev(delta("r2", "More")), ev(chat("r2", "final", msg("More.")))},
			0, []string{"user: Hi?", "assistant: Hello!", "user: More?", "assistant: More."}, "<null>"},
		{"the run's row after its final takes the final's place",
			[][2]string{ev(delta("r1", "Hi")), ev(chat("r1", "final", msg("Hi!"))), sm(assistantRow("r1", "Hi there!", 2, true, false))},
			0, []string{"assistant: Hi there!"}, "<null>"},
		{"a user row after its run's final goes before it",
			[][2]string{ev(delta("r1", "Done")), ev(chat("r1", "final", msg("Done."))), sm(userRow("r1", "Do it.", 1))},
			0, []string{"user: Do it.", "assistant: Done."}, "<null>"},
		{"a tool call's row, and a row of a run the pane is not finishing, are left out",
			[][2]string{ev(delta("r1", "x")), sm(`{"sessionKey":"agent:main:main","agentId":"main","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"ls"}],"stopReason":"toolUse","__openclaw":{"runId":"r1","id":"t1","seq":1}},"messageSeq":1}`),
				ev(chat("r1", "final", msg("x!"))), sm(assistantRow("r9", "stray", 5, true, false))},
			0, []string{"assistant: x!"}, "<null>"},
		{"the stream its run's row holds is not kept again",
			[][2]string{ev(delta("r1", "Hello")), sm(assistantRow("r1", "Hello", 1, true, true)), ev(chat("r1", "final", ""))},
			0, []string{"assistant: Hello"}, "<null>"},
		{"an aborted run's kept text gives way to its row",
			[][2]string{sm(userRow("r1", "Go", 1)), ev(delta("r1", "The sea")), ev(chat("r1", "aborted", "")), sm(assistantRow("r1", "The sea is", 2, true, false))},
			0, []string{"user: Go", "assistant: The sea is"}, "<null>"},
		{"a previous run's row with a sequence is shown while another run streams",
			[][2]string{ev(delta("r2", "b")), sm(assistantRow("r1", "a", 1, false, true))},
			0, []string{"assistant: a"}, "b"},
		{"a row with no id, idempotency key or sequence is left out; another session's is its pane's",
			[][2]string{sm(`{"sessionKey":"agent:main:main","message":{"role":"user","content":"anon"}}`),
				sm(strings.ReplaceAll(userRow("r5", "elsewhere", 1), "agent:main:main", "agent:main:other"))},
			0, nil, "<null>"},
		{"a reset of the session empties the list",
			[][2]string{sm(userRow("r1", "Hi", 1)), ev(chat("r1", "final", msg("Hey"))), sc(`{"sessionKey":"agent:main:main","agentId":"main","reason":"reset"}`), sm(userRow("r2", "Again", 1))},
			0, []string{"user: Again"}, "<null>"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := replayPane(t, events(c.items...), c.at)
			if strings.Join(got.messages, "|") != strings.Join(c.want, "|") || got.stream != c.stream {
				t.Errorf("pane\n got %q stream %q\nwant %q stream %q", got.messages, got.stream, c.want, c.stream)
			}
		})
	}
}
