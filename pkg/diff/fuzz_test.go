package diff

import (
	"bytes"
	"testing"

	"github.com/clawtap/clawtap/pkg/models"
	"github.com/clawtap/clawtap/pkg/replay"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/pipeline"
)

// FuzzDiff compares arbitrary capture bytes with themselves: it must never
// panic, and a capture never differs from itself, neither step by step nor
// when one UI is compared with itself. Two different UIs on it hand on
// every run they count.
func FuzzDiff(f *testing.F) {
	f.Add([]byte(`{"clawtap":1}
{"t":1000,"conn":1,"mark":"open"}
{"t":1001,"conn":1,"dir":"in","frame":{"type":"event","event":"agent","seq":1,"payload":{"runId":"r1","sessionKey":"agent:main:main","stream":"lifecycle","data":{"phase":"start"}}}}
{"t":1002,"conn":1,"dir":"in","frame":{"type":"event","event":"chat","seq":2,"payload":{"runId":"r1","sessionKey":"agent:main:main","state":"delta","message":{"role":"assistant","content":[{"type":"text","text":"hel"}]}}}}
{"t":1003,"conn":1,"dir":"in","frame":{"type":"event","event":"agent","seq":3,"payload":{"runId":"r1","sessionKey":"agent:main:main","stream":"lifecycle","data":{"phase":"end"}}}}
{"t":1004,"conn":1,"dir":"in","frame":{"type":"event","event":"chat","seq":4,"payload":{"runId":"r1","sessionKey":"agent:main:main","state":"final","message":{"role":"assistant","content":[{"type":"text","text":"hello"}]}}}}
{"t":1005,"conn":1,"mark":"close","code":1000}
`))
	f.Add([]byte(`{"type":"event","event":"exec.approval.requested","payload":{"id":"a1","request":{"agentId":"main","command":"ls"},"expiresAtMs":50}}
{"type":"event","event":"chat","payload":{"runId":"r2","sessionKey":"agent:main:main","state":"aborted"}}
not json
{"type":"event","event":"chat","payload":{"runId":"r2","sessionKey":"agent:main:main","state":"delta","message":{"role":"assistant","content":"late"}}}
`))
	f.Fuzz(func(t *testing.T, data []byte) {
		src := func() (pipeline.Source, bool) {
			r, err := capture.NewReader(bytes.NewReader(data), capture.Options{})
			if err != nil {
				return nil, false
			}
			t.Cleanup(func() { _ = r.Close() })
			return pipeline.Records(r), true
		}
		a, ok := src()
		if !ok {
			return
		}
		b, _ := src()
		if res := Compare(a, b, Options{}); !res.Equal || res.Changed+res.OnlyA+res.OnlyB != 0 || res.Parted != 0 {
			t.Fatalf("a capture differs from itself: %+v", res)
		}
		for _, uis := range [][2]replay.UI{{models.MustLookup("clawboo@1211c16"), models.MustLookup("clawboo@1211c16")}, {models.MustLookup("claw3d"), models.MustLookup("claw3d")}, {models.MustLookup("clawboo@1211c16"), models.MustLookup("claw3d")}} {
			s, _ := src()
			handed := 0
			res, err := CompareUIs(s, uis, func(*RunOutcomes) error { handed++; return nil })
			if err != nil {
				continue // the reader gave up on the input: both sides saw it
			}
			if handed != res.MetaRuns || res.Same+res.Differ != res.MetaRuns {
				t.Fatalf("%v: %d runs handed on, %d counted (%d same, %d differ)", uis, handed, res.MetaRuns, res.Same, res.Differ)
			}
			if uis[0] == uis[1] && !res.Equal() {
				t.Fatalf("%s differs from itself: %+v", uis[0], res.First)
			}
		}
	})
}
