package controlui_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/models/controlui"
	"github.com/clawtap/clawtap/pkg/replay"
)

var cui = replay.UI{Model: controlui.Model{}, Version: controlui.V2026_9_6}

const t0 = 1_700_000_000_000

// frames builds a capture of chat frames on one connection, 100 ms apart,
// after a hello-ok with the 2026.9.6 session defaults; a frame is the
// payload of a chat event, or a whole frame when it starts with {"type".
func frames(payloads ...string) []*capture.Record {
	recs := []*capture.Record{
		{T: t0, Conn: 1, Mark: capture.MarkOpen},
		{T: t0 + 1, Conn: 1, Dir: capture.DirOut, Frame: []byte(`{"type":"req","id":"c1","method":"connect","params":{}}`)},
		{T: t0 + 2, Conn: 1, Dir: capture.DirIn, Frame: []byte(`{"type":"res","id":"c1","ok":true,"payload":{"type":"hello-ok","protocol":4,"snapshot":{"sessionDefaults":{"defaultAgentId":"main","mainKey":"main","mainSessionKey":"agent:main:main"}}}}`)},
	}
	for i, p := range payloads {
		f := p
		if !strings.HasPrefix(p, `{"type"`) {
			f = fmt.Sprintf(`{"type":"event","event":"chat","seq":%d,"payload":%s}`, i+1, p)
		}
		recs = append(recs, &capture.Record{T: t0 + 100*int64(i+1), Conn: 1, Dir: capture.DirIn, Frame: []byte(f)})
	}
	return recs
}

func chat(run, state, extra string) string {
	r := ""
	if run != "" {
		r = fmt.Sprintf(`"runId":%q,`, run)
	}
	return fmt.Sprintf(`{%s"sessionKey":"agent:main:main","agentId":"main","state":%q%s}`, r, state, extra)
}

func msg(text string) string {
	return fmt.Sprintf(`,"message":{"role":"assistant","content":[{"type":"text","text":%q}]}`, text)
}

func delta(run, text string) string { return chat(run, "delta", msg(text)) }

// pane is what the main session's pane shows at the end, as the e2e test
// reads it from the real UI: the messages, the stream, the run, the
// status and the banner.
type pane struct {
	messages  []string
	stream    string // "<null>" for none
	runID     string
	runStatus string
	runError  string
	stop      bool
}

