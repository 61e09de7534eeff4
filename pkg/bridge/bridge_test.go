package bridge

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/message"
)

func TestClassifyTable(t *testing.T) {
	cases := []struct {
		name, frame string
		kind        Kind
		agent, sess string
		run, state  string
		stream      string
		phase       string
	}{
		{"presence", `{"type":"event","event":"presence","payload":{"presence":[]},"seq":3}`, SummaryRefresh, "", "", "", "", "", ""},
		{"heartbeat", `{"type":"event","event":"heartbeat","payload":{"ts":1,"status":"sent"}}`, SummaryRefresh, "", "", "", "", "", ""},
		{"chat delta", `{"type":"event","event":"chat","payload":{"runId":"r1","sessionKey":"agent:main:main","state":"delta"}}`, RuntimeChat, "main", "agent:main:main", "r1", "delta", "", ""},
		{"chat with channel key", `{"type":"event","event":"chat","payload":{"sessionKey":"agent:ops:telegram:group:-100:topic:1"}}`, RuntimeChat, "ops", "agent:ops:telegram:group:-100:topic:1", "", "", "", ""},
		{"chat ignores payload agentId", `{"type":"event","event":"chat","payload":{"agentId":"x","sessionKey":"agent:main:main"}}`, RuntimeChat, "main", "agent:main:main", "", "", "", ""},
		{"chat key without agent shape", `{"type":"event","event":"chat","payload":{"sessionKey":"main"}}`, RuntimeChat, "", "main", "", "", "", ""},
		{"chat key agent: with empty id", `{"type":"event","event":"chat","payload":{"sessionKey":"agent::main"}}`, RuntimeChat, "", "agent::main", "", "", "", ""},
		{"chat key without second colon", `{"type":"event","event":"chat","payload":{"sessionKey":"agent:main"}}`, RuntimeChat, "", "agent:main", "", "", "", ""},
		{"chat non-string key", `{"type":"event","event":"chat","payload":{"sessionKey":7}}`, RuntimeChat, "", "", "", "", "", ""},
		{"chat null payload", `{"type":"event","event":"chat","payload":null}`, RuntimeChat, "", "", "", "", "", ""},
		{"chat v4 status", `{"type":"event","event":"chat","payload":{"runId":"r","sessionKey":"agent:a:b","state":"status","phase":"starting_model"}}`, RuntimeChat, "a", "agent:a:b", "r", "status", "", "starting_model"},
		{"agent prefers payload agentId", `{"type":"event","event":"agent","payload":{"agentId":"top","sessionKey":"agent:main:main","runId":"r2","stream":"lifecycle","data":{"phase":"start"}}}`, RuntimeAgent, "top", "agent:main:main", "r2", "", "lifecycle", "start"},
		{"agent falls back to key", `{"type":"event","event":"agent","payload":{"sessionKey":"agent:main:main","stream":"assistant","data":{"text":"hi"}}}`, RuntimeAgent, "main", "agent:main:main", "", "", "assistant", ""},
		{"agent non-string agentId falls back", `{"type":"event","event":"agent","payload":{"agentId":5,"sessionKey":"agent:k:main"}}`, RuntimeAgent, "k", "agent:k:main", "", "", "", ""},
		{"approval top-level agent", `{"type":"event","event":"exec.approval.requested","payload":{"id":"ap1","agentId":"main","request":{"agentId":"other"}}}`, Approval, "main", "", "", "", "", ""},
		{"approval nested agent, no sessionKey (reference §2.1)", `{"type":"event","event":"exec.approval.pending","payload":{"id":"ap1","request":{"agentId":"nested","sessionKey":"agent:nested:main"}}}`, Approval, "nested", "", "", "", "", ""},
		{"approval request array", `{"type":"event","event":"exec.approval.resolved","payload":{"id":"ap1","request":[{"agentId":"x"}]}}`, Approval, "", "", "", "", "", ""},
		{"plugin approval is unknown", `{"type":"event","event":"plugin.approval.requested","payload":{}}`, Unknown, "", "", "", "", "", ""},
		{"tick is unknown", `{"type":"event","event":"tick","payload":{"ts":1},"seq":9}`, Unknown, "", "", "", "", "", ""},
		{"req", `{"type":"req","id":"7","method":"chat.send","params":{}}`, Request, "", "", "", "", "", ""},
		{"res", `{"type":"res","id":"7","ok":true,"payload":{"runId":"r"}}`, Response, "", "", "", "", "", ""},
		{"array", `[1,2]`, Invalid, "", "", "", "", "", ""},
		{"no type", `{"event":"chat"}`, Invalid, "", "", "", "", "", ""},
		{"trailing junk", `{"type":"event","event":"tick"} x`, Invalid, "", "", "", "", "", ""},
		{"empty", ``, Invalid, "", "", "", "", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ev := Classify([]byte(c.frame), 1234)
			if ev.Kind != c.kind || ev.AgentID != c.agent || ev.SessionKey != c.sess || ev.RunID != c.run ||
				ev.State != c.state || ev.Stream != c.stream || ev.Phase != c.phase {
				t.Fatalf("got kind=%s agent=%q session=%q run=%q state=%q stream=%q phase=%q", ev.Kind, ev.AgentID, ev.SessionKey, ev.RunID, ev.State, ev.Stream, ev.Phase)
			}
			if ev.Kind != Invalid && ev.Timestamp != 1234 {
				t.Fatalf("timestamp must be the record's t, got %d", ev.Timestamp)
			}
		})
	}
}

