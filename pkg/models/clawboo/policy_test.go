package clawboo

import (
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/bridge"
)

// derive classifies a frame at time ts and derives its intents as JSON.
func derive(frame string, ts int64) []string {
	ev := bridge.Classify([]byte(frame), ts)
	var out []string
	for _, in := range Derive(&ev) {
		out = append(out, string(in.AppendJSON(nil)))
	}
	return out
}

func chat(state, extra string) string {
	return `{"type":"event","event":"chat","payload":{"runId":"r1","sessionKey":"agent:main:main","state":"` + state + `"` + extra + `}}`
}

func agent(stream, data string) string {
	return `{"type":"event","event":"agent","payload":{"runId":"r1","sessionKey":"agent:main:main","stream":"` + stream + `","data":` + data + `}}`
}

const asst = `"message":{"role":"assistant","content":[{"type":"text","text":"Hello there"}]}`

func TestDeriveTable(t *testing.T) {
	cases := []struct {
		name  string
		frame string
		want  []string
	}{
		{"presence", `{"type":"event","event":"presence","payload":{}}`,
			[]string{`{"kind":"scheduleSummaryRefresh","plane":"agent","delayMs":750,"includeHeartbeatRefresh":false}`}},
		{"heartbeat", `{"type":"event","event":"heartbeat","payload":{}}`,
			[]string{`{"kind":"scheduleSummaryRefresh","plane":"agent","delayMs":750,"includeHeartbeatRefresh":true}`}},
		{"chat delta", chat("delta", ","+asst),
			[]string{`{"kind":"queueLivePatch","plane":"work","agentId":"main","sessionKey":"agent:main:main","patch":{"runId":"r1","streamText":"Hello there","lastActivityAt":500}}`}},
		{"chat delta without message has no streamText and no status", chat("delta", ""),
			[]string{`{"kind":"queueLivePatch","plane":"work","agentId":"main","sessionKey":"agent:main:main","patch":{"runId":"r1","lastActivityAt":500}}`}},
		{"chat delta with thinking", chat("delta", `,"message":{"role":"assistant","content":"<think>plan</think>Answer"}`),
			[]string{`{"kind":"queueLivePatch","plane":"work","agentId":"main","sessionKey":"agent:main:main","patch":{"runId":"r1","streamText":"Answer","thinkingTrace":"plan","lastActivityAt":500}}`}},
		// The reference reads neither deltaText nor replace (v4).
		{"v4 replace delta without message: no streamText", chat("delta", `,"replace":true,"deltaText":"New text"`),
			[]string{`{"kind":"queueLivePatch","plane":"work","agentId":"main","sessionKey":"agent:main:main","patch":{"runId":"r1","lastActivityAt":500}}`}},
		{"v4 empty replace delta: no streamText", chat("delta", `,"replace":true,"deltaText":""`),
			[]string{`{"kind":"queueLivePatch","plane":"work","agentId":"main","sessionKey":"agent:main:main","patch":{"runId":"r1","lastActivityAt":500}}`}},
		{"v4 replace delta, message without text: no streamText", chat("delta", `,"replace":true,"deltaText":"New","message":{"role":"assistant","content":[]}`),
			[]string{`{"kind":"queueLivePatch","plane":"work","agentId":"main","sessionKey":"agent:main:main","patch":{"runId":"r1","lastActivityAt":500}}`}},
		{"v4 replace delta with message text: the message's", chat("delta", `,"replace":true,"deltaText":"New","message":{"role":"assistant","content":"Old"}`),
			[]string{`{"kind":"queueLivePatch","plane":"work","agentId":"main","sessionKey":"agent:main:main","patch":{"runId":"r1","streamText":"Old","lastActivityAt":500}}`}},
		{"chat final without thinking asks for history", chat("final", ","+asst),
			[]string{
				`{"kind":"clearPendingLivePatch","plane":"work","agentId":"main"}`,
				`{"kind":"commitChat","plane":"work","agentId":"main","sessionKey":"agent:main:main","runId":"r1","patch":{"status":"idle","runId":null,"runStartedAt":null,"streamText":null,"thinkingTrace":null,"lastActivityAt":500},"outputLines":["Hello there"],"cost":{"model":"unknown","inputTokens":null,"outputTokens":3}}`,
				`{"kind":"requestHistoryRefresh","plane":"agent","agentId":"main","reason":"chat-final-no-trace"}`,
			}},
		{"chat final with thinking does not", chat("final", `,"model":"m1","message":{"role":"assistant","content":[{"type":"thinking","thinking":"why"},{"type":"text","text":"ok"}],"usage":{"input_tokens":10,"output_tokens":-2}}`),
			[]string{
				`{"kind":"clearPendingLivePatch","plane":"work","agentId":"main"}`,
				`{"kind":"commitChat","plane":"work","agentId":"main","sessionKey":"agent:main:main","runId":"r1","patch":{"status":"idle","runId":null,"runStartedAt":null,"streamText":null,"thinkingTrace":null,"lastActivityAt":500},"outputLines":["ok"],"cost":{"model":"m1","inputTokens":10,"outputTokens":0}}`,
			}},
		{"silent final (no message)", chat("final", ""),
			[]string{
				`{"kind":"clearPendingLivePatch","plane":"work","agentId":"main"}`,
				`{"kind":"commitChat","plane":"work","agentId":"main","sessionKey":"agent:main:main","runId":"r1","patch":{"status":"idle","runId":null,"runStartedAt":null,"streamText":null,"thinkingTrace":null,"lastActivityAt":500},"outputLines":[],"cost":null}`,
				`{"kind":"requestHistoryRefresh","plane":"agent","agentId":"main","reason":"chat-final-no-trace"}`,
			}},
		{"user-role final is committed like an assistant turn", chat("final", `,"message":{"role":"user","content":"[WebChat 2026-11-22 03:13] hi"}`),
			[]string{
				`{"kind":"clearPendingLivePatch","plane":"work","agentId":"main"}`,
				`{"kind":"commitChat","plane":"work","agentId":"main","sessionKey":"agent:main:main","runId":"r1","patch":{"status":"idle","runId":null,"runStartedAt":null,"streamText":null,"thinkingTrace":null,"lastActivityAt":500},"outputLines":["hi"],"cost":{"model":"unknown","inputTokens":null,"outputTokens":1}}`,
				`{"kind":"requestHistoryRefresh","plane":"agent","agentId":"main","reason":"chat-final-no-trace"}`,
			}},
		{"aborted", chat("aborted", ","+asst),
			[]string{
				`{"kind":"clearPendingLivePatch","plane":"work","agentId":"main"}`,
				`{"kind":"commitChat","plane":"work","agentId":"main","sessionKey":"agent:main:main","runId":"r1","patch":{"status":"idle","runId":null,"runStartedAt":null,"streamText":null,"thinkingTrace":null},"outputLines":[],"cost":null}`,
			}},
		{"error puts errorMessage in streamText", chat("error", `,"errorMessage":"model down"`),
			[]string{
				`{"kind":"clearPendingLivePatch","plane":"work","agentId":"main"}`,
				`{"kind":"commitChat","plane":"work","agentId":"main","sessionKey":"agent:main:main","runId":"r1","patch":{"status":"error","runId":null,"runStartedAt":null,"streamText":"model down","thinkingTrace":null},"outputLines":[],"cost":null}`,
			}},
		{"error without message", chat("error", ""),
			[]string{
				`{"kind":"clearPendingLivePatch","plane":"work","agentId":"main"}`,
				`{"kind":"commitChat","plane":"work","agentId":"main","sessionKey":"agent:main:main","runId":"r1","patch":{"status":"error","runId":null,"runStartedAt":null,"streamText":null,"thinkingTrace":null},"outputLines":[],"cost":null}`,
			}},
		{"v4 chat status fails the parse, as in the reference", chat("status", `,"phase":"starting_model"`),
			[]string{`{"kind":"ignore","reason":"malformed chat payload"}`}},
		{"malformed chat", `{"type":"event","event":"chat","payload":{"sessionKey":"agent:main:main","state":"delta"}}`,
			[]string{`{"kind":"ignore","reason":"malformed chat payload"}`}},
		{"chat missing agent", `{"type":"event","event":"chat","payload":{"runId":"r","sessionKey":"main","state":"delta"}}`,
			[]string{`{"kind":"ignore","reason":"chat event missing agentId"}`}},
		{"lifecycle start", agent("lifecycle", `{"phase":"start"}`),
			[]string{`{"kind":"updateAgentStatus","plane":"agent","agentId":"main","runId":"r1","patch":{"status":"running","runId":"r1","runStartedAt":500,"streamText":null,"thinkingTrace":null}}`}},
		{"lifecycle end", agent("lifecycle", `{"phase":"end"}`),
			[]string{`{"kind":"updateAgentStatus","plane":"agent","agentId":"main","runId":"r1","patch":{"status":"idle","runId":null,"runStartedAt":null,"streamText":null,"thinkingTrace":null,"lastActivityAt":500}}`}},
		{"lifecycle error", agent("lifecycle", `{"phase":"error","error":"x"}`),
			[]string{`{"kind":"updateAgentStatus","plane":"agent","agentId":"main","runId":"r1","patch":{"status":"error","runId":null,"runStartedAt":null,"streamText":null,"thinkingTrace":null,"lastActivityAt":500}}`}},
		{"lifecycle v4 phase", agent("lifecycle", `{"phase":"model","provider":"fake"}`),
			[]string{`{"kind":"ignore","reason":"unknown lifecycle phase: model"}`}},
		{"lifecycle without phase", agent("lifecycle", `[]`),
			[]string{`{"kind":"ignore","reason":"unknown lifecycle phase: undefined"}`}},
		{"assistant text", agent("assistant", `{"text":"Hel","delta":"l"}`),
			[]string{`{"kind":"queueLivePatch","plane":"work","agentId":"main","sessionKey":"agent:main:main","patch":{"runId":"r1","streamText":"Hel","lastActivityAt":500}}`}},
		{"assistant delta only is ignored", agent("assistant", `{"delta":"l"}`),
			[]string{`{"kind":"ignore","reason":"assistant stream with no text"}`}},
		{"v4 assistant empty replace is the no-text ignore", agent("assistant", `{"text":"","delta":"","replace":true}`),
			[]string{`{"kind":"ignore","reason":"assistant stream with no text"}`}},
		{"reasoning stream without text", agent("Thinking", `{"delta":"x"}`),
			[]string{`{"kind":"ignore","reason":"reasoning stream with no text"}`}},
		{"THİNK (U+0130) is not a reasoning stream in JavaScript", agent("TH\u0130NK", `{"text":"x"}`),
			[]string{`{"kind":"ignore","reason":"tool/unknown stream (handled by handler): THİNK"}`}},
		{"stream not a string", `{"type":"event","event":"agent","payload":{"runId":"r1","sessionKey":"agent:main:main","stream":5,"data":{"text":"x"}}}`,
			[]string{`{"kind":"ignore","reason":"tool/unknown stream (handled by handler): undefined"}`}},
		{"lifecycle phase not a string", agent("lifecycle", `{"phase":1e21}`),
			[]string{`{"kind":"ignore","reason":"unknown lifecycle phase: 1e+21"}`}},
		{"lifecycle phase array", agent("lifecycle", `{"phase":["a",null,[1,true],{}]}`),
			[]string{`{"kind":"ignore","reason":"unknown lifecycle phase: a,,1,true,[object Object]"}`}},
		{"lifecycle phase null", agent("lifecycle", `{"phase":null}`),
			[]string{`{"kind":"ignore","reason":"unknown lifecycle phase: null"}`}},
		{"empty sessionKey is kept", `{"type":"event","event":"agent","payload":{"runId":"r1","agentId":"main","sessionKey":"","stream":"assistant","data":{"text":"x"}}}`,
			[]string{`{"kind":"queueLivePatch","plane":"work","agentId":"main","sessionKey":"","patch":{"runId":"r1","streamText":"x","lastActivityAt":500}}`}},
		{"lone surrogate survives", agent("assistant", `{"text":"cut \ud83d"}`),
			[]string{`{"kind":"queueLivePatch","plane":"work","agentId":"main","sessionKey":"agent:main:main","patch":{"runId":"r1","streamText":"cut \ud83d","lastActivityAt":500}}`}},
		{"usage counts are JavaScript numbers", chat("final", `,"message":{"role":"assistant","content":"x","usage":{"input_tokens":1.5,"output_tokens":1e21}}`),
			[]string{
				`{"kind":"clearPendingLivePatch","plane":"work","agentId":"main"}`,
				`{"kind":"commitChat","plane":"work","agentId":"main","sessionKey":"agent:main:main","runId":"r1","patch":{"status":"idle","runId":null,"runStartedAt":null,"streamText":null,"thinkingTrace":null,"lastActivityAt":500},"outputLines":["x"],"cost":{"model":"unknown","inputTokens":1.5,"outputTokens":1e+21}}`,
				`{"kind":"requestHistoryRefresh","plane":"agent","agentId":"main","reason":"chat-final-no-trace"}`,
			}},
		{"thinking stream", agent("thinking", `{"text":"hmm","delta":"m"}`),
			[]string{`{"kind":"queueLivePatch","plane":"work","agentId":"main","sessionKey":"agent:main:main","patch":{"runId":"r1","thinkingTrace":"hmm","lastActivityAt":500}}`}},
		{"assistant-thinking is not reasoning", agent("assistant-thinking", `{"text":"x"}`),
			[]string{`{"kind":"ignore","reason":"tool/unknown stream (handled by handler): assistant-thinking"}`}},
		{"tool stream is dropped like the reference", agent("tool", `{"phase":"start","name":"ls"}`),
			[]string{`{"kind":"ignore","reason":"tool/unknown stream (handled by handler): tool"}`}},
		{"v4 usage stream", agent("usage", `{"outputTokens":5}`),
			[]string{`{"kind":"ignore","reason":"tool/unknown stream (handled by handler): usage"}`}},
		{"gateway seq gap", agent("error", `{"reason":"seq gap","expected":5,"received":9}`),
			[]string{`{"kind":"ignore","reason":"tool/unknown stream (handled by handler): error"}`}},
		{"agent missing agent", `{"type":"event","event":"agent","payload":{"runId":"r","stream":"assistant","data":{"text":"x"}}}`,
			[]string{`{"kind":"ignore","reason":"agent event missing agentId"}`}},
		{"malformed agent", `{"type":"event","event":"agent","payload":{"stream":"assistant"}}`,
			[]string{`{"kind":"ignore","reason":"malformed agent payload"}`}},
		{"approval requested", `{"type":"event","event":"exec.approval.requested","payload":{"id":"a1","request":{"agentId":"main","command":"ls"}}}`,
			[]string{`{"kind":"approvalPending","plane":"trust","agentId":"main","payload":{"id":"a1","request":{"agentId":"main","command":"ls"}}}`}},
		{"approval pending", `{"type":"event","event":"exec.approval.pending","payload":{"id":"a1","agentId":"main"}}`,
			[]string{`{"kind":"approvalPending","plane":"trust","agentId":"main","payload":{"id":"a1","agentId":"main"}}`}},
		{"approval resolved", `{"type":"event","event":"exec.approval.resolved","payload":{"id":"a1","agentId":"main","decision":"deny"}}`,
			[]string{`{"kind":"approvalResolved","plane":"trust","agentId":"main","payload":{"id":"a1","agentId":"main","decision":"deny"}}`}},
		{"approval missing agent", `{"type":"event","event":"exec.approval.resolved","payload":{"id":"a1"}}`,
			[]string{`{"kind":"ignore","reason":"approval event missing agentId"}`}},
		{"unknown", `{"type":"event","event":"tick","payload":{"ts":1}}`,
			[]string{`{"kind":"ignore","reason":"unknown event kind"}`}},
		{"request", `{"type":"req","id":"1","method":"chat.send"}`,
			[]string{`{"kind":"ignore","reason":"request frame: chat.send"}`}},
		{"invalid", `nope`,
			[]string{`{"kind":"ignore","reason":"invalid frame: frame is not a JSON object"}`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := derive(c.frame, 500)
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Fatalf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

func TestCostRule(t *testing.T) {
	p := func(s string) *bridge.ChatPayload { return bridge.ParseChatPayload([]byte(s)) }
	if c := ChatCostOf(p(`{"runId":"r","sessionKey":"k","state":"final","message":[1]}`), "x"); c != nil {
		t.Fatal("an array message bills nothing")
	}
	c := ChatCostOf(p(`{"runId":"r","sessionKey":"k","state":"final","message":{"model":"mm","metadata":{"usage":{"input_tokens":"7","output_tokens":9}}}}`), "x")
	if c.Model != "mm" || c.InputTokens == nil || *c.InputTokens != 0 || c.OutputTokens != 9 {
		t.Fatalf("metadata.usage: %+v", c)
	}
	// The estimate counts UTF-16 code units, like JavaScript's length.
	c = ChatCostOf(p(`{"runId":"r","sessionKey":"k","state":"final","message":{}}`), "😀😀a")
	if c.InputTokens != nil || c.OutputTokens != 2 { // 5 units / 4 → 2
		t.Fatalf("estimate: %+v", c)
	}
	if c := ChatCostOf(p(`{"runId":"r","sessionKey":"k","state":"final","message":{}}`), ""); c.OutputTokens != 0 {
		t.Fatal("no text, no tokens")
	}
}

func TestDeriveIsPure(t *testing.T) {
	frame := chat("final", ","+asst)
	a, b := derive(frame, 9), derive(frame, 9)
	if strings.Join(a, "") != strings.Join(b, "") {
		t.Fatal("same input, different intents")
	}
}

func FuzzDerive(f *testing.F) {
	for _, s := range []string{chat("delta", ","+asst), chat("final", `,"message":{"role":"toolResult","toolName":"ls","content":"x"}`),
		agent("lifecycle", `{"phase":"start"}`), agent("assistant", `{"text":"a","replace":true}`),
		`{"type":"event","event":"exec.approval.requested","payload":{"id":"a","agentId":"m"}}`, `{"type":"event","event":"heartbeat"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ev := bridge.Classify(b, 1)
		// A Deriver that has seen every earlier input agrees with Derive.
		if a, d := intentsJSON(Derive(&ev)), intentsJSON(fuzzDeriver.Append(nil, &ev)); a != d {
			t.Fatalf("Deriver gives %s, Derive gives %s", d, a)
		}
		for _, in := range Derive(&ev) {
			out := in.AppendJSON(nil)
			if !jsonValid(out) {
				t.Fatalf("intent JSON invalid: %s", out)
			}
			if in.Kind != Ignore && in.Kind != ScheduleSummaryRefresh && in.AgentID == "" {
				t.Fatalf("%s without agentId", in.Kind)
			}
		}
	})
}

var fuzzDeriver Deriver

func intentsJSON(in []Intent) string {
	var b []byte
	for i := range in {
		b = in[i].AppendJSON(b)
		b = append(b, '\n')
	}
	return string(b)
}

// TestDeriverAgreesWithAppend: over a stream where the same long text comes
// on the agent stream, then the chat stream, then grown, the Deriver's
// remembered text never changes an intent.
func TestDeriverAgreesWithAppend(t *testing.T) {
	text := strings.Repeat(`a streamed reply\nwith \u00e9scapes `, 4)
	frames := []string{
		agent("assistant", `{"text":"`+text+`"}`),
		chat("delta", `,"message":{"role":"assistant","content":[{"type":"text","text":"`+text+`"}]}`),
		chat("delta", `,"message":{"role":"assistant","content":"`+text+`"}`),
		agent("assistant", `{"text":"`+text+`more"}`),
		agent("thinking", `{"text":"`+text+`more"}`),
		chat("delta", `,"message":{"role":"assistant","content":[{"type":"text","text":"`+text+`"}]}`),
		chat("final", `,"message":{"role":"assistant","content":[{"type":"text","text":"`+text+`more"}]}`),
	}
	var d Deriver
	for _, f := range frames {
		ev := bridge.Classify([]byte(f), 1)
		want := intentsJSON(Append(nil, &ev))
		if got := intentsJSON(d.Append(nil, &ev)); got != want {
			t.Errorf("%s:\nDeriver %s\nAppend  %s", f, got, want)
		}
		if !strings.Contains(want, "scapes") {
			t.Errorf("%s: the text is missing from %s", f, want)
		}
	}
}
