package check

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/models"

	"github.com/clawtap/clawtap/internal/synth"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/replay"
)

const mainKey = "agent:main:main"

var cliTools = synth.ConnOptions{Caps: []string{"tool-events"}}

// analyze runs the Analyzer over records, as a reader would hand them out,
// replaying them as clawboo.
func analyze(t *testing.T, recs []capture.Record, opts Options, truncated bool) []Finding {
	t.Helper()
	return analyzeUI(t, recs, opts, truncated, models.MustLookup("clawboo@1211c16"))
}

// analyzeUI is analyze with the replay modelling ui.
func analyzeUI(t *testing.T, recs []capture.Record, opts Options, truncated bool, ui replay.UI) []Finding {
	t.Helper()
	a, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return collect(t, a, &truncatedSource{pipeline.Slice(nil, recs), truncated}, ui)
}

// truncatedSource says the capture was cut off, as a reader of a killed
// recorder's file does.
type truncatedSource struct {
	pipeline.Source
	truncated bool
}

func (s *truncatedSource) Stats() capture.Stats {
	st := s.Source.Stats()
	st.Truncated = s.truncated
	return st
}

// collect runs one pass with the Analyzer, replaying as ui, and returns
// its findings.
func collect(t *testing.T, a *Analyzer, src pipeline.Source, ui replay.UI) []Finding {
	t.Helper()
	var fs []Finding
	a.OnFinding = func(f *Finding) error { fs = append(fs, *f); return nil }
	if err := pipeline.New(pipeline.Options{Replay: replay.Options{UI: ui}}, a).Run(src); err != nil {
		t.Fatal(err)
	}
	return fs
}

// analyzeFile runs the Analyzer over a capture file, replaying as ui.
func analyzeFile(t *testing.T, path string, opts Options, ui replay.UI) []Finding {
	t.Helper()
	r, err := capture.Open(path, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	a, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return collect(t, a, pipeline.Records(r), ui)
}

func ruleList(fs []Finding) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Rule
	}
	return out
}

func dump(fs []Finding) string {
	var b strings.Builder
	for i := range fs {
		b.Write(fs[i].AppendJSON(nil))
		b.WriteByte('\n')
	}
	return b.String()
}

func expect(t *testing.T, fs []Finding, want ...string) {
	t.Helper()
	got := ruleList(fs)
	if want == nil {
		want = []string{}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("rules %v, want %v\n%s", got, want, dump(fs))
	}
}

