package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// reshape writes the 2026.9.7 wire of a fixture through the safe writer,
// says what it did on stderr, and the capture it writes reads back as a
// reshaped one whose deltas are append-only.
func TestReshapeCommand(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "streamed.9.7.jsonl.zst")
	r := run(t, "", "reshape", "--gateway", "2026.9.7", fixture(t, "streamed-run.jsonl.zst"), "-o", out)
	if r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "15 of 16 chat deltas") || !strings.Contains(r.stderr, "not simulated: coalesced deltas (2026.9.2)") {
		t.Fatalf("exit %d\nstdout %q\nstderr %s", r.code, r.stdout, r.stderr)
	}
	h, recs := readAll(t, out)
	if h.Source.Mode != "reshape" || h.Source.GatewayVersion != "2026.9.7" || h.Source.ReshapedFrom != "2026.9.6" || h.Source.From != "streamed-run.jsonl.zst" {
		t.Errorf("header %+v", h.Source)
	}
	withMessage := 0
	for _, rec := range recs {
		if strings.Contains(string(rec.Frame), `"state":"delta"`) && strings.Contains(string(rec.Frame), `"message"`) {
			withMessage++
		}
	}
	if withMessage != 1 {
		t.Errorf("%d deltas keep their message, want the first only", withMessage)
	}
	// The same again: refused, as the output exists; then with --force.
	if r := run(t, "", "reshape", "--gateway", "2026.9.7", fixture(t, "streamed-run.jsonl.zst"), "-o", out); r.code != 2 || !strings.Contains(r.stderr, "already exists") {
		t.Errorf("an existing output: exit %d %s", r.code, r.stderr)
	}
	if r := run(t, "", "reshape", "--gateway", "2026.9.7", "--force", fixture(t, "streamed-run.jsonl.zst"), "-o", out); r.code != 0 {
		t.Errorf("--force: exit %d %s", r.code, r.stderr)
	}
	// Reshaping the reshaped capture: refused, and no output left.
	again := filepath.Join(dir, "again.jsonl")
	if r := run(t, "", "reshape", "--gateway", "2026.9.7", out, "-o", again); r.code != 2 || !strings.Contains(r.stderr, "reshaped already") || !strings.Contains(r.stderr, "hint:") {
		t.Errorf("reshaping twice: exit %d %s", r.code, r.stderr)
	}
	if _, err := os.Stat(again); err == nil {
		t.Error("a refused reshape left a file")
	}
}

// The summary as JSON, on stderr; the capture on stdout with -o -.
func TestReshapeSummaryJSON(t *testing.T) {
	r := run(t, "", "reshape", "--gateway", "2026.9.8", "--format", "json", fixture(t, "tool-run.jsonl.zst"), "-o", "-")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var sum struct {
		Summary struct {
			From, To                   string
			ChatDeltas, ChatAppendOnly int
			NotSimulated               []string
		}
	}
	if err := json.Unmarshal([]byte(r.stderr), &sum); err != nil {
		t.Fatalf("%v: %s", err, r.stderr)
	}
	s := sum.Summary
	if s.From != "2026.9.6" || s.To != "2026.9.8" || s.ChatDeltas != 10 || s.ChatAppendOnly != 8 || len(s.NotSimulated) != 4 {
		t.Errorf("summary %+v", s)
	}
	if !strings.Contains(r.stdout, `"gatewayVersion":"2026.9.8"`) || !strings.Contains(r.stdout, `"server":"2026.9.8"`) {
		t.Errorf("stdout is not the reshaped capture: %.300s", r.stdout)
	}
}

// Flags checked before anything is read; a tasks.* call kept is exit 1.
func TestReshapeFlagsAndCaveats(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"reshape", "x", "-o", "y"}, "no --gateway given"},
		{[]string{"reshape", "--gateway", "2026.9.6", "x", "-o", "y"}, "not a release reshape writes"},
		{[]string{"reshape", "--gateway", "dev", "x", "-o", "y"}, "not a release reshape writes"},
		{[]string{"reshape", "--gateway", "2026.9.7", "x"}, "no output given"},
		{[]string{"reshape", "--gateway", "2026.9.7", "--format", "yaml", "x", "-o", "y"}, "yaml"},
	} {
		if r := run(t, "", c.args...); r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d %s", c.args, r.code, r.stderr)
		}
	}
	in := `{"clawtap":1,"createdAt":"2026-11-22T03:23:55Z","source":{"mode":"record"},"redaction":{"credentials":true,"content":false}}
{"t":1,"conn":1,"dir":"in","frame":{"type":"res","id":"c","ok":true,"payload":{"type":"hello-ok","protocol":4,"server":{"version":"2026.9.6"},"features":{"methods":["tasks.list","chat.send"],"events":["task"]}}}}
{"t":2,"conn":1,"dir":"out","frame":{"type":"req","id":"9","method":"tasks.list","params":{}}}
{"t":3,"conn":1,"dir":"in","frame":{"type":"res","id":"9","ok":true,"payload":{"tasks":[]}}}
`
	r := run(t, in, "reshape", "--gateway", "2026.9.7", "-", "-o", "-")
	if r.code != 1 || !strings.Contains(r.stderr, "warning: stdin: record 1: a tasks.list call") || !strings.Contains(r.stdout, `"methods":["chat.send"],"events":[]`) {
		t.Errorf("a tasks.* call: exit %d\n%s\n%s", r.code, r.stderr, r.stdout)
	}
	// A 2026.9.5 capture: --allow-older.
	older := strings.Replace(in, "2026.9.6", "2026.9.5", 1)
	if r := run(t, older, "reshape", "--gateway", "2026.9.7", "-", "-o", "-"); r.code != 2 || !strings.Contains(r.stderr, "--allow-older") {
		t.Errorf("2026.9.5: exit %d %s", r.code, r.stderr)
	}
	if r := run(t, older, "reshape", "--gateway", "2026.9.7", "--allow-older", "-", "-o", "-"); r.code != 1 || !strings.Contains(r.stderr, "not 2026.9.6") {
		t.Errorf("2026.9.5 with --allow-older: exit %d %s", r.code, r.stderr)
	}
	// --gateway completes the releases reshape writes.
	if r := run(t, "", "__complete", "reshape", "--gateway", ""); !strings.Contains(r.stdout, "2026.9.7") || !strings.Contains(r.stdout, "2026.9.8") {
		t.Errorf("completion: %q", r.stdout)
	}
}

// Bare frames (no header) are redacted as they are read, and the capture
// written says so.
func TestReshapeRedactsOnRead(t *testing.T) {
	out := filepath.Join(t.TempDir(), "bare.jsonl")
	r := run(t, "", "reshape", "--gateway", "2026.9.7", fixture(t, "bare-frames.jsonl"), "-o", out)
	if r.code != 0 || !strings.Contains(r.stderr, "redacted as it is read") {
		t.Fatalf("exit %d %s", r.code, r.stderr)
	}
	h, _ := readAll(t, out)
	if h.Redaction == nil || !h.Redaction.Credentials || h.Source.ReshapedFrom != "2026.9.6" {
		t.Errorf("header %+v %+v", h.Source, h.Redaction)
	}
}
