package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const importJSONL = `{"ts":1795317835000,"frame":{"type":"req","id":"1","method":"connect","params":{"auth":{"token":"sk-SECRET"}}}}
{"time":1795317835.25,"direction":"receive","data":"{\"type\":\"res\",\"id\":\"1\",\"ok\":true,\"payload\":{\"type\":\"hello-ok\",\"protocol\":4,\"server\":{\"version\":\"2026.9.6\"}}}"}
{"time":1795317835.5,"direction":"receive","data":"{\"type\":\"event\",\"event\":\"tick\",\"payload\":{\"ts\":1},\"seq\":1}"}
`

const importHAR = `{
  "log": {
    "version": "1.2",
    "entries": [
      {"request": {"url": "http://127.0.0.1:18789/"}, "response": {"status": 200}},
      {"startedDateTime": "2026-11-22T03:23:55.000Z", "request": {"url": "ws://127.0.0.1:18789/"}, "_resourceType": "websocket",
       "_webSocketMessages": [
         {"type": "receive", "time": 1795317835.001, "opcode": 1, "data": "{\"type\":\"event\",\"event\":\"connect.challenge\",\"payload\":{\"nonce\":\"n\",\"ts\":1}}"},
         {"type": "send", "time": 1795317835.004, "opcode": 1, "data": "{\"type\":\"req\",\"id\":\"r1\",\"method\":\"connect\",\"params\":{\"auth\":{\"token\":\"sk-SECRET\"}}}"},
         {"type": "receive", "time": 1795317835.030, "opcode": 1, "data": "{\"type\":\"res\",\"id\":\"r1\",\"ok\":true,\"payload\":{\"type\":\"hello-ok\",\"protocol\":4,\"server\":{\"version\":\"2026.9.6\"}}}"},
         {"type": "receive", "time": 1795317835.500, "opcode": 1, "data": "{\"type\":\"event\",\"event\":\"tick\",\"payload\":{\"ts\":1},\"seq\":1}"}
       ]}
    ]
  }
}`

func TestImportGolden(t *testing.T) {
	dir := t.TempDir()
	har := filepath.Join(dir, "session.har")
	os.WriteFile(har, []byte(importHAR), 0o600)
	r := run(t, "", "import", har, "-o", "-")
	if r.code != 0 || !strings.Contains(r.stderr, "imported 4 frame(s)") {
		t.Fatalf("exit %d stderr %s", r.code, r.stderr)
	}
	golden(t, "import-har.jsonl", r.stdout)
	r = run(t, importJSONL, "import", "-", "-o", "-")
	if r.code != 0 {
		t.Fatalf("exit %d stderr %s", r.code, r.stderr)
	}
	golden(t, "import-jsonl.jsonl", r.stdout)
	if strings.Contains(r.stdout, "sk-SECRET") {
		t.Fatal("a token survived the import")
	}
	r = run(t, importJSONL, "import", "--no-redact", "-", "-o", "-")
	if !strings.Contains(r.stdout, "sk-SECRET") || !strings.Contains(r.stdout, `"credentials":false`) {
		t.Fatalf("--no-redact: %s", r.stdout)
	}
}

func TestImportThenCheckAndStats(t *testing.T) {
	dir := t.TempDir()
	har := filepath.Join(dir, "session.har")
	out := filepath.Join(dir, "cap.jsonl.zst")
	os.WriteFile(har, []byte(importHAR), 0o600)
	if r := run(t, "", "import", har, "-o", out); r.code != 0 || r.stdout != "" {
		t.Fatalf("exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
	}
	if r := run(t, "", "check", out); r.code != 0 || !strings.Contains(r.stdout, `"error":0`) {
		t.Fatalf("check of the import: exit %d\n%s", r.code, r.stdout)
	}
	if r := run(t, "", "stats", out); r.code != 0 || !strings.Contains(r.stdout, `"versions":["2026.9.6"]`) || !strings.Contains(r.stdout, `"source":"import"`) {
		t.Fatalf("stats of the import: exit %d\n%s", r.code, r.stdout)
	}
}

func TestImportErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.har")
	os.WriteFile(empty, []byte(`{"log":{"entries":[]}}`), 0o600)
	out := filepath.Join(dir, "out.jsonl")
	cases := []struct {
		args   []string
		stderr string
	}{
		{[]string{"import", empty}, "no output given"},
		{[]string{"import", empty, "-o", out}, "no WebSocket frames found"},
		{[]string{"import", "--input-format", "pcap", empty, "-o", out}, `unknown --input-format "pcap"`},
		{[]string{"import", "--format", "pcap", empty, "-o", out}, `--format is now --input-format`},
		{[]string{"import", "/nonexistent.har", "-o", out}, "no such file"},
		{[]string{"import"}, "accepts 1 arg"},
	}
	for _, c := range cases {
		r := run(t, "", c.args...)
		if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, c.stderr) {
			t.Errorf("%v: exit %d stdout %q stderr %q; want exit 2 and %q", c.args, r.code, r.stdout, r.stderr, c.stderr)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("a failed import left its output behind")
	}
}

