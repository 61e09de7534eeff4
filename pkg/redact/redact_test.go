package redact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
)

const M = Marker

func frameOf(r *Redactor, s string) string { return string(r.Frame(capture.DirIn, []byte(s))) }

func TestCredentialFrames(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"challenge nonce", challengeV4, strings.Replace(challengeV4, "4f1d0c2a-9e8b-4c7d-a6f5-0e1d2c3b4a59", M, 1)},
		{"connect v4", connectV4, connectV4Redacted},
		{"connect node, every auth field", connectNodeAll, connectNodeAllRedacted},
		{"hello-ok v4", helloV4, helloV4Redacted},
		{"hello-ok v3 canvasHostUrl", helloV3, helloV3Redacted},
		{"capability URL without the cap path", `{"canvasHostUrl":"http://127.0.0.1:18793/canvas?t=abc","n":1}`, `{"canvasHostUrl":"` + M + `","n":1}`},
		{"non-URL leaves under pluginSurfaceUrls kept", `{"pluginSurfaceUrls":[{"id":"canvas","url":"/__openclaw__/cap/xyz"}]}`, `{"pluginSurfaceUrls":[{"id":"canvas","url":"/__openclaw__/cap/` + M + `"}]}`},
		{"spacing and key order kept", "{ \"type\" : \"req\" ,\n \"method\":\"connect\", \"params\": {\"auth\" : { \"token\" : \"x\\u0031\" } , \"z\":1}}",
			"{ \"type\" : \"req\" ,\n \"method\":\"connect\", \"params\": {\"auth\" : { \"token\" : \"" + M + "\" } , \"z\":1}}"},
		{"escaped key", `{"a":{"to\u006ben":"sekrit","n":2}}`, `{"a":{"to\u006ben":"` + M + `","n":2}}`},
		{"key spellings", `{"api_key":"1","API-KEY":"2","x-api-key":"3","client_secret":"4","refresh_token":"5","id_token":"6","access_token":"7","private_key":"8","aws_secret_access_key":"9","Authorization":"Basic eA==","set-cookie":["a=b","c=d"],"jwt":"j","passwd":"p","pass":"q","app_secret":"s","credential":"c","signature":"g","webhookSecret":"w"}`,
			`{"api_key":"` + M + `","API-KEY":"` + M + `","x-api-key":"` + M + `","client_secret":"` + M + `","refresh_token":"` + M + `","id_token":"` + M + `","access_token":"` + M + `","private_key":"` + M + `","aws_secret_access_key":"` + M + `","Authorization":"` + M + `","set-cookie":["` + M + `","` + M + `"],"jwt":"` + M + `","passwd":"` + M + `","pass":"` + M + `","app_secret":"` + M + `","credential":"` + M + `","signature":"` + M + `","webhookSecret":"` + M + `"}`},
		// In a credential name's object, what looks generated goes; a word
		// may be anything (a schema's "type", a hint's label) and stays.
		{"credential containers", `{"credentials":{"user":"u","id":7,"list":["a"],"github":"9f8e7d6c5b4a39281706abcd"},"secrets":["x"]}`, `{"credentials":{"user":"u","id":7,"list":["a"],"github":"` + M + `"},"secrets":["` + M + `"]}`},
		{"only strings replaced", `{"token":12,"password":null,"secret":true,"apiKey":["k",3]}`, `{"token":12,"password":null,"secret":true,"apiKey":["` + M + `",3]}`},
		{"bearer in text", `{"type":"event","event":"agent","payload":{"data":{"text":"curl -H 'Authorization: Bearer abcdefgh12345678' x"}}}`,
			`{"type":"event","event":"agent","payload":{"data":{"text":"curl -H 'Authorization: ` + M + `' x"}}}`},
		{"env assignments in text", `{"output":"OPENAI_API_KEY=sk-abc123 GITHUB_TOKEN=\"ghp_xyz\" DB_PASS=hunter2 sessionKey=agent:main:main PATH=/usr/bin"}`,
			`{"output":"OPENAI_API_KEY=` + M + ` GITHUB_TOKEN=\"` + M + `\" DB_PASS=` + M + ` sessionKey=agent:main:main PATH=/usr/bin"}`},
		{"json inside a string", `{"text":"{\"apiKey\":\"sk-live-1\",\"model\":\"m\"}"}`, `{"text":"{\"apiKey\":\"` + M + `\",\"model\":\"m\"}"}`},
		{"json5 config in a string", `{"text":"auth: { mode: \"token\", token: \"oc-live-test-token\" }"}`, `{"text":"auth: { mode: \"token\", token: \"` + M + `\" }"}`},
		{"PEM block", `{"text":"key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk=\n-----END OPENSSH PRIVATE KEY-----\ndone"}`, `{"text":"key:\n` + M + `\ndone"}`},
		{"PEM certificate kept", `{"text":"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----"}`, ``},
		{"capability URL in text", `{"text":"open http://127.0.0.1:18789/__openclaw__/cap/Zm9vYmFy/canvas now"}`, `{"text":"open http://127.0.0.1:18789/__openclaw__/cap/` + M + `/canvas now"}`},
		{"URL query token and user info", `{"url":"wss://bob:hunter22@gw.example:443/ws?token=abc123&x=1"}`, `{"url":"wss://bob:` + M + `@gw.example:443/ws?token=` + M + `&x=1"}`},
		{"non-JSON message", `hello token=abc123 world`, `hello token=` + M + ` world`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := New(Options{})
			want := c.want
			if want == "" {
				want = c.in
			}
			got := frameOf(r, c.in)
			if got != want {
				t.Fatalf("\n got %s\nwant %s", got, want)
			}
			if jsonx.Valid([]byte(c.in)) && !jsonx.Valid([]byte(got)) {
				t.Fatalf("output is not valid JSON: %s", got)
			}
		})
	}
}

