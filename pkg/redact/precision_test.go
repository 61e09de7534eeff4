package redact

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
)

// Redaction changes nothing but credentials. A /status reply, a
// config.schema response and the protocol's own JSON Schema are full of
// credential words (Auth:, token, apiKey, secrets, password) with no
// credential in them: every byte stays, and the frame is not even copied.
// With a real-looking credential put into each of their fields, that
// credential goes.

// statusText is a /status reply as the gateway's chat final carries it.
const statusText = "🦞 OpenClaw 2026.9.6 (eb377ac)\n" +
	"🧠 Model: anthropic/claude-opus-4-5 · 🔑 api-key (models.json)\n" +
	"Auth: api-key (models.json)\n" +
	"Auth profile: anthropic:default (token)\n" +
	"🧮 Tokens: 12k in / 1.2k out · 💵 Cost: $0.42\n" +
	"📚 Context: 45k/200k (23%) · 🧹 Compactions: 0\n" +
	"🧵 Session: agent:main:main • updated just now\n" +
	"⚙️ Runtime: direct · Think: low · Verbose: off · Elevated: off\n" +
	"🔐 Gateway auth: token · Password: not set · Secrets: 2 refs (env)\n" +
	"🪢 Queue: collect (depth 0)"

func statusFrame(text string) []byte {
	f := []byte(`{"type":"event","event":"chat","payload":{"runId":"b1c2d3e4-f5a6-4b7c-8d9e-0f1a2b3c4d5e","sessionKey":"agent:main:main","seq":1,"state":"final","message":{"role":"assistant","content":[{"type":"text","text":`)
	t, _ := json.Marshal(text)
	f = append(f, t...)
	return append(f, `}],"timestamp":1795317837000,"provider":"openclaw","model":"gateway-injected"}}}`...)
}

// configSchemaFrame is a config.schema response in the shape OpenClaw
// sends: the JSON Schema of its config (credential-named properties with
// schema objects as values), ui hints keyed by config paths, and the
// current values with secrets the gateway already redacted.
const configSchemaFrame = `{"type":"res","id":"cs-1","ok":true,"payload":{"version":"2026.9.6","schema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{` +
	`"gateway":{"type":"object","properties":{"auth":{"type":"object","properties":{"mode":{"type":"string","enum":["token","password","none","trusted-proxy"],"default":"token","description":"How clients authenticate: token (a shared token), password, or none."},` +
	`"token":{"anyOf":[{"type":"string","minLength":16},{"$ref":"#/definitions/SecretRef"}],"description":"Shared token clients send in connect's auth.token. Set it with OPENCLAW_GATEWAY_TOKEN=<token>."},` +
	`"password":{"anyOf":[{"type":"string"},{"$ref":"#/definitions/SecretRef"}],"description":"Password for mode password, e.g. password: <your password>."}}}}},` +
	`"models":{"type":"object","properties":{"providers":{"type":"object","additionalProperties":{"type":"object","properties":{"baseUrl":{"type":"string","format":"uri","examples":["https://api.openai.com/v1"]},` +
	`"apiKey":{"anyOf":[{"type":"string"},{"$ref":"#/definitions/SecretRef"}],"description":"API key, or a SecretRef. Header: Authorization: Bearer <apiKey>.","examples":["sk-...","${OPENAI_API_KEY}"]},` +
	`"headers":{"type":"object","additionalProperties":{"type":"string"}},"model":{"type":"string","default":"gpt-5.1","examples":["claude-opus-4-5","openai/gpt-5.1"]}}}}}},` +
	`"secrets":{"type":"object","description":"Where secrets come from.","properties":{"providers":{"type":"object","additionalProperties":{"type":"object","properties":{"source":{"type":"string","enum":["env","file","exec"]},"path":{"type":"string","pattern":"^[^\\u0000]+$"},"timeoutMs":{"type":"integer","minimum":100}}}},` +
	`"cacheTtlMs":{"type":"integer"}}},` +
	`"channels":{"type":"object","properties":{"telegram":{"type":"object","properties":{"botToken":{"anyOf":[{"type":"string","pattern":"^[0-9]+:[A-Za-z0-9_-]+$"},{"$ref":"#/definitions/SecretRef"}]},"webhookSecret":{"type":"string"}}},` +
	`"slack":{"type":"object","properties":{"appToken":{"type":"string","pattern":"^xapp-"},"botToken":{"type":"string","pattern":"^xoxb-"},"signingSecret":{"type":"string"}}}}}},` +
	`"definitions":{"SecretRef":{"type":"object","properties":{"source":{"type":"string","enum":["env","file","exec"]},"id":{"type":"string"}},"required":["source","id"]}}},` +
	`"uiHints":{"gateway.auth.token":{"label":"Gateway token","sensitive":true,"help":"Clients need it to connect.","placeholder":"<token>"},"gateway.auth.password":{"label":"Password","sensitive":true},` +
	`"models.providers.*.apiKey":{"label":"API key","sensitive":true,"placeholder":"sk-..."},"channels.telegram.botToken":{"label":"Bot token","sensitive":true}},` +
	`"values":{"gateway":{"auth":{"mode":"token","token":"__OPENCLAW_REDACTED__"}},"models":{"providers":{"openai":{"apiKey":{"source":"env","id":"OPENAI_API_KEY"}}}}}}}`

