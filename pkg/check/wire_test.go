package check

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/internal/capturetest"
	"github.com/clawtap/clawtap/internal/synth"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/models"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/reshape"
)

// lines reads capture records from JSON lines.
func lines(t *testing.T, s string) []capture.Record {
	t.Helper()
	_, recs := capturetest.Parse(t, []byte(s))
	return recs
}

const hello97 = `{"t":1000,"conn":1,"mark":"hello","protocol":4,"server":"2026.9.7"}` + "\n"
const hello96 = `{"t":1000,"conn":1,"mark":"hello","protocol":4,"server":"2026.9.6"}` + "\n"

func chatLine(t, seq int, extra string) string {
	return `{"t":` + itoa(t) + `,"conn":1,"dir":"in","frame":{"type":"event","event":"chat","payload":{"runId":"r1","sessionKey":"agent:main:main","agentId":"main","seq":` + itoa(seq) + extra + `},"seq":` + itoa(seq) + `}}` + "\n"
}

func itoa(n int) string {
	b, _ := jsonMarshal(n)
	return string(b)
}

// A delta without message and no text of its run before it, on 2026.9.7:
// the client's baseline is missing. After a snapshot it is the wire.
func TestBaselineMissing(t *testing.T) {
	recs := lines(t, hello97+chatLine(1100, 1, `,"state":"delta","deltaText":" pools"`))
	expect(t, analyze(t, recs, Options{Only: []string{RuleBaselineMissing, RuleReleaseMismatch}}, false), RuleBaselineMissing)
	recs = lines(t, hello97+
		chatLine(1100, 1, `,"state":"delta","deltaText":"Tide","message":{"role":"assistant","content":[{"type":"text","text":"Tide"}]}`)+
		chatLine(1175, 2, `,"state":"delta","deltaText":" pools"`))
	expect(t, analyze(t, recs, Options{Only: []string{RuleBaselineMissing, RuleReleaseMismatch}}, false))
}

// The 2026.9.7 shapes from a 2026.9.6 gateway are a mismatch, once per
// connection and change; from a gateway that names no release, nothing.
func TestReleaseMismatch(t *testing.T) {
	body := chatLine(1100, 1, `,"state":"delta","deltaText":"Tide","message":{"role":"assistant","content":[{"type":"text","text":"Tide"}]}`) +
		chatLine(1175, 2, `,"state":"delta","deltaText":" pools"`) +
		chatLine(1250, 3, `,"state":"delta","deltaText":" are"`) +
		chatLine(1300, 4, `,"state":"status","phase":"starting_model","retry":{"attempt":2,"maxAttempts":10,"reason":"rate_limit"}`)
	only := Options{Only: []string{RuleReleaseMismatch}}
	fs := analyze(t, lines(t, hello96+body), only, false)
	expect(t, fs, RuleReleaseMismatch)
	if !strings.Contains(fs[0].Message, "2026.9.7") {
		t.Errorf("message: %s", fs[0].Message)
	}
	older := strings.Replace(hello96, "2026.9.6", "2026.9.3", 1)
	expect(t, analyze(t, lines(t, older+body), only, false), RuleReleaseMismatch, RuleReleaseMismatch)
	expect(t, analyze(t, lines(t, hello97+body), only, false))
	expect(t, analyze(t, lines(t, body), only, false))
}

func sendLine(t int, id, key, msg, extra string) string {
	return `{"t":` + itoa(t) + `,"conn":1,"dir":"out","frame":{"type":"req","id":"` + id + `","method":"chat.send","params":{"sessionKey":"agent:main:main","message":` + q(msg) + `,"idempotencyKey":"` + key + `"` + extra + `}}}` + "\n"
}

func okLine(t int, id string) string {
	return `{"t":` + itoa(t) + `,"conn":1,"dir":"in","frame":{"type":"res","id":"` + id + `","ok":true,"payload":{"runId":"k1","status":"in_flight"}}}` + "\n"
}

// A key reused with other input: refused on 2026.9.2+ (error, naming the
// first send), accepted unexpectedly (error), or ignored on an older
// gateway (warn). The same message with other attachments is no conflict.
func TestIdempotencyConflict(t *testing.T) {
	only := Options{Only: []string{RuleIdempotencyConflict}}
	first := sendLine(1000, "1", "k1", "What is the weather?", "") + okLine(1003, "1")
	refused := sendLine(2000, "2", "k1", "What is the weather in Oslo?", "") +
		`{"t":2003,"conn":1,"dir":"in","frame":{"type":"res","id":"2","ok":false,"error":{"code":"INVALID_REQUEST","message":"used","details":{"reason":"chat-request-conflict"}}}}` + "\n"
	fs := analyze(t, lines(t, hello96+first+refused), only, false)
	expect(t, fs, RuleIdempotencyConflict)
	if fs[0].Severity != Error || !strings.Contains(fs[0].Message, "record 1") {
		t.Errorf("refused: %+v", fs[0])
	}
	accepted := sendLine(2000, "2", "k1", "What is the weather in Oslo?", "") + okLine(2003, "2")
	fs = analyze(t, lines(t, hello96+first+accepted), only, false)
	if len(fs) != 1 || fs[0].Severity != Error || !strings.Contains(fs[0].Message, "unexpected") {
		t.Errorf("accepted on 2026.9.6: %s", dump(fs))
	}
	old := strings.Replace(hello96, "2026.9.6", "2026.8.1", 1)
	fs = analyze(t, lines(t, old+first+accepted), only, false)
	if len(fs) != 1 || fs[0].Severity != Warn || !strings.Contains(fs[0].Message, "silently ignored") {
		t.Errorf("accepted on 2026.8.1: %s", dump(fs))
	}
	same := sendLine(2000, "2", "k1", "What is the weather?", `,"attachments":[{"type":"image"}]`) + okLine(2003, "2")
	expect(t, analyze(t, lines(t, hello96+first+same), only, false))
}