// A capture cut off mid-stream imports up to the cut, as every other
// command reads it: a warning naming the file, the count, exit 0.
func TestImportTruncatedZstd(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.jsonl")
	r := run(t, "", "import", fixture(t, "truncated.jsonl.zst"), "-o", out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for _, want := range []string{
		"warning: truncated.jsonl.zst: the input ends early (the zstd stream is cut off); the 22 frame(s) before it are imported\n",
		"imported 22 frame(s)", "the input is truncated",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if r := run(t, "", "stats", out); r.code != 0 || !strings.Contains(r.stdout, `"frames":22,`) {
		t.Fatalf("stats of the import: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// A file that is not frames (the README, random bytes) is refused with one
// line and a hint, exit 2, as the other commands refuse a non-capture.
func TestImportRefusesNotFrames(t *testing.T) {
	dir := t.TempDir()
	random := make([]byte, 200<<10)
	for i := range random {
		random[i] = byte(i*7919 + i/13)
	}
	rnd := filepath.Join(dir, "random.bin")
	os.WriteFile(rnd, random, 0o600)
	for _, in := range []string{filepath.Join(repoRoot(t), "README.md"), rnd} {
		r := run(t, "", "import", in, "-o", filepath.Join(dir, "out.jsonl.zst"))
		want := "clawtap: error: not a HAR or JSON Lines of frames: " + filepath.Base(in) + ": none of its first 16 lines is a gateway frame or a capture record ("
		if r.code != 2 || !strings.HasPrefix(r.stderr, want) || strings.Count(r.stderr, "\n") != 2 || !strings.Contains(r.stderr, "\nclawtap: hint: ") {
			t.Errorf("%s: exit %d\n%s\nwant exit 2, one line starting %q and a hint", in, r.code, r.stderr, want)
		}
	}
}

// A HAR cut in the middle of its JSON (a download or copy that did not
// finish) imports its whole WebSocket entries, as a cut zstd capture
// does: a warning naming the file with the count, the summary saying the
// input is truncated, exit 0. Cut inside its first WebSocket entry, it
// has nothing to import: exit 2 and one line naming the file.
func TestImportTruncatedHAR(t *testing.T) {
	// importHAR with a second WebSocket entry, a reconnect after the first.
	second := `{"startedDateTime": "2026-11-22T03:23:57.000Z", "request": {"url": "ws://127.0.0.1:18789/"}, "_resourceType": "websocket",
       "_webSocketMessages": [
         {"type": "receive", "time": 1795317837.001, "opcode": 1, "data": "{\"type\":\"event\",\"event\":\"connect.challenge\",\"payload\":{\"nonce\":\"m\",\"ts\":2}}"},
         {"type": "send", "time": 1795317837.004, "opcode": 1, "data": "{\"type\":\"req\",\"id\":\"r2\",\"method\":\"connect\",\"params\":{}}"}
       ]}`
	har := strings.Replace(importHAR, "]}\n    ]", "]},\n      "+second+"\n    ]", 1)
	if !strings.Contains(har, `"nonce\":\"m\"`) {
		t.Fatal("the second entry was not added")
	}
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.har")
	os.WriteFile(whole, []byte(har), 0o600)
	if r := run(t, "", "import", whole, "-o", "-"); r.code != 0 || !strings.Contains(r.stderr, "imported 6 frame(s)") || !strings.Contains(r.stderr, "on 2 connection(s)") {
		t.Fatalf("the whole HAR: exit %d\n%s", r.code, r.stderr)
	}
	cut := filepath.Join(dir, "cut.har")
	os.WriteFile(cut, []byte(har[:strings.Index(har, `"nonce\":\"m\"`)]), 0o600)
	out := filepath.Join(dir, "cut.jsonl")
	r := run(t, "", "import", cut, "-o", out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	want := "clawtap: warning: cut.har: the input ends early (the HAR document is cut off); the 4 frame(s) before it are imported\n" +
		"clawtap: imported 4 frame(s) and 0 raw message(s) on 1 connection(s) from cut.har (har); 0 skipped; the input is truncated; credentials redacted (2 value(s))\n"
	if r.stderr != want {
		t.Fatalf("stderr:\n%s\nwant:\n%s", r.stderr, want)
	}
	if r := run(t, "", "stats", out); r.code != 0 || !strings.Contains(r.stdout, `"frames":4,`) || r.stderr != "" {
		t.Fatalf("stats of the import: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	// Only the last brace missing: every entry is imported, and the cut is
	// still said.
	os.WriteFile(cut, []byte(strings.TrimSuffix(har, "}")), 0o600)
	if r := run(t, "", "import", cut, "-o", "-"); r.code != 0 || !strings.Contains(r.stderr, "imported 6 frame(s)") || !strings.Contains(r.stderr, "the input is truncated") {
		t.Fatalf("the HAR without its last brace: exit %d\n%s", r.code, r.stderr)
	}

	early := filepath.Join(dir, "early.har")
	os.WriteFile(early, []byte(har[:strings.Index(har, "hello-ok")]), 0o600)
	r = run(t, "", "import", early, "-o", filepath.Join(dir, "early.jsonl"))
	first, _, _ := strings.Cut(r.stderr, "clawtap: hint: ")
	if r.code != 2 || first != "clawtap: error: "+early+" ends before its first whole WebSocket entry (the HAR document is cut off)\n" || !strings.Contains(r.stderr, "hint: ") {
		t.Fatalf("exit %d\n%s\nwant exit 2, one line naming the file and a hint", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "early.jsonl")); err == nil {
		t.Fatal("a failed import left its output behind")
	}
}
