package bridge

import (
	"fmt"
	"sync"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
)

// TestDeriveAheadIsDerivedOnDemand holds what Derive works out ahead, on
// the classifying stage with its own memo, to what the pass works out
// when it asks: the same payload, texts and thinking, event by event.
func TestDeriveAheadIsDerivedOnDemand(t *testing.T) {
	frames := []string{
		`{"type":"event","event":"chat","payload":{"runId":"r1","sessionKey":"agent:main:main","state":"delta","seq":1,"message":{"role":"assistant","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"` + long("a") + `"}]}}}`,
		`{"type":"event","event":"chat","payload":{"runId":"r1","sessionKey":"agent:main:main","state":"delta","seq":2,"message":{"role":"assistant","content":[{"type":"text","text":"` + long("a") + ` more \u00e9"}]}}}`,
		`{"type":"event","event":"chat","payload":{"runId":"r1","sessionKey":"agent:main:main","state":"final","message":{"role":"assistant","content":"<think>x</think>done"}}}`,
		`{"type":"event","event":"chat","payload":{"sessionKey":"agent:main:main","state":"error","errorMessage":"boom"}}`,
		`{"type":"event","event":"agent","payload":{"runId":"r1","sessionKey":"agent:main:main","stream":"assistant","seq":3,"data":{"text":"` + long("b") + `","delta":"b"}}}`,
		`{"type":"event","event":"agent","payload":{"stream":"assistant","data":{"text":"no run"}}}`,
		`{"type":"event","event":"agent","payload":"not an object"}`,
		`{"type":"res","id":"r2","ok":true,"payload":{"message":{"content":"x"}}}`,
	}
	var memo jsonx.StrMemo
	for _, f := range frames {
		for _, indexed := range []bool{false, true} {
			rec := &capture.Record{Line: 1, Frame: []byte(f)}
			var idx *jsonx.Index
			if indexed {
				idx = new(jsonx.Index)
				if !jsonx.IndexValue(rec.Frame, Schema, idx) {
					t.Fatalf("%s: not valid", f)
				}
			}
			var sa, sb Scratch
			ahead := NewClassifier().RecordInto(rec, idx, &sa)
			ahead.Derive(&memo)
			onDemand := NewClassifier().RecordInto(rec, idx, &sb)
			var ca, cb ChatPayload
			var aa, ab AgentPayload
			okA, okB := ahead.Chat(&ca), onDemand.Chat(&cb)
			if okA != okB || !sameChat(&ca, &cb) {
				t.Errorf("%s: chat %v %+v, on demand %v %+v", f, okA, ca, okB, cb)
			}
			okA, okB = ahead.Agent(&aa), onDemand.Agent(&ab)
			if okA != okB || aa.RunID != ab.RunID || string(aa.DataText) != string(ab.DataText) {
				t.Errorf("%s: agent %v %+v, on demand %v %+v", f, okA, aa, okB, ab)
			}
			t1, h1, th1, hth1 := ahead.MessageTextAndThinking(nil)
			t2, h2, th2, hth2 := onDemand.MessageTextAndThinking(nil)
			if t1 != t2 || h1 != h2 || th1 != th2 || hth1 != hth2 {
				t.Errorf("%s: text %q %v thinking %q %v, on demand %q %v %q %v", f, t1, h1, th1, hth1, t2, h2, th2, hth2)
			}
			d1, o1 := ahead.DataTextString(nil)
			d2, o2 := onDemand.DataTextString(nil)
			if d1 != d2 || o1 != o2 {
				t.Errorf("%s: data.text %q %v, on demand %q %v", f, d1, o1, d2, o2)
			}
		}
	}
}

func long(s string) string {
	b := make([]byte, 0, 100)
	for len(b) < 100 {
		b = append(b, s...)
	}
	return string(b)
}

func sameChat(a, b *ChatPayload) bool {
	return a.RunID == b.RunID && a.SessionKey == b.SessionKey && a.State == b.State &&
		string(a.Message) == string(b.Message) && (a.ErrorMsg == nil) == (b.ErrorMsg == nil) &&
		(a.ErrorMsg == nil || *a.ErrorMsg == *b.ErrorMsg)
}

