package clawboo_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/internal/uitest"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/models/clawboo"
	"github.com/clawtap/clawtap/pkg/replay"
)

// lsTool is the tool line of a call of ls with no arguments.
const lsTool = "[[tool]] ls\n```json\n{}\n```"

// v59639f1 is the clawboo after 1211c16.
var v59639f1 = replay.UI{Model: clawboo.Model{}, Version: clawboo.V59639f1}

func chatTerminal(ms int64, run, state, extra string) *capture.Record {
	return uitest.Rec(ms, fmt.Sprintf(`{"type":"event","event":"chat","payload":{"runId":%q,"sessionKey":"agent:main:main","state":%q%s}}`, run, state, extra))
}

func lifecycleError(ms int64, run string) *capture.Record {
	return uitest.Rec(ms, fmt.Sprintf(`{"type":"event","event":"agent","payload":{"runId":%q,"sessionKey":"agent:main:main","stream":"lifecycle","data":{"phase":"error","error":"boom"}}}`, run))
}

// transcript is the agent's lines, each as kind:role:run:text.
func transcript(e *replay.Engine) []string {
	a := e.State().Agent("main")
	if a == nil {
		return nil
	}
	var out []string
	for _, l := range a.Lines() {
		out = append(out, l.Kind+":"+l.Role+":"+l.RunID+":"+l.Text)
	}
	return out
}

func bubble(e *replay.Engine) string {
	if c := e.State().Chat("agent:main:main"); c != nil && c.StreamText.Valid {
		return c.StreamText.V
	}
	return "<none>"
}

// What clawboo's host does after 1211c16 with a terminal that said
// nothing (pipeline-spec §8; the scenarios of its useGatewayEvents.ts,
// index id 63463348634), and what 1211c16 did with the same frames.
func TestProseRecoveryAndTheFailureNotice(t *testing.T) {
	noticeRateLimited := "meta:system:r1:The run failed: rate limited"
	for _, c := range []struct {
		name       string
		recs       []*capture.Record
		want, was  []string // the transcript under 59639f1 and under 1211c16
		wantBubble string
	}{
		{"an abort keeps the streamed text",
			[]*capture.Record{uitest.Start(0, "r1"), uitest.Delta(10, "main", "r1", "partial"), chatTerminal(100, "r1", "aborted", `,"stopReason":"rpc"`), uitest.End(110, "r1")},
			[]string{"assistant::r1:partial"}, nil, "<none>"},
		{"a failure that said nothing gets the notice",
			[]*capture.Record{uitest.Start(0, "r1"), lifecycleError(90, "r1"), chatTerminal(100, "r1", "error", `,"errorMessage":"rate limited"`)},
			[]string{noticeRateLimited}, nil, "<none>"},
		{"with no reason, the notice says what to do",
			[]*capture.Record{uitest.Start(0, "r1"), chatTerminal(100, "r1", "error", "")},
			[]string{"meta:system:r1:The run ended without reporting a result. The connection to the runtime may have dropped; try sending again."}, nil, "<none>"},
		{"a failure after streamed text keeps the text, and no notice",
			[]*capture.Record{uitest.Start(0, "r1"), uitest.Delta(10, "main", "r1", "x"), chatTerminal(100, "r1", "error", `,"errorMessage":"rate limited"`)},
			[]string{"assistant::r1:x"}, nil, "<none>"},
		{"2026.9.6's second chat error for the run: one notice",
			[]*capture.Record{uitest.Start(0, "r1"), chatTerminal(100, "r1", "error", `,"errorMessage":"rate limited"`),
				uitest.Rec(140, `{"type":"event","event":"chat","payload":{"runId":"r1","sessionKey":"agent:main:main","seq":1,"state":"error","errorMessage":"⚠️ Agent failed before reply: rate limited"}}`)},
			[]string{noticeRateLimited}, nil, "<none>"},
		{"a tool-only final keeps the streamed prose after its tool line",
			[]*capture.Record{uitest.Start(0, "r1"), uitest.Delta(10, "main", "r1", "Here is the list."),
				uitest.Rec(100, `{"type":"event","event":"chat","payload":{"runId":"r1","sessionKey":"agent:main:main","state":"final","message":{"role":"assistant","content":[{"type":"toolCall","name":"ls","arguments":{}}]}}}`)},
			[]string{"tool::r1:" + lsTool, "assistant::r1:Here is the list."}, []string{"tool:::" + lsTool}, "<none>"},
		{"a final with text is committed as it is, and the stream is not recovered",
			[]*capture.Record{uitest.Start(0, "r1"), uitest.Delta(10, "main", "r1", "Hel"), uitest.Final(100, "r1", "Hello.")},
			[]string{"assistant::r1:Hello."}, []string{"assistant:::Hello."}, "<none>"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := replayAll(t, replay.Options{UI: v59639f1}, c.recs...).E
			if tr := transcript(got); strings.Join(tr, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("59639f1: transcript\n%s\nwant\n%s", strings.Join(tr, "\n"), strings.Join(c.want, "\n"))
			}
			if b := bubble(got); b != c.wantBubble {
				t.Errorf("59639f1: bubble %q, want %q", b, c.wantBubble)
			}
			old := replayAll(t, replay.Options{UI: v1211c16}, c.recs...).E
			if tr := transcript(old); strings.Join(tr, "\n") != strings.Join(c.was, "\n") {
				t.Errorf("1211c16: transcript\n%s\nwant\n%s", strings.Join(tr, "\n"), strings.Join(c.was, "\n"))
			}
		})
	}
}

