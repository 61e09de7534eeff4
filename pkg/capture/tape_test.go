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

// tapedCapture is a capture of frames, with a marker, a raw message, an
// unreadable line and a bare frame now and then.
func tapedCapture(n int) (in string, frames int) {
	var b strings.Builder
	b.WriteString(`{"clawtap":1,"createdAt":"2026-11-22T00:00:00Z","source":{}}` + "\n")
	for i := range n {
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
			frames++
			fmt.Fprintf(&b, `{"t":%d,"conn":1,"dir":"in","frame":{"type":"event","event":"tick","payload":{"runId":"r%d","text":"a \"quoted\" %d"},"seq":%d}}`+"\n", i, i%7, i, i)
		}
	}
	return b.String(), frames
}

// TestIndexFrames: a reader told to index hands its stage each frame's
// tape with the batch; markers, raw messages, unreadable lines and bare
// frames have none, nor does any record of a reader not told to.
func TestIndexFrames(t *testing.T) {
	in, frames := tapedCapture(3000)
	if r, _ := NewReader(strings.NewReader(in), Options{Serial: true}); r.IndexFrames() {
		t.Fatal("a serial reader, which has no stage, took IndexFrames")
	}
	for _, index := range []bool{true, false} {
		r, err := NewReader(strings.NewReader(in), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if index && !r.IndexFrames() {
			t.Fatal("IndexFrames refused before the first Next")
		}
		taped := 0
		r.SetStage(func(b *Batch) {
			for i := range b.Len() {
				rec := b.Record(i)
				want := jsonx.Tape(nil)
				if index && rec.Frame != nil && !rec.Bare {
					want = tapeOf(t, rec.Frame)
				}
				if got := b.Tape(i); !slices.Equal(got, want) {
					t.Errorf("index %v: record %d (%s) has tape %v, want %v", index, rec.Index, rec.Frame, got, want)
				}
				if b.Tape(i) != nil {
					taped++
				}
			}
		})
		for {
			if _, err := r.Next(); err == io.EOF {
				break
			} else if err != nil {
				t.Fatal(err)
			}
			if r.IndexFrames() {
				t.Fatal("IndexFrames accepted once reading had begun")
			}
		}
		r.Close()
		if index && taped != frames {
			t.Errorf("%d frames taped, want %d", taped, frames)
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
	var got []bool
	r.SetStage(func(b *Batch) {
		for i := range b.Len() {
			got = append(got, b.Tape(i) != nil)
		}
	})
	for {
		if _, err := r.Next(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(got, []bool{false, true}) {
		t.Errorf("taped %v, want the changed frame without, the other with", got)
	}
}