// Results that hand out credentials are matched to their request by id.
func TestCredentialResults(t *testing.T) {
	steps := []struct{ in, want string }{
		{`{"type":"req","id":"7","method":"device.token.rotate","params":{"deviceId":"dev1","role":"operator"}}`, ``},
		{`{"type":"res","id":"7","ok":true,"payload":{"deviceId":"dev1","role":"operator","token":"rotated-tok","value":"opaque-1","scopes":["operator.read"],"rotatedAtMs":5}}`,
			`{"type":"res","id":"7","ok":true,"payload":{"deviceId":"dev1","role":"operator","token":"` + M + `","value":"` + M + `","scopes":["operator.read"],"rotatedAtMs":5}}`},
		{`{"type":"req","id":"8","method":"talk.client.create","params":{"provider":"openai"}}`, ``},
		{`{"type":"res","id":"8","ok":true,"payload":{"provider":"openai","clientSecret":{"value":"ek_abc","expiresAt":9},"session":"s-1"}}`,
			`{"type":"res","id":"8","ok":true,"payload":{"provider":"openai","clientSecret":{"value":"` + M + `","expiresAt":9},"session":"` + M + `"}}`},
		{`{"type":"req","id":"9","method":"talk.config","params":{"includeSecrets":true}}`, ``},
		{`{"type":"res","id":"9","ok":true,"payload":{"talk":{"resolved":{"config":{"provider":"elevenlabs","apiKey":"xi-123","key":"k-9","voiceId":"v1"}}}}}`,
			`{"type":"res","id":"9","ok":true,"payload":{"talk":{"resolved":{"config":{"provider":"elevenlabs","apiKey":"` + M + `","key":"` + M + `","voiceId":"v1"}}}}}`},
		{`{"type":"req","id":"10","method":"secrets.resolve","params":{"refs":[{"source":"env","id":"OPENAI_API_KEY"}]}}`, ``},
		{`{"type":"res","id":"10","ok":true,"payload":{"values":{"OPENAI_API_KEY":"sk-resolved"},"n":1}}`,
			`{"type":"res","id":"10","ok":true,"payload":{"values":{"OPENAI_API_KEY":"` + M + `"},"n":1}}`},
		{`{"type":"req","id":"11","method":"config.patch","params":{"raw":"{ gateway: { auth: { token: \"x\" } } }","baseHash":"h1"}}`,
			`{"type":"req","id":"11","method":"config.patch","params":{"raw":"` + M + `","baseHash":"` + M + `"}}`},
		// A response to an id that asked for nothing is untouched.
		{`{"type":"res","id":"12","ok":true,"payload":{"value":"plain"}}`, ``},
		// A second answer to the same id is redacted too (two-phase methods,
		// or another connection's response seen first through Frame).
		{`{"type":"res","id":"10","ok":true,"payload":{"values":{"A":"b"}}}`, `{"type":"res","id":"10","ok":true,"payload":{"values":{"A":"` + M + `"}}}`},
	}
	r := New(Options{})
	for i, s := range steps {
		want := s.want
		if want == "" {
			want = s.in
		}
		if got := frameOf(r, s.in); got != want {
			t.Fatalf("step %d\n got %s\nwant %s", i, got, want)
		}
	}
}

