package capture

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/jsonx"
)

// tapeOf indexes a frame the way the reader does, on its own.
func tapeOf(t *testing.T, frame []byte) jsonx.Tape {
	t.Helper()
	var tape jsonx.Tape
	line := append(append([]byte(`{"frame":`), frame...), '}')
	if _, err := jsonx.ObjectEachEndIndexing(line, "frame", &tape, func(k, v []byte) bool { return true }); err != nil {
		t.Fatal(err)
	}
	return tape
}

// TestIndexFrames: a reader told to index gives every frame of a record
// its tape, through the read-ahead's batches as well as read serially;
// markers, raw messages, invalid lines and bare frames have none, nor
// does any record of a reader not told to.
func TestIndexFrames(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"clawtap":1,"createdAt":"2026-11-22T00:00:00Z","source":{}}` + "\n")
	for i := range 2000 {
		switch i % 400 {
		case 5:
			b.WriteString("junk\n")
		case 6:
			b.WriteString(`{"t":1,"conn":1,"mark":"open"}` + "\n")
		case 7:
			b.WriteString(`{"t":1,"conn":1,"dir":"in","raw":"not json"}` + "\n")
		case 8:
			b.WriteString(`{"type":"event","event":"bare","seq":1}` + "\n")
		default:
			fmt.Fprintf(&b, `{"t":%d,"conn":1,"dir":"in","frame":{"type":"event","event":"tick","payload":{"runId":"r%d","text":"a \"quoted\" %d"},"seq":%d}}`+"\n", i, i%7, i, i)
		}
	}
	in := b.String()
	for _, opts := range []Options{{}, {Serial: true}} {
		for _, index := range []bool{true, false} {
			r, err := NewReader(strings.NewReader(in), opts)
			if err != nil {
				t.Fatal(err)
			}
			if index && !r.IndexFrames() {
				t.Fatal("IndexFrames refused before the first Next")
			}
			taped := 0
			for {
				rec, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if r.IndexFrames() {
					t.Fatal("IndexFrames accepted once reading had begun")
				}
				want := jsonx.Tape(nil)
				if index && rec.Frame != nil && !rec.Bare {
					want = tapeOf(t, rec.Frame)
				}
				if !slices.Equal(rec.Tape, want) {
					t.Fatalf("serial %v, index %v: record %d (%s) has tape %v, want %v", opts.Serial, index, rec.Index, rec.Frame, rec.Tape, want)
				}
				if rec.Tape != nil {
					taped++
				}
			}
			r.Close()
			if want := 2000 - 4*5; index && taped != want {
				t.Errorf("serial %v: %d frames taped, want %d", opts.Serial, taped, want)
			}
		}
	}
}

// A transform that changes a frame drops its tape, which indexes the
// frame as read; one that keeps the frame keeps the tape.
func TestTransformDropsTape(t *testing.T) {
	in := `{"clawtap":1,"createdAt":"2026-11-22T00:00:00Z","source":{}}` + "\n" +
		`{"t":1,"conn":1,"dir":"in","frame":{"type":"event","event":"a"}}` + "\n" +
		`{"t":2,"conn":1,"dir":"in","frame":{"type":"event","event":"b"}}` + "\n"
	r, err := NewReader(strings.NewReader(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.IndexFrames()
	r.SetTransform(func(rec *Record) *Record {
		if strings.Contains(string(rec.Frame), `"a"`) {
			c := *rec
			c.Frame = []byte(`{"type":"event","event":"changed"}`)
			return &c
		}
		return rec
	})
	for _, wantTape := range []bool{false, true} {
		rec, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if (rec.Tape != nil) != wantTape {
			t.Errorf("%s: tape %v, want one: %v", rec.Frame, rec.Tape, wantTape)
		}
	}
}
