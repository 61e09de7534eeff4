package redact

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
)

// Made-up tokens of every shape (none of them is real).
const (
	ghpTok    = "ghp_R4nd0mPers0nalAcc3ssT0kenAbCdEf1234"
	ghoTok    = "gho_16C7e42F292c6912E7710c838347Ae178B4a"
	ghuTok    = "ghu_0123456789abcdefABCDEF0123456789abcd"
	ghsTok    = "ghs_ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210"
	ghrTok    = "ghr_1B4a2e77838347a7E420ce178F2E7c6912E1"
	patTok    = "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123"
	akiaTok   = "AKIAIOSFODNN7EXAMPLE"
	asiaTok   = "ASIAY34FZKBOKMUTVV7A"
	xoxbTok   = "xoxb-2345678901-3456789012345-AbCdEfGhIjKlMnOpQrStUvWx"
	xoxpTok   = "xoxp-2345678901-3456789012345-4567890123456-0123456789abcdef0123456789abcdef"
	xoxaTok   = "xoxa-2-2345678901-abcdef0123456789"
	xoxrTok   = "xoxr-2345678901-abcdef0123456789"
	xoxsTok   = "xoxs-2345678901-abcdef0123456789"
	skTok     = "sk-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e"
	skProjTok = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z_Ab3dEf6hIj9k-Lm2nOp5qRs8tUv1wXy4zAb3dEf6hIj9kLm2nOp5q"
	skAntTok  = "sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe9Dc8Ba7Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe-9Dc8Ba7AA"
)

// shapeTokens are the tokens above, for tests that try every shape.
var shapeTokens = []string{ghpTok, ghoTok, ghuTok, ghsTok, ghrTok, patTok, akiaTok, asiaTok, xoxbTok, xoxpTok, xoxaTok, xoxrTok, xoxsTok, skTok, skProjTok, skAntTok}

