package check

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/clawtap/clawtap/pkg/models"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/replay"
)

// FuzzCheck runs every rule, under each UI model, on arbitrary capture
// bytes: it must never panic; the findings are the same on a second run;
// each is a known rule at its severity or one it lowers to, pinned on a record of the
// capture (or -1), with a message, and renders as one JSON object; the
// summary counts exactly the findings made.
func FuzzCheck(f *testing.F) {
	f.Add([]byte(`{"clawtap":1}
{"t":1000,"conn":1,"mark":"open"}
{"t":1001,"conn":1,"dir":"out","frame":{"type":"req","id":"s1","method":"chat.send","params":{"sessionKey":"agent:main:main","message":"hi"}}}
{"t":1002,"conn":1,"dir":"in","frame":{"type":"event","event":"agent","seq":1,"payload":{"runId":"r1","sessionKey":"agent:main:main","stream":"lifecycle","data":{"phase":"start"}}}}
{"t":1003,"conn":1,"dir":"in","frame":{"type":"event","event":"chat","seq":4,"payload":{"runId":"r1","sessionKey":"agent:main:main","state":"delta","message":{"role":"assistant","content":[{"type":"text","text":"hel"}]}}}}
{"t":1004,"conn":1,"dir":"in","frame":{"type":"event","event":"agent","seq":5,"payload":{"runId":"r1","sessionKey":"agent:main:main","stream":"lifecycle","data":{"phase":"end"}}}}
{"t":1005,"conn":1,"dir":"in","frame":{"type":"event","event":"chat","seq":6,"payload":{"runId":"r1","sessionKey":"agent:main:main","state":"final","message":{"role":"assistant","content":[{"type":"text","text":"hello"}]}}}}
{"t":1006,"conn":1,"dir":"in","frame":{"type":"event","event":"chat","seq":7,"payload":{"runId":"r1","sessionKey":"agent:main:main","state":"final","message":{"role":"assistant","content":[{"type":"text","text":"hello"}]}}}}
{"t":1007,"conn":1,"mark":"close","code":1006}
`))
	f.Add([]byte(`{"t":1,"conn":1,"dir":"in","frame":{"type":"event","event":"exec.approval.requested","payload":{"id":"a1","request":{"agentId":"main","command":"ls"},"expiresAtMs":50}}}
{"t":2,"conn":1,"dir":"in","frame":{"type":"event","event":"agent","payload":{"runId":"r2","agentId":"main","stream":"lifecycle","data":{"phase":"waiting-approval","approvalId":"a1"}}}}
{"t":90000,"conn":1,"dir":"in","frame":{"type":"event","event":"chat","payload":{"runId":"r2","sessionKey":"agent:main:main","state":"error","errorMessage":"boom"}}}
{"t":3,"conn":2,"dir":"in","raw":"not json"}
`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, ui := range models.All() {
			first, sum, records, ok := fuzzCheck(t, data, ui)
			if !ok {
				return
			}
			again, _, _, _ := fuzzCheck(t, data, ui)
			if len(first) != len(again) {
				t.Fatalf("%s: %d findings, then %d", ui, len(first), len(again))
			}
			byRule := 0
			for _, n := range sum.ByRule {
				byRule += n
			}
			if n := len(first); sum.Errors+sum.Warnings+sum.Infos != n || byRule != n {
				t.Fatalf("%s: %d findings made, the summary counts %d by severity and %d by rule", ui, n, sum.Errors+sum.Warnings+sum.Infos, byRule)
			}
			for k := range first {
				fd := &first[k]
				js := fd.AppendJSON(nil)
				if !bytes.Equal(js, again[k].AppendJSON(nil)) {
					t.Fatalf("%s: finding %d differs on a second run:\n%s\n%s", ui, k, js, again[k].AppendJSON(nil))
				}
				if !json.Valid(js) {
					t.Fatalf("%s: a finding is not JSON: %s", ui, js)
				}
				r, known := LookupRule(fd.Rule)
				if !known || fd.Severity < Info || fd.Severity > r.Severity || fd.Message == "" || fd.I < -1 || fd.I >= records {
					t.Fatalf("%s: a finding of an unknown rule, above its rule's severity, without a message or off the capture (%d records): %s", ui, records, js)
				}
			}
		}
	})
}

// fuzzCheck checks data replayed as ui; false when data is not a capture
// the reader takes.
func fuzzCheck(t *testing.T, data []byte, ui replay.UI) ([]Finding, Summary, int, bool) {
	r, err := capture.NewReader(bytes.NewReader(data), capture.Options{})
	if err != nil {
		return nil, Summary{}, 0, false
	}
	defer r.Close()
	an, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	var found []Finding
	an.OnFinding = func(f *Finding) error {
		found = append(found, *f)
		return nil
	}
	if err := pipeline.New(pipeline.Options{Replay: replay.Options{UI: ui}}, an).Run(pipeline.Records(r)); err != nil {
		return nil, Summary{}, 0, false
	}
	return found, an.Summary(), r.Stats().Records, true
}