func TestPrecisionStatusReply(t *testing.T) {
	f := statusFrame(statusText)
	if mayHaveCredentials(f) {
		t.Errorf("the pre-scan fires on the /status reply")
	}
	r := New(Options{})
	if out := r.Frame("in", f); !sameSlice(out, f) {
		t.Fatalf("the /status reply changed:\n in %s\nout %s", f, out)
	}
	// The text as a message that is not JSON, too.
	if raw := r.rawText([]byte(statusText)); raw != nil {
		t.Fatalf("the /status text changed: %s", raw)
	}
	// A credential in any of its fields goes.
	for _, c := range []struct {
		tok   string
		lines []string
	}{
		// A value that only looks generated goes where a credential name
		// says it is one; a token of a known shape anywhere.
		{"Zq9xW3vR7tY2uI5oP1aS8dF4gH6jK0lM", []string{"Auth: ", "Password: "}},
		{skAntTok, []string{"Auth: ", "Auth profile: ", "Password: ", "🔑 ", "Session: "}},
		{ghpTok, []string{"Auth: ", "Auth profile: ", "Password: ", "🔑 ", "Session: "}},
	} {
		tok := c.tok
		for _, line := range c.lines {
			text := strings.Replace(statusText, line, line+tok+" ", 1)
			out := New(Options{}).Frame("in", statusFrame(text))
			if bytes.Contains(out, []byte(tok[len(tok)-10:])) {
				t.Errorf("%q after %q survived: %s", tok, line, out)
			}
		}
	}
}

func TestPrecisionConfigSchema(t *testing.T) {
	f := []byte(configSchemaFrame)
	if !json.Valid(f) {
		t.Fatal("test bug: not JSON")
	}
	// config.schema is answered to a plain request: nothing is pending.
	r := New(Options{})
	r.Frame("out", []byte(`{"type":"req","id":"cs-1","method":"config.schema","params":{}}`))
	if out := r.Frame("in", f); !sameSlice(out, f) {
		t.Fatalf("the config.schema response changed (%d replaced):\n in %s\nout %s", r.Stats().Credentials, f, out)
	}
	// A real-looking credential put into each string of it goes: whatever
	// the field, under a credential name or not.
	var doc any
	if err := json.Unmarshal(f, &doc); err != nil {
		t.Fatal(err)
	}
	const tok = "sk-proj-Zq9xW3vR7tY2uI5oP1aS8dF4gH6jK0lMnB"
	n := 0
	var walk func(v any, set func(any))
	walk = func(v any, set func(any)) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				walk(e, func(nv any) { x[k] = nv })
			}
		case []any:
			for i, e := range x {
				walk(e, func(nv any) { x[i] = nv })
			}
		case string:
			set(tok)
			planted, _ := json.Marshal(doc)
			out := New(Options{}).Frame("in", planted)
			if bytes.Contains(out, []byte("Zq9xW3vR7tY2")) {
				t.Errorf("a credential in place of %q survived", x)
			}
			set(x)
			n++
		}
	}
	walk(doc, nil)
	if n < 50 {
		t.Fatalf("planted in %d strings only", n)
	}
	// And a weak password under a password name, a generated value in a
	// credential container, a token under a token name.
	for _, c := range []struct{ from, to string }{
		{`"token":"__OPENCLAW_REDACTED__"`, `"token":"oc-gw-7f3a9c2e5b1d"`},
		{`"mode":"token","token"`, `"mode":"token","password":"hunter2","token"`},
		{`{"source":"env","id":"OPENAI_API_KEY"}`, `{"source":"inline","value":"4f9a8b7c6d5e4f3a2b1c0d9e"}`},
	} {
		planted := strings.Replace(configSchemaFrame, c.from, c.to, 1)
		if planted == configSchemaFrame {
			t.Fatalf("test bug: %s not found", c.from)
		}
		out := string(New(Options{}).Frame("in", []byte(planted)))
		for _, sec := range []string{"oc-gw-7f3a9c2e5b1d", "hunter2", "4f9a8b7c6d5e4f3a2b1c0d9e"} {
			if strings.Contains(c.to, sec) && strings.Contains(out, sec) {
				t.Errorf("%s survived: %s", sec, out)
			}
		}
	}
}

