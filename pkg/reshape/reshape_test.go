package reshape_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/internal/capturetest"
	"github.com/clawtap/clawtap/internal/synth"
	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/release"
	"github.com/clawtap/clawtap/pkg/reshape"
)

// run reshapes a capture held in memory.
func run(t testing.TB, in []byte, opts reshape.Options) ([]byte, *reshape.Result, []reshape.Warning, error) {
	t.Helper()
	r, err := capture.NewReader(bytes.NewReader(in), capture.Options{Serial: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out bytes.Buffer
	w, err := capture.NewWriter(&out, false)
	if err != nil {
		t.Fatal(err)
	}
	if opts.Target == (release.Version{}) {
		opts.Target = release.V2026_9_7
	}
	var warns []reshape.Warning
	opts.OnWarning = func(w reshape.Warning) { warns = append(warns, w) }
	res, err := reshape.Copy(w, r, opts)
	if cerr := w.Close(); err == nil && cerr != nil {
		t.Fatal(cerr)
	}
	return out.Bytes(), res, warns, err
}

func read(t testing.TB, b []byte) (*capture.Header, []capture.Record) {
	t.Helper()
	return capturetest.Parse(t, b)
}

func fixtureBytes(t testing.TB, name string) []byte {
	t.Helper()
	f, ok := synth.Lookup(name)
	if !ok {
		t.Fatalf("no fixture %s", name)
	}
	b, err := f.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// inputs are the 2026.9.6 captures reshape is tried on: every fixture of
// that release, and a capture of a real gateway.
func inputs(t *testing.T) map[string][]byte {
	out := map[string][]byte{}
	for _, f := range synth.Fixtures() {
		b := fixtureBytes(t, f.Name)
		if h, _ := read(t, b); h != nil && h.Source.Mode == "reshape" {
			continue // a fixture of the 2026.9.7 wire already
		}
		out[f.Name] = b
	}
	plain, release_, err := capture.Decompress(bytes.NewReader(mustRead(t, filepath.Join("..", "models", "clawboo", "testdata", "real-gateway-session.jsonl.zst"))))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(plain)
	release_()
	out["real-gateway-session"] = b
	return out
}

// Every 2026.9.6 capture reshapes: the same records at the same times; a
// frame changes only by losing one member (a delta's message, an
// assistant event's data.text) or, in a hello-ok, by naming 2026.9.7;
// and the official client's text projection, run over the output,
// rebuilds at every delta exactly the text the input's delta carried.
func TestReshapeIsExact(t *testing.T) {
	for name, in := range inputs(t) {
		t.Run(name, func(t *testing.T) {
			out, res, _, err := run(t, in, reshape.Options{})
			if err != nil {
				t.Fatal(err)
			}
			_, a := read(t, in)
			h, b := read(t, out)
			if h.Source.Mode != "reshape" || h.Source.GatewayVersion != "2026.9.7" {
				t.Errorf("header %+v", h.Source)
			}
			if len(a) != len(b) {
				t.Fatalf("%d records, want %d", len(b), len(a))
			}
			projs := map[int]*reshape.Projection{}
			rewritten := 0
			for i := range a {
				x, y := &a[i], &b[i]
				if x.T != y.T || x.Conn != y.Conn || x.Dir != y.Dir || x.Mark != y.Mark || !bytes.Equal(x.Raw, y.Raw) {
					t.Fatalf("record %d moved or changed kind", i)
				}
				if x.Mark == capture.MarkOpen {
					delete(projs, x.Conn)
				}
				if x.Mark == capture.MarkHello && x.Server != "" && y.Server != "2026.9.7" {
					t.Errorf("record %d: hello marker says %q", i, y.Server)
				}
				if bytes.Equal(x.Frame, y.Frame) && x.Frame != nil {
					checkProjection(t, i, projs, x, y)
					continue
				}
				if x.Frame == nil {
					continue
				}
				if !removedOne(x.Frame, y.Frame) {
					t.Fatalf("record %d changed beyond one member:\n in %s\nout %s", i, x.Frame, y.Frame)
				}
				rewritten++
				checkProjection(t, i, projs, x, y)
			}
			if res.ChatAppendOnly+res.AgentAppendOnly+res.Hellos/2 > rewritten+res.Hellos {
				t.Errorf("result %+v, %d frames rewritten", res, rewritten)
			}
		})
	}
}

// removedOne reports whether out is in (both JSON) with exactly one
// member removed somewhere, or a hello-ok whose version was rewritten.
func removedOne(in, out []byte) bool {
	var a, b any
	if json.Unmarshal(in, &a) != nil || json.Unmarshal(out, &b) != nil {
		return false
	}
	if bytes.Contains(in, []byte(`"hello-ok"`)) {
		p := a.(map[string]any)["payload"].(map[string]any)
		p["server"].(map[string]any)["version"] = "2026.9.7"
		if f, ok := p["features"].(map[string]any); ok {
			f["methods"] = without(f["methods"], func(s string) bool { return strings.HasPrefix(s, "tasks.") })
			f["events"] = without(f["events"], func(s string) bool { return s == "task" })
		}
		return reflect.DeepEqual(a, b)
	}
	p := a.(map[string]any)["payload"].(map[string]any)
	if _, ok := p["message"]; ok {
		delete(p, "message")
	} else {
		delete(p["data"].(map[string]any), "text")
	}
	return reflect.DeepEqual(a, b)
}

func without(list any, drop func(string) bool) any {
	l, ok := list.([]any)
	if !ok {
		return list
	}
	out := []any{}
	for _, v := range l {
		if s, ok := v.(string); ok && drop(s) {
			continue
		}
		out = append(out, v)
	}
	return out
}

// checkProjection runs the client's projection over the output frame
// and compares its text with the input frame's.
func checkProjection(t *testing.T, i int, projs map[int]*reshape.Projection, in, out *capture.Record) {
	t.Helper()
	ev := bridge.Classify(out.Frame, out.T)
	if ev.RunID == "" || !ev.HasSessionKey {
		return
	}
	p := projs[out.Conn]
	if p == nil {
		p = reshape.NewProjection()
		projs[out.Conn] = p
	}
	agentID, _ := jsonx.GetStr(ev.Payload, "agentId")
	inPayload, _ := jsonx.Get(in.Frame, "payload")
	switch {
	case ev.Kind == bridge.RuntimeChat && ev.State == "delta":
		got, ok := p.ChatDelta(ev.RunID, ev.SessionKey, agentID, ev.Payload)
		msg, has := jsonx.Get(inPayload, "message")
		if !has || jsonx.KindOf(msg) != jsonx.Object {
			return
		}
		want, _ := jsonx.Str(mustGetPath(msg, "content", "0", "text"))
		if !ok || got != want {
			t.Fatalf("record %d: the client rebuilds %q (baseline %v), the input's message says %q", i, got, ok, want)
		}
	case ev.Kind == bridge.RuntimeChat && (ev.State == "final" || ev.State == "error" || ev.State == "aborted"):
		p.Forget(ev.RunID)
	case ev.Kind == bridge.RuntimeAgent && ev.Stream == "assistant":
		data, _ := jsonx.Get(ev.Payload, "data")
		want, ok := jsonx.Str(mustGetPath(inPayload, "data", "text"))
		if !ok {
			return
		}
		if got, ok := p.AgentText(ev.RunID, ev.SessionKey, agentID, data); !ok || got != want {
			t.Fatalf("record %d: the agent text rebuilds %q (baseline %v), the input says %q", i, got, ok, want)
		}
	}
}

func mustGetPath(v []byte, keys ...string) []byte {
	for _, k := range keys {
		if jsonx.KindOf(v) == jsonx.Array {
			n := 0
			var at []byte
			_ = jsonx.ArrayEach(v, func(e []byte) bool {
				if k == string(rune('0'+n)) {
					at = e
					return false
				}
				n++
				return true
			})
			v = at
			continue
		}
		v, _ = jsonx.Get(v, k)
	}
	return v
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := readFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The same input gives the same bytes.
func TestReshapeIsDeterministic(t *testing.T) {
	in := fixtureBytes(t, "tool-run")
	a, _, _, err := run(t, in, reshape.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 5; k++ {
		b, _, _, _ := run(t, in, reshape.Options{})
		if !bytes.Equal(a, b) {
			t.Fatal("two reshapes of one capture differ")
		}
	}
}

// What reshape refuses, and what --force lets through.
func TestRefused(t *testing.T) {
	in := fixtureBytes(t, "streamed-run")
	out, _, _, err := run(t, in, reshape.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var re *reshape.RefusedError
	if _, _, _, err := run(t, out, reshape.Options{}); !errors.As(err, &re) || !strings.Contains(re.Reason, "reshaped already") {
		t.Errorf("reshaping twice: %v", err)
	}
	// The same frames under a hello of 2026.9.7: already append-only.
	_, recs := read(t, out)
	var bare bytes.Buffer
	for _, rec := range recs {
		if rec.Frame != nil {
			bare.Write(rec.Frame)
			bare.WriteByte('\n')
		}
	}
	if _, _, _, err := run(t, bare.Bytes(), reshape.Options{}); !errors.As(err, &re) || !strings.Contains(re.Reason, "2026.9.7") {
		t.Errorf("a 2026.9.7 capture: %v", err)
	}
	// A delta without message under a 2026.9.6 hello: the wire is
	// append-only already, whatever the hello says.
	noHello := bytes.ReplaceAll(bare.Bytes(), []byte(`"version":"2026.9.7"`), []byte(`"version":"2026.9.6"`))
	if _, _, _, err := run(t, noHello, reshape.Options{}); !errors.As(err, &re) || !strings.Contains(re.Reason, "without a message") && !strings.Contains(re.Reason, "without data.text") {
		t.Errorf("deltas without message: %v", err)
	}
	// 2026.9.5: only with Force, and then with a warning.
	older := bytes.ReplaceAll(recompress(t, in), []byte(`2026.9.6"`), []byte(`2026.9.5"`))
	if _, _, _, err := run(t, older, reshape.Options{}); !errors.As(err, &re) || !re.Older {
		t.Errorf("a 2026.9.5 capture without force: %v", err)
	}
	if _, res, warns, err := run(t, older, reshape.Options{Force: true}); err != nil || res.From != "2026.9.5" || len(warns) != 1 || res.ChatAppendOnly == 0 {
		t.Errorf("a 2026.9.5 capture with force: %v %+v %v", err, res, warns)
	}
	// Protocol 3: never.
	v3 := []byte(`{"t":1,"conn":1,"mark":"hello","protocol":3,"server":"2026.5.7"}` + "\n")
	if _, _, _, err := run(t, v3, reshape.Options{Force: true}); !errors.As(err, &re) {
		t.Errorf("a protocol 3 capture: %v", err)
	}
	// A target reshape does not write.
	if _, _, _, err := run(t, in, reshape.Options{Target: release.V2026_9_6}); err == nil || errors.As(err, &re) {
		t.Errorf("target 2026.9.6: %v", err)
	}
}

// recompress returns a plain capture's bytes (the fixtures are zstd).
func recompress(t *testing.T, b []byte) []byte {
	t.Helper()
	plain, release_, err := capture.Decompress(bytes.NewReader(b))
	if err != nil {
		return b
	}
	defer release_()
	out, _ := io.ReadAll(plain)
	return out
}

// hello-ok loses tasks.* and the task event; a tasks.* call is kept and
// reported as a caveat.
func TestTasksRemoved(t *testing.T) {
	in := `{"t":1,"conn":1,"dir":"in","frame":{"type":"res","id":"c","ok":true,"payload":{"type":"hello-ok","protocol":4,"server":{"version":"2026.9.6","bootId":"b"},"features":{"methods":["chat.send","tasks.list","tasks.get","health"],"events":["task","chat"]}}}}
{"t":2,"conn":1,"dir":"out","frame":{"type":"req","id":"9","method":"tasks.list","params":{}}}
{"t":3,"conn":1,"dir":"in","frame":{"type":"res","id":"9","ok":true,"payload":{"tasks":[]}}}
`
	out, res, warns, err := run(t, []byte(in), reshape.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, recs := read(t, out)
	want := `{"type":"res","id":"c","ok":true,"payload":{"type":"hello-ok","protocol":4,"server":{"version":"2026.9.7","bootId":"b"},"features":{"methods":["chat.send","health"],"events":["chat"]}}}`
	if string(recs[0].Frame) != want {
		t.Errorf("hello-ok\n got %s\nwant %s", recs[0].Frame, want)
	}
	if res.Tasks != 1 || res.Caveats != 1 || len(warns) != 1 || !warns[0].Caveat || warns[0].I != 1 {
		t.Errorf("tasks: %+v %v", res, warns)
	}
	if string(recs[2].Frame) != `{"type":"res","id":"9","ok":true,"payload":{"tasks":[]}}` {
		t.Errorf("the recorded answer changed: %s", recs[2].Frame)
	}
}

// A connection's baselines reset where the gateway's do: a frame seq gap,
// a subscription change, a lifecycle error, the gateway's seq-gap event
// (on every connection of its boot) and the run's chat terminal.
func TestResets(t *testing.T) {
	delta := func(seq int, text, dt string) string {
		return `{"t":` + itoa(seq) + `,"conn":1,"dir":"in","frame":{"type":"event","event":"chat","payload":{"runId":"r","sessionKey":"agent:main:main","seq":` + itoa(seq) + `,"state":"delta","deltaText":` + q(dt) + `,"message":{"role":"assistant","content":[{"type":"text","text":` + q(text) + `}]}},"seq":` + itoa(seq) + `}}`
	}
	for _, c := range []struct {
		name  string
		reset string // a record between the second and the third delta
		whole bool   // the third delta stays whole
	}{
		{"nothing", `{"t":3,"conn":1,"dir":"in","frame":{"type":"event","event":"tick","payload":{},"seq":3}}`, false},
		{"frame seq gap", `{"t":3,"conn":1,"dir":"in","frame":{"type":"event","event":"tick","payload":{},"seq":5}}`, true},
		{"subscribe", `{"t":3,"conn":1,"dir":"out","frame":{"type":"req","id":"s","method":"sessions.messages.subscribe","params":{"key":"agent:main:main"}}}`, true},
		{"subscribe elsewhere", `{"t":3,"conn":1,"dir":"out","frame":{"type":"req","id":"s","method":"sessions.messages.subscribe","params":{"key":"agent:main:other"}}}`, false},
		{"lifecycle error", `{"t":3,"conn":1,"dir":"in","frame":{"type":"event","event":"agent","payload":{"runId":"r","sessionKey":"agent:main:main","seq":3,"stream":"lifecycle","data":{"phase":"error"}},"seq":3}}`, true},
		{"reply-dispatch error", `{"t":3,"conn":1,"dir":"in","frame":{"type":"event","event":"agent","payload":{"runId":"r","sessionKey":"agent:main:main","seq":3,"stream":"lifecycle","data":{"phase":"error","completionSource":"reply-dispatch"}},"seq":3}}`, false},
		{"seq gap event", `{"t":3,"conn":1,"dir":"in","frame":{"type":"event","event":"agent","payload":{"runId":"r","sessionKey":"agent:main:main","stream":"error","data":{"reason":"seq gap"}},"seq":3}}`, true},
		{"lifecycle end", `{"t":3,"conn":1,"dir":"in","frame":{"type":"event","event":"agent","payload":{"runId":"r","sessionKey":"agent:main:main","seq":3,"stream":"lifecycle","data":{"phase":"end"}},"seq":3}}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := strings.Join([]string{delta(1, "A", "A"), delta(2, "AB", "B"), c.reset, strings.Replace(delta(4, "ABC", "C"), `"seq":4}}`, `"seq":`+nextSeq(c.reset)+`}}`, 1)}, "\n") + "\n"
			out, _, _, err := run(t, []byte(in), reshape.Options{})
			if err != nil {
				t.Fatal(err)
			}
			_, recs := read(t, out)
			if bytes.Contains(recs[1].Frame, []byte(`"message"`)) {
				t.Error("the second delta is an append and should lose its message")
			}
			if got := bytes.Contains(recs[3].Frame, []byte(`"message"`)); got != c.whole {
				t.Errorf("third delta whole: %v, want %v", got, c.whole)
			}
		})
	}
}

// nextSeq is the frame seq of the delta after rec: the next one, after
// rec's own when it has one.
func nextSeq(rec string) string {
	switch {
	case strings.Contains(rec, `"seq":5}}`):
		return "6"
	case strings.Contains(rec, `"dir":"out"`):
		return "3"
	}
	return "4"
}

func q(s string) string { b, _ := json.Marshal(s); return string(b) }
func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
