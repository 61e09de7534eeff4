package redact

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
)

// plantedCapture builds a capture with a distinct secret in every place
// gateway-protocol.md §8 names (and then some), and returns it with the
// secrets.
func plantedCapture(t *testing.T) ([]byte, []string) {
	t.Helper()
	var secrets []string
	sec := func() string {
		s := fmt.Sprintf("Zq%02dSECRETv4lu3", len(secrets))
		secrets = append(secrets, s)
		return s
	}
	var frames []struct {
		dir, frame string
	}
	add := func(dir, format string, args ...any) {
		frames = append(frames, struct{ dir, frame string }{dir, fmt.Sprintf(format, args...)})
	}
	nonce := sec()
	add("in", `{"type":"event","event":"connect.challenge","payload":{"nonce":%q,"ts":1,"capabilities":["model-catalog-snapshot"]}}`, nonce)
	add("out", `{"type":"req","id":"r1-connect","method":"connect","params":{"minProtocol":3,"maxProtocol":4,"client":{"id":"cli","version":"1","platform":"linux","mode":"cli"},"role":"operator","scopes":["operator.read"],`+
		`"pathEnv":%q,"auth":{"token":%q,"password":%q,"deviceToken":%q,"bootstrapToken":%q,"approvalRuntimeToken":%q,"agentRuntimeIdentityToken":%q},`+
		`"device":{"id":"abc","publicKey":"pk","signature":%q,"signedAt":1,"nonce":%q}}}`,
		"/home/u/"+sec()+"/bin", sec(), sec(), sec(), sec(), sec(), sec(), sec(), nonce)
	add("in", `{"type":"res","id":"r1-connect","ok":true,"payload":{"type":"hello-ok","protocol":4,"server":{"version":"2026.9.6","connId":"c1"},`+
		`"canvasHostUrl":"http://127.0.0.1:18793/__openclaw__/cap/%s","pluginSurfaceUrls":{"a":"http://127.0.0.1:1/__openclaw__/cap/%s/x","b":["/__openclaw__/cap/%s"],"c":[{"url":"http://127.0.0.1/__openclaw__/cap/%s?v=1"}]},`+
		`"auth":{"method":"token","role":"operator","scopes":[],"recoveryScope":%q,"deviceToken":%q,"deviceTokens":[{"role":"node","deviceToken":%q}]}}}`,
		sec(), sec(), sec(), sec(), sec(), sec(), sec())
	add("out", `{"type":"req","id":"r2","method":"device.token.rotate","params":{"deviceId":"abc","role":"operator"}}`)
	add("in", `{"type":"res","id":"r2","ok":true,"payload":{"deviceId":"abc","role":"operator","token":%q,"next":%q}}`, sec(), sec())
	add("out", `{"type":"req","id":"r3","method":"talk.client.create","params":{}}`)
	add("in", `{"type":"res","id":"r3","ok":true,"payload":{"clientSecret":{"value":%q},"ephemeralKey":%q}}`, sec(), sec())
	add("out", `{"type":"req","id":"r4","method":"talk.config","params":{"includeSecrets":true}}`)
	add("in", `{"type":"res","id":"r4","ok":true,"payload":{"talk":{"resolved":{"config":{"apiKey":%q,"key":%q}}}}}`, sec(), sec())
	add("out", `{"type":"req","id":"r5","method":"secrets.resolve","params":{"refs":["A"]}}`)
	add("in", `{"type":"res","id":"r5","ok":true,"payload":{"values":[{"ref":"A","value":%q}]}}`, sec())
	add("out", `{"type":"req","id":"r6","method":"config.apply","params":{"raw":"{ models: { providers: { x: { apiKey: \"%s\" } } } }","note":%q}}`, sec(), sec())
	add("in", `{"type":"event","event":"agent","payload":{"stream":"tool","data":{"phase":"result","result":{"content":[{"type":"text","text":"OPENAI_API_KEY=%s\nexport GH_TOKEN='%s'\nAuthorization: Bearer %s\n-----BEGIN RSA PRIVATE KEY-----\n%s\n-----END RSA PRIVATE KEY-----\n{\"client_secret\":\"%s\"}"}]}}}}`,
		sec(), sec(), sec(), sec(), sec())
	add("in", `{"type":"event","event":"chat","payload":{"state":"final","message":{"content":[{"type":"text","text":"see http://127.0.0.1:18789/__openclaw__/cap/%s/ and https://me:%s@example.com/?api_key=%s&access_token=%s"}]}}}`, sec(), sec(), sec(), sec())
	add("in", `{"type":"event","event":"plugin.x","payload":{"headers":{"cookie":%q,"set-cookie":[%q],"x-api-key":%q,"authorization":%q},"aws":{"aws_secret_access_key":%q,"secretKey":%q},"jwt":%q,"to\u006ben":%q,"private_key":%q,"passwd":%q,"pass":%q}}`,
		sec(), sec(), sec(), "Basic "+sec(), sec(), sec(), sec(), sec(), sec(), sec(), sec())
	add("in", `{"type":"res","id":"zz","ok":true,"payload":{"nested":{"deeper":[{"refresh_token":%q,"id_token":%q,"client_secret":%q,"app_secret":%q,"credentials":{"user":%q}}]}}}`,
		sec(), sec(), sec(), sec(), sec())

	var buf bytes.Buffer
	w, err := capture.NewWriter(&buf, false)
	if err != nil {
		t.Fatal(err)
	}
	h := capture.NewHeader(timeZero, capture.Source{Mode: "record", URL: "ws://127.0.0.1:18789/?token=" + sec()})
	if err := w.WriteHeader(h); err != nil {
		t.Fatal(err)
	}
	_ = w.Write(&capture.Record{T: 1, Conn: 1, Mark: capture.MarkOpen, URL: "ws://127.0.0.1:18789/?token=" + sec()})
	for i, f := range frames {
		_ = w.Write(&capture.Record{T: int64(2 + i), Conn: 1, Dir: f.dir, Frame: []byte(f.frame)})
	}
	_ = w.Write(&capture.Record{T: 100, Conn: 1, Dir: "in", IsRaw: true, Raw: []byte("binary-ish token=" + sec() + " and password: " + sec())})
	_ = w.Write(&capture.Record{T: 101, Conn: 1, Mark: capture.MarkError, Err: "dial: 401 for Bearer " + sec()})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// A truncated frame line (unreadable record) with secrets.
	buf.WriteString(`{"t":102,"conn":1,"dir":"out","frame":{"type":"req","method":"connect","params":{"auth":{"token":"` + sec() + `","password":"` + sec() + `"`)
	buf.WriteString("\n")
	for _, s := range secrets {
		if !bytes.Contains(buf.Bytes(), []byte(s)) {
			t.Fatalf("test bug: %s not planted", s)
		}
	}
	return buf.Bytes(), secrets
}

func redactCapture(t *testing.T, in []byte, opts Options) []byte {
	t.Helper()
	rd, err := capture.NewReader(bytes.NewReader(in), capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	w, _ := capture.NewWriter(&out, false)
	red := New(opts)
	if err := w.WriteHeader(red.Header(*rd.Header())); err != nil {
		t.Fatal(err)
	}
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(red.Record(rec)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func TestNoSecretSurvives(t *testing.T) {
	in, secrets := plantedCapture(t)
	if len(secrets) < 50 {
		t.Fatalf("only %d secrets planted", len(secrets))
	}
	for _, content := range []bool{false, true} {
		out := redactCapture(t, in, Options{Content: content})
		for _, s := range secrets {
			if bytes.Contains(out, []byte(s)) {
				line := ""
				for _, l := range strings.Split(string(out), "\n") {
					if strings.Contains(l, s) {
						line = l
					}
				}
				t.Errorf("content=%v: %s survived in\n%s", content, s, line)
			}
		}
		if !content && !bytes.Contains(out, []byte(Marker)) {
			t.Error("no marker in output")
		}
	}
}