// The gateway protocol's published JSON Schema (3.5 MB, credential-named
// properties everywhere) is a realistic schema: as a response payload it
// keeps every byte.
func TestPrecisionProtocolSchema(t *testing.T) {
	s, err := os.ReadFile("../validate/schema/protocol.schema.json")
	if err != nil {
		t.Skip(err)
	}
	f := append(append([]byte(`{"type":"res","id":"7","ok":true,"payload":{"schema":`), bytes.TrimSpace(s)...), "}}"...)
	r := New(Options{})
	if out := r.Frame("in", f); !sameSlice(out, f) {
		t.Errorf("the protocol schema changed: %d values replaced", r.Stats().Credentials)
	}
}

// The key-name rule's decisions, one by one.
func TestKeyValuePrecision(t *testing.T) {
	cases := []struct{ in, want string }{
		// A mode word, a placeholder, a description: kept.
		{`{"auth":"api-key"}`, ``},
		{`{"auth":"token","authMode":"password"}`, ``},
		{`{"token":"__OPENCLAW_REDACTED__","password":"","apiKey":"${OPENAI_API_KEY}","secret":"<secret>","jwt":"null"}`, ``},
		{`{"apiKey":"Your API key for the provider (see docs)"}`, ``},
		{`{"apiKey":{"type":"string","description":"The key"},"secrets":{"type":"object"}}`, ``},
		// What could be the credential: replaced.
		{`{"auth":"Zq9xW3vR7tY2uI5oP1aS"}`, `{"auth":"` + M + `"}`},
		{`{"token":"abc"}`, `{"token":"` + M + `"}`},
		{`{"password":"correct horse battery staple"}`, `{"password":"` + M + `"}`},
		{`{"authorization":"Basic dXNlcjpwYXNz"}`, `{"authorization":"` + M + `"}`},
		{`{"authorization":"Bearer <token>"}`, ``},
		{`{"cookie":"sid=abc; theme=dark"}`, `{"cookie":"` + M + `"}`},
		{`{"secrets":{"github":"4f9a8b7c6d5e4f3a2b1c0d9e","name":"ci"}}`, `{"secrets":{"github":"` + M + `","name":"ci"}}`},
	}
	for _, c := range cases {
		want := c.want
		if want == "" {
			want = c.in
		}
		if got := frameOf(New(Options{}), c.in); got != want {
			t.Errorf("\n  in %s\n got %s\nwant %s", c.in, got, want)
		}
	}
	// In text, the same rules.
	for _, c := range []struct{ in, want string }{
		{"Auth: api-key (models.json)", ""},
		{"Auth: Zq9xW3vR7tY2uI5oP1aS", "Auth: " + M},
		{"token: <your token>", ""},
		{"Authorization: Bearer <token>", ""},
		{"Authorization: Basic dXNlcjpwYXNz", "Authorization: " + M},
		{"password = hunter2", "password = " + M},
		{"token = getToken()", ""},
		{"secret = cfg.secret", ""},
		{`api_key = "sk-live-1"`, `api_key = "` + M + `"`},
	} {
		want := c.want
		if want == "" {
			want = c.in
		}
		raw := New(Options{}).Record(&capture.Record{Conn: 1, IsRaw: true, Raw: []byte(c.in)})
		if string(raw.Raw) != want {
			t.Errorf("\n  in %q\n got %q\nwant %q", c.in, raw.Raw, want)
		}
	}
}
