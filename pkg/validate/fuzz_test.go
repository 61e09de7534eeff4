package validate

import (
	"encoding/json"
	"testing"

	"github.com/clawtap/clawtap/internal/synth"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/check"
)

// FuzzValidate: any frame, on a connection in any state, gives findings
// and never a panic; every finding points at its record.
func FuzzValidate(f *testing.F) {
	for _, seed := range []string{
		connectReq, helloV4, delta,
		`{"type":"event","event":"chat","payload":{"runId":"r","sessionKey":"k","seq":1,"state":"bogus"}}`,
		`{"type":"event","event":"agent","payload":{"runId":"r","seq":1,"stream":"lifecycle","ts":1,"data":{"phase":"start"}}}`,
		`{"type":"res","id":"c1","ok":true,"payload":{"type":"hello-ok","protocol":3,"canvasHostUrl":"x"}}`,
		`{"type":"res","id":"zz","ok":false,"error":{"code":"INVALID_REQUEST","message":"no"}}`,
		`{"type":"req","id":"a","method":"logs.tail","params":{"limit":"all"}}`,
		`{"type":"event","event":"tick","seq":1.5,"payload":{"ts":-1}}`,
		`[{"type":"req"}]`, `"event"`, `null`, `{"type":7}`, `{}`,
		`{"type":"event","event":"talk.event","payload":{"a":{"b":[1,{"c":null}]}}}`,
	} {
		f.Add([]byte(seed), uint8(4))
	}
	s, err := Embedded()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, frame []byte, protocol uint8) {
		v := New(s, Options{MaxPending: 4})
		recs := []*capture.Record{
			{Conn: 1, Mark: capture.MarkHello, Protocol: int(protocol % 6)},
			{Index: 1, Conn: 1, Frame: json.RawMessage(connectReq)},
		}
		if json.Valid(frame) {
			recs = append(recs, &capture.Record{Index: 2, Conn: 1, Frame: json.RawMessage(frame)})
		} else {
			recs = append(recs, &capture.Record{Index: 2, Conn: 1, Raw: frame, IsRaw: true})
		}
		for _, r := range recs {
			for _, fi := range v.Record(nil, r) {
				if fi.I != r.Index || fi.Rule == "" || fi.Message == "" {
					t.Fatalf("finding %+v for record %d", fi, r.Index)
				}
			}
		}
		v.Drift(nil)
	})
}

// BenchmarkValidate: frames per second on a generated capture of realistic
// 2026.9.6 frames (mostly streamed deltas), one core. Run with
// go test -run '^$' -bench Validate -cpu 1 ./pkg/validate/
func BenchmarkValidate(b *testing.B) {
	s, err := Embedded()
	if err != nil {
		b.Fatal(err)
	}
	const n = 20_000
	var recs []*capture.Record
	if err := synth.LargeEach(n, 1, func(r *capture.Record) error {
		recs = append(recs, r.Clone())
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	frames := 0
	for _, r := range recs {
		if r.IsFrame() {
			frames++
		}
	}
	var fs []check.Finding
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		v := New(s, Options{})
		for _, r := range recs {
			fs = v.Record(fs[:0], r)
		}
	}
	b.ReportMetric(float64(frames)*float64(b.N)/b.Elapsed().Seconds(), "frames/s")
	b.ReportMetric(0, "ns/op")
}