func q(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// streamed returns a session with one connection and a run that has
// streamed two pieces of text and is still live.
func streamed() (*synth.Session, *synth.Conn, *synth.Run) {
	s := synth.New(42)
	c := s.Open(cliTools)
	s.Advance(500)
	r := c.ChatSend(mainKey, "Tell me something.")
	r.Prepare()
	s.Advance(300)
	r.Say("Tide pools")
	s.Advance(75)
	r.Say(" hold seawater.")
	s.Advance(75)
	return s, c, r
}

func chatPayload(r *synth.Run, seq int, state, extra string) []byte {
	return []byte(fmt.Sprintf(`{"runId":%s,"sessionKey":%s,"agentId":"main","seq":%d,"state":%q%s}`, q(r.ID), q(r.SessionKey), seq, state, extra))
}

// emptyFinal is the chat final the real gateway sends for a chat.send it
// queued into a busy session's turn: no message, no agentId, seq 1.
func emptyFinal(r *synth.Run) []byte {
	return []byte(fmt.Sprintf(`{"runId":%s,"sessionKey":%s,"seq":1,"state":"final"}`, q(r.ID), q(r.SessionKey)))
}

func msgJSON(text string) string {
	return fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":%s}],"timestamp":1795317835000}`, q(text))
}

func agentPayload(r *synth.Run, seq int, stream, data string) []byte {
	return []byte(fmt.Sprintf(`{"runId":%s,"sessionKey":%s,"agentId":"main","seq":%d,"ts":1795317835000,"stream":%q,"data":%s}`, q(r.ID), q(r.SessionKey), seq, stream, data))
}

// hand parses JSON Lines records written by hand.
func hand(t *testing.T, lines ...string) []capture.Record {
	t.Helper()
	r, err := capture.NewReader(strings.NewReader(strings.Join(lines, "\n")+"\n"), capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out []capture.Record
	for {
		rec, err := r.Next()
		if err != nil {
			break
		}
		out = append(out, *rec.Clone())
	}
	return out
}

func lastMatching(recs []capture.Record, sub string) int {
	for i := len(recs) - 1; i >= 0; i-- {
		if bytes.Contains(recs[i].Frame, []byte(sub)) {
			return i
		}
	}
	return -1
}

// ---- both directions, rule by rule ----

func TestPlanted(t *testing.T) {
	cases := []struct {
		name  string
		build func(t *testing.T) []capture.Record
		opts  Options
		want  []string
	}{
		{"seq-gap", func(t *testing.T) []capture.Record {
			s, c, r := streamed()
			c.Drop(2)
			r.Say(" Anemones")
			r.Say(" live there.")
			r.Finish()
			return s.Records()
		}, Options{}, []string{RuleSeqGap}},
		{"seq-duplicate", func(t *testing.T) []capture.Record {
			s, c, r := streamed()
			r.Finish()
			c.Frame(capture.DirIn, []byte(fmt.Sprintf(`{"type":"event","event":"tick","payload":{"ts":1},"seq":%d}`, c.Seq())))
			return s.Records()
		}, Options{}, []string{RuleSeqDuplicate}},
		{"seq-backwards", func(t *testing.T) []capture.Record {
			s, c, r := streamed()
			r.Finish()
			c.Frame(capture.DirIn, []byte(fmt.Sprintf(`{"type":"event","event":"tick","payload":{"ts":1},"seq":%d}`, c.Seq()-3)))
			return s.Records()
		}, Options{}, []string{RuleSeqBackwards}},
		{"seq-not-restarted", func(t *testing.T) []capture.Record {
			s, _, r := streamed()
			r.Finish()
			s.Shutdown()
			s.Advance(12_000)
			c2 := s.Open(cliTools)
			recs := s.Records()
			// The new connection's events continue the old count.
			return append(recs, hand(t,
				fmt.Sprintf(`{"t":%d,"conn":%d,"dir":"in","frame":{"type":"event","event":"tick","payload":{"ts":1},"seq":31}}`, s.Now()+10, c2.N),
				fmt.Sprintf(`{"t":%d,"conn":%d,"dir":"in","frame":{"type":"event","event":"tick","payload":{"ts":2},"seq":32}}`, s.Now()+20, c2.N),
			)...)
		}, Options{}, []string{RuleSeqNotRestarted}},
		{"gateway-seq-gap", func(t *testing.T) []capture.Record {
			s, _, r := streamed()
			r.SeqGap(2)
			r.Say(" More.")
			r.Finish()
			return s.Records()
		}, Options{}, []string{RuleGatewaySeqGap}},
		{"run-seq-jump (opt-in)", func(t *testing.T) []capture.Record {
			s, _, r := streamed()
			r.Skip(2)
			r.Say(" More.")
			r.Finish()
			return s.Records()
		}, Options{Only: []string{RuleRunSeqJump}}, []string{RuleRunSeqJump}},
		{"run-unterminated", func(t *testing.T) []capture.Record {
			s, _, _ := streamed()
			s.Advance(60_000)
			s.Tick()
			return s.Records()
		}, Options{}, []string{RuleRunUnterminated}},
		{"run-unterminated after a crash", func(t *testing.T) []capture.Record {
			s, c, _ := streamed()
			c.Close(1006, "")
			s.Advance(40_000)
			c2 := s.Open(cliTools)
			r2 := c2.ChatSend(mainKey, "Again?")
			r2.Prepare()
			r2.Say("Yes.")
			r2.Finish()
			return s.Records()
		}, Options{}, []string{RuleRunUnterminated}},
		{"empty-final (a send queued into the busy turn)", func(t *testing.T) []capture.Record {
			s, c, r := streamed()
			r2 := c.ChatSend(mainKey, "And another thing?")
			s.Advance(900)
			c.Event("chat", emptyFinal(r2))
			r.Say(" And yes.")
			r.Finish()
			return s.Records()
		}, Options{}, []string{RuleStaleTerminal, RuleEmptyFinal, RuleDroppedFinal}},
		{"empty-final (no run of the session live)", func(t *testing.T) []capture.Record {
			s, c, r := streamed()
			r.Finish()
			s.Advance(500)
			r2 := c.ChatSend(mainKey, "And another thing?")
			s.Advance(900)
			c.Event("chat", emptyFinal(r2))
			return s.Records()
		}, Options{}, []string{RuleEmptyFinal}},
		{"run-in-flight", func(t *testing.T) []capture.Record {
			s, _, _ := streamed()
			return s.Records()
		}, Options{}, []string{RuleRunInFlight}},
		{"run-no-chat-terminal", func(t *testing.T) []capture.Record {
			s, _, r := streamed()
			r.End()
			s.Advance(25_000)
			s.Tick()
			return s.Records()
		}, Options{}, []string{RuleRunNoChatTerminal}},
		{"run-failed (one chat error, v3 style)", func(t *testing.T) []capture.Record {
			s, _, r := streamed()
			r.Fail("model exploded", "unknown")
			recs := s.Records()
			k := lastMatching(recs, `"state":"error"`)
			return slices.Delete(recs, k, k+1)
		}, Options{}, []string{RuleRunFailed}},
		{"double-chat-error (2026.9.6 failure)", func(t *testing.T) []capture.Record {
			s, _, r := streamed()
			r.Fail("model exploded", "unknown")
			return s.Records()
		}, Options{}, []string{RuleRunFailed, RuleDoubleError}},
		{"run-aborted", func(t *testing.T) []capture.Record {
			s, c, r := streamed()
			r.Abort(c)
			s.Advance(1000)
			s.Tick()
			return s.Records()
		}, Options{}, []string{RuleRunAborted}},
		{"duplicate-terminal (chat final twice)", func(t *testing.T) []capture.Record {
			s, _, r := streamed()
			r.Finish()
			s.Advance(3)
			r.Final()
			return s.Records()
		}, Options{NoReplay: true}, []string{RuleDuplicateTerminal}},
		{"duplicate-terminal (lifecycle end twice)", func(t *testing.T) []capture.Record {
			s, c, r := streamed()
			r.End()
			c.Event("agent", agentPayload(r, int(r.Seq()), "lifecycle", `{"phase":"end","stopReason":"stop"}`))
			r.Final()
			return s.Records()
		}, Options{}, []string{RuleDuplicateTerminal}},
		{"dropped-final: a /status of another session of the same agent while a run streams", func(t *testing.T) []capture.Record {
			s, c, r := streamed()
			c.Command("agent:main:other", "/status", "ok")
			r.Finish()
			return s.Records()
		}, Options{}, []string{RuleDroppedFinal}},
		{"late-event (delta after final)", func(t *testing.T) []capture.Record {
			s, _, r := streamed()
			r.Finish()
			s.Advance(30)
			r.Say(" Late.")
			return s.Records()
		}, Options{}, []string{RuleLateEvent}},
		{"late-event (lifecycle end after final)", func(t *testing.T) []capture.Record {
			s, _, r := streamed()
			r.Final()
			s.Advance(20)
			r.End()
			return s.Records()
		}, Options{}, []string{RuleLateEvent}},
		{"stale-terminal without replay", func(t *testing.T) []capture.Record {
			return synth.StaleTerminal().Records()
		}, Options{NoReplay: true}, []string{RuleStaleTerminal}},
		{"dropped-final alone", func(t *testing.T) []capture.Record {
			return synth.StaleTerminal().Records()
		}, Options{Only: []string{RuleDroppedFinal}}, []string{RuleDroppedFinal}},
		{"text-not-cumulative (shrink)", func(t *testing.T) []capture.Record {
			s, c, r := streamed()
			c.Event("chat", chatPayload(r, int(r.Seq())+1, "delta", `,"message":`+msgJSON("Tide")))
			r.Finish()
			return s.Records()
		}, Options{}, []string{RuleTextNotCumulative}},
		{"text-not-cumulative (doubled, then un-doubled)", func(t *testing.T) []capture.Record {
			s, c, r := streamed()
			full := r.Text()
			c.Event("chat", chatPayload(r, int(r.Seq())+1, "delta", `,"message":`+msgJSON(full+full)))
			s.Advance(75)
			c.Event("chat", chatPayload(r, int(r.Seq())+2, "delta", `,"message":`+msgJSON(full)))
			r.Finish()
			return s.Records()
		}, Options{}, []string{RuleTextNotCumulative}},
		{"replace-delta", func(t *testing.T) []capture.Record {
			s, c, r := streamed()
			c.Event("chat", chatPayload(r, int(r.Seq()), "delta", `,"replace":true,"deltaText":`+q(r.Text())+`,"message":`+msgJSON(r.Text())))
			r.Finish()
			return s.Records()
		}, Options{}, []string{RuleReplaceDelta}},
		{"final-text-mismatch (cut MEDIA path)", func(t *testing.T) []capture.Record {
			s, c, r := streamed()
			r.Say(" MEDIA:/workspace/out/chart.png")
			r.End()
			text := r.Text()
			c.Event("chat", chatPayload(r, int(r.Seq()), "final", `,"message":`+msgJSON(text[:len(text)-9])+`,"stopReason":"stop"`))
			return s.Records()
		}, Options{}, []string{RuleFinalTextMismatch}},
		{"thinking-leak", func(t *testing.T) []capture.Record {
			s := synth.New(43)
			c := s.Open(cliTools)
			r := c.ChatSend(mainKey, "Think first.")
			r.Prepare()
			r.Say("<think>Plan the answer")
			r.Say(" carefully. The answer is 4.")
			r.Finish()
			return s.Records()
		}, Options{}, []string{RuleThinkingLeak}},
		{"approval-expired", func(t *testing.T) []capture.Record {
			s := synth.New(44)
			c := s.Open(synth.ConnOptions{Caps: []string{"tool-events", "approvals"}})
			r := c.ChatSend(mainKey, "Clean up.")
			r.Prepare()
			r.Say("Cleaning.")
			r.RequestApproval("rm -rf build")
			s.Advance(125_000)
			r.Say(" The approval timed out.")
			r.Finish()
			return s.Records()
		}, Options{}, []string{RuleApprovalExpired}},
		{"approval-pending", func(t *testing.T) []capture.Record {
			s := synth.New(45)
			c := s.Open(synth.ConnOptions{Caps: []string{"tool-events", "approvals"}})
			r := c.ChatSend(mainKey, "Clean up.")
			r.Prepare()
			r.Say("Cleaning.")
			r.RequestApproval("rm -rf build")
			s.Advance(2_000)
			return s.Records()
		}, Options{}, []string{RuleRunInFlight, RuleApprovalPending}},
		{"tool-amplified", func(t *testing.T) []capture.Record {
			s, c, r := streamed()
			c.Event("agent", agentPayload(r, int(r.Seq())+1, "tool", `{"phase":"start","name":"ls","toolCallId":"call_dup","args":{}}`))
			r.Skip(1)
			c.Event("session.tool", []byte(fmt.Sprintf(`{"runId":%s,"sessionKey":%s,"stream":"tool","data":{"phase":"start","name":"ls","toolCallId":"call_dup","args":{}}}`, q(r.ID), q(mainKey))))
			r.Finish()
			return s.Records()
		}, Options{}, []string{RuleToolAmplified}},
		{"request-unanswered", func(t *testing.T) []capture.Record {
			s, c, r := streamed()
			r.Finish()
			c.Req("", "chat.history", []byte(`{"sessionKey":"agent:main:main","limit":50}`))
			s.Advance(8_000)
			s.Tick()
			return s.Records()
		}, Options{}, []string{RuleRequestUnanswered}},
		{"request-unanswered at close", func(t *testing.T) []capture.Record {
			s, c, r := streamed()
			r.Finish()
			c.Req("", "sessions.list", []byte(`{}`))
			s.Advance(20)
			c.Close(1000, "bye")
			return s.Records()
		}, Options{}, []string{RuleRequestUnanswered}},
		{"request-failed", func(t *testing.T) []capture.Record {
			s, c, r := streamed()
			r.Finish()
			id := c.Req("", "chat.send", []byte(`{"sessionKey":"agent:main:main","message":"hi","idempotencyKey":"k"}`))
			s.Advance(5)
			c.Res(id, false, []byte(`{"code":"INVALID_REQUEST","message":"missing scope: operator.write","details":{"code":"MISSING_SCOPE"}}`))
			return s.Records()
		}, Options{}, []string{RuleRequestFailed}},
		{"slow-response", func(t *testing.T) []capture.Record {
			s, c, r := streamed()
			r.Finish()
			id := c.Req("", "chat.history", []byte(`{"sessionKey":"agent:main:main"}`))
			s.Advance(6_500)
			c.Res(id, true, []byte(`{"messages":[]}`))
			return s.Records()
		}, Options{}, []string{RuleSlowResponse}},
		{"frame-too-large (over maxPayload)", func(t *testing.T) []capture.Record {
			return hand(t,
				`{"t":1000,"conn":1,"mark":"open","url":"ws://127.0.0.1:18789"}`,
				`{"t":1001,"conn":1,"dir":"out","frame":{"type":"req","id":"c1","method":"connect","params":{}}}`,
				`{"t":1002,"conn":1,"dir":"in","frame":{"type":"res","id":"c1","ok":true,"payload":{"type":"hello-ok","protocol":4,"server":{"version":"2026.9.6"},"policy":{"maxPayload":1000}}}}`,
				`{"t":1003,"conn":1,"dir":"in","frame":{"type":"event","event":"tick","payload":{"pad":"`+strings.Repeat("x", 70_000)+`"},"seq":1}}`,
			)
		}, Options{}, []string{RuleFrameTooLarge}},
		{"frame-too-large (before the handshake)", func(t *testing.T) []capture.Record {
			return hand(t,
				`{"t":1000,"conn":1,"mark":"open","url":"ws://127.0.0.1:18789"}`,
				`{"t":1001,"conn":1,"dir":"out","frame":{"type":"req","id":"c1","method":"connect","params":{"pad":"`+strings.Repeat("x", 70_000)+`"}}}`,
				`{"t":1002,"conn":1,"dir":"in","frame":{"type":"res","id":"c1","ok":true,"payload":{"type":"hello-ok","protocol":4}}}`,
			)
		}, Options{}, []string{RuleFrameTooLarge}},
		{"invalid-frame", func(t *testing.T) []capture.Record {
			s, c, r := streamed()
			r.Finish()
			c.Raw(capture.DirIn, "PING keepalive")
			return s.Records()
		}, Options{}, []string{RuleInvalidFrame}},
		{"malformed-payload", func(t *testing.T) []capture.Record {
			s, c, r := streamed()
			r.Finish()
			c.Event("chat", []byte(`{"sessionKey":"agent:main:main","state":"delta","seq":3}`))
			return s.Records()
		}, Options{}, []string{RuleMalformedPayload}},
		{"unknown-event", func(t *testing.T) []capture.Record {
			s, c, r := streamed()
			r.Finish()
			c.Event("totally.new.event", []byte(`{}`))
			c.Event("totally.new.event", []byte(`{}`))
			c.Event("plugin.myplugin.ping", []byte(`{}`))
			return s.Records()
		}, Options{}, []string{RuleUnknownEvent}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The protocol rules only: what the UIs make of these
			// captures is TestStateRules' business.
			opts := tc.opts
			opts.Skip = append(slices.Clone(opts.Skip), stateRules...)
			expect(t, analyze(t, tc.build(t), opts, false), tc.want...)
		})
	}
}

// Real gateway behaviour that must not be reported as a problem.
func TestCleanRealBehaviour(t *testing.T) {
	cases := []struct {
		name  string
		build func(t *testing.T) []capture.Record
		want  []string
	}{
		{"NO_REPLY: the agent stream keeps the token, chat replaces it and the final has no message", func(t *testing.T) []capture.Record {
			s := synth.New(50)
			c := s.Open(cliTools)
			r := c.ChatSend(mainKey, "Heartbeat check")
			r.Prepare()
			r.Say("NO")
			r.SayAgentOnly("_REPLY")
			c.Event("chat", chatPayload(r, int(r.Seq()), "delta", `,"replace":true,"deltaText":"","message":`+msgJSON("")))
			r.End()
			c.Event("chat", chatPayload(r, int(r.Seq()), "final", `,"stopReason":"stop"`))
			return s.Records()
			// The retraction of "NO" is judged (information: Claw3D clears it).
		}, []string{RuleReplaceDelta, RuleRetractionVisible}},
		{"v3 deltas: cumulative message, no deltaText, final shares the last seq", func(t *testing.T) []capture.Record {
			s := synth.New(51)
			c := s.Open(cliTools)
			r := c.ChatSend(mainKey, "v3")
			seq := 0
			text := ""
			for _, w := range []string{"one", " two", " three"} {
				text += w
				seq += 2
				c.Event("agent", agentPayload(r, seq-1, "assistant", `{"text":`+q(text)+`,"delta":`+q(w)+`}`))
				c.Event("chat", chatPayload(r, seq-1, "delta", `,"message":`+msgJSON(text)))
			}
			c.Event("agent", agentPayload(r, seq+1, "lifecycle", `{"phase":"end"}`))
			c.Event("chat", chatPayload(r, seq+1, "final", `,"message":`+msgJSON(text+"  ")))
			return s.Records()
		}, nil},
		{"v3 abort: chat aborted, no lifecycle", func(t *testing.T) []capture.Record {
			s, c, r := streamed()
			c.Event("chat", chatPayload(r, int(r.Seq())+1, "aborted", `,"stopReason":"rpc"`))
			return s.Records()
		}, []string{RuleRunAborted}},
		{"2026.5.7 abort: lifecycle end cancelled, then a second lifecycle end", func(t *testing.T) []capture.Record {
			s, c, r := streamed()
			c.Event("chat", chatPayload(r, int(r.Seq())+1, "aborted", `,"stopReason":"rpc"`))
			c.Event("agent", agentPayload(r, int(r.Seq())+1, "lifecycle", `{"phase":"end","status":"cancelled"}`))
			c.Event("agent", agentPayload(r, 1, "lifecycle", `{"phase":"end"}`))
			return s.Records()
		}, []string{RuleRunAborted}},
		{"a final with a tail no delta carried (v3 throttle)", func(t *testing.T) []capture.Record {
			s, c, r := streamed()
			r.End()
			c.Event("chat", chatPayload(r, int(r.Seq()), "final", `,"message":`+msgJSON(r.Text()+" And more.")))
			return s.Records()
		}, nil},
		{"a /status run after a streamed run", func(t *testing.T) []capture.Record {
			s, c, r := streamed()
			r.Finish()
			s.Advance(500)
			c.Command(mainKey, "/status", "ok")
			return s.Records()
		}, nil},
		{"a retried lifecycle start after a lifecycle error", func(t *testing.T) []capture.Record {
			s, c, r := streamed()
			c.Event("agent", agentPayload(r, int(r.Seq())+1, "lifecycle", `{"phase":"error","error":"overloaded"}`))
			r.Skip(1)
			c.Event("agent", agentPayload(r, int(r.Seq())+1, "run_status", `{"phase":"retrying"}`))
			r.Skip(1)
			r.Start()
			r.Say(" Retried.")
			r.Finish()
			return s.Records()
		}, []string{RuleRunFailed}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// Clean for the protocol and for a UI that handles the real
			// ordering (Claw3D); clawboo's losses are TestStateRules'.
			expect(t, analyzeUI(t, tc.build(t), Options{}, false, models.MustLookup("claw3d")), tc.want...)
		})
	}
}

