package redact

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/clawtap/clawtap/pkg/jsonx"
)

var timeZero = time.Unix(1795317835, 0)

func getStr(t *testing.T, frame []byte, path ...string) string {
	t.Helper()
	v, ok := jsonx.GetPath(frame, path...)
	if !ok {
		t.Fatalf("no %v in %s", path, frame)
	}
	s, ok := jsonx.Str(v)
	if !ok {
		t.Fatalf("%v is not a string in %s", path, frame)
	}
	return s
}

func TestMask(t *testing.T) {
	for in, want := range map[string]string{
		"Hello, World 42!":    "Xxxxx, Xxxxx 00!",
		"naïve café — 3½ tés": "xxxxx xxxx — 00 xxx",
		"<think>plan</think>": "<xxxxx>xxxx</xxxxx>",
		"  \n\t":              "  \n\t",
		"emoji 🦦 ok":          "xxxxx 🦦 xx",
		"日本語":                 "xxx",
	} {
		if got := string(mask([]byte(in), nil)); got != want {
			t.Errorf("mask(%q) = %q, want %q", in, got, want)
		}
	}
}

// mask is a homomorphism: masking the pieces and joining them is masking
// the whole, so cumulative text and deltas stay consistent.
func TestMaskSplitsAnywhere(t *testing.T) {
	s := "Otters hold hands (5×) while sleeping — ça va? 日本"
	whole := string(mask([]byte(s), nil))
	for i := range s {
		if got := string(mask([]byte(s[:i]), nil)) + string(mask([]byte(s[i:]), nil)); got != whole {
			t.Fatalf("split at %d: %q != %q", i, got, whole)
		}
	}
}

// A streamed run redacted with Content still adds up: the concatenated
// deltas equal the cumulative text, on both the agent and chat streams.
func TestContentStreamStaysConsistent(t *testing.T) {
	r := New(Options{Content: true})
	chunks := []string{"Two", " otters", " walk into", " a bar — the", " 3rd one's ", "a seal."}
	var agentAcc, chatAcc, text string
	for i, c := range chunks {
		text += c
		a := fmt.Sprintf(`{"type":"event","event":"agent","payload":{"runId":"r1","stream":"assistant","data":{"text":%q,"delta":%q},"sessionKey":"agent:main:main","seq":%d}}`, text, c, i+1)
		ch := fmt.Sprintf(`{"type":"event","event":"chat","payload":{"runId":"r1","sessionKey":"agent:main:main","seq":%d,"state":"delta","deltaText":%q,"message":{"role":"assistant","content":[{"type":"text","text":%q}]}}}`, i+1, c, text)
		ao := r.Frame("in", []byte(a))
		co := r.Frame("in", []byte(ch))
		agentAcc += getStr(t, ao, "payload", "data", "delta")
		chatAcc += getStr(t, co, "payload", "deltaText")
		if got := getStr(t, ao, "payload", "data", "text"); got != agentAcc {
			t.Fatalf("agent: text %q, deltas %q", got, agentAcc)
		}
		msg, _ := jsonx.GetPath(co, "payload", "message", "content")
		var first []byte
		_ = jsonx.ArrayEach(msg, func(v []byte) bool { first = v; return false })
		if got := getStr(t, first, "text"); got != chatAcc {
			t.Fatalf("chat: text %q, deltas %q", got, chatAcc)
		}
		if got := getStr(t, co, "payload", "state"); got != "delta" {
			t.Fatalf("state changed: %q", got)
		}
		for _, w := range []string{"otters", "seal", "bar"} {
			if strings.Contains(string(ao)+string(co), w) {
				t.Fatalf("%q survived: %s %s", w, ao, co)
			}
		}
	}
	if want := string(mask([]byte(text), nil)); agentAcc != want {
		t.Fatalf("%q != %q", agentAcc, want)
	}
}

