package report

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/check"
	"github.com/clawtap/clawtap/pkg/pipeline"
)

// FuzzReport runs arbitrary capture bytes through the whole pass the report
// builds on (replay, check, stats, gaps): it must never panic; the page is
// the same bytes every time, its data is JSON that no capture text can
// close early, it keeps under --max-bytes whenever the timeline fits, and
// a body kept under a tight limit is the record's whole body. The trace is
// JSON too. A build whose run table holds one run (each run let go, and
// written, as the next is born) gives a page too, every run on it once.
func FuzzReport(f *testing.F) {
	f.Add([]byte(`{"clawtap":1}
{"t":1000,"conn":1,"mark":"open","url":"ws://127.0.0.1:18789"}
{"t":1001,"conn":1,"dir":"out","frame":{"type":"req","id":"s1","method":"chat.send","params":{"sessionKey":"agent:main:main","message":"hi"}}}
{"t":1002,"conn":1,"dir":"in","frame":{"type":"res","id":"s1","ok":true,"payload":{"runId":"r1","status":"started"}}}
{"t":1003,"conn":1,"dir":"in","frame":{"type":"event","event":"agent","seq":1,"payload":{"runId":"r1","sessionKey":"agent:main:main","stream":"lifecycle","data":{"phase":"start"}}}}
{"t":1004,"conn":1,"dir":"in","frame":{"type":"event","event":"chat","seq":2,"payload":{"runId":"r1","sessionKey":"agent:main:main","state":"delta","message":{"role":"assistant","content":[{"type":"text","text":"hel</script>"}]}}}}
{"t":1005,"conn":1,"dir":"in","frame":{"type":"event","event":"chat","seq":5,"payload":{"runId":"r1","sessionKey":"agent:main:main","state":"final","message":{"role":"assistant","content":[{"type":"text","text":"hello"}]}}}}
{"t":1006,"conn":1,"dir":"in","frame":{"type":"event","event":"chat","seq":6,"payload":{"runId":"r1","sessionKey":"agent:main:main","state":"final","message":{"role":"assistant","content":[{"type":"text","text":"hello"}]}}}}
{"t":1007,"conn":1,"dir":"in","frame":{"type":"event","event":"agent","seq":7,"payload":{"runId":"r1","sessionKey":"agent:main:main","stream":"lifecycle","data":{"phase":"end"}}}}
{"t":1008,"conn":1,"mark":"close","code":1006}
`))
	f.Add([]byte(`{"t":1,"conn":1,"dir":"in","frame":{"type":"event","event":"exec.approval.requested","payload":{"id":"a1","request":{"agentId":"main","command":"rm -rf /"},"expiresAtMs":50}}}
{"t":2,"conn":1,"dir":"in","frame":{"type":"event","event":"agent","payload":{"runId":"r2","agentId":"main","stream":"tool","data":{"phase":"start","name":"exec","toolCallId":"t1"}}}}
{"t":900,"conn":1,"dir":"in","frame":{"type":"event","event":"exec.approval.resolved","payload":{"id":"a1","decision":"deny"}}}
{"t":3,"conn":2,"dir":"in","raw":"not json"}
not a record
{"t":4,"conn":2,"dir":"in","frame":[1,2]}
`))
	f.Add([]byte(`{"type":"event","event":"agent","payload":{"runId":"r1","sessionKey":"agent:main:main","stream":"assistant","data":{"text":"a","delta":"a"}}}
{"type":"event","event":"chat","payload":{"runId":"r1","sessionKey":"agent:main:main","state":"aborted"}}
{"type":"event","event":"agent","payload":{"runId":"r1","sessionKey":"agent:main:main","stream":"assistant","data":{"text":"ab","delta":"b"}}}
`))
	f.Fuzz(func(t *testing.T, data []byte) {
		const tight = MinMaxBytes
		small, ok := fuzzBuild(t, data, tight, 0)
		if !ok {
			return
		}
		again, _ := fuzzBuild(t, data, tight, 0)
		full, _ := fuzzBuild(t, data, 1<<30, 0)
		if crowded, ok := fuzzBuild(t, data, tight, 1); ok {
			if d := dataOf(t, AppendHTML(nil, crowded)); !json.Valid(d) {
				t.Fatalf("the page of a one-run table is not JSON: %.300s", d)
			}
			if runs := allRuns(t, crowded); len(runs) < small.NumRuns() {
				t.Fatalf("%d runs with a one-run table, %d with the default: a run let go and seen again is a bar of its own", len(runs), small.NumRuns())
			}
		}

		page := AppendHTML(nil, small)
		if !bytes.Equal(page, AppendHTML(nil, again)) {
			t.Fatal("the same capture gave two pages")
		}
		if n := bytes.Count(bytes.ToLower(page), []byte("</script")); n != 2 {
			t.Fatalf("%d </script in the page, want 2", n)
		}
		if d := dataOf(t, page); !json.Valid(d) {
			t.Fatalf("the page's data is not JSON: %.300s", d)
		}
		if n := len(AppendData(nil, small)); small.Summary.Skeleton == 0 && n > tight {
			t.Fatalf("data is %d bytes, over the %d limit, and the timeline fits", n, tight)
		}

		kept, whole := bodiesOf(t, small), bodiesOf(t, full)
		if i, ok := partialBody(kept, whole); !ok {
			t.Fatalf("record #%d's body under %d bytes differs from its whole body:\n got %.300s\nwant %.300s", i, tight, kept[i], whole[i])
		}

		var tr bytes.Buffer
		if err := WriteTrace(&tr, small); err != nil {
			t.Fatal(err)
		}
		if !json.Valid(tr.Bytes()) {
			t.Fatalf("the trace is not JSON: %.300s", tr.Bytes())
		}
	})
}

// fuzzBuild builds a report of data under limit, with check's findings,
// in a pass whose run table holds maxRuns runs (0: the default); false
// when data is not a capture the reader takes.
func fuzzBuild(t *testing.T, data []byte, limit, maxRuns int) (*Report, bool) {
	r, err := capture.NewReader(bytes.NewReader(data), capture.Options{})
	if err != nil {
		return nil, false
	}
	defer r.Close()
	an, err := check.New(check.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := NewBuilder(Options{Name: "fuzz", MaxBytes: limit})
	if err := pipeline.New(pipeline.Options{MaxRuns: maxRuns}, an, b).Run(pipeline.Records(r)); err != nil {
		return nil, false
	}
	rep := b.Report()
	t.Cleanup(func() { _ = rep.Close() })
	return rep, true
}