// A long synthetic session of clean gateway behaviour: only failures,
// aborts and the runs live at the end are reported.
func TestLargeSessionHasNoSpuriousFindings(t *testing.T) {
	skipLarge(t)
	var recs []capture.Record
	if err := synth.LargeEach(60_000, 3, func(rec *capture.Record) error {
		recs = append(recs, *rec.Clone())
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	fs := analyzeUI(t, recs, Options{}, false, models.MustLookup("claw3d"))
	allowed := map[string]bool{RuleRunFailed: true, RuleDoubleError: true, RuleRunAborted: true, RuleRunInFlight: true}
	for _, f := range fs {
		if !allowed[f.Rule] {
			t.Fatalf("spurious finding on a clean session: %s", f.AppendJSON(nil))
		}
	}
}

func TestRuleSelection(t *testing.T) {
	if _, err := New(Options{Only: []string{"no-such-rule"}}); err == nil {
		t.Fatal("unknown rule accepted")
	}
	if _, err := New(Options{Skip: []string{"nope"}}); err == nil {
		t.Fatal("unknown skipped rule accepted")
	}
	recs := synth.SeqGap().Records()
	expect(t, analyze(t, recs, Options{Skip: append([]string{RuleGatewaySeqGap}, stateRules...)}, false), RuleSeqGap)
	expect(t, analyze(t, recs, Options{Only: []string{RuleGatewaySeqGap}}, false), RuleGatewaySeqGap, RuleGatewaySeqGap)
	ids := map[string]bool{}
	for _, r := range Rules() {
		if ids[r.ID] {
			t.Fatalf("rule %s listed twice", r.ID)
		}
		ids[r.ID] = true
	}
}

// Every rule is documented in docs/check-rules.md with its severity.
func TestRulesDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "check-rules.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range Rules() {
		head := "### `" + r.ID + "`"
		if !bytes.Contains(doc, []byte(head)) {
			t.Errorf("docs/check-rules.md has no section %s", head)
		}
	}
}

