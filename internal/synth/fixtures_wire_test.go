package synth

import (
	"bytes"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/jsonx"
)

// A reshaped fixture is its session with only what reshape rewrites
// changed: the same records in the same order at the same times, a
// header naming both releases, hello-ok and hello markers of 2026.9.7,
// and deltas that lost their message (or data.text) and nothing else.
func TestReshapedFixtures(t *testing.T) {
	n := 0
	for _, f := range Fixtures() {
		if !f.Reshaped() {
			continue
		}
		n++
		t.Run(f.Name, func(t *testing.T) {
			b, err := f.Bytes()
			if err != nil {
				t.Fatal(err)
			}
			r, recs := readAll(t, b)
			h := r.Header()
			if h == nil || h.Source.Mode != "reshape" || h.Source.GatewayVersion != "2026.9.7" || h.Source.ReshapedFrom != GatewayVersion {
				t.Fatalf("header %+v", h)
			}
			if !strings.Contains(string(h.Notes), "Original notes: "+strings.ReplaceAll(f.Notes, `"`, `\"`)) {
				t.Errorf("notes %s do not keep the fixture's", h.Notes)
			}
			want := f.Build().Records()
			if len(recs) != len(want) {
				t.Fatalf("%d records, want %d", len(recs), len(want))
			}
			rewritten := 0
			for i, rec := range recs {
				w := want[i]
				if rec.T != w.T || rec.Conn != w.Conn || rec.Dir != w.Dir || rec.Mark != w.Mark {
					t.Fatalf("record %d moved", i)
				}
				if bytes.Equal(rec.Frame, w.Frame) {
					continue
				}
				switch {
				case bytes.Contains(w.Frame, []byte(`"hello-ok"`)):
					if !bytes.Equal(rec.Frame, bytes.Replace(w.Frame, []byte(`"version":"`+GatewayVersion+`"`), []byte(`"version":"2026.9.7"`), 1)) {
						t.Errorf("record %d: hello-ok changed beyond its version", i)
					}
				case jsonx.Valid(rec.Frame) && len(rec.Frame) < len(w.Frame):
					rewritten++
					p, _ := jsonx.Get(rec.Frame, "payload")
					_, msg := jsonx.Get(p, "message")
					_, text := jsonx.GetPath(p, "data", "text")
					if msg || text {
						t.Errorf("record %d: shorter but still whole", i)
					}
				default:
					t.Errorf("record %d changed:\n got %s\nwant %s", i, rec.Frame, w.Frame)
				}
			}
			if rewritten == 0 {
				t.Error("no delta was made append-only")
			}
		})
	}
	if n == 0 {
		t.Fatal("no reshaped fixture")
	}
}