// An empty final during an announce run, and no other run replying before
// the end: information.
func TestAnnounceNoReply(t *testing.T) {
	an := `{"t":900,"conn":1,"dir":"in","frame":{"type":"event","event":"agent","payload":{"runId":"announce:v1:x","sessionKey":"agent:main:main","seq":1,"stream":"lifecycle","data":{"phase":"start"}},"seq":1}}` + "\n"
	fin := `{"t":1100,"conn":1,"dir":"in","frame":{"type":"event","event":"chat","payload":{"runId":"k1","sessionKey":"agent:main:main","seq":1,"state":"final"},"seq":2}}` + "\n"
	fs := analyze(t, lines(t, hello96+an+sendLine(1000, "1", "k1", "hi", "")+fin), Options{Only: []string{RuleAnnounceDoubleAnswer}}, false)
	if len(fs) != 1 || fs[0].Severity != Info || fs[0].I != 3 {
		t.Fatalf("want one info at the empty final: %s", dump(fs))
	}
	// Without the announce run, the empty final is empty-final's alone.
	expect(t, analyze(t, lines(t, hello96+sendLine(1000, "1", "k1", "hi", "")+fin), Options{Only: []string{RuleAnnounceDoubleAnswer}}, false))
}

// Without the replay the hazards come from the frames alone, as
// information, saying what a UI that ignores the change does.
func TestHazardsWithoutReplay(t *testing.T) {
	for _, f := range []string{"append-only", "plan-continuation", "abort-not-saved", "status-mid-turn", "retraction"} {
		fs := analyzeFile(t, "../../fixtures/"+f+".jsonl.zst", Options{NoReplay: true}, models.MustLookup("clawboo"))
		n := 0
		for _, x := range fs {
			if !isHazard(x.Rule) {
				continue
			}
			n++
			if x.Hazard != 0 || x.Severity != Info && x.Rule != RuleErrorAfterAborted || strings.Contains(x.Message, "clawboo") {
				t.Errorf("%s: %s", f, x.AppendJSON(nil))
			}
		}
		if n == 0 {
			t.Errorf("%s: no hazard reported without the replay", f)
		}
	}
}

func isHazard(rule string) bool {
	for _, h := range hazardRules {
		if h == rule {
			return true
		}
	}
	return false
}

