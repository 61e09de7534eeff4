package redact

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
)

// shapeFixtures has a made-up credential of every shape docs/redaction.md
// lists (none of them is real; their bodies are random letters and
// digits), each in a sentence. Every one must be replaced whole wherever
// it is: in a frame's text, in a message that is not JSON, inside JSON
// inside a string, and in a capture redacted on read.
var shapeFixtures = []struct{ name, token string }{
	{"GitHub classic PAT", ghpTok},
	{"GitHub OAuth", ghoTok},
	{"GitHub user-to-server", ghuTok},
	{"GitHub server-to-server", ghsTok},
	{"GitHub refresh", ghrTok},
	{"GitHub other gh?_", "ghx_Zq8mR2vT6wY1kP4nB7cD0fG3hJ5lS9aE2uI"},
	{"GitHub fine-grained", patTok},
	{"GitLab PAT", "glpat-Xq7Lm2Np9Rs4Tv6Wy8Za"},
	{"GitLab pipeline trigger", "glptt-0f1e2d3c4b5a69788796a5b4c3d2e1f0a9b8c7d6"},
	{"GitLab deploy", "gldt-Ab3Cd5Ef7Gh9Ij1Kl2Mn"},
	{"GitLab runner", "glrt-Ab3Cd5Ef7Gh9Ij1Kl2Mn"},
	{"GitLab CI job", "glcbt-Ab3Cd5Ef7Gh9Ij1Kl2Mn"},
	{"GitLab other gl*-", "glnew-Ab3Cd5Ef7Gh9Ij1Kl2Mn4"},
	{"AWS access key id", akiaTok},
	{"AWS temporary key id", asiaTok},
	{"Slack bot", xoxbTok},
	{"Slack user", xoxpTok},
	{"Slack app-level", "xapp-1-A0123456789-1234567890123-0a1b2c3d4e5f60718293a4b5c6d7e8f9"},
	{"Slack config refresh", "xoxe-1-My4xNjY5OTg0NTI3MDItMTIzNDU2Nzg5MDEyMw"},
	{"Slack client", "xoxc-2345678901-3456789012-4567890123-abcdef012345"},
	{"OpenAI legacy", skTok},
	{"OpenAI project", skProjTok},
	{"Anthropic", skAntTok},
	{"Stripe live secret", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"},
	{"Stripe test secret", "sk_test_4eC39HqLyjWDarjtT1zdp7dc"},
	{"Stripe restricted", "rk_live_51H8xYzAbCdEfGhIjKlMnOp"},
	{"Stripe webhook", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"},
	{"Google API key", "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"},
	{"Google OAuth client secret", "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"},
	{"Google OAuth access token", "ya29.a0AfH6SMBx1y2z3A4b5C6d7E8f9G0h"},
	{"npm", "npm_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2"},
	{"PyPI", "pypi-AgEIcHlwaS5vcmcCJDk4ZGY5MmM2LTRiYjUtNGE3Zi1iYzM4LWQwZWYxMjM0NTY3OAACKlsz"},
	{"Hugging Face", "hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh"},
	{"Hugging Face org", "api_org_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh"},
	{"Groq", "gsk_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3Ab4Cd5Ef6Gh7"},
	{"Perplexity", "pplx-Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3Ab4Cd5"},
	{"xAI", "xai-Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3Ab4Cd5Ef6Gh7Ij8Kl9Mn0Op1Qr2St3Uv4Wx5Yz6Ab7Cd8E"},
	{"Replicate", "r8_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2"},
	{"SendGrid", "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"},
	{"Twilio API key", "SK0123456789abcdef0123456789abcdef"},
	{"Mailgun", "key-0123456789abcdef0123456789abcdef"},
	{"Mailchimp", "0123456789abcdef0123456789abcdef-us21"},
	{"DigitalOcean", "dop_v1_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"},
	{"Shopify", "shpat_0123456789abcdef0123456789abcdef"},
	{"Linear", "lin_api_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3Ab"},
	{"Notion", "ntn_12345678901Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0"},
	{"Grafana service account", "glsa_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv_0a1b2c3d"},
	{"Sentry user", "sntryu_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"},
	{"Postman", "PMAK-0123456789abcdef01234567-0123456789abcdef0123456789abcdef01"},
	{"Doppler", "dp.pt.Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3Ab"},
	{"Vault", "hvs.CAESIAb1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx"},
	{"age", "AGE-SECRET-KEY-1QQPZRY9X8GF2TVDW0S3JN54KHCE6MUA7LQQPZRY9X8GF2TVDW0S3JN54KHCE6M"},
	{"JWT", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkFsaWNlIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"},
	{"Discord bot", "MTA4NzY1NDMyMTA5ODc2NTQzMg.GbXyZa.Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx"},
	{"Telegram bot", "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0"},
	{"PEM private key", "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5oBaybDJ3yF7FoAoGCCqGSM49\n-----END EC PRIVATE KEY-----"},
}

// The whole token must go, and nothing that reads like part of it stay.
func checkGone(t *testing.T, where, out, tok string) {
	t.Helper()
	body := tok
	if len(body) > 12 {
		body = tok[len(tok)-12:]
	}
	if strings.Contains(out, body) || strings.Contains(out, tok[:min(len(tok), 20)]) && len(tok) > 24 {
		t.Errorf("%s: survived in %q", where, out)
	}
	if !strings.Contains(out, Marker) {
		t.Errorf("%s: no marker in %q", where, out)
	}
}

func TestShapeFixtures(t *testing.T) {
	for _, c := range shapeFixtures {
		t.Run(c.name, func(t *testing.T) {
			text := "here it is: " + c.token + " (do not share)"
			// In a frame's text.
			frame := wrapText(text)
			if !mayHaveCredentials([]byte(frame)) {
				t.Errorf("pre-scan misses it")
			}
			out := New(Options{}).Frame("in", []byte(frame))
			var v struct {
				Payload struct {
					Message struct{ Content []struct{ Text string } }
				}
			}
			if err := json.Unmarshal(out, &v); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			got := v.Payload.Message.Content[0].Text
			checkGone(t, "frame text", got, c.token)
			if !strings.HasPrefix(got, "here it is: ") || !strings.HasSuffix(got, " (do not share)") {
				t.Errorf("the words around it changed: %q", got)
			}
			// In a message that is not JSON.
			raw := New(Options{}).Record(&capture.Record{Conn: 1, IsRaw: true, Raw: []byte(text)})
			checkGone(t, "raw text", string(raw.Raw), c.token)
			// Inside JSON inside a string (a tool's output).
			inner, _ := json.Marshal(map[string]string{"note": text})
			frame = wrapText(string(inner))
			out = New(Options{}).Frame("in", []byte(frame))
			checkGone(t, "JSON in a string", string(out), c.token)
		})
	}
}

// Look-alikes of the new shapes stay: words, ids and slugs.
func TestShapeLookalikes(t *testing.T) {
	for _, s := range []string{
		"see glossary-of-terms-and-more-words-here and global-config",
		"a keyboard-shortcut, key-value store, key-0123",
		"npm_config_cache is set; hf_hub and api_org_name",
		"SKU0123456789abcdef0123456789abcdef, SKILLS.md, SG.registry",
		"sk_live_ is a prefix, rk_live_x, pk_live_4eC39HqLyjWDarjtT1zdp7dc (publishable)",
		"AIzaShort and the AIza prefix",
		"version 2026.9.6 at 12:30:45, run 5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d",
		"eyJ is how base64 of {\" starts; e.g. eyJhbGciOi alone",
		"file.name.with.many.dots and MTIzNDU2Nzg5MDEyMzQ1Njc4OTA.abc",
		"call 0123456789 at 10:30, order 12345:AB",
		"whsec_ placeholder, GOCSPX-short, ya29.short",
	} {
		frame := []byte(wrapText(s))
		if out := New(Options{}).Frame("in", frame); !bytes.Equal(out, frame) {
			t.Errorf("changed:\n in %s\nout %s", frame, out)
		}
	}
}

// URL user info: plain, with JSON's escaped slashes, and escaped again
// inside JSON text inside a string; and webhook URLs.
func TestURLPasswords(t *testing.T) {
	cases := []struct{ in, want string }{
		{"db at postgres://app:s3cr3tPass@db.internal:5432/app", "db at postgres://app:" + M + "@db.internal:5432/app"},
		{`{"url":"https:\/\/bob:hunter22@gw.example\/x"}`, `{"url":"https:\/\/bob:` + M + `@gw.example\/x"}`},
		{`{\"url\":\"https:\\\/\\\/bob:hunter22@gw.example\\\/x\"}`, `{\"url\":\"https:\\\/\\\/bob:` + M + `@gw.example\\\/x\"}`},
		{"post to https://hooks.slack.com/services/T0ABCDEF1/B0ABCDEF2/AbCdEfGhIjKlMnOpQrStUvWx now", "post to https://hooks.slack.com/services/" + M + " now"},
		{"https://discord.com/api/webhooks/123456789012345678/Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3Ab4Cd5Ef6Gh7Ij8Kl9Mn0Op1Qr2", "https://discord.com/api/webhooks/123456789012345678/" + M},
	}
	for _, c := range cases {
		raw := New(Options{}).Record(&capture.Record{Conn: 1, IsRaw: true, Raw: []byte(c.in)})
		if string(raw.Raw) != c.want {
			t.Errorf("\n  in %s\n got %s\nwant %s", c.in, raw.Raw, c.want)
		}
		// The same text as a frame's string value.
		frame, _ := json.Marshal(map[string]string{"text": c.in})
		out := New(Options{}).Frame("in", frame)
		var v map[string]string
		if err := json.Unmarshal(out, &v); err != nil || v["text"] != c.want {
			t.Errorf("in a frame\n  in %s\n got %s\nwant %s", frame, out, c.want)
		}
	}
}

// AWS secret access keys are found by their name, next to a 40-byte
// base64 value: in config files, env, JSON and the aws configure prompt.
func TestAWSSecretAccessKey(t *testing.T) {
	const sec = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	for _, in := range []string{
		"[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = " + sec + "\n",
		"export AWS_SECRET_ACCESS_KEY=" + sec,
		`{"AccessKeyId":"ASIAY34FZKBOKMUTVV7A","SecretAccessKey":"` + sec + `","SessionToken":"FwoGZXIvYXdzEBYaDH"}`,
		"AWS Secret Access Key [None]: " + sec,
		"secretAccessKey: " + sec,
	} {
		raw := New(Options{}).Record(&capture.Record{Conn: 1, IsRaw: true, Raw: []byte(in)})
		if strings.Contains(string(raw.Raw), "EXAMPLEKEY") || strings.Contains(string(raw.Raw), "FODNN7") {
			t.Errorf("survived:\n in %q\nout %q", in, raw.Raw)
		}
		frame := []byte(wrapText(in))
		if out := New(Options{}).Frame("in", frame); strings.Contains(string(out), "EXAMPLEKEY") {
			t.Errorf("survived in a frame: %s", out)
		}
	}
}
