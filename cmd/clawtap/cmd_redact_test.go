package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawtap/clawtap/pkg/capture"
)

// Secrets planted in redactInput; none may reach the output.
var redactSecrets = []string{"oc-cli-token-1", "sig-cli-2", "nonce-cli-3", "devtok-cli-4", "captok-cli-5", "sk-cli-6", "urltok-cli-7"}

const redactPlain = `{"type":"event","event":"chat","seq":3,"payload":{"runId":"r1","sessionKey":"agent:main:main","seq":2,"state":"delta","deltaText":" there","message":{"role":"assistant","content":[{"type":"text","text":"Hi there"}],"timestamp":1}}}`

// redactInput writes a small capture (plain or .zst by name) with one
// secret-free frame and secrets in a connect, a hello-ok, a tool result and
// a marker.
func redactInput(t *testing.T, path string) {
	t.Helper()
	w, err := capture.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	h := capture.NewHeader(time.Unix(1795317835, 0), capture.Source{Tool: "clawtap test", Mode: "record", URL: "ws://127.0.0.1:18789"})
	h.Redaction = &capture.Redaction{Credentials: false, Notes: []string{"recorded with --no-redact"}}
	must(t, w.WriteHeader(h))
	must(t, w.Write(&capture.Record{T: 1, Conn: 1, Mark: capture.MarkOpen, URL: "ws://127.0.0.1:18789/?token=" + redactSecrets[6]}))
	frames := []struct{ dir, f string }{
		{"in", `{"type":"event","event":"connect.challenge","payload":{"nonce":"` + redactSecrets[2] + `","ts":1}}`},
		{"out", `{"type":"req","id":"r1","method":"connect","params":{"minProtocol":3,"maxProtocol":4,"auth":{"token":"` + redactSecrets[0] + `"},"device":{"id":"d1","signature":"` + redactSecrets[1] + `","nonce":"` + redactSecrets[2] + `"}}}`},
		{"in", `{"type":"res","id":"r1","ok":true,"payload":{"type":"hello-ok","protocol":4,"canvasHostUrl":"http://127.0.0.1:18793/__openclaw__/cap/` + redactSecrets[4] + `","auth":{"role":"operator","deviceToken":"` + redactSecrets[3] + `"}}}`},
		{"in", redactPlain},
		{"in", `{"type":"event","event":"agent","payload":{"runId":"r1","stream":"tool","data":{"phase":"result","result":{"content":[{"type":"text","text":"OPENAI_API_KEY=` + redactSecrets[5] + `"}]}}}}`},
	}
	for i, f := range frames {
		must(t, w.Write(&capture.Record{T: int64(2 + i), Conn: 1, Dir: f.dir, Frame: []byte(f.f)}))
	}
	must(t, w.Close())
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func readAll(t *testing.T, path string) (*capture.Header, []*capture.Record) {
	t.Helper()
	r, err := capture.Open(path, capture.Options{})
	must(t, err)
	defer r.Close()
	var recs []*capture.Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		must(t, err)
		recs = append(recs, rec.Clone())
	}
	return r.Header(), recs
}

func TestRedactCommand(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl.zst")
	out := filepath.Join(dir, "out.jsonl.zst")
	redactInput(t, in)

	r := run(t, "", "redact", in, "-o", out)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if r.stdout != "" {
		t.Errorf("stdout: %q", r.stdout)
	}
	if !strings.Contains(r.stderr, "clawtap: redacted 6 records: 4 of 5 frames changed") {
		t.Errorf("summary: %q", r.stderr)
	}
	fi, err := os.Stat(out)
	must(t, err)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	raw, _ := os.ReadFile(out)
	if !bytes.HasPrefix(raw, []byte{0x28, 0xB5, 0x2F, 0xFD}) {
		t.Errorf(".zst output is not zstd")
	}
	h, recs := readAll(t, out)
	if h == nil || h.Source.Mode != "record" || h.Redaction == nil || !h.Redaction.Credentials || h.Redaction.Content {
		t.Fatalf("header: %+v", h)
	}
	notes := strings.Join(h.Redaction.Notes, "|")
	if !strings.Contains(notes, "recorded with --no-redact") || !strings.Contains(notes, "redacted by clawtap redact") {
		t.Errorf("notes: %q", notes)
	}
	var all bytes.Buffer
	for _, rec := range recs {
		all.Write(rec.AppendJSON(nil))
	}
	for _, s := range redactSecrets {
		if strings.Contains(all.String(), s) {
			t.Errorf("secret %s survived", s)
		}
	}
	if len(recs) != 6 || string(recs[4].Frame) != redactPlain {
		t.Errorf("the frame without secrets is not byte-identical: %s", recs[4].Frame)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("left behind: %v", entries)
	}
}