func TestFindingJSON(t *testing.T) {
	f := Finding{Rule: RuleSeqGap, Severity: Error, I: 3, T: 10, Conn: 1, Message: `a "quoted" message`}
	var m map[string]any
	if err := json.Unmarshal(f.AppendJSON(nil), &m); err != nil {
		t.Fatal(err)
	}
	if m["rule"] != "seq-gap" || m["severity"] != "error" || m["message"] != `a "quoted" message` || m["runId"] != nil {
		t.Fatalf("bad JSON: %v", m)
	}
}

// A chat delta's replace counts when truthy, as an agent event's does.
func TestReplaceDeltaTruthy(t *testing.T) {
	frame := `{"type":"event","event":"chat","payload":{"runId":"r1","sessionKey":"agent:main:main","state":"delta","replace":1,"deltaText":"x"},"seq":1}`
	out := analyze(t, []capture.Record{{Line: 1, Conn: 1, Dir: "in", T: 1, Frame: []byte(frame)}}, Options{}, false)
	for _, f := range out {
		if f.Rule == RuleReplaceDelta {
			return
		}
	}
	t.Fatalf("no %s finding for replace:1: %+v", RuleReplaceDelta, out)
}

// An empty final names the run its session was busy with, and says why
// the reply comes elsewhere; without one it gives the gateway's reasons.
func TestEmptyFinalNamesTheBusyRun(t *testing.T) {
	s, c, r := streamed()
	r2 := c.ChatSend(mainKey, "And another thing?")
	c.Event("chat", emptyFinal(r2))
	r.Finish()
	s.Advance(500)
	r3 := c.ChatSend(mainKey, "Still there?")
	c.Event("chat", emptyFinal(r3))
	got := analyze(t, s.Records(), Options{Only: []string{RuleEmptyFinal}}, false)
	if len(got) != 2 {
		t.Fatalf("%d empty-final findings, want 2:\n%s", len(got), dump(got))
	}
	busy, lone := got[0], got[1]
	if busy.RunID != r2.ID || busy.Severity != Info || !strings.Contains(busy.Message, "busy with run "+r.ID) || !strings.Contains(busy.Message, "never as "+r2.ID+"'s final") {
		t.Errorf("the queued send's finding should name %s as the busy run: %+v", r.ID, busy)
	}
	if lone.RunID != r3.ID || strings.Contains(lone.Message, "busy with") || !strings.Contains(lone.Message, "restart") {
		t.Errorf("a send with no run live should get the gateway's reasons: %+v", lone)
	}
}