// Frames with nothing to redact come back as the very same slice.
func TestNoSecretsByteIdentical(t *testing.T) {
	frames := []string{chatSend, chatSent, chatDelta, agentText, agentUse, chatFinal, tick, heartbeat, lifecycle, sessRow, badToken, toolStart, toolResult, approval, presenceV4,
		`{"type":"res","id":"r1","ok":true,"payload":{"type":"hello-ok","auth":{"method":"token","role":"operator","scopes":["operator.read"]},"snapshot":{"authMode":"token"}}}`,
		`{"type":"req","id":"x","method":"sessions.list","params":{"limit":10,"idempotencyKey":"k","sessionKey":"agent:main:main","maxTokens":4096,"tokenizer":"cl100k","tokenCount":7,"passive":true,"keyId":"k1","publicKey":"pk"}}`,
		"  {\"type\":\"event\",\"event\":\"tick\",\"payload\":{\"ts\":1}}\n",
	}
	for _, content := range []bool{false} {
		r := New(Options{Content: content})
		for _, f := range frames {
			in := []byte(f)
			out := r.Frame(capture.DirIn, in)
			if !sameSlice(in, out) {
				t.Errorf("changed:\n in %s\nout %s", in, out)
			}
		}
		if st := r.Stats(); st.FramesChanged != 0 {
			t.Errorf("stats say %d frames changed", st.FramesChanged)
		}
	}
}

func TestKeyRule(t *testing.T) {
	yes := []string{"token", "Token", "TOKEN", "deviceToken", "bootstrapToken", "access_token", "refresh-token", "idToken", "apiKey", "api_key", "X-Api-Key",
		"openaiApiKey", "client_secret", "clientSecret", "appSecret", "private_key", "privateKey", "password", "dbPassword", "passwd", "pass", "passphrase",
		"secret", "secrets", "credential", "credentials", "authorization", "proxyAuthorization", "cookie", "set-cookie", "Cookies", "jwt", "signature",
		"aws_secret_access_key", "secretKey", "nonce", "recoveryScope", "pathEnv"}
	no := []string{"maxTokens", "outputTokens", "inputTokens", "tokenCount", "tokens", "tokenizer", "idempotencyKey", "sessionKey", "mainSessionKey",
		"mainKey", "key", "publicKey", "keyId", "authMode", "auth", "method", "passive", "bypass", "compass", "secretRef", "nonceTs", "signedAt",
		"signatureAlgorithm", "cookieJar", "tokenType", "sessionId", "runId", "deviceId", "author", "authority", "keys", "monkey"}
	var buf []byte
	for _, k := range yes {
		if !isCredKey(normKey([]byte(k), buf)) {
			t.Errorf("%q should be a credential key", k)
		}
	}
	for _, k := range no {
		if isCredKey(normKey([]byte(k), buf)) {
			t.Errorf("%q should not be a credential key", k)
		}
	}
}

// The pre-scan must never say "nothing here" for a frame the walk would
// change.
func TestPrescanCoversRules(t *testing.T) {
	r := New(Options{})
	for _, f := range []string{
		`{"T_O-K_E_N":"x"}`, `{"p_a_s_s":"x"}`, `{"a":"Bearer abcdefghijklmnop"}`, `{"a":"see ?SIG=abc"}`,
		`{"a":"ftp://u:p@h"}`, `{"x-api-key":"x"}`, `{"a":"MY_KEY=x"}`, `{"NONCE":"x"}`, `{"\u0074oken":"x"}`,
	} {
		if !mayHaveCredentials([]byte(f)) {
			t.Errorf("pre-scan misses %s", f)
		}
		r.w.run(0, []byte(f))
		if len(r.w.edits) == 0 {
			t.Errorf("walk does not redact %s", f)
		}
	}
}

// Ordinary stream frames skip the walk entirely.
func TestPrescanSkipsOrdinaryFrames(t *testing.T) {
	for _, f := range []string{chatDelta, agentText, agentUse, chatFinal, sessRow, tick, lifecycle, toolStart, toolResult, toolWithSession,
		`{"usage":{"outputTokens":12,"max_tokens":-1,"tokenCount":null,"hasToken":true}}`} {
		if mayHaveCredentials([]byte(f)) {
			t.Errorf("pre-scan fires on %.120s", f)
		}
	}
	for _, f := range []string{`{"outputTokens":"12"}`, `{"tokens":["a"]}`} {
		if !mayHaveCredentials([]byte(f)) {
			t.Errorf("pre-scan misses %s", f)
		}
	}
	// A credential word with nothing a rule replaces costs no walk.
	for _, f := range []string{`{"t":"my token"}`, `{"t":"{\"apiToken\": 5}"}`, `{"auth":"api-key"}`, `{"apiKey":{"type":"string"}}`} {
		if mayHaveCredentials([]byte(f)) {
			t.Errorf("pre-scan fires on %s", f)
		}
	}
}

func TestIdempotent(t *testing.T) {
	for _, f := range []string{connectV4, helloV4, helloV3, connectNodeAll, approval, toolResult} {
		for _, content := range []bool{false, true} {
			r := New(Options{Content: content, Salt: []byte("k")})
			once := r.Frame("in", []byte(f))
			twice := New(Options{Content: content, Salt: []byte("k")}).Frame("in", once)
			if !content && !sameSlice(once, twice) {
				t.Errorf("redacting twice changes it again:\n%s\n%s", once, twice)
			}
			if content {
				// Pseudonyms of pseudonyms differ; masks and markers do not.
				if !bytes.Contains(twice, []byte(M)) && bytes.Contains(once, []byte(M)) {
					t.Errorf("marker lost")
				}
			}
		}
	}
}