func TestRedactRefusesToOverwrite(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	out := filepath.Join(dir, "out.jsonl")
	redactInput(t, in)
	must(t, os.WriteFile(out, []byte("keep me\n"), 0o600))

	r := run(t, "", "redact", in, "-o", out)
	if r.code != 2 || !strings.Contains(r.stderr, "already exists") || !strings.Contains(r.stderr, "clawtap: hint:") || !strings.Contains(r.stderr, "--force") {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(out); string(b) != "keep me\n" {
		t.Fatalf("output touched: %q", b)
	}
	if r := run(t, "", "redact", "--force", in, "-o", out); r.code != 0 {
		t.Fatalf("--force: exit %d: %s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(out); !strings.Contains(string(b), "__CLAWTAP_REDACTED__") {
		t.Fatalf("not overwritten: %q", b)
	}
	// Never over its own input, even forced.
	if r := run(t, "", "redact", "--force", in, "-o", in); r.code != 2 || !strings.Contains(r.stderr, "is the input") {
		t.Fatalf("same file: exit %d: %s", r.code, r.stderr)
	}
}

func TestRedactStdinToStdout(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	redactInput(t, in)
	b, _ := os.ReadFile(in)

	r := run(t, string(b), "redact", "-", "-o", "-")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 7 {
		t.Fatalf("%d lines:\n%s", len(lines), r.stdout)
	}
	var h capture.Header
	must(t, json.Unmarshal([]byte(lines[0]), &h))
	if h.Redaction == nil || h.Source.Mode != "record" {
		t.Fatalf("header: %s", lines[0])
	}
	for _, s := range redactSecrets {
		if strings.Contains(r.stdout, s) {
			t.Errorf("secret %s survived", s)
		}
	}
}

func TestRedactBareFrames(t *testing.T) {
	in := `{"type":"req","id":"1","method":"connect","params":{"auth":{"password":"pw-bare-1"}}}` + "\n" + redactPlain + "\n"
	r := run(t, in, "redact", "-", "-o", "-")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	first := strings.SplitN(r.stdout, "\n", 2)[0]
	var h capture.Header
	must(t, json.Unmarshal([]byte(first), &h))
	if h.Version != capture.Version || h.Source.Mode != "redact" || h.Source.From != "stdin" || h.Redaction == nil {
		t.Fatalf("header: %s", first)
	}
	if strings.Contains(r.stdout, "pw-bare-1") || !strings.Contains(r.stdout, redactPlain) {
		t.Fatalf("output:\n%s", r.stdout)
	}
}

// --content with a salt file gives the same output on every run, and
// masks the text.
func TestRedactContentReproducible(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	salt := filepath.Join(dir, "salt")
	redactInput(t, in)
	must(t, os.WriteFile(salt, []byte("0123456789abcdef0123456789abcdef\n"), 0o600))

	var outs []string
	for i := 0; i < 2; i++ {
		r := run(t, "", "redact", "--content", "--salt-file", salt, in, "-o", "-")
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		if !strings.Contains(r.stderr, "strings masked") {
			t.Errorf("summary: %s", r.stderr)
		}
		outs = append(outs, r.stdout)
	}
	if outs[0] != outs[1] {
		t.Fatalf("runs differ:\n%s\n%s", outs[0], outs[1])
	}
	if strings.Contains(outs[0], "Hi there") || !strings.Contains(outs[0], `"deltaText":" xxxxx"`) || !strings.Contains(outs[0], `"content":true`) {
		t.Fatalf("content not masked:\n%s", outs[0])
	}
}

func TestRedactUsageErrors(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	redactInput(t, in)
	empty := filepath.Join(dir, "empty")
	must(t, os.WriteFile(empty, []byte("\n"), 0o600))
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no output", []string{"redact", in}, "no output given"},
		{"no input file", []string{"redact", filepath.Join(dir, "nope.jsonl"), "-o", "-"}, "no such file"},
		{"two inputs", []string{"redact", in, in, "-o", "-"}, "accepts 1 arg"},
		{"missing salt file", []string{"redact", "--salt-file", filepath.Join(dir, "nope"), in, "-o", "-"}, "read salt file"},
		{"empty salt file", []string{"redact", "--salt-file", empty, in, "-o", "-"}, "is empty"},
		{"output dir missing", []string{"redact", in, "-o", filepath.Join(dir, "no", "such", "dir.jsonl")}, "the folder " + filepath.Join(dir, "no", "such") + " does not exist"},
		{"output is a directory", []string{"redact", "--force", in, "-o", dir}, "is a directory"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := run(t, "", c.args...)
			if r.code != 2 || !strings.Contains(r.stderr, c.want) || r.stdout != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
			}
		})
	}
}

func TestRedactWarnsAboutUnreadableLines(t *testing.T) {
	in := redactPlain + "\n" + `{"t":1,"frame":{"type":"req","params":{"auth":{"token":"cut-tok-9"` + "\n"
	r := run(t, in, "redact", "-", "-o", "-")
	if r.code != 0 || !strings.Contains(r.stderr, "clawtap: warning: stdin: line 2") {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if strings.Contains(r.stdout, "cut-tok-9") {
		t.Fatalf("secret in an unreadable line survived:\n%s", r.stdout)
	}
	if q := run(t, in, "-q", "redact", "-", "-o", "-"); q.stderr != "" {
		t.Fatalf("--quiet: %q", q.stderr)
	}
}

func TestRedactHelp(t *testing.T) {
	r := run(t, "", "redact", "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "clawtap redact fixtures/demo.jsonl.zst -o demo.redacted.jsonl.zst") || !strings.Contains(r.stdout, "--salt-file") {
		t.Fatalf("exit %d:\n%s", r.code, r.stdout)
	}
}
