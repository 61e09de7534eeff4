package message

import (
	"reflect"
	"strings"
	"testing"
)

func call(block string) string {
	return `{"role":"assistant","content":[` + block + `]}`
}

func TestToolLinesCalls(t *testing.T) {
	cases := []struct {
		name, msg string
		want      []string
	}{
		{"non-object", `"x"`, nil},
		{"no content", `{"role":"assistant"}`, nil},
		{"string content", `{"role":"assistant","content":"[[tool]] x"}`, nil},
		{"object args", call(`{"type":"toolCall","id":"c1","name":" exec ","arguments":{"command":"ls -la","n":1.0}}`),
			[]string{"[[tool]] exec (c1)\n```json\n{\n  \"command\": \"ls -la\",\n  \"n\": 1\n}\n```"}},
		{"no args", call(`{"type":"toolCall","id":"c1","name":"read"}`), []string{"[[tool]] read (c1)"}},
		{"string args", call(`{"type":"toolCall","name":"sh","arguments":"ls\n-la"}`), []string{"[[tool]] sh\n```json\nls\n-la\n```"}},
		{"empty string args", call(`{"type":"toolCall","name":"sh","arguments":""}`), []string{"[[tool]] sh"}},
		{"blank string args render nothing (formatJson trims)", call(`{"type":"toolCall","name":"sh","arguments":" "}`), []string{"[[tool]] sh"}},
		{"string args trimmed", call(`{"type":"toolCall","name":"sh","arguments":"\u00a0 {\"a\":1}\n\ufeff"}`), []string{"[[tool]] sh\n```json\n{\"a\":1}\n```"}},
		{"string args: NEL is not JS whitespace", call(`{"type":"toolCall","name":"sh","arguments":"\u0085x\u0085"}`), []string{"[[tool]] sh\n```json\n\u0085x\u0085\n```"}},
		{"number args", call(`{"type":"toolCall","name":"n","arguments":1.50}`), []string{"[[tool]] n\n```json\n1.5\n```"}},
		{"exp number args", call(`{"type":"toolCall","name":"n","arguments":1e21}`), []string{"[[tool]] n\n```json\n1e+21\n```"}},
		{"overflow number args is String(Infinity)", call(`{"type":"toolCall","name":"n","arguments":-1e400}`), []string{"[[tool]] n\n```json\n-Infinity\n```"}},
		{"negative zero args", call(`{"type":"toolCall","name":"n","arguments":-0}`), []string{"[[tool]] n\n```json\n0\n```"}},
		{"bool args", call(`{"type":"toolCall","name":"b","arguments":false}`), []string{"[[tool]] b\n```json\nfalse\n```"}},
		{"null args render nothing (formatJson(null))", call(`{"type":"toolCall","name":"z","arguments":null}`), []string{"[[tool]] z"}},
		{"number args as String(n)", call(`{"type":"toolCall","name":"z","arguments":1e21}`), []string{"[[tool]] z\n```json\n1e+21\n```"}},
		{"empty object args", call(`{"type":"toolCall","name":"e","arguments":{ }}`), []string{"[[tool]] e\n```json\n{}\n```"}},
		{"empty array args", call(`{"type":"toolCall","name":"e","arguments":[ ]}`), []string{"[[tool]] e\n```json\n[]\n```"}},
		{"missing name", call(`{"type":"toolCall","id":"i"}`), []string{"[[tool]] tool (i)"}},
		{"blank name", call(`{"type":"toolCall","name":" \t"}`), []string{"[[tool]] tool"}},
		{"number name", call(`{"type":"toolCall","name":5}`), []string{"[[tool]] tool"}},
		{"empty id", call(`{"type":"toolCall","name":"x","id":""}`), []string{"[[tool]] x"}},
		{"number id", call(`{"type":"toolCall","name":"x","id":7}`), []string{"[[tool]] x"}},
		{"id not trimmed", call(`{"type":"toolCall","name":"x","id":" a "}`), []string{"[[tool]] x ( a )"}},
		{"other blocks ignored", call(`{"type":"text","text":"t"},{"type":"tool_use","name":"u"},{"type":"toolcall","name":"l"},null,{"type":"toolCall","name":"a"},{"type":"toolCall","name":"b"}`),
			[]string{"[[tool]] a", "[[tool]] b"}},
		{"assistant gets no result", `{"role":"assistant","toolName":"x","content":"out"}`, nil},
		{"other args keys not read", call(`{"type":"toolCall","name":"x","args":{"a":1},"input":"i","parameters":[1]}`), []string{"[[tool]] x"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ToolLines([]byte(c.msg))
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("ToolLines(%s)\n got %q\nwant %q", c.msg, got, c.want)
			}
		})
	}
}

