package replay_test

import (
	"errors"
	"io"
	"path/filepath"
	"testing"

	"github.com/clawtap/clawtap/pkg/models"

	"github.com/clawtap/clawtap/pkg/replay"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
)

// runFile replays a capture and returns the text (or JSON) output plus
// the final state line.
func runFile(t testing.TB, u replay.UI, path string, json bool) string {
	t.Helper()
	return runFileWith(t, u, path, json, false)
}

// runFileWith is runFile; with outside set, the records are classified by
// a classifier of the caller's and handed over with RecordEvent.
func runFileWith(t testing.TB, u replay.UI, path string, json, outside bool) string {
	t.Helper()
	cls := bridge.NewClassifier()
	r, err := capture.Open(path, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	e := replay.New(replay.Options{UI: u})
	var out []byte
	var f *replay.Formatter
	emit := func(s *replay.Step) error {
		if f == nil {
			f = &replay.Formatter{T0: e.T0()}
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
		if outside {
			ev := cls.Record(rec)
			err = e.RecordEvent(rec, &ev, emit)
		} else {
			err = e.Record(rec, emit)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Finish(emit); err != nil {
		t.Fatal(err)
	}
	if f == nil {
		f = &replay.Formatter{T0: e.T0()}
	}
	out = f.AppendFinalJSON(out, e.State(), e.Now(), e.ClosedRuns(), replay.StateFilter{})
	return string(out)
}

// A caller that classifies the records itself (check does) gets the same
// replay as the engine classifying them, under every UI.
func TestRecordEventIsRecord(t *testing.T) {
	skipLarge(t) // four replays of every fixture under every UI, each read afresh
	files, _ := filepath.Glob("../../fixtures/*.jsonl*")
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	for _, u := range models.All() {
		for _, f := range files {
			for _, json := range []bool{false, true} {
				if a, b := runFileWith(t, u, f, json, false), runFileWith(t, u, f, json, true); a != b {
					t.Errorf("%s %s: RecordEvent differs from Record:\n%s", u, filepath.Base(f), replay.UnifiedDiff("Record", "RecordEvent", []byte(a), []byte(b)))
				}
			}
		}
	}
}