// The agent stream's text starts over when the run calls the model again
// (the gateway streams each call's message afresh): reported at info,
// once, and a later bug in the new text is still a warning. Without the
// new call, the same text is a warning.
func TestAgentTextStartsOverAtANewModelCall(t *testing.T) {
	build := func(newCall bool) []capture.Record {
		s, c, r := streamed()
		if newCall {
			c.Event("agent", agentPayload(r, int(r.Seq())+1, "lifecycle", `{"phase":"model","provider":"fake","model":"fake-model"}`))
			r.Skip(1)
		}
		c.Event("agent", agentPayload(r, int(r.Seq())+1, "assistant", `{"text":"Hello","delta":"Hello","itemId":"m:2"}`))
		r.Skip(1)
		c.Event("agent", agentPayload(r, int(r.Seq())+1, "assistant", `{"text":"Hello there","delta":" there","itemId":"m:2"}`))
		r.Skip(1)
		return s.Records()
	}
	fs := analyze(t, build(true), Options{Only: []string{RuleTextNotCumulative}}, false)
	if len(fs) != 1 || fs[0].Severity != Info || !strings.Contains(fs[0].Message, "called the model again") {
		t.Fatalf("a new model call's text: want one info finding\n%s", dump(fs))
	}
	fs = analyze(t, build(false), Options{Only: []string{RuleTextNotCumulative}}, false)
	if len(fs) != 1 || fs[0].Severity != Warn {
		t.Fatalf("the same text without a new call: want one warning\n%s", dump(fs))
	}

	s, c, r := streamed()
	c.Event("agent", agentPayload(r, int(r.Seq())+1, "lifecycle", `{"phase":"model"}`))
	r.Skip(1)
	for _, text := range []string{"Hello", "Hello there", "Help"} {
		c.Event("agent", agentPayload(r, int(r.Seq())+1, "assistant", `{"text":`+q(text)+`}`))
		r.Skip(1)
	}
	fs = analyze(t, s.Records(), Options{Only: []string{RuleTextNotCumulative}}, false)
	if len(fs) != 2 || fs[0].Severity != Info || fs[1].Severity != Warn {
		t.Fatalf("a bug after the new call's start: want info, then a warning\n%s", dump(fs))
	}
}