// The redaction corpus: every shape the text rules know, where it can
// appear, and the look-alikes that must survive (a false positive would
// change a replay). in is a string value; want is what it must become.
var textCorpus = []struct{ name, in, want string }{
	// Token shapes, bare in prose, each replaced whole.
	{"github classic", "use " + ghpTok + " for the API", "use " + M + " for the API"},
	{"github oauth", "got " + ghoTok, "got " + M},
	{"github user-to-server", ghuTok + " expires soon", M + " expires soon"},
	{"github server-to-server", "(" + ghsTok + ")", "(" + M + ")"},
	{"github refresh", "refresh=" + ghrTok, "refresh=" + M},
	{"github fine-grained", "token " + patTok + ".", "token " + M + "."},
	{"aws access key id", "aws_access_key_id = " + akiaTok + "\n", "aws_access_key_id = " + M + "\n"},
	{"aws temporary key id", "key " + asiaTok + ", secret elided", "key " + M + ", secret elided"},
	{"slack bot", "SLACK " + xoxbTok, "SLACK " + M},
	{"slack user", "<" + xoxpTok + ">", "<" + M + ">"},
	{"slack app", "'" + xoxaTok + "'", "'" + M + "'"},
	{"slack refresh", xoxrTok, M},
	{"slack session", "x " + xoxsTok + " y", "x " + M + " y"},
	{"openai legacy", "my key is " + skTok + " ok", "my key is " + M + " ok"},
	{"openai project", "key: " + skProjTok, "key: " + M},
	{"sk- with dashes", "ANTHROPIC says " + skAntTok + "!", "ANTHROPIC says " + M + "!"},
	{"inside quotes and JSON text", `{"k":"` + skTok + `"}`, `{"k":"` + M + `"}`},
	{"two in a row", ghpTok + " " + akiaTok, M + " " + M},
	{"after a newline", "line one\n" + ghsTok, "line one\n" + M},
	// A token cut off by the end of a streamed chunk.
	{"github cut off", "here it is: ghp_R4nd0m", "here it is: " + M},
	{"sk- cut off after a digit", "export KEY as sk-4f9a", "export KEY as " + M},
	{"aws cut off after a digit", "id AKIAIOSF0D", "id " + M},
	{"slack cut off", "tok xoxb-23", "tok " + M},
	// Passwords in free text.
	{"pw=", "login with pw=hunter2 now", "login with pw=" + M + " now"},
	{"pwd=", "mysql -u root --pwd=hunter2", "mysql -u root --pwd=" + M},
	{"PWD= quoted", `PWD="hunter2"`, `PWD="` + M + `"`},
	{"passwd=", "passwd=hunter2;", "passwd=" + M + ";"},
	{"password=", "?user=bob&password=hunter2&x=1", "?user=bob&password=" + M + "&x=1"},
	{"password:", "password: hunter2\nuser: bob", "password: " + M + "\nuser: bob"},
	{"Password: capitalised", "Password: hunter2", "Password: " + M},
	{"DB_PASSWORD=", "DB_PASSWORD=hunter2 ./run", "DB_PASSWORD=" + M + " ./run"},

	// Look-alikes that stay.
	{"task- and disk- ids", "task-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c and disk-0123456789abcdefABCDEF", ""},
	{"words ending in sk", "desk-9f8e7d6c5b4a39281706abcd risk-free whisk-0123456789abcdefghij", ""},
	{"sk- slugs", "pip install sk-learn; see sk-this-is-a-long-slug-with-2-numbers-in-it now", ""},
	{"sk- short", "the sk-1 model and sk-abc123 too", ""},
	{"sk- after a dash or underscore", "my-sk-4f9a8b7c6d5e4f3a2b1c0d9e8f and x_sk-4f9a8b7c6d5e4f3a2b1c0d9e8f", ""},
	{"github prefixes inside words", "xghp_R4nd0mPers0nalAcc3ssT0kenAbCdEf1234 and mygithub_pat_11ABCDEFG0123456789_abcdefghijkl", ""},
	{"github too short", "ghp_short1 and gho_abc are not tokens", ""},
	{"aws wrong length", "AKIAIOSFODNN7EXAMPLEX and AKIA1234 mid-text", ""},
	{"aws inside a word", "XAKIAIOSFODNN7EXAMPLE", ""},
	{"asia the word", "Trip to Asia and ASIA PACIFIC, ASIAN food", ""},
	{"slack look-alikes", "xoxo hugs, xoxb-short, xox-b-1234567890", ""},
	{"PWD is a directory", "PWD=/home/alice/projects OLDPWD=/tmp pwd=~/x", ""},
	{"password in prose", "the password is strong and pw is short", ""},
	{"cwd and pwdump", "cwd=/srv pwdump ran", ""},
	{"ids a replay needs", "run 5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d on agent:main:main, r1-connect, call_1", ""},
}

func wrapText(s string) string {
	b, _ := json.Marshal(s)
	return `{"type":"event","event":"chat","payload":{"runId":"r1","sessionKey":"agent:main:main","state":"final","message":{"role":"assistant","content":[{"type":"text","text":` + string(b) + `}]}}}`
}

