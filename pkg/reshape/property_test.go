package reshape_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/clawtap/clawtap/internal/synth"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/models"
	"github.com/clawtap/clawtap/pkg/replay"
	"github.com/clawtap/clawtap/pkg/reshape"
)

// finalState replays a capture under ui and renders where it ends: the
// state and the transcript.
func finalState(t testing.TB, b []byte, ui replay.UI) []byte {
	t.Helper()
	r, err := capture.NewReader(bytes.NewReader(b), capture.Options{Serial: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	e := replay.New(replay.Options{UI: ui})
	emit := func(*replay.Step) error { return nil }
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
	f := &replay.Formatter{T0: e.T0()}
	out := f.AppendFinalJSON(nil, e.State(), e.Now(), e.ClosedRuns(), replay.StateFilter{})
	return f.AppendTranscriptJSON(out, e.State(), replay.StateFilter{})
}

// The property reshape promises: a UI that rebuilds the live text at the
// connection ends a reshaped capture exactly where it ends the original.
// The Control UI (2026.9.6) appends each delta's deltaText to its pane's
// text, taking a message only when one comes, so it is one; it is tried
// on every 2026.9.6 capture at hand and on synthetic sessions of many
// runs, interleaved agents, tools and approvals.
func TestControlUIEndsWhereTheOriginalEnds(t *testing.T) {
	ui := models.MustLookup("control-ui")
	check := func(t *testing.T, in []byte) {
		out, res, _, err := run(t, in, reshape.Options{})
		if err != nil {
			t.Fatal(err)
		}
		a, b := finalState(t, in, ui), finalState(t, out, ui)
		if !bytes.Equal(a, b) {
			t.Fatalf("%s ends differently on the reshaped capture (%d deltas made append-only):\n%s", ui, res.ChatAppendOnly, replay.UnifiedDiff("original", "reshaped", a, b))
		}
	}
	for name, in := range inputs(t) {
		t.Run(name, func(t *testing.T) { check(t, in) })
	}
	for _, seed := range []int64{1, 2, 3, 4, 5, 6, 7, 8} {
		t.Run("large", func(t *testing.T) {
			if seed > 2 && testing.Short() {
				// skipped, so that make unit's long stage runs them
				t.Skip("seeds past 2 under -short")
			}
			in, err := synth.LargeJSONL(3000, seed)
			if err != nil {
				t.Fatal(err)
			}
			check(t, in)
		})
	}
}

// Synthetic sessions of many runs are reshaped exactly too, and most of
// their deltas become append-only.
func TestLargeSessionsReshapeExactly(t *testing.T) {
	in, err := synth.LargeJSONL(4000, 11)
	if err != nil {
		t.Fatal(err)
	}
	_, res, _, err := run(t, in, reshape.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.ChatDeltas == 0 || res.ChatAppendOnly*2 < res.ChatDeltas {
		t.Errorf("%d of %d chat deltas made append-only", res.ChatAppendOnly, res.ChatDeltas)
	}
}
