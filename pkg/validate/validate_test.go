package validate

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/check"
)

func embedded(t testing.TB) *Schema {
	t.Helper()
	s, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// frames builds records on connection 1 from frame texts, in order.
func frames(conn int, texts ...string) []*capture.Record {
	recs := make([]*capture.Record, len(texts))
	for i, f := range texts {
		recs[i] = &capture.Record{Index: i, T: int64(1000 + i), Conn: conn, Dir: capture.DirIn, Frame: json.RawMessage(f)}
	}
	return recs
}

// run validates records with a fresh Validator and returns its findings
// and summary.
func run(t testing.TB, s *Schema, opts Options, recs []*capture.Record) ([]check.Finding, Summary) {
	t.Helper()
	v := New(s, opts)
	var fs []check.Finding
	for i, r := range recs {
		r.Index = i
		fs = v.Record(fs, r)
	}
	fs = v.Drift(fs)
	return fs, v.Summary()
}

func byRule(fs []check.Finding, rule string) []check.Finding {
	var out []check.Finding
	for _, f := range fs {
		if f.Rule == rule {
			out = append(out, f)
		}
	}
	return out
}

func dump(fs []check.Finding) string {
	var b strings.Builder
	for i := range fs {
		b.Write(fs[i].AppendJSON(nil))
		b.WriteByte('\n')
	}
	return b.String()
}

func TestSnapshotMatchesVersionFile(t *testing.T) {
	sum := sha256.Sum256(snapshotJSON)
	if got, want := hex.EncodeToString(sum[:]), versionField(snapshotVersion, "sha256"); got != want {
		t.Fatalf("protocol.schema.json sha256 %s, VERSION says %s: regenerate with scripts/update-protocol-schema.sh", got, want)
	}
	if versionField(snapshotVersion, "license") != "MIT" || !strings.HasPrefix(SnapshotLicense(), "MIT License") {
		t.Fatalf("the snapshot must ship with its MIT licence: VERSION %q, LICENSE %.40q", snapshotVersion, SnapshotLicense())
	}
	if SnapshotName() != "@openclaw/gateway-protocol "+versionField(snapshotVersion, "version") {
		t.Fatalf("SnapshotName %q", SnapshotName())
	}
}

func TestEmbeddedCompilesEveryDefinition(t *testing.T) {
	s := embedded(t)
	if n := len(s.Definitions()); n < 100 {
		t.Fatalf("only %d definitions", n)
	}
	if err := s.compileAll(); err != nil {
		t.Fatal(err)
	}
	for typ, def := range map[string]string{"req": "RequestFrame", "res": "ResponseFrame", "event": "EventFrame"} {
		if s.frames[typ] != def {
			t.Errorf("frame %s → %q, want %s", typ, s.frames[typ], def)
		}
	}
}

func TestNames(t *testing.T) {
	s := embedded(t)
	for _, c := range []struct{ got, want string }{
		{s.EventSchema("chat"), "ChatEvent"},
		{s.EventSchema("agent"), "AgentEvent"},
		{s.EventSchema("tick"), "TickEvent"},
		{s.EventSchema("device.pair.requested"), "DevicePairRequestedEvent"},
		{s.EventSchema("talk.event"), "TalkEvent"},
		{s.EventSchema("presence"), ""},
		{s.EventSchema(""), ""},
		{s.ParamsSchema("chat.send"), "ChatSendParams"},
		{s.ParamsSchema("connect"), "ConnectParams"},
		{s.ParamsSchema("tools.github.status"), "ToolsGitHubStatusParams"},
		{s.ParamsSchema("sessions.subscribe"), "SessionsListParams"},
		{s.ParamsSchema("health"), ""},
		{s.ResultSchema("connect"), "HelloOk"},
		{s.ResultSchema("logs.tail"), "LogsTailResult"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	if !s.KnowsMethod("health") || !s.KnowsMethod("chat.send") || s.KnowsMethod("no.such.method") {
		t.Error("KnowsMethod: the method list decides")
	}
	if pascal("device.pair.setup.deliveryUncertain") != "DevicePairSetupDeliveryUncertain" || pascal("last-heartbeat") != "LastHeartbeat" {
		t.Error("pascal")
	}
}

const (
	helloV4    = `{"type":"res","id":"c1","ok":true,"payload":{"type":"hello-ok","protocol":4,"server":{"version":"2026.9.6","connId":"x"},"features":{"methods":["chat.send"],"events":["chat","agent","presence"]},"snapshot":{"presence":[],"health":{},"stateVersion":{"presence":1,"health":1},"uptimeMs":5},"auth":{"role":"operator","scopes":[]},"policy":{"maxPayload":26214400,"maxBufferedBytes":52428800,"tickIntervalMs":30000}}}`
	connectReq = `{"type":"req","id":"c1","method":"connect","params":{"minProtocol":3,"maxProtocol":4,"client":{"id":"cli","version":"1","platform":"linux","mode":"cli"}}}`
	delta      = `{"type":"event","event":"chat","seq":3,"payload":{"runId":"r1","sessionKey":"agent:main:main","seq":5,"state":"delta","deltaText":"lo","message":{"role":"assistant","content":[{"type":"text","text":"Hello"}]}}}`
)

func TestCleanFramesHaveNoFindings(t *testing.T) {
	fs, sum := run(t, embedded(t), Options{}, frames(1, connectReq, helloV4, delta,
		`{"type":"event","event":"tick","seq":4,"payload":{"ts":1795317835055}}`))
	if len(fs) != 0 {
		t.Fatalf("findings on clean frames:\n%s", dump(fs))
	}
	// connect: envelope + params; hello: envelope + result; two events: envelope + payload.
	if sum.Frames != 4 || sum.Validated != 8 || sum.Errors+sum.Warnings+sum.Infos != 0 {
		t.Fatalf("summary %+v", sum)
	}
}

func TestWrongTypeIsReportedAtItsPointer(t *testing.T) {
	bad := strings.Replace(delta, `"seq":5`, `"seq":"5"`, 1)
	fs, sum := run(t, embedded(t), Options{}, frames(1, connectReq, helloV4, delta, bad))
	if len(fs) != 1 {
		t.Fatalf("want exactly one finding:\n%s", dump(fs))
	}
	f := fs[0]
	if f.Rule != RuleViolation || f.Severity != check.Error || f.I != 3 || f.Conn != 1 || f.Event != "chat" ||
		f.Schema != "ChatEvent" || f.Pointer != "/payload/seq" || f.Keyword != "type" || f.Expected != "integer" || f.Actual != `"5"` ||
		f.RunID != "r1" || f.SessionKey != "agent:main:main" {
		t.Fatalf("finding %s", dump(fs))
	}
	if !strings.Contains(f.Message, "/payload/seq must be integer, got \"5\"") {
		t.Errorf("message %q", f.Message)
	}
	if sum.Errors != 1 || sum.ByRule[RuleViolation] != 1 || sum.Count(check.Error) != 1 {
		t.Errorf("summary %+v", sum)
	}
}

func TestEnvelope(t *testing.T) {
	fs, _ := run(t, embedded(t), Options{}, frames(1,
		`{"type":"event","event":"tick","seq":"42","payload":{"ts":1}}`,
		`{"type":"evt","event":"tick"}`,
		`[1,2,3]`,
	))
	want := []struct {
		i                     int
		schema, ptr, expected string
	}{
		{0, "EventFrame", "/seq", "integer"},
		{1, "(root)", "/type", `one of "req", "res", "event"`},
		{2, "(root)", "", "object"},
	}
	if len(fs) != len(want) {
		t.Fatalf("findings:\n%s", dump(fs))
	}
	for k, w := range want {
		f := fs[k]
		if f.I != w.i || f.Schema != w.schema || f.Pointer != w.ptr || f.Expected != w.expected || f.Rule != RuleViolation {
			t.Errorf("finding %d: %s", k, dump(fs[k:k+1]))
		}
	}
}

// An alternative of a union is picked by its discriminator; when every
// alternative misses on the same field, that field is reported once.
func TestUnionAlternatives(t *testing.T) {
	s := embedded(t)
	cases := []struct {
		payload, ptr, keyword, expected string
	}{
		{`{"runId":"r","sessionKey":"k","seq":1,"state":"bogus"}`, "/payload/state", "anyOf", `one of "status", "delta", "final", "aborted", "error"`},
		{`{"runId":"r","sessionKey":"k","seq":1,"state":"final","yielded":false}`, "/payload/yielded", "const", `true`},
		{`{"runId":"r","sessionKey":"k","seq":1,"state":"status","phase":"dreaming"}`, "/payload/phase", "anyOf", `one of "preparing_workspace", "naming_worktree", "creating_worktree", "running_setup", "provisioning_environment", "preparing_context", "starting_model"`},
		{`{"runId":"r","sessionKey":"k","seq":1,"state":"delta"}`, "/payload/deltaText", "required", "present (required)"},
	}
	for _, c := range cases {
		fs, _ := run(t, s, Options{}, frames(1, `{"type":"event","event":"chat","payload":`+c.payload+`}`))
		if len(fs) != 1 || fs[0].Pointer != c.ptr || fs[0].Keyword != c.keyword || fs[0].Expected != c.expected {
			t.Errorf("%s:\n%s", c.payload, dump(fs))
		}
	}
}

func TestRequiredAndExtraFields(t *testing.T) {
	fs, sum := run(t, embedded(t), Options{PerFrame: true}, frames(1,
		`{"type":"event","event":"tick","payload":{}}`,
		`{"type":"event","event":"tick","payload":{"ts":1,"zone":"utc","b":true}}`,
		`{"type":"event","event":"tick"}`,
	))
	if len(fs) != 4 {
		t.Fatalf("findings:\n%s", dump(fs))
	}
	if f := fs[0]; f.Rule != RuleViolation || f.Pointer != "/payload/ts" || f.Actual != "absent" || !strings.Contains(f.Message, "/payload/ts is required but absent") {
		t.Errorf("required: %s", dump(fs[:1]))
	}
	// Extra fields are one finding each, in a stable order.
	if f := fs[1]; f.Rule != RuleExtraField || f.Severity != check.Warn || f.Pointer != "/payload/b" || f.Actual != "true" {
		t.Errorf("extra b: %s", dump(fs[1:2]))
	}
	if f := fs[2]; f.Pointer != "/payload/zone" || f.Actual != `"utc"` {
		t.Errorf("extra zone: %s", dump(fs[2:3]))
	}
	if f := fs[3]; f.Pointer != "/payload" || f.Actual != "absent" {
		t.Errorf("missing payload: %s", dump(fs[3:]))
	}
	if sum.Count(check.Error) != 2 || sum.Count(check.Warn) != 4 {
		t.Errorf("summary %+v", sum)
	}
}

func TestRequestsAndResponsesPairByIDPerConnection(t *testing.T) {
	recs := frames(1,
		`{"type":"req","id":"a","method":"logs.tail","params":{"limit":0}}`,
		`{"type":"res","id":"a","ok":true,"payload":{"file":"x.log","cursor":-1,"size":1,"lines":[]}}`,
		`{"type":"res","id":"a","ok":true,"payload":{"file":"x.log","cursor":1,"size":1,"lines":[]}}`,
	)
	// The same id on another connection answers nothing there.
	recs = append(recs, frames(2, `{"type":"res","id":"b","ok":true,"payload":{"cursor":"?"}}`)...)
	recs = append(recs, frames(2, `{"type":"res","id":"c","ok":true,"payload":{}}`)...)
	fs, sum := run(t, embedded(t), Options{}, recs)
	if len(fs) != 4 {
		t.Fatalf("findings:\n%s", dump(fs))
	}
	if f := fs[0]; f.I != 0 || f.Method != "logs.tail" || f.Schema != "LogsTailParams" || f.Pointer != "/params/limit" || f.Expected != ">= 1" || f.Actual != "0" {
		t.Errorf("params: %s", dump(fs[:1]))
	}
	if f := fs[1]; f.I != 1 || f.Method != "logs.tail" || f.Schema != "LogsTailResult" || f.Pointer != "/payload/cursor" || f.Expected != ">= 0" {
		t.Errorf("result: %s", dump(fs[1:2]))
	}
	// The second response to "a" has no request left: it was answered.
	if f := fs[2]; f.I != 2 || f.Rule != RuleUnpaired || f.Conn != 1 {
		t.Errorf("unpaired on conn 1: %s", dump(fs[2:3]))
	}
	if f := fs[3]; f.I != 3 || f.Rule != RuleUnpaired || f.Conn != 2 {
		t.Errorf("unpaired on conn 2: %s", dump(fs[3:]))
	}
	if sum.Unpaired != 3 || sum.Unchecked["result (request not captured)"] != 3 {
		t.Errorf("summary %+v", sum)
	}
}

// A two-phase method answers "accepted" first and its result later.
func TestTwoPhaseResponse(t *testing.T) {
	fs, sum := run(t, embedded(t), Options{}, frames(1,
		`{"type":"req","id":"a","method":"agent","params":{"message":"hi","idempotencyKey":"k"}}`,
		`{"type":"res","id":"a","ok":true,"payload":{"runId":"k","status":"accepted","acceptedAt":1}}`,
		`{"type":"res","id":"a","ok":true,"payload":{"runId":"k","status":"ok"}}`,
		`{"type":"res","id":"a","ok":true,"payload":{"runId":"k","status":"ok"}}`,
	))
	if len(byRule(fs, RuleUnpaired)) != 1 || sum.Unpaired != 1 || byRule(fs, RuleUnpaired)[0].I != 3 {
		t.Fatalf("only the third response is unpaired:\n%s", dump(fs))
	}
}

func TestPendingTableIsBounded(t *testing.T) {
	var texts []string
	for i := range 5 {
		texts = append(texts, fmt.Sprintf(`{"type":"req","id":"r%d","method":"health"}`, i))
	}
	texts = append(texts, `{"type":"res","id":"r0","ok":true,"payload":{}}`, `{"type":"res","id":"r4","ok":true,"payload":{}}`)
	fs, sum := run(t, embedded(t), Options{MaxPending: 2}, frames(1, texts...))
	over := byRule(fs, RulePendingOverflow)
	if len(over) != 1 || over[0].I != 2 || sum.Evicted != 3 {
		t.Fatalf("overflow reported once at the third request, three evicted: %+v\n%s", sum, dump(fs))
	}
	if un := byRule(fs, RuleUnpaired); len(un) != 1 || un[0].I != 5 || sum.Unpaired != 1 {
		t.Fatalf("the forgotten request's response is unpaired, the kept one's is not:\n%s", dump(fs))
	}
	// Answered requests are not remembered: a long connection of request
	// and response pairs keeps the table small.
	v := New(embedded(t), Options{MaxPending: 8})
	for i := range 10_000 {
		id := fmt.Sprintf("q%d", i)
		v.Record(nil, &capture.Record{Index: 2 * i, Conn: 1, Frame: json.RawMessage(`{"type":"req","id":"` + id + `","method":"health"}`)})
		v.Record(nil, &capture.Record{Index: 2*i + 1, Conn: 1, Frame: json.RawMessage(`{"type":"res","id":"` + id + `","ok":true,"payload":{}}`)})
	}
	if c := v.conns[1]; len(c.pending) != 0 || len(c.order) > 100 || v.Summary().Evicted != 0 || v.Summary().Unpaired != 0 {
		t.Fatalf("after 10,000 answered requests: %d pending, %d ids kept in order, %+v", len(c.pending), len(c.order), v.Summary())
	}
}

func TestUnknownEventsAndMethodsOnce(t *testing.T) {
	fs, sum := run(t, embedded(t), Options{}, frames(1,
		connectReq, helloV4,
		`{"type":"event","event":"presence","payload":{"presence":[]}}`,
		`{"type":"event","event":"presence","payload":{"presence":[]}}`,
		`{"type":"event","event":"brand.new","payload":{}}`,
		`{"type":"req","id":"x","method":"brand.new.method","params":{}}`,
		`{"type":"req","id":"y","method":"brand.new.method","params":{}}`,
	))
	ev := byRule(fs, RuleUnknownEvent)
	if len(ev) != 2 || ev[0].I != 2 || !strings.Contains(ev[0].Message, "advertises it") || ev[1].I != 4 || !strings.Contains(ev[1].Message, "did not advertise") {
		t.Fatalf("unknown events:\n%s", dump(fs))
	}
	if m := byRule(fs, RuleUnknownMethod); len(m) != 1 || m[0].I != 5 || m[0].Method != "brand.new.method" || m[0].Severity != check.Info {
		t.Fatalf("unknown methods:\n%s", dump(fs))
	}
	if sum.Unchecked["event presence"] != 2 || sum.Unchecked["params brand.new.method"] != 2 {
		t.Fatalf("unchecked %v", sum.Unchecked)
	}
}

func TestUnreadableRecords(t *testing.T) {
	recs := []*capture.Record{
		{Conn: 1, Raw: []byte("not json"), IsRaw: true},
		{Line: 7, Raw: []byte(`{"t":"soon"`), Malformed: true},
		{Conn: 1, Mark: capture.MarkOpen},
	}
	fs, sum := run(t, embedded(t), Options{}, recs)
	if len(fs) != 2 || fs[0].Rule != RuleUnreadable || fs[1].Rule != RuleUnreadable || !strings.Contains(fs[1].Message, "line 7") {
		t.Fatalf("findings:\n%s", dump(fs))
	}
	if sum.Records != 3 || sum.Frames != 0 {
		t.Fatalf("summary %+v", sum)
	}
}

// A credential in a field that violates the schema does not reach the
// finding: the recorder's redaction rules apply to the value shown.
func TestActualValuesAreRedacted(t *testing.T) {
	fs, _ := run(t, embedded(t), Options{}, frames(1,
		`{"type":"req","id":"c","method":"connect","params":{"minProtocol":3,"maxProtocol":4,"client":{"id":"cli","version":"1","platform":"linux","mode":"cli"},"auth":{"token":"s3cr3t-gateway-token","sessionToken":"s3cr3t-session-token"}}}`,
		`{"type":"req","id":"d","method":"connect","params":{"minProtocol":3,"maxProtocol":4,"client":{"id":"cli","version":"1","platform":"linux","mode":"cli","note":"Authorization: Bearer s3cr3t-bearer-value"}}}`,
	))
	if len(fs) != 2 {
		t.Fatalf("findings:\n%s", dump(fs))
	}
	out := dump(fs)
	if strings.Contains(out, "s3cr3t") {
		t.Fatalf("a secret reached the findings:\n%s", out)
	}
	if fs[0].Pointer != "/params/auth/sessionToken" || !strings.Contains(fs[0].Actual, "__CLAWTAP_REDACTED__") {
		t.Errorf("token: %s", dump(fs[:1]))
	}
	if fs[1].Pointer != "/params/client/note" || !strings.Contains(fs[1].Actual, "__CLAWTAP_REDACTED__") {
		t.Errorf("bearer: %s", dump(fs[1:]))
	}
}

func TestV3DifferencesAreInfoOnce(t *testing.T) {
	helloV3 := `{"type":"res","id":"c1","ok":true,"payload":{"type":"hello-ok","protocol":3,"server":{"version":"2026.4.15","connId":"c"},"canvasHostUrl":"http://127.0.0.1:18793/__openclaw__/cap/__CLAWTAP_REDACTED__","features":{"methods":[],"events":["chat"]},"snapshot":{"presence":[],"health":{},"stateVersion":{"presence":1,"health":1},"uptimeMs":5},"auth":{"role":"operator","scopes":[]},"policy":{"maxPayload":26214400,"maxBufferedBytes":52428800,"tickIntervalMs":30000}}}`
	v3delta := `{"type":"event","event":"chat","seq":%d,"payload":{"runId":"r1","sessionKey":"agent:main:main","seq":%d,"state":"delta","message":{"role":"assistant","content":[{"type":"text","text":"Hel"}]}}}`
	recs := frames(1, connectReq, helloV3, fmt.Sprintf(v3delta, 1, 2), fmt.Sprintf(v3delta, 2, 3), fmt.Sprintf(v3delta, 3, 4))
	// The same delta on a protocol 4 connection is a violation.
	recs = append(recs, frames(2, connectReq, helloV4, fmt.Sprintf(v3delta, 1, 2))...)
	fs, sum := run(t, embedded(t), Options{}, recs)
	v3 := byRule(fs, RuleV3Difference)
	if len(v3) != 2 {
		t.Fatalf("want two v3 differences (canvasHostUrl, deltaText):\n%s", dump(fs))
	}
	if v3[0].I != 1 || v3[0].Pointer != "/payload/canvasHostUrl" || v3[0].Severity != check.Info || !strings.Contains(v3[0].Message, "pluginSurfaceUrls") {
		t.Errorf("canvasHostUrl: %s", dump(v3[:1]))
	}
	if v3[1].I != 2 || v3[1].Pointer != "/payload/deltaText" || !strings.Contains(v3[1].Message, "came with protocol 4") {
		t.Errorf("deltaText: %s", dump(v3[1:]))
	}
	if sum.V3Differences != 4 {
		t.Errorf("v3 differences counted: %d, want 4 (canvasHostUrl and three deltas)", sum.V3Differences)
	}
	vio := byRule(fs, RuleViolation)
	if len(vio) != 1 || vio[0].Conn != 2 || vio[0].Pointer != "/payload/deltaText" {
		t.Errorf("protocol 4 connection:\n%s", dump(fs))
	}
	// A hello marker says the same as the hello-ok.
	recs = []*capture.Record{{Conn: 1, Mark: capture.MarkHello, Protocol: 3}}
	recs = append(recs, frames(1, fmt.Sprintf(v3delta, 1, 2))...)
	if fs, _ := run(t, embedded(t), Options{}, recs); len(fs) != 1 || fs[0].Rule != RuleV3Difference {
		t.Errorf("hello marker protocol 3:\n%s", dump(fs))
	}
}

// fixturePath is a capture in the repository's fixtures/.
func fixturePath(t testing.TB, name string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "fixtures", name)
}

func readAll(t testing.TB, path string) []*capture.Record {
	t.Helper()
	r, err := capture.Open(path, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var recs []*capture.Record
	for {
		rec, err := r.Next()
		if err != nil {
			break
		}
		recs = append(recs, rec.Clone())
	}
	return recs
}

// plant replaces the value at path (object keys) in a frame, keeping the
// rest.
func plant(t testing.TB, frame []byte, value string, path ...string) []byte {
	t.Helper()
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(frame))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	cur := m
	for _, k := range path[:len(path)-1] {
		cur = cur[k].(map[string]any)
	}
	cur[path[len(path)-1]] = json.RawMessage(value)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A wrong-typed field planted in a capture adds exactly one finding, at
// its record and pointer; everything else the capture shows stays.
func TestPlantedViolationInAFixture(t *testing.T) {
	s := embedded(t)
	recs := readAll(t, fixturePath(t, "streamed-run.jsonl.zst"))
	base, baseSum := run(t, s, Options{}, recs)
	if baseSum.Errors != 0 {
		t.Fatalf("the fixture has schema errors before planting:\n%s", dump(byRule(base, RuleViolation)))
	}
	target := -1
	for i, r := range recs {
		if r.IsFrame() && bytes.Contains(r.Frame, []byte(`"state":"delta"`)) {
			target = i
			break
		}
	}
	if target < 0 {
		t.Fatal("no chat delta in the fixture")
	}
	recs[target].Frame = plant(t, recs[target].Frame, `"7"`, "payload", "seq")
	fs, sum := run(t, s, Options{}, recs)
	if len(fs) != len(base)+1 || sum.Errors != 1 {
		t.Fatalf("%d findings before, %d after planting one violation", len(base), len(fs))
	}
	got := byRule(fs, RuleViolation)
	if len(got) != 1 || got[0].I != target || got[0].Pointer != "/payload/seq" || got[0].Expected != "integer" || got[0].Actual != `"7"` {
		t.Fatalf("planted at #%d:\n%s", target, dump(got))
	}
}

// The same capture gives the same findings, byte for byte.
func TestDeterministic(t *testing.T) {
	s := embedded(t)
	for _, name := range []string{"demo.jsonl.zst", "junk.jsonl", "tool-run.jsonl.zst"} {
		recs := readAll(t, fixturePath(t, name))
		a, _ := run(t, s, Options{}, recs)
		b, _ := run(t, s, Options{}, recs)
		if dump(a) != dump(b) {
			t.Fatalf("%s: two runs differ", name)
		}
	}
}

func TestSummaryFoldsIntoCheck(t *testing.T) {
	vs := Summary{Errors: 1, Warnings: 2, Infos: 3, ByRule: map[string]int{RuleViolation: 1, RuleExtraField: 2, RuleUnknownEvent: 3}}
	cs := check.Summary{Errors: 1, ByRule: map[string]int{"seq-gap": 1}}
	vs.Fold(&cs)
	if cs.Errors != 2 || cs.Warnings != 2 || cs.Infos != 3 || cs.ByRule["seq-gap"] != 1 || cs.ByRule[RuleExtraField] != 2 {
		t.Fatalf("folded %+v", cs)
	}
	ids := map[string]bool{}
	for _, r := range check.Rules() {
		ids[r.ID] = true
	}
	for _, r := range Rules() {
		if ids[r.ID] || r.Group != Group || r.Summary == "" {
			t.Errorf("rule %+v clashes with check's or lacks a group or summary", r)
		}
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// A 2020-12 schema in two files: the root refers to the other by name.
	write("pkg/package.json", `{"name":"@openclaw/gateway-protocol","version":"2099.1.1"}`)
	write("pkg/common.json", `{"$id":"https://example.test/common.json","$defs":{"Seq":{"type":"integer","minimum":0}}}`)
	root := write("pkg/protocol.schema.json", `{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://example.test/protocol.schema.json",
		"$defs":{"EventFrame":{"type":"object","required":["type","event"],"properties":{"type":{"const":"event"},"event":{"type":"string"},"seq":{"$ref":"common.json#/$defs/Seq"},"payload":{}}},
		"TickEvent":{"type":"object","required":["ts"],"properties":{"ts":{"$ref":"common.json#/$defs/Seq"}},"additionalProperties":false}}}`)
	for _, p := range []string{filepath.Dir(root)} {
		s, err := Load(p)
		if err != nil {
			t.Fatal(err)
		}
		if s.Version != "2099.1.1" || s.Name != p {
			t.Errorf("name %q version %q", s.Name, s.Version)
		}
		fs, _ := run(t, s, Options{}, frames(1, `{"type":"event","event":"tick","seq":-1,"payload":{"ts":"x"}}`))
		if len(fs) != 2 || fs[0].Pointer != "/seq" || fs[0].Expected != ">= 0" || fs[1].Pointer != "/payload/ts" || fs[1].Expected != "integer" {
			t.Errorf("findings with a 2020-12 schema across files:\n%s", dump(fs))
		}
	}
	// A single file validates what it holds by itself.
	single := write("one/protocol.schema.json", `{"definitions":{"TickEvent":{"type":"object","required":["ts"]}}}`)
	s, err := Load(single)
	if err != nil {
		t.Fatal(err)
	}
	// It has no frame definitions: the envelope is checked against its
	// root, which allows anything.
	if fs, _ := run(t, s, Options{}, frames(1, `{"type":"event","event":"tick","payload":{}}`)); len(fs) != 1 || fs[0].Schema != "TickEvent" || fs[0].Pointer != "/payload/ts" {
		t.Errorf("single file:\n%s", dump(fs))
	}
	// A relative $id is where the file is: a file beside it is reached.
	write("rel/seq.json", `{"definitions":{"Seq":{"type":"integer"}}}`)
	rel := write("rel/protocol.schema.json", `{"$id":"protocol.schema.json","definitions":{"TickEvent":{"type":"object","properties":{"ts":{"$ref":"seq.json#/definitions/Seq"}}}}}`)
	if s, err := Load(rel); err != nil {
		t.Error(err)
	} else if fs, _ := run(t, s, Options{}, frames(1, `{"type":"event","event":"tick","payload":{"ts":"x"}}`)); len(fs) != 1 || fs[0].Pointer != "/payload/ts" {
		t.Errorf("relative $id:\n%s", dump(fs))
	}
	for name, text := range map[string]string{
		"bad/protocol.schema.json":     `{"definitions":{"X":{"pattern":"("}}}`,
		"nodefs/protocol.schema.json":  `{"type":"object"}`,
		"notjson/protocol.schema.json": `{`,
		"remote/protocol.schema.json":  `{"definitions":{"X":{"$ref":"https://example.test/elsewhere.json"}}}`,
	} {
		p := write(name, text)
		if _, err := Load(p); err == nil {
			t.Errorf("%s: loaded %s", name, text)
		}
	}
	if _, err := Load(filepath.Join(dir, "pkg", "nothing-here")); err == nil {
		t.Error("a missing path loaded")
	}
	if _, err := Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), rootFile) {
		t.Errorf("a directory without %s: %v", rootFile, err)
	}
}