func TestPendingIsBounded(t *testing.T) {
	r := New(Options{})
	for i := 0; i < 5*maxPending; i++ {
		r.Frame("out", []byte(fmt.Sprintf(`{"type":"req","id":"%d","method":"secrets.resolve","params":{}}`, i)))
	}
	if n := len(r.pend.m); n > maxPending {
		t.Fatalf("%d pending ids kept", n)
	}
	// The most recent ones are still matched.
	got := frameOf(r, fmt.Sprintf(`{"type":"res","id":"%d","ok":true,"payload":{"v":"s"}}`, 5*maxPending-1))
	if !strings.Contains(got, M) {
		t.Fatalf("recent request forgotten: %s", got)
	}
}

// Connections are kept apart: a request on one connection does not make
// a response with the same id on another one special.
func TestPendingPerConnection(t *testing.T) {
	r := New(Options{})
	r.Record(&capture.Record{Conn: 1, Dir: "out", Frame: []byte(`{"type":"req","id":"1","method":"secrets.resolve","params":{}}`)})
	res := []byte(`{"type":"res","id":"1","ok":true,"payload":{"v":"plain"}}`)
	if out := r.Record(&capture.Record{Conn: 2, Dir: "in", Frame: res}); !sameSlice(out.Frame, res) {
		t.Fatalf("conn 2 changed: %s", out.Frame)
	}
	if out := r.Record(&capture.Record{Conn: 1, Dir: "in", Frame: res}); sameSlice(out.Frame, res) {
		t.Fatalf("conn 1 not redacted")
	}
}

func TestRecordKinds(t *testing.T) {
	r := New(Options{})
	mark := &capture.Record{Conn: 1, Mark: capture.MarkOpen, URL: "ws://127.0.0.1:18789/?token=abc123", Reason: "closed: Bearer abcdefghijk123"}
	out := r.Record(mark)
	if out == mark || out.URL != "ws://127.0.0.1:18789/?token="+M || out.Reason != "closed: Bearer "+M {
		t.Fatalf("mark: %+v", out)
	}
	if mark.URL != "ws://127.0.0.1:18789/?token=abc123" {
		t.Fatal("input record modified")
	}
	plain := &capture.Record{Conn: 1, Mark: capture.MarkClose, Code: 1012, Reason: "service restart"}
	if r.Record(plain) != plain {
		t.Fatal("plain marker copied")
	}
	raw := &capture.Record{Conn: 1, IsRaw: true, Raw: []byte(`not json, "token":"abc-raw-1"`)}
	if got := r.Record(raw); string(got.Raw) != `not json, "token":"`+M+`"` {
		t.Fatalf("raw: %s", got.Raw)
	}
	bad := &capture.Record{Conn: 1, Malformed: true, Raw: []byte(`{"t":1,"frame":{"type":"req","method":"connect","params":{"auth":{"password":"pw-cut-off`)}
	if got := r.Record(bad); bytes.Contains(got.Raw, []byte("pw-cut-off")) {
		t.Fatalf("malformed: %s", got.Raw)
	}
	fr := &capture.Record{Conn: 1, Dir: "out", Frame: []byte(connectV4)}
	if got := r.Record(fr); string(got.Frame) != connectV4Redacted || string(fr.Frame) != connectV4 {
		t.Fatalf("frame: %s", got.Frame)
	}
}

func TestHeader(t *testing.T) {
	r := New(Options{Content: true})
	h := capture.NewHeader(timeZero, capture.Source{Mode: "proxy", URL: "ws://gw/?token=abc"})
	h.Redaction = &capture.Redaction{Credentials: true, Notes: []string{"recorded with credentials redacted"}}
	h.Notes = json.RawMessage(`{"apiKey":"k-1","why":"demo"}`)
	got := r.Header(h)
	if got.Source.Mode != "proxy" || got.Source.URL != "ws://gw/?token="+M {
		t.Fatalf("source: %+v", got.Source)
	}
	if !got.Redaction.Credentials || !got.Redaction.Content || got.Redaction.Marker != M {
		t.Fatalf("redaction: %+v", got.Redaction)
	}
	if got.Redaction.Notes[0] != "recorded with credentials redacted" || len(got.Redaction.Notes) < 3 {
		t.Fatalf("notes: %q", got.Redaction.Notes)
	}
	if string(got.Notes) != `{"apiKey":"`+M+`","why":"demo"}` {
		t.Fatalf("header notes: %s", got.Notes)
	}
}
