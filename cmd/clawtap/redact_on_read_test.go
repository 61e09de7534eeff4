package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// secretFrames are bare frames (no header: nothing says they were redacted)
// holding a token, a device signature and key shapes in texts.
const secretFrames = `{"type":"event","event":"connect.challenge","payload":{"nonce":"nonce-0123456789abcdef","ts":1795317835001}}
{"type":"req","id":"c1","method":"connect","params":{"minProtocol":3,"maxProtocol":4,"auth":{"token":"supersecretgatewaytoken123"},"device":{"id":"dev1","signature":"sigsigsigsigsig"}}}
{"type":"res","id":"c1","ok":true,"payload":{"type":"hello-ok","protocol":4,"server":{"version":"2026.9.6"},"auth":{"deviceToken":"devtok-9876543210"}}}
{"type":"req","id":"r9","method":"chat.send","params":{"sessionKey":"agent:main:main","message":"use sk-4f9aSECRETSECRETSECRET1234 please"}}
{"type":"res","id":"r9","ok":false,"error":{"code":"AUTH","message":"bad token sk-4f9aSECRETSECRETSECRET1234 password=hunter2hunter2"}}
{"type":"event","event":"chat","seq":1,"payload":{"runId":"run1","sessionKey":"agent:main:main","state":"final","message":{"role":"assistant","content":[{"type":"text","text":"your key ghp_R4ndomR4ndomR4ndomR4ndomR4ndom12 and AKIAIOSFODNN7EXAMPLE"}]}}}
`

var secrets = []string{"supersecretgatewaytoken123", "sigsigsigsigsig", "devtok-9876543210", "sk-4f9aSECRET", "hunter2hunter2", "ghp_R4ndom", "AKIAIOSFODNN7EXAMPLE"}

// A capture that does not say it was redacted is redacted as it is read:
// no command prints or writes its credentials unless asked to.
func TestUnredactedInputIsRedactedOnRead(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "frames.jsonl")
	if err := os.WriteFile(in, []byte(secretFrames), 0o600); err != nil {
		t.Fatal(err)
	}
	leaks := func(t *testing.T, what, s string) {
		t.Helper()
		for _, sec := range secrets {
			if strings.Contains(s, sec) {
				t.Errorf("%s shows %q", what, sec)
			}
		}
	}
	for _, args := range [][]string{
		{"classify", "--format", "json", in},
		{"intents", "--format", "json", in},
		{"replay", "--format", "text", in},
		{"check", "--format", "text", in},
		{"stats", "--format", "json", in},
		{"gaps", "--format", "json", in},
		{"validate", "--format", "text", in},
		{"diff", "--format", "text", in, in},
		{"diff", "--ui", "clawboo,claw3d", "--format", "text", in},
	} {
		res := run(t, "", args...)
		if res.code == 2 {
			t.Errorf("%v: exit 2: %s", args, res.stderr)
		}
		leaks(t, strings.Join(args[:1], " ")+" stdout", res.stdout)
		leaks(t, strings.Join(args[:1], " ")+" stderr", res.stderr)
		if n := strings.Count(res.stderr, "redacted as it is read"); n != 1 {
			t.Errorf("%v: said %d times (once per run) that the input was redacted on read:\n%s", args, n, res.stderr)
		}
	}
	page := filepath.Join(dir, "r.html")
	if res := run(t, "", "report", "-o", page, in); res.code != 0 {
		t.Fatalf("report: exit %d: %s", res.code, res.stderr)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	leaks(t, "report", string(b))

	// Asked for, the credentials are shown.
	res := run(t, "", "--show-credentials", "check", "--format", "text", in)
	if !strings.Contains(res.stdout, "hunter2hunter2") || strings.Contains(res.stderr, "redacted as it is read") {
		t.Errorf("--show-credentials: the error message should keep its text:\n%s%s", res.stdout, res.stderr)
	}
	// redact itself reads the input as written, and counts what it replaced.
	out := filepath.Join(dir, "red.jsonl")
	res = run(t, "", "redact", "-o", out, in)
	if res.code != 0 || !strings.Contains(res.stderr, "credentials replaced") || strings.Contains(res.stderr, "0 credentials replaced") {
		t.Errorf("redact: exit %d: %s", res.code, res.stderr)
	}
}

// A capture clawtap redacted itself is read without a word: shrink's output
// of bare frames says in its header that its credentials were redacted as
// shrink read them. A suite of such captures says it once, not once per
// capture, and not in its JUnit report.
func TestRedactedOnReadSaidOnce(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "frames.jsonl")
	if err := os.WriteFile(in, []byte(secretFrames), 0o600); err != nil {
		t.Fatal(err)
	}
	small := filepath.Join(dir, "small.jsonl")
	res := run(t, "", "shrink", in, "--rule", "request-failed", "-o", small)
	if res.code != 0 {
		t.Fatalf("shrink: exit %d: %s", res.code, res.stderr)
	}
	if n := strings.Count(res.stderr, "redacted as it is read"); n != 1 {
		t.Errorf("shrink said %d times that its input was redacted on read:\n%s", n, res.stderr)
	}
	b, err := os.ReadFile(small)
	if err != nil {
		t.Fatal(err)
	}
	for _, sec := range secrets {
		if strings.Contains(string(b), sec) {
			t.Errorf("shrink's output holds %q", sec)
		}
	}
	if res := run(t, "", "check", "--format", "text", small); strings.Contains(res.stderr, "redaction") || strings.Contains(res.stderr, "redacted") {
		t.Errorf("a capture shrink redacted is warned about:\n%s", res.stderr)
	}

	suiteDir := filepath.Join(dir, "suite")
	if err := os.Mkdir(suiteDir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a.jsonl", "b.jsonl", "c.jsonl"} {
		if err := os.WriteFile(filepath.Join(suiteDir, name), []byte(secretFrames), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if res := run(t, "", "test", "--update", suiteDir); res.code != 0 {
		t.Fatalf("test --update: exit %d: %s", res.code, res.stderr)
	}
	junit := filepath.Join(dir, "junit.xml")
	res = run(t, "", "test", "--format", "junit", "-o", junit, suiteDir)
	if res.code != 0 {
		t.Fatalf("test: exit %d: %s", res.code, res.stderr)
	}
	if n := strings.Count(res.stderr, "without redaction"); n != 1 || !strings.Contains(res.stderr, "3 captures were written without redaction") {
		t.Errorf("the suite said %d times that captures were written without redaction:\n%s", n, res.stderr)
	}
	if b, err := os.ReadFile(junit); err != nil || strings.Contains(string(b), "redaction") {
		t.Errorf("the JUnit report speaks of redaction (%v):\n%s", err, b)
	}
}
