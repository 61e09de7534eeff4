package capture

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/jsonx"
)

// testSchema indexes what the tests look at.
var testSchema = jsonx.NewSchema("type", "event", "payload.runId", "payload.text", "seq")

// indexOf indexes a frame the way the reader does, on its own.
func indexOf(t *testing.T, frame []byte) jsonx.Index {
	t.Helper()
	var idx jsonx.Index
	if !jsonx.IndexValue(frame, testSchema, &idx) {
		t.Fatalf("%s: not valid", frame)
	}
	return idx
}

// sameIndex compares the members two indexes found; ASCII and Plain,
// which the reader's walk of the whole line tells and indexOf's does not,
// aside.
func sameIndex(got, want *jsonx.Index) bool {
	if got == nil || want == nil {
		return got == want
	}
	g := *got
	g.ASCII, g.Plain = want.ASCII, want.Plain
	return g == *want
}

// indexedCapture is a capture of frames, with a marker, a raw message, an
// unreadable line and a bare frame now and then.
func indexedCapture(n int) (in string, frames int) {
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

// TestIndexMembers: a reader told to index hands its stage each frame's
// members with the batch, and Next's caller the record's (Reader.Index);
// markers, raw messages, unreadable lines and bare frames have none, nor
// does any record of a reader not told to.
func TestIndexMembers(t *testing.T) {
	in, frames := indexedCapture(3000)
	for _, serial := range []bool{false, true} {
		for _, index := range []bool{true, false} {
			r, err := NewReader(strings.NewReader(in), Options{Serial: serial})
			if err != nil {
				t.Fatal(err)
			}
			if index && !r.IndexMembers(testSchema) {
				t.Fatal("IndexMembers refused before the first Next")
			}
			want := func(rec *Record) *jsonx.Index {
				if !index || rec.Frame == nil || rec.Bare {
					return nil
				}
				idx := indexOf(t, rec.Frame)
				return &idx
			}
			staged := 0
			r.SetStage(func(b *Batch) {
				for i := range b.Len() {
					rec := b.Record(i)
					if got, w := b.Index(i), want(rec); !sameIndex(got, w) {
						t.Errorf("index %v: record %d (%s) has index %v, want %v", index, rec.Index, rec.Frame, got, w)
					}
					if b.Index(i) != nil {
						staged++
					}
				}
			})
			indexed := 0
			for {
				rec, err := r.Next()
				if err == io.EOF {
					break
				} else if err != nil {
					t.Fatal(err)
				}
				got, w := r.Index(), want(rec)
				if !sameIndex(got, w) {
					t.Fatalf("serial %v, index %v: Next's record %d (%s) has index %v, want %v", serial, index, rec.Index, rec.Frame, got, w)
				}
				if got != nil {
					indexed++
					if s := got.Get(rec.Frame, testSchema.Slot("payload.runId")); len(s) < 3 || s[1] != 'r' {
						t.Fatalf("record %d: payload.runId %s", rec.Index, s)
					}
				}
				if r.IndexMembers(testSchema) {
					t.Fatal("IndexMembers accepted once reading had begun")
				}
			}
			r.Close()
			if index && (indexed != frames || !serial && staged != frames) {
				t.Errorf("serial %v: %d frames indexed, %d staged, want %d", serial, indexed, staged, frames)
			}
		}
	}
}

// A transform that changes a frame drops its index, which indexes the
// frame as read; one that keeps the frame keeps the index.
func TestTransformDropsIndex(t *testing.T) {
	in := `{"clawtap":1,"createdAt":"2026-11-22T00:00:00Z","source":{}}` + "\n" +
		`{"t":1,"conn":1,"dir":"in","frame":{"type":"event","event":"a"}}` + "\n" +
		`{"t":2,"conn":1,"dir":"in","frame":{"type":"event","event":"b"}}` + "\n"
	for _, serial := range []bool{false, true} {
		r, err := NewReader(strings.NewReader(in), Options{Serial: serial})
		if err != nil {
			t.Fatal(err)
		}
		r.IndexMembers(testSchema)
		r.SetTransform(func(rec *Record) *Record {
			if strings.Contains(string(rec.Frame), `"a"`) {
				c := *rec
				c.Frame = []byte(`{"type":"event","event":"changed"}`)
				return &c
			}
			return rec
		})
		var got, gotNext []bool
		r.SetStage(func(b *Batch) {
			for i := range b.Len() {
				got = append(got, b.Index(i) != nil)
			}
		})
		for {
			if _, err := r.Next(); err == io.EOF {
				break
			} else if err != nil {
				t.Fatal(err)
			}
			gotNext = append(gotNext, r.Index() != nil)
		}
		r.Close()
		if !serial && !slices.Equal(got, []bool{false, true}) {
			t.Errorf("staged with index %v, want the changed frame without, the other with", got)
		}
		if !slices.Equal(gotNext, []bool{false, true}) {
			t.Errorf("serial %v: Next with index %v, want the changed frame without, the other with", serial, gotNext)
		}
	}
}
