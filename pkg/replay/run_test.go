package replay

import (
	"errors"
	"io"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
)

// runFile replays a capture and returns the text (or JSON) output plus
// the final state line.
func runFile(t testing.TB, path string, json bool) string {
	t.Helper()
	r, err := capture.Open(path, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	e := New(Options{})
	var out []byte
	var f *Formatter
	emit := func(s *Step) error {
		if f == nil {
			f = &Formatter{T0: e.T0()}
		}
		if !s.Changed() {
			return nil
		}
		if json {
			out = f.AppendStepJSON(out, s)
		} else {
			out = f.AppendStepText(out, s)
		}
		return nil
	}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Record(rec, emit); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Finish(emit); err != nil {
		t.Fatal(err)
	}
	if f == nil {
		f = &Formatter{T0: e.T0()}
	}
	out = f.AppendFinalJSON(out, e.State(), e.Now(), e.Handler().ClosedRuns(), StateFilter{})
	return string(out)
}