func replayPane(t *testing.T, recs []*capture.Record, at int64) pane {
	t.Helper()
	e := replay.New(replay.Options{UI: cui})
	for i, r := range recs {
		r.Index = i
		if err := e.Record(r, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Advance(recs[len(recs)-1].T+at, nil); err != nil {
		t.Fatal(err)
	}
	st := e.State()
	var p pane
	if a := st.Agent("main"); a != nil {
		for _, l := range a.Lines() {
			if l.SessionKey == "agent:main:main" {
				p.messages = append(p.messages, l.Role+": "+l.Text)
			}
		}
	}
	p.stream = "<null>"
	if c := st.Chat("agent:main:main"); c != nil {
		if c.StreamText.Valid {
			p.stream = c.StreamText.V
		}
		p.runID, p.runStatus, p.runError, p.stop = c.RunID.V, c.RunStatus.V, c.RunError.V, c.Stop()
	}
	return p
}

// The scenarios the real 2026.9.6 UI was seen to play in headless Chromium
// (docs/ui-controlui.md, "Checked against the real UI"), each with what its
// pane showed.
func TestControlUIScenarios(t *testing.T) {
	for _, c := range []struct {
		name   string
		frames []string
		at     int64 // how long after the last frame the pane is read
		want   pane
	}{
		{"append-only deltas are appended, the final replaces the stream",
			[]string{chat("r1", "delta", `,"deltaText":"Hello","message":{"role":"assistant","content":[{"type":"text","text":"Hello"}]}`),
				chat("r1", "delta", `,"deltaText":" world"`), chat("r1", "delta", `,"deltaText":" again"`), chat("r1", "final", msg("Hello world again"))},
			0, pane{messages: []string{"assistant: Hello world again"}, stream: "<null>", runStatus: "done"}},
		{"the stream the final lacks a message for is kept as the message",
			[]string{delta("r1", "Fresh"), chat("r1", "final", "")},
			0, pane{messages: []string{"assistant: Fresh"}, stream: "<null>", runStatus: "done"}},
		{"an identical second final is dropped, a different one appended",
			[]string{delta("r1", "A"), chat("r1", "final", msg("A!")), chat("r1", "final", msg("A!")), chat("r1", "final", msg("B"))},
			0, pane{messages: []string{"assistant: A!", "assistant: B"}, stream: "<null>", runStatus: "done"}},
		{"an abort keeps the partial text; the status clears after 5 s",
			[]string{delta("r1", "The sea is"), chat("r1", "aborted", `,"stopReason":"rpc"`)},
			6000, pane{messages: []string{"assistant: The sea is"}, stream: "<null>"}},
		{"an error keeps the stream and shows its banner; the dispatch failure's copy changes nothing",
			[]string{delta("r1", "Sure,"), chat("r1", "error", `,"errorMessage":"provider exploded"`),
				`{"type":"event","event":"chat","seq":3,"payload":{"runId":"r1","sessionKey":"agent:main:main","seq":1,"state":"error","errorMessage":"⚠️ Agent failed before reply: provider exploded"}}`},
			0, pane{messages: []string{"assistant: Sure,"}, stream: "<null>", runStatus: "interrupted", runError: "Error: provider exploded"}},
		{"frames of other sessions, or of another agent, are not this pane's",
			[]string{`{"runId":"x","sessionKey":"agent:main:other","agentId":"main","state":"final"` + msg("other") + `}`,
				`{"runId":"y","sessionKey":"agent:main:main","agentId":"ops","state":"final"` + msg("ops") + `}`,
				`{"runId":"z","sessionKey":"AGENT:MAIN:MAIN","state":"final"` + msg("upper") + `}`,
				`{"runId":"w","sessionKey":"main","state":"final"` + msg("alias") + `}`,
				`{"runId":"v","state":"final"` + msg("no session") + `}`},
			0, pane{messages: []string{"assistant: upper", "assistant: alias"}, stream: "<null>", runStatus: "done"}},
		{"another run's final is appended while a run streams; its deltas are not",
			[]string{delta("r1", "one"), delta("r2", "two"), chat("r2", "final", msg("two!")), delta("r1", "one more")},
			0, pane{messages: []string{"assistant: two!"}, stream: "one more", runID: "r1", stop: true}},
		{"a delta after the run's final changes nothing",
			[]string{delta("r1", "x"), chat("r1", "final", msg("xy")), delta("r1", "xyz")},
			0, pane{messages: []string{"assistant: xy"}, stream: "<null>", runStatus: "done"}},
		{"an unknown state adopts the run and never lets it go",
			[]string{chat("r1", "weird", "")},
			6000, pane{stream: "<null>", runID: "r1", stop: true}},
		{"a run adopted within 5 s of the last one's end streams without the Stop button",
			[]string{delta("r1", "a"), chat("r1", "final", msg("a")), delta("r2", "b")},
			0, pane{messages: []string{"assistant: a"}, stream: "b", runID: "r2", runStatus: "done"}},
		{"a retraction empties the stream; NO_REPLY is not shown",
			[]string{delta("r1", "draft"), chat("r1", "delta", `,"deltaText":"","replace":true`), chat("r1", "delta", `,"deltaText":"NO_REPLY","message":{"role":"assistant","content":"NO_REPLY"}`)},
			0, pane{stream: "", runID: "r1", stop: true}},
		{"a status never adopts a run; an error after an abort is the run's first error",
			[]string{chat("r1", "status", `,"phase":"queued"`), delta("r1", "p"), chat("r1", "aborted", ""), chat("r1", "error", `,"errorMessage":"partial persistence failed"`)},
			0, pane{messages: []string{"assistant: p"}, stream: "<null>", runStatus: "interrupted", runError: "Error: partial persistence failed"}},
		{"a new run clears the banner",
			[]string{chat("r1", "error", `,"errorMessage":"boom"`), delta("r2", "ok")},
			0, pane{stream: "ok", runID: "r2", runStatus: "interrupted"}},
		{"a user-role final is no message; a hidden heartbeat ack is not shown",
			[]string{`{"runId":"r1","sessionKey":"agent:main:main","state":"final","message":{"role":"user","content":"hi"}}`,
				chat("r2", "final", msg("HEARTBEAT_OK"))},
			0, pane{stream: "<null>", runStatus: "done"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := replayPane(t, frames(c.frames...), c.at)
			if strings.Join(got.messages, "|") != strings.Join(c.want.messages, "|") || got.stream != c.want.stream || got.runID != c.want.runID ||
				got.runStatus != c.want.runStatus || got.runError != c.want.runError || got.stop != c.want.stop {
				t.Errorf("pane\n got %+v\nwant %+v", got, c.want)
			}
		})
	}
}

// A terminal's members the classifier does not capture are read from its
// payload (readChat): a final the run yielded (yielded, stopReason
// end_turn) ends it without a status, where the same final otherwise says
// done. (The model's reading of yielded, not a scenario checked against
// the real UI.)
func TestControlUIYieldedFinal(t *testing.T) {
	for _, c := range []struct {
		extra, status string
	}{
		{`,"stopReason":"end_turn","yielded":true`, ""},
		{`,"stopReason":"end_turn"`, "done"},
	} {
		got := replayPane(t, frames(delta("r1", "x"), chat("r1", "final", msg("xy")+c.extra)), 0)
		if got.runStatus != c.status || strings.Join(got.messages, "|") != "assistant: xy" {
			t.Errorf("final with %s: pane %+v, want status %q and the final's message", c.extra, got, c.status)
		}
	}
}

// An envelope seq that skips drops the frame and reconnects: the run and
// the stream go, the messages stay.
func TestControlUISeqGap(t *testing.T) {
	recs := frames(chat("r0", "final", msg("earlier")), delta("r1", "partial"))
	recs = append(recs, &capture.Record{T: t0 + 900, Conn: 1, Dir: capture.DirIn, Frame: []byte(`{"type":"event","event":"chat","seq":9,"payload":` + delta("r1", "partial more") + `}`)})
	got := replayPane(t, recs, 0)
	if strings.Join(got.messages, "|") != "assistant: earlier" || got.stream != "<null>" || got.runID != "" {
		t.Errorf("after the gap: %+v", got)
	}
}
