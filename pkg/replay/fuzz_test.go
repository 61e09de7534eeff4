package replay_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"

	"github.com/clawtap/clawtap/pkg/models"

	"github.com/clawtap/clawtap/pkg/replay"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/models/clawboo"
	"github.com/clawtap/clawtap/pkg/ui"
)

// FuzzReplay feeds arbitrary capture bytes through the whole replay under
// every UI model: it must never panic, every JSON line it renders must be
// valid, and state must stay bounded (transcripts capped by the UI's
// layout; under clawboo the closed-run map capped and at most three
// timers: a frame, the debounce, the approval sweep).
// Seeds: f.Add below and testdata/fuzz/FuzzReplay.
func FuzzReplay(f *testing.F) {
	f.Add([]byte(`{"type":"event","event":"agent","payload":{"runId":"r1","sessionKey":"agent:main:main","stream":"lifecycle","data":{"phase":"start"}}}
{"type":"event","event":"chat","payload":{"runId":"r1","sessionKey":"agent:main:main","state":"delta","message":{"role":"assistant","content":"hi"}}}
{"type":"event","event":"chat","payload":{"runId":"r1","sessionKey":"agent:main:main","state":"final","message":{"role":"assistant","content":"hi there"}}}
`))
	f.Add([]byte(`{"clawtap":1}
{"t":1000,"conn":1,"mark":"open"}
{"t":1001,"conn":1,"dir":"in","frame":{"type":"event","event":"presence","payload":{}}}
{"t":1002,"conn":1,"dir":"in","frame":{"type":"event","event":"exec.approval.requested","payload":{"id":"a","request":{"agentId":"main","command":"ls"},"expiresAtMs":1500}}}
{"t":1003,"conn":2,"dir":"in","frame":{"type":"event","event":"heartbeat","payload":{}}}
{"t":1004,"conn":1,"mark":"close","code":1000}
{"t":9000,"conn":3,"dir":"in","frame":{"type":"event","event":"chat","payload":{"runId":"r1","sessionKey":"agent:x:y","state":"error","errorMessage":"boom"}}}
`))
	f.Add([]byte(`{"t":5,"conn":1,"dir":"in","frame":{"type":"event","event":"agent","payload":{"runId":"r2","agentId":"main","stream":"lifecycle","data":{"phase":"end"}}}}
{"t":1,"conn":1,"dir":"in","raw":"not json"}
not a record
{"t":-5,"conn":1,"dir":"in","frame":[1,2]}
`))
	f.Add([]byte(`{"type":"event","event":"session.message","payload":{"sessionKey":"agent:main:main","message":{"role":"user","content":"hi","idempotencyKey":"r1:user","__openclaw":{"id":"u1","seq":1}},"session":{"key":"agent:main:main","hasActiveRun":true}}}
{"type":"event","event":"chat","payload":{"runId":"r1","sessionKey":"agent:main:main","state":"delta","message":{"role":"assistant","content":"hey"}}}
{"type":"event","event":"session.message","payload":{"sessionKey":"agent:main:main","runId":"r1","message":{"role":"assistant","content":[{"type":"text","text":"hey"}],"__openclaw":{"runId":"r1","id":"a2","seq":2}},"messageSeq":2}}
{"type":"event","event":"chat","payload":{"runId":"r1","sessionKey":"agent:main:main","state":"final"}}
{"type":"event","event":"sessions.changed","payload":{"sessionKey":"agent:main:main","reason":"reset"}}
`))
	f.Fuzz(runFuzzOne)
}

func runFuzzOne(t *testing.T, data []byte) {
	for _, u := range models.All() {
		r, err := capture.NewReader(bytes.NewReader(data), capture.Options{})
		if err != nil {
			return
		}
		clawbooBounds := u.Version.UI == "clawboo"
		e := replay.New(replay.Options{UI: u})
		fm := &replay.Formatter{}
		var buf []byte
		emit := func(s *replay.Step) error {
			fm.T0 = e.T0()
			buf = fm.AppendStepJSON(buf[:0], s)
			if !json.Valid(buf) {
				t.Fatalf("invalid step JSON: %s", buf)
			}
			buf = fm.AppendStepText(buf[:0], s)
			return nil
		}
		var closed []ui.ClosedRun
		for n := 0; n < 5000; n++ {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) || err != nil {
				break
			}
			if err := e.Record(rec, emit); err != nil {
				t.Fatal(err)
			}
			if clawbooBounds && e.PendingTimers() > 3 {
				t.Fatalf("%s: %d timers pending", u, e.PendingTimers())
			}
			if closed = e.ClosedRuns(); clawbooBounds && len(closed) > clawboo.ClosedRunsMaxSize+8 {
				t.Fatalf("%s: %d closed runs", u, len(closed))
			}
		}
		if err := e.Finish(emit); err != nil {
			t.Fatal(err)
		}
		for _, id := range e.State().AgentIDs() {
			if n := len(e.State().Agent(id).Lines()); n > u.Layout().TranscriptCap {
				t.Fatalf("agent %s holds %d lines", id, n)
			}
		}
		buf = fm.AppendFinalJSON(buf[:0], e.State(), e.Now(), e.ClosedRuns(), replay.StateFilter{})
		if !json.Valid(buf) {
			t.Fatalf("invalid final JSON: %s", buf)
		}
		fm.AppendFinalText(buf[:0], e.State(), e.Now(), nil, replay.StateFilter{})
		fm.AppendTranscriptText(buf[:0], e.State(), replay.StateFilter{})
		if !json.Valid(bytes.TrimSpace(fm.AppendTranscriptJSON(nil, e.State(), replay.StateFilter{}))) && len(e.State().AgentIDs()) == 1 {
			t.Fatal("invalid transcript JSON")
		}
	}
}