// Claw3D puts withdrawn text back when the retraction's agent event comes
// a frame after the chat one: {text:"", delta:""} is falsy to it, so the
// run's stream keeps the old text, which it publishes once the chat
// retraction has emptied the bubble.
func TestRetractionBroughtBack(t *testing.T) {
	recs := lines(t, hello96+
		`{"t":1100,"conn":1,"dir":"in","frame":{"type":"event","event":"agent","payload":{"runId":"r1","sessionKey":"agent:main:main","agentId":"main","seq":1,"stream":"lifecycle","data":{"phase":"start"}},"seq":1}}`+"\n"+
		`{"t":1200,"conn":1,"dir":"in","frame":{"type":"event","event":"agent","payload":{"runId":"r1","sessionKey":"agent:main:main","agentId":"main","seq":2,"stream":"assistant","data":{"text":"Sure, here is","delta":"Sure, here is","itemId":"m1"}},"seq":2}}`+"\n"+
		chatLine(1201, 3, `,"state":"delta","deltaText":"Sure, here is","message":{"role":"assistant","content":[{"type":"text","text":"Sure, here is"}]}`)+
		chatLine(1500, 4, `,"state":"delta","deltaText":"","replace":true,"message":{"role":"assistant","content":[{"type":"text","text":""}]}`)+
		`{"t":1540,"conn":1,"dir":"in","frame":{"type":"event","event":"agent","payload":{"runId":"r1","sessionKey":"agent:main:main","agentId":"main","seq":5,"stream":"assistant","data":{"text":"","delta":"","replace":true,"itemId":"m1"}},"seq":5}}`+"\n"+
		chatLine(2000, 6, `,"state":"final","message":{"role":"assistant","content":[{"type":"text","text":"Done."}]}`))
	opts := Options{Only: []string{RuleRetractionVisible}}
	for _, c := range []struct {
		ui    string
		shown bool
	}{{"claw3d", true}, {"clawboo", false}, {"control-ui", false}} {
		fs := analyzeUI(t, recs, opts, false, models.MustLookup(c.ui))
		expect(t, fs, RuleRetractionVisible)
		if (fs[0].Severity == Warn) != c.shown || (fs[0].Hazard == HazardShown) != c.shown {
			t.Errorf("%s: %s", c.ui, fs[0].AppendJSON(nil))
		}
	}
	// Checked together, the finding says which show it.
	m, err := NewMulti(opts, models.Newest())
	if err != nil {
		t.Fatal(err)
	}
	var got []Finding
	take := sink(func(f *Finding) error { got = append(got, *f); return nil })
	if err := m.Pass(pipeline.Options{}, take).Run(pipeline.Slice(nil, recs)); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || strings.Join(got[0].UIs, ",") != "claw3d@eeb6f31" || len(got[0].NotUIs) != 2 || !strings.HasPrefix(got[0].Message, "Run r1") || !strings.Contains(got[0].Message, "claw3d@eeb6f31 showed") {
		t.Errorf("together: %s", dump(got))
	}
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

// A capture without hellos takes its release from the header; a
// session.narration event is a known event.
func TestReleaseFromHeaderAndNarration(t *testing.T) {
	body := chatLine(1100, 1, `,"state":"delta","deltaText":"Tide","message":{"role":"assistant","content":[{"type":"text","text":"Tide"}]}`) +
		chatLine(1175, 2, `,"state":"delta","deltaText":" pools"`) +
		`{"t":1200,"conn":1,"dir":"in","frame":{"type":"event","event":"session.narration","payload":{"sessionKey":"agent:main:main","runId":"r1","text":"pools"},"seq":3}}` + "\n"
	head := func(v string) string {
		return `{"clawtap":1,"createdAt":"2026-11-22T03:23:55Z","source":{"mode":"record","gatewayVersion":"` + v + `"},"redaction":{"credentials":true,"content":false}}` + "\n"
	}
	only := Options{Only: []string{RuleReleaseMismatch, RuleUnknownEvent}}
	run := func(s string) []Finding {
		r, err := capture.NewReader(bytes.NewReader([]byte(s)), capture.Options{Serial: true})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		a, err := New(only)
		if err != nil {
			t.Fatal(err)
		}
		return collect(t, a, pipeline.Records(r), models.MustLookup("clawboo"))
	}
	expect(t, run(head("2026.9.6")+body), RuleReleaseMismatch, RuleReleaseMismatch)
	expect(t, run(head("2026.9.7")+body))
}

// A step takes again only the snapshots of the stores it wrote, once for
// all their runs, and watches a run only while something is left to see
// (wireStep, watchRun): the verdicts are the ones taking every run's
// snapshot and watching it at every step gives, and every step's run views
// and watched runs are their definition's (shownRuns.verify), on every
// fixture, on the wire it was recorded on and reshaped to each later
// release, for every UI version.
func TestWatchTakesOnlyWrittenStores(t *testing.T) {
	hazards := 0
	for _, fx := range synth.Fixtures() {
		raw, err := os.ReadFile(filepath.Join("..", "..", "fixtures", fx.File))
		if err != nil {
			t.Fatal(err)
		}
		parse := func(b []byte) []capture.Record { _, recs := capturetest.Parse(t, b); return recs }
		wires := map[string][]capture.Record{"as recorded": parse(raw)}
		for _, to := range reshape.Targets() {
			var out bytes.Buffer
			w, _ := capture.NewWriter(&out, false)
			src, err := capture.NewReader(bytes.NewReader(raw), capture.Options{Serial: true})
			if err != nil {
				t.Fatal(err)
			}
			_, err = reshape.Copy(w, src, reshape.Options{Target: to, Force: true})
			src.Close()
			if err != nil {
				continue // a capture reshape refuses (already on the newer wire)
			}
			w.Close()
			wires[to.String()] = parse(out.Bytes())
		}
		for wire, recs := range wires {
			for _, u := range models.All() {
				run := func(every bool) []Finding {
					a, err := New(Options{})
					if err != nil {
						t.Fatal(err)
					}
					a.wire.everyStep = every
					a.wire.verify = !every
					return collect(t, a, pipeline.Slice(nil, recs), u)
				}
				got, want := run(false), run(true)
				if !slices.EqualFunc(got, want, func(a, b Finding) bool { return bytes.Equal(a.AppendJSON(nil), b.AppendJSON(nil)) }) {
					t.Errorf("%s, %s, %s: taking the written stores' runs\n%v\nwant every run's\n%v", fx.Name, wire, u, got, want)
				}
				for _, f := range got {
					if f.Hazard != 0 {
						hazards++
					}
				}
			}
		}
	}
	if hazards == 0 {
		t.Fatal("no UI judged a hazard on any fixture: the test compares nothing")
	}
}