// A detached event is read by several goroutines at once (the lanes of a
// check under several UIs): what was not derived before it was detached is
// derived for each reader, never written into the shared members (the race
// detector sees such a write), and reads the same as the event's own.
func TestDetachedEventIsReadBySeveral(t *testing.T) {
	frames := []string{
		`{"type":"event","event":"chat","payload":{"runId":"r1","sessionKey":"agent:main:main","state":"final","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"done"},{"type":"toolCall","name":"exec","arguments":{"command":"ls"}}]}}}`,
		`{"type":"event","event":"agent","payload":{"runId":"r1","sessionKey":"agent:main:main","stream":"assistant","seq":3,"data":{"text":"` + long("b") + `","delta":"b"}}}`,
	}
	type reading struct {
		chatOK, agentOK     bool
		chat                ChatPayload
		agentRun, dataText  string
		text, thinking      string
		hasText, hasThought bool
		msgText             string
		tools               string
	}
	read := func(ev *Event) (r reading) {
		r.chatOK = ev.Chat(&r.chat)
		var a AgentPayload
		r.agentOK = ev.Agent(&a)
		r.agentRun = a.RunID
		r.dataText, _ = ev.DataTextString(nil)
		r.text, r.hasText, r.thinking, r.hasThought = ev.MessageTextAndThinking(nil)
		r.msgText, _ = ev.MessageText(nil)
		r.tools = fmt.Sprint(ev.MessageToolLines())
		return r
	}
	for _, f := range frames {
		rec := &capture.Record{Line: 1, Frame: []byte(f)}
		var own, shared Scratch
		ev := NewClassifier().RecordInto(rec, nil, &own)
		d := ev.Detach(&shared)
		want := read(&ev)
		var wg sync.WaitGroup
		got := make([]reading, 4)
		for k := range got {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c := d // each lane's pass copies the event
				got[k] = read(&c)
			}()
		}
		wg.Wait()
		for k, g := range got {
			if g.chatOK != want.chatOK || !sameChat(&g.chat, &want.chat) || g.agentOK != want.agentOK || g.agentRun != want.agentRun ||
				g.dataText != want.dataText || g.text != want.text || g.thinking != want.thinking || g.hasText != want.hasText ||
				g.hasThought != want.hasThought || g.msgText != want.msgText || g.tools != want.tools {
				t.Errorf("%s: reader %d read %+v, the event itself %+v", f, k, g, want)
			}
		}
		if shared.m.derived.has != 0 {
			t.Errorf("%s: the readers wrote into the shared members (has %b)", f, shared.m.derived.has)
		}
	}
}

// MemberStr reads what jsonx.GetStr reads of the payload, whichever way the
// event was classified (walked, from the reader's index, members not
// captured): escapes, values that are no string, repeated and missing
// members, and strings that differ from the event's own copy.
func TestMemberStrAsGetStr(t *testing.T) {
	frames := []string{
		`{"type":"event","event":"chat","payload":{"runId":"r1","sessionKey":"agent:main:main","agentId":"main","state":"delta"}}`,
		`{"type":"event","event":"chat","payload":{"runId":"r\u0031","sessionKey":"agent:ops:main","agentId":"other","state":"fin\u0061l"}}`,
		`{"type":"event","event":"agent","payload":{"runId":"r1","stream":"assistant","agentId":7,"sessionKey":null}}`,
		`{"type":"event","event":"agent","payload":{"agentId":"a","agentId":"b","runId":"x","runId":5}}`,
		`{"type":"event","event":"agent","payload":{"stream":"lifecycle","data":{"phase":"end"}}}`,
		`{"type":"event","event":"exec.approval.requested","payload":{"id":"ap1","agentId":"main","request":{"agentId":"x"}}}`,
		`{"type":"event","event":"presence","payload":["not","an","object"]}`,
	}
	names := []string{"runId", "sessionKey", "state", "stream", "agentId", "id", "missing"}
	for _, f := range frames {
		payload, _ := jsonx.Get([]byte(f), "payload")
		for _, how := range []string{"walked", "indexed", "not captured"} {
			rec := &capture.Record{Line: 1, Frame: []byte(f)}
			var ev Event
			switch how {
			case "walked":
				ev = NewClassifier().RecordInto(rec, nil, new(Scratch))
			case "indexed":
				idx := new(jsonx.Index)
				if !jsonx.IndexValue(rec.Frame, Schema, idx) {
					t.Fatalf("%s: not valid", f)
				}
				ev = NewClassifier().RecordInto(rec, idx, new(Scratch))
			default:
				c := NewClassifier()
				ev = c.Record(rec)
				c.Record(&capture.Record{Line: 1, Frame: []byte(`{"type":"event","event":"chat","payload":{}}`)}) // ev's members are gone
			}
			for _, name := range names {
				want, wantOK := jsonx.GetStr(payload, name)
				if got, ok := ev.MemberStr(name); got != want || ok != wantOK {
					t.Errorf("%s (%s): MemberStr(%q) = %q, %v; GetStr %q, %v", f, how, name, got, ok, want, wantOK)
				}
			}
		}
	}
}
