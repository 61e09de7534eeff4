package pipeline_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/internal/synth"
	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/replay"
)

// events prints every classified event a pass sees, as classify does, and
// what Chat and Agent read from the members the classifier captured.
type events struct{ buf bytes.Buffer }

func (e *events) Needs() pipeline.Needs { return 0 }

func (e *events) Before(f *pipeline.Frame) error {
	b := f.Event.AppendJSON(nil, bridge.Meta{I: f.Rec.Index, T: f.Rec.T, Conn: f.Rec.Conn, Dir: f.Rec.Dir})
	e.buf.Write(b)
	var c bridge.ChatPayload
	var a bridge.AgentPayload
	okc, oka := f.Event.Chat(&c), f.Event.Agent(&a)
	jc, _ := json.Marshal(c) // pointers by what they point to
	ja, _ := json.Marshal(a)
	fmt.Fprintf(&e.buf, " chat=%v %s agent=%v %s\n", okc, jc, oka, ja)
	return nil
}

// passOutput runs src's capture through a pass that replays (so Records
// classifies ahead) with the replay and intents printers and the events
// observer, and returns all they wrote.
func passOutput(t *testing.T, src []byte, serial bool, until replay.Bound) string {
	t.Helper()
	r, err := capture.NewReader(bytes.NewReader(src), capture.Options{Serial: serial})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var rep, in bytes.Buffer
	ev := &events{}
	obs := []pipeline.Observer{
		ev,
		&output.Replay{W: &rep, Format: output.JSON, All: true},
		&output.Intents{W: &in, Format: output.JSON},
	}
	if err := pipeline.New(pipeline.Options{Until: until}, obs...).Run(pipeline.Records(r)); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s\n--\n%s\n--\n%s\n--\n%+v", ev.buf.String(), rep.String(), in.String(), r.Stats())
}

// TestRecordsAheadSameAsSerial: classifying on the reader's stage gives
// every observer exactly what classifying in the pass gives, on every
// fixture and on a generated capture long enough for many batches, read
// whole and stopped early.
func TestRecordsAheadSameAsSerial(t *testing.T) {
	inputs := map[string][]byte{}
	names, _ := filepath.Glob("../../fixtures/*.jsonl*")
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		inputs[filepath.Base(name)] = b
	}
	if len(inputs) == 0 {
		t.Fatal("no fixtures")
	}
	var large bytes.Buffer
	w, err := capture.NewWriter(&large, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := synth.Large(w, 3000, 3); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	inputs["large"] = large.Bytes()
	for name, src := range inputs {
		for _, until := range []replay.Bound{{}, {Set: true, IsIndex: true, Index: 700}, {Set: true, Ms: 2000}} {
			t.Run(fmt.Sprintf("%s/%+v", name, until), func(t *testing.T) {
				want := passOutput(t, src, true, until)
				got := passOutput(t, src, false, until)
				if got != want {
					t.Fatalf("classified ahead:\n%s\n\nin the pass:\n%s", firstDiff(got, want), firstDiff(want, got))
				}
				if !strings.Contains(want, `"kind"`) {
					t.Fatalf("no event printed: %q", want)
				}
			})
		}
	}
}

// firstDiff returns a's line where a and b first differ.
func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range la {
		if i >= len(lb) || la[i] != lb[i] {
			return fmt.Sprintf("line %d: %s", i+1, la[i])
		}
	}
	return "(a prefix of the other)"
}