func TestToolLinesResult(t *testing.T) {
	cases := []struct {
		name, msg string
		want      []string
	}{
		{"full", `{"role":"toolResult","toolName":"exec","toolCallId":"c1","isError":true,
			"details":{"status":" completed ","exitCode":0,"durationMs":12.5,"cwd":"/tmp"},
			"content":[{"type":"text","text":"  out\n"}]}`,
			[]string{"[[tool-result]] exec (c1)\ncompleted · exit 0 · 12.5ms · /tmp · error\n```text\nout\n```"}},
		{"bare", `{"role":"toolResult"}`, []string{"[[tool-result]] tool"}},
		{"role tool", `{"role":"tool","toolName":"t","content":"x"}`, []string{"[[tool-result]] t\n```text\nx\n```"}},
		{"role case matters", `{"role":"ToolResult","toolName":"t"}`, nil},
		{"empty name and id", `{"role":"tool","toolName":"","toolCallId":""}`, []string{"[[tool-result]] tool"}},
		{"name trimmed", `{"role":"tool","toolName":" t\u3000"}`, []string{"[[tool-result]] t"}},
		{"blank name is tool", `{"role":"tool","toolName":" \ufeff "}`, []string{"[[tool-result]] tool"}},
		{"meta only", `{"role":"tool","details":{"exitCode":-1,"durationMs":1e3}}`, []string{"[[tool-result]] tool\nexit -1 · 1000ms"}},
		{"text only", `{"role":"tool","text":"hello"}`, []string{"[[tool-result]] tool\n```text\nhello\n```"}},
		{"blank text dropped", `{"role":"tool","content":" \n "}`, []string{"[[tool-result]] tool"}},
		{"wrong meta types", `{"role":"tool","details":{"status":5,"exitCode":"1","durationMs":null,"cwd":""},"isError":"true"}`, []string{"[[tool-result]] tool"}},
		{"blank status, cwd trimmed", `{"role":"tool","details":{"status":"  ","cwd":" /a "}}`, []string{"[[tool-result]] tool\n/a"}},
		{"blank cwd dropped", `{"role":"tool","details":{"status":"ok","cwd":"\u2028"}}`, []string{"[[tool-result]] tool\nok"}},
		{"details array ignored", `{"role":"tool","details":[{"status":"x"}]}`, []string{"[[tool-result]] tool"}},
		{"isError false", `{"role":"tool","isError":false}`, []string{"[[tool-result]] tool"}},
		{"isError alone", `{"role":"tool","isError":true}`, []string{"[[tool-result]] tool\nerror"}},
		{"output loses envelope and policy", `{"role":"toolResult","content":"[WebChat 2026-01-01 10:00] done` +
			`\n\nExecution approval policy:\n- a\n- b\nThen reply exactly: \"Waiting for approved command result.\""}`,
			[]string{"[[tool-result]] tool\n```text\ndone\n```"}},
		{"output keeps tags", `{"role":"tool","content":"<think>x</think>"}`, []string{"[[tool-result]] tool\n```text\n<think>x</think>\n```"}},
		{"calls before result", `{"role":"toolResult","toolName":"r","content":[{"type":"toolCall","name":"c"},{"type":"text","text":"o"}]}`,
			[]string{"[[tool]] c", "[[tool-result]] r\n```text\no\n```"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ToolLines([]byte(c.msg))
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("ToolLines(%s)\n got %q\nwant %q", c.msg, got, c.want)
			}
		})
	}
}

func TestToolLinesNestedArgs(t *testing.T) {
	msg := call(`{"type":"toolCall","name":"w","arguments":{"path":"a.txt","opts":{"mode":"0644","flags":[1,"two",{"x":null,"y":[]},[]],"e":{}},"big":1e2,"neg":-0,"ok":true}}`)
	want := "[[tool]] w\n```json\n" + strings.Join([]string{
		`{`,
		`  "path": "a.txt",`,
		`  "opts": {`,
		`    "mode": "0644",`,
		`    "flags": [`,
		`      1,`,
		`      "two",`,
		`      {`,
		`        "x": null,`,
		`        "y": []`,
		`      },`,
		`      []`,
		`    ],`,
		`    "e": {}`,
		`  },`,
		`  "big": 100,`,
		`  "neg": 0,`,
		`  "ok": true`,
		`}`,
	}, "\n") + "\n```"
	got := ToolLines([]byte(msg))
	if len(got) != 1 || got[0] != want {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n--\n"), want)
	}
}

func TestToolLinesWithChannels(t *testing.T) {
	msg := []byte(`{"role":"toolResult","toolName":"read","content":"[Zalo Ann]  body","details":{"status":"ok"}}`)
	if got := ToolLines(msg); !reflect.DeepEqual(got, []string{"[[tool-result]] read\nok\n```text\n[Zalo Ann]  body\n```"}) {
		t.Errorf("clawboo channels: %q", got)
	}
	got := ToolLinesWithChannels(msg, append(EnvelopeChannels(), "Zalo"))
	if !reflect.DeepEqual(got, []string{"[[tool-result]] read\nok\n```text\nbody\n```"}) {
		t.Errorf("with Zalo: %q", got)
	}
	only := []byte(`{"role":"tool","toolName":"x","content":"[Zalo Bo]  "}`)
	if got := ToolLinesWithChannels(only, []string{"Zalo"}); !reflect.DeepEqual(got, []string{"[[tool-result]] x"}) {
		t.Errorf("envelope-only output: %q", got)
	}
}