func TestTextCorpus(t *testing.T) {
	for _, c := range textCorpus {
		t.Run(c.name, func(t *testing.T) {
			want := c.want
			if want == "" {
				want = c.in
			}
			// In a frame's string value (message text).
			in := []byte(wrapText(c.in))
			r := New(Options{})
			out := r.Frame(capture.DirIn, in)
			var got struct {
				Payload struct {
					Message struct {
						Content []struct{ Text string }
					}
				}
			}
			if err := json.Unmarshal(out, &got); err != nil || len(got.Payload.Message.Content) != 1 {
				t.Fatalf("output is not the frame: %v %s", err, out)
			}
			if s := got.Payload.Message.Content[0].Text; s != want {
				t.Fatalf("frame text\n got %q\nwant %q", s, want)
			}
			if want == c.in && !sameSlice(in, out) {
				t.Fatalf("a frame with nothing to replace was copied")
			}
			// Redacting again changes nothing.
			if again := New(Options{}).Frame(capture.DirIn, out); !sameSlice(again, out) {
				t.Fatalf("not idempotent:\n%s\n%s", out, again)
			}
			// In a message that is not JSON, and in a marker's reason.
			raw := New(Options{}).Record(&capture.Record{Conn: 1, IsRaw: true, Raw: []byte(c.in)})
			if string(raw.Raw) != want {
				t.Fatalf("raw text\n got %q\nwant %q", raw.Raw, want)
			}
			mk := New(Options{}).Record(&capture.Record{Conn: 1, Mark: capture.MarkClose, Code: 1008, Reason: c.in})
			if mk.Reason != want {
				t.Fatalf("marker reason\n got %q\nwant %q", mk.Reason, want)
			}
		})
	}
}

// Every corpus line with something to replace gets past the pre-scan.
func TestPrescanCoversShapes(t *testing.T) {
	for _, c := range textCorpus {
		if c.want == "" {
			continue
		}
		if f := wrapText(c.in); !mayHaveCredentials([]byte(f)) {
			t.Errorf("%s: pre-scan misses %s", c.name, f)
		}
	}
	// Escapes before a token: the walk reads "\n" as a newline, the
	// pre-scan sees the letter n.
	for _, f := range []string{`{"a":"x\n` + skTok + `"}`, `{"a":"\t` + akiaTok + `"}`, `{"a":"\"` + ghpTok + `\""}`} {
		if !mayHaveCredentials([]byte(f)) {
			t.Errorf("pre-scan misses %s", f)
		}
		if out := New(Options{}).Frame("in", []byte(f)); strings.Contains(string(out), "4f9a8b7c6d5e") || strings.Contains(string(out), "IOSFODNN") || strings.Contains(string(out), "R4nd0m") {
			t.Errorf("walk misses %s: %s", f, out)
		}
	}
	// Ordinary text with look-alikes does not cost a walk.
	for _, f := range []string{wrapText("Trip to Asia, ask a task-runner, xoxo"), wrapText("the disk-usage report as of today")} {
		if mayHaveCredentials([]byte(f)) {
			t.Errorf("pre-scan fires on %s", f)
		}
	}
}

// A token the model prints across streamed chunks: the part of it that the
// text so far shows to be a token never reaches the capture, in the
// cumulative text or in the chunk, on both streams, wherever it is cut.
// Before the cut shows that much (a bare prefix, or for AKIA, ASIA and sk-
// a body without a digit yet) the chunk is kept; so the test guards the
// token from its first digit on for those, and whole for the others.
func TestShapesSplitAcrossChunks(t *testing.T) {
	for _, tok := range shapeTokens {
		full := "Here you go: " + tok + " and restart."
		at := strings.Index(full, tok)
		guard := tok
		for _, sh := range tokenShapes {
			if strings.HasPrefix(tok, sh.prefix) {
				guard = tok[len(sh.prefix):]
				if sh.partialDigit {
					guard = guard[strings.IndexAny(guard, "0123456789"):]
				}
				break
			}
		}
		for cut := at + 1; cut < at+len(tok); cut++ {
			r := New(Options{})
			text := ""
			for i, c := range []string{full[:cut], full[cut:]} {
				text += c
				a := fmt.Sprintf(`{"type":"event","event":"agent","payload":{"runId":"r1","stream":"assistant","data":{"text":%q,"delta":%q},"sessionKey":"agent:main:main","seq":%d}}`, text, c, i+1)
				ch := fmt.Sprintf(`{"type":"event","event":"chat","payload":{"runId":"r1","sessionKey":"agent:main:main","seq":%d,"state":"delta","deltaText":%q,"message":{"role":"assistant","content":[{"type":"text","text":%q}]}}}`, i+1, c, text)
				for _, f := range []string{a, ch} {
					out := string(r.Frame("in", []byte(f)))
					for k := 0; k+6 <= len(guard); k++ {
						if strings.Contains(out, guard[k:k+6]) {
							t.Fatalf("%s cut at %d, chunk %d: %q survived in %s", tok, cut-at, i, guard[k:k+6], out)
						}
					}
					if i == 1 && !strings.Contains(out, "restart") {
						t.Fatalf("the text around the token was lost: %s", out)
					}
				}
			}
		}
	}
}