// Recovery does not repeat what the session's newest entries hold, and
// an approval pending keeps the commit (and recovery) away altogether.
func TestRecoveryHoldsBack(t *testing.T) {
	// The same text committed a moment ago (a first run's final), then a
	// second run that streams it again and aborts: nothing new.
	recs := []*capture.Record{uitest.Start(0, "r1"), uitest.Final(50, "r1", "same"), uitest.End(60, "r1"),
		uitest.Start(100, "r2"), uitest.Delta(110, "main", "r2", "same"), chatTerminal(200, "r2", "aborted", "")}
	l := replayAll(t, replay.Options{UI: v59639f1}, recs...)
	if tr := transcript(l.E); len(tr) != 1 {
		t.Errorf("a text the transcript shows already was recovered again: %q", tr)
	}
	l.Has(t, "duplicate")

	recs = []*capture.Record{uitest.Start(0, "r1"), uitest.Delta(10, "main", "r1", "partial"), uitest.Approval(20, "a1", 0),
		chatTerminal(100, "r1", "error", `,"errorMessage":"rate limited"`)}
	l = replayAll(t, replay.Options{UI: v59639f1}, recs...)
	if tr := transcript(l.E); len(tr) != 0 {
		t.Errorf("an approval pending: transcript %q", tr)
	}
	if b := bubble(l.E); b != "partial" {
		t.Errorf("an approval pending keeps the bubble: %q", b)
	}
}

// After 1211c16 a turn whose usage reads no tokens is not billed (the
// effect says so); 1211c16's model billed it.
func TestNoTokensNotBilled(t *testing.T) {
	recs := []*capture.Record{uitest.Start(0, "r1"),
		uitest.Rec(50, `{"type":"event","event":"chat","payload":{"runId":"r1","sessionKey":"agent:main:main","state":"final","model":"m1","message":{"role":"assistant","content":[{"type":"text","text":"hi"}],"usage":{"input":12,"output":3}}}}`)}
	l := replayAll(t, replay.Options{UI: v59639f1}, recs...)
	if c := l.E.State().Cost("main", "m1"); c != nil {
		t.Errorf("billed %+v", c)
	}
	l.Has(t, "bill:not-recorded")
	old := replayAll(t, replay.Options{UI: v1211c16}, recs...)
	if c := old.E.State().Cost("main", "m1"); c == nil || c.Turns != 1 {
		t.Errorf("1211c16 bills the turn: %+v", c)
	}
	// A final whose usage clawboo reads is billed by both.
	recs[1] = uitest.Final(50, "r1", "hi")
	if c := replayAll(t, replay.Options{UI: v59639f1}, recs...).E.State().Cost("main", "m1"); c == nil || c.Turns != 1 || c.InputTokens != 10 {
		t.Errorf("a final with input_tokens: %+v", c)
	}
}

// After 1211c16 the stream-start anchor is used up by the lines that carry
// it: a tool-only final's tool line takes it, and the prose recovered
// after it is stamped with the time it was appended.
func TestAnchorUsedByTheLinesThatCarryIt(t *testing.T) {
	recs := []*capture.Record{uitest.Start(0, "r1"), uitest.Delta(10, "main", "r1", "Here is the list."),
		uitest.Rec(100, `{"type":"event","event":"chat","payload":{"runId":"r1","sessionKey":"agent:main:main","state":"final","message":{"role":"assistant","content":[{"type":"toolCall","name":"ls","arguments":{}}]}}}`)}
	a := replayAll(t, replay.Options{UI: v59639f1}, recs...).E.State().Agent("main")
	if a == nil || a.NumLines() != 2 || a.Line(0).TS != uitest.T0+10 || a.Line(1).TS != uitest.T0+100 {
		t.Fatalf("stamps: %+v", a.Lines())
	}
}