func TestContentFields(t *testing.T) {
	img := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("PNG image bytes ", 20)))
	r := New(Options{Content: true, Salt: []byte("fixed")})
	cases := []struct {
		name, in string
		gone     []string // must not survive
		kept     []string // must survive
	}{
		{"chat.send", `{"type":"req","id":"2","method":"chat.send","params":{"sessionKey":"agent:main:main","message":"Tell me about otters","thinking":"high","idempotencyKey":"k-1","attachments":[{"type":"image","mimeType":"image/png","fileName":"otter.png","content":"` + img + `"}]}}`,
			[]string{"otters", img, "otter.png"}, []string{`"thinking":"high"`, `"mimeType":"image/png"`, `"sessionKey":"agent:main:main"`, `"idempotencyKey":"k-1"`, "«blob:"}},
		{"image block and data URL", `{"message":{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + img + `"}},{"type":"image_url","url":"data:image/png;base64,` + img + `"}]}}`,
			[]string{img}, []string{`"media_type":"image/png"`, `"url":"data:image/png;base64,«blob:`}},
		{"thinking", `{"type":"event","event":"agent","payload":{"stream":"thinking","data":{"text":"I should mention seals","delta":"seals"}}}`,
			[]string{"seals", "mention"}, []string{`"stream":"thinking"`}},
		{"tool start", toolStart, []string{"projects", "ls -la", "alice"}, []string{`"name":"exec"`, `"toolCallId":"call_1"`, `"timeout":30`, `"phase":"start"`}},
		{"tool result", toolResult, []string{"notes.txt", "drwx", "alice"}, []string{`"isError":false`, `"exitCode":0`}},
		{"exec approval", approval, []string{"rm -rf", "cache", "OPENAI", "site", "123456789", "acct-4242", "alice"},
			[]string{`"host":"gateway"`, `"security":"allowlist"`, `"turnSourceChannel":"telegram"`, `"agent:main:telegram:direct:`}},
		{"logs.tail", `{"type":"res","id":"5","ok":true,"payload":{"file":"/home/alice/.openclaw/logs/openclaw-2026-11-22.log","cursor":10,"lines":["{\"msg\":\"user said hi\"}"]}}`,
			[]string{"alice", "user said hi"}, []string{`"cursor":10`, `openclaw-2026-11-22.log`}},
		{"errors", `{"type":"event","event":"chat","payload":{"runId":"r","sessionKey":"agent:main:main","state":"error","errorMessage":"provider said: your prompt about otters","errorKind":"refusal","errorDetail":{"providerErrorMessagePreview":"otters are off limits"}}}`,
			[]string{"otters", "provider said"}, []string{`"errorKind":"refusal"`, `"state":"error"`}},
		{"terminal and command output", `{"type":"event","event":"terminal.data","payload":{"id":"t1","data":"$ whoami\r\nalice\r\n"}}`, []string{"whoami", "alice"}, []string{`"id":"t1"`}},
		{"presence", presenceV4, []string{"alice-laptop", "192.168.1.23", "Alice Example", "alice@example.com", "9c3e1f7a5b2d", "0b6f4a7e-2c1d", "u-77"},
			[]string{`"host":"gateway"`, `"mode":"ui"`, `"ip":"10.`}},
		{"connect", connectV4, []string{"alice-laptop", "9c3e1f7a5b2d", "Qm9ndXNQ", "0b6f4a7e-2c1d", "oc-test-shared-token"},
			[]string{`"id":"cli"`, `"mode":"cli"`, `"platform":"linux"`, `"scopes":["operator.admin"`}},
		{"hello paths", helloV4, []string{"/home/alice", "ffa8dd64-1b2c"}, []string{"/home/", "/.openclaw/openclaw.json", `"mainSessionKey":"agent:main:main"`, `"bootId":"7d1c2b3a`}},
		{"session rows", `{"type":"res","id":"3","ok":true,"payload":{"sessions":[{"key":"agent:main:whatsapp:direct:+15551234567","lastTo":"+15551234567","lastChannel":"whatsapp","deliveryContext":{"channel":"whatsapp","to":"+15551234567","accountId":"default-acct"},"origin":{"provider":"whatsapp","from":"alice@s.whatsapp.net","label":"Alice"}}]}}`,
			[]string{"5551234567", "alice", "Alice", "default-acct"}, []string{`"key":"agent:main:whatsapp:direct:+`, `"lastChannel":"whatsapp"`, `"channel":"whatsapp"`, `"provider":"whatsapp"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := r.Frame("in", []byte(c.in))
			if !jsonx.Valid(out) {
				t.Fatalf("invalid JSON: %s", out)
			}
			for _, g := range c.gone {
				if strings.Contains(string(out), g) {
					t.Errorf("%q survived: %s", g, out)
				}
			}
			for _, k := range c.kept {
				if !strings.Contains(string(out), k) {
					t.Errorf("%q lost: %s", k, out)
				}
			}
		})
	}
}

func TestPseudonyms(t *testing.T) {
	a := New(Options{Content: true, Salt: []byte("salt-A")})
	a2 := New(Options{Content: true, Salt: []byte("salt-A")})
	b := New(Options{Content: true, Salt: []byte("salt-B")})
	uuid := "0b6f4a7e-2c1d-4e8f-9a3b-5c6d7e8f9a0b"
	dev := "9c3e1f7a5b2d4c6e8f0a1b3c5d7e9f1a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e"
	for _, s := range []string{uuid, dev, "alice-laptop", "+15551234567"} {
		p := a.pseudo(s)
		if p == s || p != a.pseudo(s) || p != a2.pseudo(s) {
			t.Errorf("%q: unstable or unchanged pseudonym %q", s, p)
		}
		if p == b.pseudo(s) {
			t.Errorf("%q: same pseudonym with another salt", s)
		}
		if len(p) != len(s) {
			t.Errorf("%q: length changed: %q", s, p)
		}
	}
	if !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`).MatchString(a.pseudo(uuid)) {
		t.Errorf("UUID shape lost: %s", a.pseudo(uuid))
	}
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(a.pseudo(dev)) {
		t.Errorf("hex shape lost: %s", a.pseudo(dev))
	}
	if p := a.pseudo("+15551234567"); !regexp.MustCompile(`^\+[0-9]{11}$`).MatchString(p) {
		t.Errorf("phone shape lost: %s", p)
	}
	// Same id in different fields of different frames → same pseudonym.
	f1 := a.Frame("in", []byte(`{"payload":{"deviceId":"`+dev+`"}}`))
	f2 := a.Frame("out", []byte(`{"type":"req","id":"1","method":"connect","params":{"device":{"id":"`+dev+`"}}}`))
	if getStr(t, f1, "payload", "deviceId") != getStr(t, f2, "params", "device", "id") {
		t.Errorf("deviceId and device.id disagree: %s %s", f1, f2)
	}
	// Session keys keep agent:<id>: and the channel words; the peer id
	// matches the pseudonym of the same peer in lastTo.
	sk := a.pseudoSessionKey("agent:main:telegram:direct:123456789")
	if !strings.HasPrefix(sk, "agent:main:telegram:direct:") || strings.HasSuffix(sk, "123456789") {
		t.Errorf("session key: %s", sk)
	}
	if to := a.pseudoPeer("123456789"); !strings.HasSuffix(sk, ":"+to) {
		t.Errorf("lastTo %s does not match session key %s", to, sk)
	}
	for _, keep := range []string{"agent:main:main", "agent:ops:subagent:" + uuid, "agent:main:cron:" + uuid, "global", "main"} {
		if got := a.pseudoSessionKey(keep); got != keep {
			t.Errorf("%s became %s", keep, got)
		}
	}
	if got := a.pseudoIP("127.0.0.1"); got != "127.0.0.1" {
		t.Errorf("loopback changed: %s", got)
	}
	if got := a.pseudoIP("2001:db8::1"); !strings.HasPrefix(got, "fd") {
		t.Errorf("IPv6: %s", got)
	}
	if got := a.pseudoHost("127.0.0.1:53422"); got != "127.0.0.1:53422" {
		t.Errorf("peer: %s", got)
	}
	if got := a.pseudoPaths(`C:\Users\alice\x and /Users/Shared/y`); strings.Contains(got, "alice") || !strings.Contains(got, "/Users/Shared/y") {
		t.Errorf("paths: %s", got)
	}
}

// Blob placeholders are stable within a Redactor and differ per payload.
func TestBlobStable(t *testing.T) {
	r := New(Options{Content: true})
	p1 := string(r.blob([]byte("aaaa"), nil))
	p2 := string(r.blob([]byte("aaaa"), nil))
	p3 := string(r.blob([]byte("aaab"), nil))
	if p1 != p2 || p1 == p3 || !regexp.MustCompile(`^«blob:[0-9a-f]{12}:4»$`).MatchString(p1) {
		t.Fatalf("%s %s %s", p1, p2, p3)
	}
}

// A credential the model prints across two streamed chunks: the whole text
// has it, the later chunk holds only its tail, which matches no rule on its
// own. Its tail must not survive in the chunk fields (data.delta,
// deltaText) either, on both streams, wherever the split falls.
func TestCredentialSplitAcrossChunks(t *testing.T) {
	const secret = "sk-live-4f9a8b7c6d5e4f3a2b1c"
	full := "Set it with export OPENAI_API_KEY=" + secret + " and restart."
	at := strings.Index(full, secret)
	for cut := at + 1; cut < at+len(secret); cut += 3 {
		r := New(Options{})
		chunks := []string{full[:cut], full[cut:]}
		text := ""
		for i, c := range chunks {
			text += c
			a := fmt.Sprintf(`{"type":"event","event":"agent","payload":{"runId":"r1","stream":"assistant","data":{"text":%q,"delta":%q},"sessionKey":"agent:main:main","seq":%d}}`, text, c, i+1)
			ch := fmt.Sprintf(`{"type":"event","event":"chat","payload":{"runId":"r1","sessionKey":"agent:main:main","seq":%d,"state":"delta","deltaText":%q,"message":{"role":"assistant","content":[{"type":"text","text":%q}]}}}`, i+1, c, text)
			for _, f := range []string{a, ch} {
				out := string(r.Frame("in", []byte(f)))
				// Any 6 characters of the secret in a row would be a leak.
				for k := 0; k+6 <= len(secret); k++ {
					if strings.Contains(out, secret[k:k+6]) {
						t.Fatalf("cut at %d, chunk %d: %q survived in %s", cut-at, i, secret[k:k+6], out)
					}
				}
				if !strings.Contains(out, "restart") && i == 1 {
					t.Fatalf("the text around the credential was lost: %s", out)
				}
			}
		}
	}
}