// A seq finding of a rule that is off is not worded (gapFinding): with a
// seq rule off, the findings are the ones all rules on give, less that
// rule's, on every fixture.
func TestGapRulesOffAreSkipped(t *testing.T) {
	var all, seq []string
	for _, r := range Rules() {
		all = append(all, r.ID)
		if r.Group == "seq" {
			seq = append(seq, r.ID)
		}
	}
	seqFindings := 0
	for _, fx := range synth.Fixtures() {
		path := filepath.Join("..", "..", "fixtures", fx.File)
		for _, u := range models.All() {
			on := analyzeFile(t, path, Options{Only: all}, u)
			for _, rule := range seq {
				off := analyzeFile(t, path, Options{Only: all, Skip: []string{rule}}, u)
				want := slices.DeleteFunc(slices.Clone(on), func(f Finding) bool { return f.Rule == rule })
				seqFindings += len(on) - len(want)
				if !slices.EqualFunc(off, want, func(a, b Finding) bool { return bytes.Equal(a.AppendJSON(nil), b.AppendJSON(nil)) }) {
					t.Errorf("%s, %s: with %s off\n%v\nwant all rules' less its\n%v", fx.Name, u, rule, off, want)
				}
			}
		}
	}
	if seqFindings == 0 {
		t.Fatal("no seq finding on any fixture: the test compares nothing")
	}
}
