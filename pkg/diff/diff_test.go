package diff

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/internal/synth"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/redact"
)

func open(t *testing.T, b []byte) *capture.Reader {
	t.Helper()
	r, err := capture.NewReader(bytes.NewReader(b), capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func encode(t *testing.T, recs []capture.Record, mod func(i int, rec *capture.Record) *capture.Record) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, _ := capture.NewWriter(&buf, false)
	w.WriteHeader(synth.NewHeader("test"))
	for i := range recs {
		rec := &recs[i]
		if mod != nil {
			rec = mod(i, rec)
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	return buf.Bytes()
}

func compare(t *testing.T, a, b []byte, opts Options) *Result {
	t.Helper()
	return Compare(pipeline.Records(open(t, a)), pipeline.Records(open(t, b)), opts)
}

func TestFixtureAgainstItself(t *testing.T) {
	for _, f := range synth.Fixtures() {
		b, err := f.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		if res := compare(t, b, b, Options{}); !res.Equal || res.Steps == 0 && f.Name != "truncated" {
			t.Errorf("%s against itself: %+v", f.Name, res)
		}
	}
}

func TestRedactedCopyIsStructurallyEqual(t *testing.T) {
	for _, name := range []string{"tool-run", "exec-approval", "reconnect", "demo"} {
		f, _ := synth.Lookup(name)
		recs := f.Build().Records()
		orig := encode(t, recs, nil)
		cred := redact.New(redact.Options{Salt: []byte("k")})
		credOnly := encode(t, recs, func(_ int, rec *capture.Record) *capture.Record { return cred.Record(rec) })
		if res := compare(t, orig, credOnly, Options{}); !res.Equal {
			t.Errorf("%s: credential redaction changed the semantics: %+v %+v", name, res, res.Divergences)
		}
		cont := redact.New(redact.Options{Content: true, Salt: []byte("k")})
		content := encode(t, recs, func(_ int, rec *capture.Record) *capture.Record { return cont.Record(rec) })
		if res := compare(t, orig, content, Options{Structure: true}); !res.Equal {
			t.Errorf("%s: content redaction is not structurally equal: %+v\n%+v", name, res, res.Divergences)
		}
		if res := compare(t, orig, content, Options{}); res.Equal {
			t.Errorf("%s: content redaction must differ when texts are compared", name)
		}
	}
}

func TestPlantedChangeIsReported(t *testing.T) {
	recs := synth.StreamedRun().Records()
	orig := encode(t, recs, nil)
	target := -1
	for i := range recs {
		if bytes.Contains(recs[i].Frame, []byte(`"state":"delta"`)) && bytes.Contains(recs[i].Frame, []byte(`rocky`)) {
			target = i
			break
		}
	}
	if target < 0 {
		t.Fatal("no delta to change")
	}
	changed := encode(t, recs, func(i int, rec *capture.Record) *capture.Record {
		if i != target {
			return rec
		}
		c := *rec
		c.Frame = bytes.Replace(rec.Frame, []byte("rocky"), []byte("sandy"), -1)
		return &c
	})
	res := compare(t, orig, changed, Options{})
	if res.Equal || len(res.Divergences) == 0 || res.Divergences[0].A[0].I != target || res.Divergences[0].B[0].I != target {
		t.Fatalf("want a divergence at record %d: %+v %+v", target, res, res.Divergences)
	}
	if res.Changed != 1 || res.OnlyA != 0 || res.OnlyB != 0 || res.ByKind["chat delta"].Changed != 1 {
		t.Fatalf("want exactly one changed chat delta: %+v %+v", res, res.ByKind)
	}
	if !strings.Contains(res.Divergences[0].B[0].Desc, "sandy") || len(res.Divergences[0].Context) != 3 {
		t.Fatalf("divergence %+v", res.Divergences[0])
	}
	// A dropped record is one step only in A, and the rest re-synchronises.
	dropped := encode(t, append(append([]capture.Record{}, recs[:target]...), recs[target+1:]...), nil)
	res = compare(t, orig, dropped, Options{})
	if res.Equal || res.OnlyA != 1 || res.Changed != 0 || res.OnlyB != 0 {
		t.Fatalf("dropped record: %+v", res)
	}
}

// Two changes with equal steps between them are two divergences: both are
// counted, the first is kept by default, and Divergences keeps more, each
// with the equal steps just before it.
func TestEveryDivergenceCounted(t *testing.T) {
	recs := synth.StreamedRun().Records()
	var deltas []int
	for i := range recs {
		if bytes.Contains(recs[i].Frame, []byte(`"state":"delta"`)) {
			deltas = append(deltas, i)
		}
	}
	if len(deltas) < 6 {
		t.Fatalf("%d chat deltas: the fixture no longer has what this test needs", len(deltas))
	}
	first, second := deltas[1], deltas[len(deltas)-2]
	orig := encode(t, recs, nil)
	changed := encode(t, recs, func(i int, rec *capture.Record) *capture.Record {
		if i != first && i != second {
			return rec
		}
		c := *rec
		c.Frame = bytes.Replace(rec.Frame, []byte(`"text":"`), []byte(`"text":"~`), -1)
		return &c
	})
	res := compare(t, orig, changed, Options{})
	if res.Parted != 2 || len(res.Divergences) != 1 || res.Divergences[0].A[0].I != first || res.Changed != 2 {
		t.Fatalf("by default: %d divergences, %d kept, %d changed: %+v", res.Parted, len(res.Divergences), res.Changed, res.Divergences)
	}
	res = compare(t, orig, changed, Options{Divergences: 5})
	if res.Parted != 2 || len(res.Divergences) != 2 {
		t.Fatalf("%d divergences, %d kept", res.Parted, len(res.Divergences))
	}
	d := res.Divergences[1]
	if d.A[0].I != second || d.B[0].I != second || len(d.Context) != 3 || d.Context[2].A.I != second-1 || d.Step <= res.Divergences[0].Step {
		t.Errorf("the second divergence: at step %d, context %+v, A %+v", d.Step, d.Context, d.A)
	}
	if same := compare(t, orig, orig, Options{Divergences: 5}); same.Parted != 0 || len(same.Divergences) != 0 {
		t.Errorf("a capture against itself parts %d times", same.Parted)
	}
}

// The same scenario recorded twice — different run ids, connection ids,
// nonces, boot ids — is equivalent after normalisation.
func TestSameScenarioDifferentSeeds(t *testing.T) {
	scenario := func(seed int64) []byte {
		s := synth.New(seed)
		c := s.Open(synth.ConnOptions{Caps: []string{"tool-events", "approvals"}})
		s.Advance(300)
		r := c.ChatSend("agent:main:main", "Clean the build directory.")
		r.Prepare()
		r.Say("I'll remove")
		r.Say(" the build directory.")
		a := r.RequestApproval("rm -rf build")
		s.Advance(1200)
		a.Resolve(c, "allow-once", "operator", "")
		r.Say(" Done.")
		r.Finish()
		s.Shutdown()
		s.Advance(12_000)
		c2 := s.Open(synth.ConnOptions{})
		r2 := c2.ChatSend("agent:main:main", "Again?")
		r2.Prepare()
		r2.Say("Yes.")
		r2.Finish()
		b, err := s.Encode("scenario", true)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a, b := scenario(1), scenario(99)
	if bytes.Equal(a, b) {
		t.Fatal("the seeds should give different bytes")
	}
	if res := compare(t, a, b, Options{}); !res.Equal {
		t.Fatalf("same scenario, different seeds: %+v\n%+v", res, res.Divergences)
	}
}

func TestFixturesDiffer(t *testing.T) {
	read := func(name string) []byte {
		f, _ := synth.Lookup(name)
		b, _ := f.Bytes()
		return b
	}
	res := compare(t, read("streamed-run"), read("duplicate-final"), Options{})
	if res.Equal || len(res.Divergences) == 0 || len(res.FinalState) == 0 {
		t.Fatalf("%+v", res)
	}
	_ = filepath.Join
}

// A gateway that throttles deltas sends fewer of them: every other streamed
// delta is missing from the copy. Compared as recorded they differ; with
// MergeDeltas each burst of deltas is one step with the text so far, and
// the two are equal. A changed text still shows.
func TestMergeDeltas(t *testing.T) {
	recs := synth.StreamedRun().Records()
	orig := encode(t, recs, nil)
	var thinned []capture.Record
	seen := map[string]int{}
	for i := range recs {
		f := recs[i].Frame
		isDelta := bytes.Contains(f, []byte(`"state":"delta"`)) || bytes.Contains(f, []byte(`"stream":"assistant"`))
		key := "chat"
		if bytes.Contains(f, []byte(`"stream":"assistant"`)) {
			key = "agent"
		}
		if isDelta {
			seen[key]++
			// Drop every other delta, but never the last of the burst: the
			// next record on the stream is then another delta.
			if seen[key]%2 == 1 && i+2 < len(recs) && bytes.Contains(recs[i+2].Frame, []byte(`"delta"`)) {
				continue
			}
		}
		thinned = append(thinned, recs[i])
	}
	if len(thinned) == len(recs) {
		t.Fatal("nothing thinned")
	}
	less := encode(t, thinned, nil)
	if res := compare(t, orig, less, Options{}); res.Equal {
		t.Fatal("thinned deltas must differ when compared one by one")
	}
	res := compare(t, orig, less, Options{MergeDeltas: true})
	if !res.Equal {
		t.Fatalf("with merged deltas: %+v\n%+v", res, res.Divergences)
	}
	if res.ByKind["chat delta"] != nil {
		t.Fatalf("no delta differs: %+v", res.ByKind)
	}
	changed := encode(t, recs, func(i int, rec *capture.Record) *capture.Record {
		c := *rec
		c.Frame = bytes.ReplaceAll(rec.Frame, []byte("rocky"), []byte("sandy"))
		return &c
	})
	if res := compare(t, orig, changed, Options{MergeDeltas: true}); res.Equal || res.Changed == 0 {
		t.Fatalf("a changed text must still differ: %+v", res)
	}
}

// A capture against its own frames without markers compares equal: the
// markers of the side that has them are left out, and counted.
func TestMarkersLeftOutAgainstBareFrames(t *testing.T) {
	f, ok := synth.Lookup("streamed-run")
	if !ok {
		t.Fatal("no streamed-run fixture")
	}
	a, err := f.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	r := open(t, a)
	var bare bytes.Buffer
	marks := 0
	for {
		rec, err := r.Next()
		if err != nil {
			break
		}
		if rec.Mark != "" {
			marks++
			continue
		}
		bare.Write(rec.Frame)
		bare.WriteByte('\n')
	}
	for _, merge := range []bool{false, true} {
		res := compare(t, a, bare.Bytes(), Options{MergeDeltas: merge})
		if !res.Equal || res.MarkersOf != "A" || res.MarkersLeftOut != marks || marks == 0 {
			t.Errorf("merge %v: equal %v, markers of %q, %d left out (the capture has %d): %+v", merge, res.Equal, res.MarkersOf, res.MarkersLeftOut, marks, res)
		}
		res = compare(t, bare.Bytes(), a, Options{MergeDeltas: merge})
		if !res.Equal || res.MarkersOf != "B" || res.MarkersLeftOut != marks {
			t.Errorf("merge %v, reversed: equal %v, markers of %q, %d left out", merge, res.Equal, res.MarkersOf, res.MarkersLeftOut)
		}
	}
	// Two recordings keep their markers.
	if res := compare(t, a, a, Options{}); res.MarkersOf != "" || res.MarkersLeftOut != 0 {
		t.Errorf("against itself: markers of %q, %d left out", res.MarkersOf, res.MarkersLeftOut)
	}
}