func TestSeqAndResponseFields(t *testing.T) {
	ev := Classify([]byte(`{"type":"event","event":"tick","seq":42}`), 0)
	if !ev.HasSeq || ev.Seq != 42 {
		t.Fatalf("seq: %+v", ev)
	}
	if ev := Classify([]byte(`{"type":"event","event":"tick","seq":"42"}`), 0); ev.HasSeq {
		t.Fatal("a string seq is no seq")
	}
	ev = Classify([]byte(`{"type":"res","id":"c1","ok":false,"error":{"code":"INVALID_REQUEST","message":"unauthorized","details":{"code":"AUTH_TOKEN_MISMATCH"}}}`), 0)
	if ev.OK == nil || *ev.OK || ev.Code != "INVALID_REQUEST" || ev.ID != "c1" {
		t.Fatalf("res fields: %+v", ev)
	}
	if string(Classify([]byte(`{"type":"event","event":"x","payload":{"a":[1]}}`), 0).Payload) != `{"a":[1]}` {
		t.Fatal("payload must be the raw bytes")
	}
}

func TestIsReasoningStream(t *testing.T) {
	for s, want := range map[string]bool{
		"thinking": true, "Thinking": true, "reasoning": true, "analysis": true, "trace": true, "THINK": true,
		"assistant": false, "assistant-thinking": false, "tool": false, "tool_trace": false, "lifecycle": false,
		"lifecycle-reason": false, "": false, "usage": false, "item": false,
		// JavaScript lower-cases İ (U+0130) to "i̇" (i + U+0307): not "think".
		"TH\u0130NK": false, "THİNKING": false, "ASSİSTANT-THINK": true, "TOOL\u0130": false,
		// The Kelvin sign lower-cases to k in JavaScript too.
		"THIN\u212a": true, "\u212aTHINK": true,
		// Non-ASCII around the words changes nothing.
		"ΣTRACE": true, "ΔLIFECYCLE-TRACE": false, "a\xed\xa0\x80think": true,
	} {
		if got := IsReasoningStream(s); got != want {
			t.Errorf("IsReasoningStream(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestParseChatPayload(t *testing.T) {
	ok := []string{
		`{"runId":"r","sessionKey":"k","state":"delta"}`,
		`{"runId":"r","sessionKey":"k","state":"final","seq":3,"stopReason":"stop","message":{"role":"assistant"}}`,
		`{"runId":"r","sessionKey":"k","state":"aborted"}`,
		`{"runId":"r","sessionKey":"k","state":"error","errorMessage":"boom"}`,
	}
	for _, p := range ok {
		if ParseChatPayload([]byte(p)) == nil {
			t.Errorf("rejected %s", p)
		}
	}
	bad := []string{
		`{"sessionKey":"k","state":"delta"}`, `{"runId":"","sessionKey":"k","state":"delta"}`,
		`{"runId":"r","state":"delta"}`, `{"runId":"r","sessionKey":"","state":"delta"}`,
		`{"runId":"r","sessionKey":"k","state":"status"}`, `{"runId":"r","sessionKey":"k"}`,
		`{"runId":1,"sessionKey":"k","state":"delta"}`, `[]`, `null`, `"x"`, ``,
	}
	for _, p := range bad {
		if ParseChatPayload([]byte(p)) != nil {
			t.Errorf("accepted %s", p)
		}
	}
	c := ParseChatPayload([]byte(`{"runId":"r","sessionKey":"k","state":"error","seq":"7","errorMessage":5,"stopReason":"x","model":null}`))
	if c.HasSeq || c.ErrorMsg != nil || c.StopReason == nil || *c.StopReason != "x" || c.Model != nil || c.Message != nil {
		t.Fatalf("optional fields kept only with the right type: %+v", c)
	}
}

func TestParseAgentPayload(t *testing.T) {
	if ParseAgentPayload([]byte(`{"stream":"assistant"}`)) != nil || ParseAgentPayload([]byte(`{"runId":""}`)) != nil {
		t.Fatal("runId is required")
	}
	a := ParseAgentPayload([]byte(`{"runId":"r","stream":"x","data":[1],"sessionKey":"k"}`))
	if a == nil || string(a.Data) != "[1]" || a.Stream != "x" || a.SessionKey != "k" {
		t.Fatalf("arrays pass as data: %+v", a)
	}
	if a := ParseAgentPayload([]byte(`{"runId":"r","data":"text"}`)); a.Data != nil {
		t.Fatal("a string is not data")
	}
}

func TestClassifierMatchesResponsesToRequests(t *testing.T) {
	c := NewClassifier()
	req := &capture.Record{Conn: 1, Dir: "out", Frame: []byte(`{"type":"req","id":"a1","method":"agent","params":{}}`)}
	if ev := c.Record(req); ev.Kind != Request || ev.Method != "agent" || ev.ID != "a1" {
		t.Fatalf("req: %+v", ev)
	}
	res := &capture.Record{Conn: 1, Dir: "in", Frame: []byte(`{"type":"res","id":"a1","ok":true,"payload":{"status":"accepted"}}`)}
	for i := 0; i < 2; i++ { // one id may get two responses
		if ev := c.Record(res); ev.Method != "agent" {
			t.Fatalf("response %d: method %q", i+1, ev.Method)
		}
	}
	other := &capture.Record{Conn: 2, Dir: "in", Frame: []byte(`{"type":"res","id":"a1","ok":true}`)}
	if ev := c.Record(other); ev.Method != "" {
		t.Fatal("ids are per connection")
	}
	for _, rec := range []*capture.Record{{Mark: "close", T: 5}, {IsRaw: true, Raw: []byte("x")}, {Malformed: true, Raw: []byte("{")}} {
		ev := c.Record(rec)
		if rec.Mark != "" && (ev.Kind != Marker || ev.Mark != "close" || ev.Timestamp != 5) {
			t.Fatalf("marker: %+v", ev)
		}
		if rec.Mark == "" && ev.Kind != Invalid {
			t.Fatalf("raw/malformed must be invalid: %+v", ev)
		}
	}
}

func TestClassifierMemoryIsBounded(t *testing.T) {
	c := NewClassifier()
	for i := 0; i < 3*maxPending; i++ {
		c.Record(&capture.Record{Conn: 1, Frame: []byte(`{"type":"req","id":"` + string(rune('a'+i%26)) + itoa(i) + `","method":"m"}`)})
	}
	if len(c.methods) > maxPending {
		t.Fatalf("%d ids remembered, cap %d", len(c.methods), maxPending)
	}
}

func itoa(i int) string {
	b := []byte{}
	for {
		b = append([]byte{byte('0' + i%10)}, b...)
		i /= 10
		if i == 0 {
			return string(b)
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	ev := Classify([]byte(`{"type":"event","event":"chat","seq":4,"payload":{"runId":"r","sessionKey":"agent:main:main","state":"final"}}`), 99)
	line := ev.AppendJSON(nil, Meta{I: 3, T: 99, Conn: 2, Dir: "in"})
	back, m, hasI, hasT, err := ParseJSON(line)
	if err != nil || !hasI || !hasT || m.I != 3 || m.Conn != 2 || back.Kind != ev.Kind || back.AgentID != "main" ||
		string(back.Payload) != string(ev.Payload) || back.Seq != 4 || back.State != "final" || back.Timestamp != 99 {
		t.Fatalf("round trip: %s → %+v %+v %v", line, back, m, err)
	}
	// The event's timestamp is written as its own, also when it is not
	// the record's t (whose digits are reused when it is).
	for _, ts := range []int64{99, 1795317864614, 0, -7} {
		ev.Timestamp = ts
		line := ev.AppendJSON(nil, Meta{I: 3, T: 1795317864615, Conn: 2})
		if back, m, _, _, err := ParseJSON(line); err != nil || back.Timestamp != ts || m.T != 1795317864615 {
			t.Fatalf("timestamp %d beside t 1795317864615: %s → %d, t %d, %v", ts, line, back.Timestamp, m.T, err)
		}
	}
	if _, _, _, _, err := ParseJSON([]byte(`{"event":"chat"}`)); err != ErrNotClassified {
		t.Fatalf("a line without kind: %v", err)
	}
	hand, m, _, hasT, err := ParseJSON([]byte(` {"kind":"runtime-chat","agentId":"given","payload":{}} `))
	if err != nil || hand.AgentID != "given" || hasT || m.T != 0 {
		t.Fatalf("hand-written line: %+v %v", hand, err)
	}
}

func FuzzClassify(f *testing.F) {
	for _, s := range []string{
		`{"type":"event","event":"chat","payload":{"runId":"r","sessionKey":"agent:main:main","state":"delta","message":{"role":"assistant","content":[{"type":"text","text":"hi"}]}},"seq":1}`,
		`{"type":"event","event":"agent","payload":{"runId":"r","stream":"lifecycle","data":{"phase":"start"}}}`,
		`{"type":"event","event":"exec.approval.requested","payload":{"id":"a","request":{"agentId":"x"}}}`,
		`{"type":"res","id":"1","ok":false,"error":{"code":"X"}}`,
		`{"type":"req","id":1,"method":"connect"}`,
		`[]`, `{`, `{"type":"event","event":"chat","payload":[]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ev := Classify(b, 1)
		switch ev.Kind {
		case SummaryRefresh, RuntimeChat, RuntimeAgent, Approval, Unknown, Request, Response, Invalid:
		default:
			t.Fatalf("kind %q outside the table", ev.Kind)
		}
		if ev.AgentID != "" && ev.Kind == RuntimeChat && SessionAgentID(ev.SessionKey) != ev.AgentID {
			t.Fatal("chat agentId must come from the session key")
		}
		// Through a Classifier the payload members are captured on the way;
		// they must parse exactly like the payload. (A record from a reader,
		// Line > 0, holds a frame the reader validated.)
		if !jsonx.Valid(b) {
			return
		}
		cev := NewClassifier().Record(&capture.Record{Line: 1, Frame: b})
		var c1, c2 ChatPayload
		if ok1, ok2 := cev.Chat(&c1), ReadChatPayload(cev.Payload, &c2); ok1 != ok2 || !reflect.DeepEqual(c1, c2) {
			t.Fatalf("Event.Chat %v %+v, ReadChatPayload %v %+v", ok1, c1, ok2, c2)
		}
		var a1, a2 AgentPayload
		if ok1, ok2 := cev.Agent(&a1), ReadAgentPayload(cev.Payload, &a2); ok1 != ok2 || !reflect.DeepEqual(a1, a2) {
			t.Fatalf("Event.Agent %v %+v, ReadAgentPayload %v %+v", ok1, a1, ok2, a2)
		}
		checkMembers(t, string(b), &cev)
		checkIndexed(t, b)
		line := ev.AppendJSON(nil, Meta{})
		if _, _, _, _, err := ParseJSON(line); err != nil && ev.Kind != "" {
			t.Fatalf("classify output %s does not parse back: %v", line, err)
		}
	})
}

func TestEventPayloadMembersMatchTheParsers(t *testing.T) {
	frames := []string{
		`{"type":"event","event":"chat","payload":{"runId":"r","sessionKey":"agent:a:b","state":"final","seq":3,"stopReason":"stop","errorMessage":5,"model":"m","message":{"role":"assistant","content":"x"},"deltaText":"d","replace":true}}`,
		`{"type":"event","event":"chat","payload":{"runId":"r","runId":"r2","sessionKey":"agent:a:b","state":"delta","message" : [1,2] }}`,
		`{"type":"event","event":"agent","payload":{"runId":"r","stream":"lifecycle","data":{"phase":"start"},"seq":1.5,"sessionKey":"k"}}`,
		`{"type":"event","event":"agent","payload":{"runId":"r","stream":"x","data":[1,{"a":2}]}}`,
		`{"type":"event","event":"agent","payload":{"runId":"r","data":"nope","stream":7}}`,
		`{"type":"event","event":"agent","payload":{"data":{"phase":"end"}}}`,
		`{"type":"event","event":"agent","payload":{"runId":"r","stream":"assistant","data":{"text":"a","delta":"a","te\u0078t":"ab"}}}`,
		`{"type":"event","event":"agent","payload":{"runId":"r","stream":"assistant","data":{"text":"a"},"data":{"delta":"b"}}}`,
		`{"type":"event","event":"agent","payload":{"runId":"r","stream":"assistant","data":{"text":"a"},"d\u0061ta":[{"text":"b"}]}}`,
		`{"type":"event","event":"chat","payload":{"runId":"r","seq":1,"s\u0065q":2,"replace":false,"replace":true,"agentId":"a"}}`,
		`{"type":"event","event":"chat","payload":{"seq":1},"payload":{"state":"x"}}`,
		`{"type":"event","event":"agent","payload":{"runId":"r","stream":"assistant","data":{"text":"a","replace":1,"r\u0065place":true}}}`,
		`{"type":"event","event":"agent","payload":{"runId":"r","stream":"assistant","data":{"text":"a","replace":true},"data":{"delta":"b"}}}`,
		`{"type":"event","event":"chat","payload":{"runId":"r","sessionKey":"agent:a:b","state":"delta","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"<think>x</think>Hello \u00e9"}]}}}`,
		`{"type":"event","event":"chat","payload":{"runId":"r","sessionKey":"agent:a:b","state":"delta","message":{"role":"user","content":"[WebChat 2026-01-01 10:00] hi"}}}`,
		`{"type":"event","event":"agent","payload":{"runId":"r","stream":"assistant","data":{"text":"` + strings.Repeat("long text ", 20) + `"}}}`,
		`{"type":"event","event":"chat","payload":{"runId":"r","sessionKey":"agent:a:b","state":"final","message":{"role":"assistant","content":[{"type":"text","text":"ok"},{"type":"toolCall","name":"exec","id":"c1","arguments":{"cmd":"ls"}}]},"message":{"role":"toolResult","toolName":"exec","content":"out"}}}`,
	}
	c := NewClassifier()
	var kept []Event
	for i, f := range frames {
		ev := c.Record(&capture.Record{Line: i + 1, Frame: []byte(f)})
		kept = append(kept, ev)
		for round := range 2 { // converted once, then kept with the members
			var c1, c2 ChatPayload
			if ok1, ok2 := ev.Chat(&c1), ReadChatPayload(ev.Payload, &c2); ok1 != ok2 || !reflect.DeepEqual(c1, c2) {
				t.Errorf("%s (%d): Event.Chat %v %+v, ReadChatPayload %v %+v", f, round, ok1, c1, ok2, c2)
			}
			var a1, a2 AgentPayload
			if ok1, ok2 := ev.Agent(&a1), ReadAgentPayload(ev.Payload, &a2); ok1 != ok2 || !reflect.DeepEqual(a1, a2) {
				t.Errorf("%s (%d): Event.Agent %v %+v, ReadAgentPayload %v %+v", f, round, ok1, a1, ok2, a2)
			}
		}
		checkMembers(t, f, &ev)
	}
	// An event kept past the Classifier's next record falls back to parsing
	// its own payload: the shared buffer belongs to another frame by then.
	var first ChatPayload
	if !kept[0].Chat(&first) || first.State != "final" || *first.StopReason != "stop" {
		t.Fatalf("a kept event must still parse its own payload: %+v", first)
	}
}

// checkMembers compares Event.Member and Event.DataMember with walking the
// payload.
// checkIndexed classifies frame, valid JSON, from its index (the reader's
// one walk) and by walking it: the events and their payload members must
// be the same.
func checkIndexed(t *testing.T, frame []byte) {
	t.Helper()
	var idx jsonx.Index
	if !jsonx.IndexValue(frame, Schema, &idx) {
		t.Fatalf("%s: valid JSON not indexed", frame)
	}
	rec := &capture.Record{Line: 1, Frame: frame, Conn: 1}
	walked := NewClassifier().Record(rec)
	indexed := NewClassifier().RecordIndexed(rec, &idx)
	w, x := walked, indexed
	w.members, x.members, w.gen, x.gen = nil, nil, 0, 0
	if !reflect.DeepEqual(w, x) {
		t.Fatalf("%s (exact %v):\nindexed %+v\nwalked  %+v", frame, idx.Exact, x, w)
	}
	if (walked.members == nil) != (indexed.members == nil) {
		t.Fatalf("%s: members captured walking %v, from the index %v", frame, walked.members != nil, indexed.members != nil)
	}
	if walked.members != nil && !reflect.DeepEqual(*walked.members, *indexed.members) {
		t.Fatalf("%s: members walking %+v, from the index %+v", frame, *walked.members, *indexed.members)
	}
	checkMembers(t, string(frame), &indexed)
}

func TestIndexedIsWalked(t *testing.T) {
	for _, s := range []string{
		`{"type":"event","event":"chat","payload":{"runId":"r","sessionKey":"agent:main:main","state":"delta","message":{"role":"assistant","content":[{"type":"text","text":"hi"}]}},"seq":1}`,
		`{"type":"event","event":"agent","payload":{"runId":"r","stream":"lifecycle","data":{"phase":"start","text":"x","replace":true},"agentId":"a","seq":2}}`,
		`{"type":"event","event":"agent","payload":{"runId":"r","stream":"assistant","data":[1]}}`,
		`{"type":"event","event":"exec.approval.requested","payload":{"id":"a","request":{"agentId":"x","runId":"r","sessionKey":"k"}}}`,
		`{"type":"event","event":"exec.approval.resolved","payload":{"id":"a","request":"no"}}`,
		`{"type":"res","id":"1","ok":false,"error":{"code":"X"}}`,
		`{"type":"res","id":"1","ok":true,"error":"plain"}`,
		`{"type":"req","id":1,"method":"connect","params":{}}`,
		`{"type":"event","event":"chat","payload":[]}`,
		`{"type":"event","event":"chat","payload":"text"}`,
		`{"type":"event","event":"chat","payload":{"runId":"a"},"payload":{"runId":"b"}}`,
		`{"type":"event","event":"chat","payload":{"r\u0075nId":"a"}}`,
		`{"type":7,"event":null,"seq":"x","payload":{"state":1,"stream":[],"agentId":2,"phase":{},"id":3}}`,
		`{}`,
	} {
		checkIndexed(t, []byte(s))
	}
}

func checkMembers(t *testing.T, frame string, ev *Event) {
	t.Helper()
	for _, name := range []string{"runId", "sessionKey", "state", "seq", "stream", "stopReason", "errorMessage", "model", "message", "deltaText", "replace", "data", "agentId", "nope"} {
		v1, ok1 := ev.Member(name)
		v2, ok2 := jsonx.Get(ev.Payload, name)
		if ok1 != ok2 || !bytes.Equal(v1, v2) {
			t.Errorf("%s: Member(%q) = %q %v, payload has %q %v", frame, name, v1, ok1, v2, ok2)
		}
	}
	checkDerived(t, frame, ev)
	for _, name := range []string{"text", "replace", "phase", "delta"} {
		v1, ok1 := ev.DataMember(name)
		v2, ok2 := jsonx.GetPath(ev.Payload, "data", name)
		if ok1 != ok2 || !bytes.Equal(v1, v2) {
			t.Errorf("%s: DataMember(%q) = %q %v, payload has %q %v", frame, name, v1, ok1, v2, ok2)
		}
	}
}

// checkDerived compares what the event derives once (and keeps) with
// deriving it from the payload, asked in either order and twice.
func checkDerived(t *testing.T, frame string, ev *Event) {
	t.Helper()
	raw, _ := jsonx.GetPath(ev.Payload, "data", "text")
	wantDT, wantDTok := jsonx.Str(raw)
	msg, _ := jsonx.Get(ev.Payload, "message")
	wantText, wantHas := message.Text(msg)
	wt, wh, wth, whth := message.TextAndThinking(msg, nil)
	wantTools := message.ToolLines(msg)
	for round := 0; round < 2; round++ {
		var memo jsonx.StrMemo
		if s, ok := ev.DataTextString(&memo); s != wantDT || ok != wantDTok {
			t.Errorf("%s: DataTextString %q %v, want %q %v", frame, s, ok, wantDT, wantDTok)
		}
		if round == 0 {
			if s, ok := ev.MessageText(nil); s != wantText || ok != wantHas {
				t.Errorf("%s: MessageText %q %v, want %q %v", frame, s, ok, wantText, wantHas)
			}
		}
		if a, b, c, d := ev.MessageTextAndThinking(&memo); a != wt || b != wh || c != wth || d != whth {
			t.Errorf("%s: MessageTextAndThinking %q %v %q %v, want %q %v %q %v", frame, a, b, c, d, wt, wh, wth, whth)
		}
		if s, ok := ev.MessageText(&memo); s != wantText || ok != wantHas {
			t.Errorf("%s: MessageText after %q %v, want %q %v", frame, s, ok, wantText, wantHas)
		}
		if l := ev.MessageToolLines(); !slices.Equal(l, wantTools) {
			t.Errorf("%s: MessageToolLines %q, want %q", frame, l, wantTools)
		}
	}
}

func TestSessionKeys(t *testing.T) {
	// An empty sessionKey is still a string: the reference keeps it.
	ev := Classify([]byte(`{"type":"event","event":"agent","payload":{"runId":"r","agentId":"a","sessionKey":"","stream":"assistant"}}`), 1)
	if !ev.HasSessionKey || ev.SessionKey != "" {
		t.Fatalf("sessionKey \"\": has=%v %q", ev.HasSessionKey, ev.SessionKey)
	}
	if line := string(ev.AppendJSON(nil, Meta{})); !strings.Contains(line, `"sessionKey":""`) {
		t.Fatalf("classify line drops the empty sessionKey: %s", line)
	}
	back, _, _, _, err := ParseJSON(ev.AppendJSON(nil, Meta{}))
	if err != nil || !back.HasSessionKey || back.SessionKey != "" {
		t.Fatalf("round trip: %+v %v", back, err)
	}
	for _, frame := range []string{
		`{"type":"event","event":"agent","payload":{"runId":"r","agentId":"a","sessionKey":5}}`,
		`{"type":"event","event":"agent","payload":{"runId":"r","agentId":"a"}}`,
		`{"type":"event","event":"agent","payload":{"runId":"r","agentId":"a","sessionKey":null}}`,
	} {
		if ev := Classify([]byte(frame), 1); ev.HasSessionKey || strings.Contains(beforePayload(ev.AppendJSON(nil, Meta{})), "sessionKey") {
			t.Errorf("%s: no string sessionKey, yet has=%v", frame, ev.HasSessionKey)
		}
	}
	// An approval has no sessionKey; the request's is clawtap's own field.
	ap := Classify([]byte(`{"type":"event","event":"exec.approval.requested","payload":{"id":"x","request":{"agentId":"a","sessionKey":"agent:a:main"}}}`), 1)
	if ap.SessionKey != "" || ap.HasSessionKey || ap.RequestSessionKey != "agent:a:main" || ap.Session() != "agent:a:main" {
		t.Fatalf("approval: %+v", ap)
	}
	line := ap.AppendJSON(nil, Meta{})
	if strings.Contains(beforePayload(line), `"sessionKey"`) || !strings.Contains(string(line), `"requestSessionKey":"agent:a:main"`) {
		t.Fatalf("approval line: %s", line)
	}
	if back, _, _, _, _ := ParseJSON(line); back.Session() != "agent:a:main" || back.SessionKey != "" {
		t.Fatalf("approval round trip: %+v", back)
	}
}

func beforePayload(line []byte) string {
	s, _, _ := strings.Cut(string(line), `"payload":`)
	return s
}