// Requests that send a credential: device.token.rotate's params, and any
// method whose params carry a credential key; the response to the latter
// is a credential result too.
func TestCredentialRequests(t *testing.T) {
	steps := []struct{ in, want string }{
		// device.token.rotate: every string of params but the descriptive keys.
		{`{"type":"req","id":"1","method":"device.token.rotate","params":{"deviceId":"dev1","role":"operator","scopes":["operator.read"],"reason":"the old one leaked","currentToken":"old-tok"}}`,
			`{"type":"req","id":"1","method":"device.token.rotate","params":{"deviceId":"dev1","role":"operator","scopes":["operator.read"],"reason":"` + M + `","currentToken":"` + M + `"}}`},
		// A method that logs in: its password goes, and what it hands back.
		{`{"type":"req","id":"2","method":"provider.login","params":{"provider":"acme","user":"bob","password":"hunter2"}}`,
			`{"type":"req","id":"2","method":"provider.login","params":{"provider":"acme","user":"bob","password":"` + M + `"}}`},
		{`{"type":"res","id":"2","ok":true,"payload":{"provider":"acme","session":"sess-opaque-1","expiresAtMs":5,"status":"ok"}}`,
			`{"type":"res","id":"2","ok":true,"payload":{"provider":"acme","session":"` + M + `","expiresAtMs":5,"status":"ok"}}`},
		// Deep, and in snake and kebab case.
		{`{"type":"req","id":"3","method":"plugins.configure","params":{"plugin":"x","settings":{"oauth":{"client_secret":"cs-1","API-KEY":"ak-2"}}}}`,
			`{"type":"req","id":"3","method":"plugins.configure","params":{"plugin":"x","settings":{"oauth":{"client_secret":"` + M + `","API-KEY":"` + M + `"}}}}`},
		{`{"type":"res","id":"3","ok":true,"payload":{"plugin":"x","handle":"h-123"}}`,
			`{"type":"res","id":"3","ok":true,"payload":{"plugin":"` + M + `","handle":"` + M + `"}}`},
		// A credential key with no credential in it (a flag) asks for nothing.
		{`{"type":"req","id":"4","method":"models.list","params":{"includeSecrets":false,"apiKey":null}}`, ``},
		{`{"type":"res","id":"4","ok":true,"payload":{"models":["m1"]}}`, ``},
		// connect has its own rules: hello-ok is not wiped.
		{`{"type":"req","id":"5","method":"connect","params":{"auth":{"token":"t"}}}`, `{"type":"req","id":"5","method":"connect","params":{"auth":{"token":"` + M + `"}}}`},
		{`{"type":"res","id":"5","ok":true,"payload":{"type":"hello-ok","protocol":4,"server":{"version":"2026.9.6"}}}`, ``},
		// A plain request and its answer are untouched.
		{`{"type":"req","id":"6","method":"chat.send","params":{"sessionKey":"agent:main:main","message":"hi","idempotencyKey":"k"}}`, ``},
		{`{"type":"res","id":"6","ok":true,"payload":{"runId":"k","status":"started"}}`, ``},
	}
	r := New(Options{})
	for i, s := range steps {
		want := s.want
		if want == "" {
			want = s.in
		}
		got := frameOf(r, s.in)
		if got != want {
			t.Fatalf("step %d\n got %s\nwant %s", i, got, want)
		}
		if !jsonx.Valid([]byte(got)) {
			t.Fatalf("step %d: invalid JSON %s", i, got)
		}
	}
}
