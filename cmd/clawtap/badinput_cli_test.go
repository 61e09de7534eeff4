package main

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/gorilla/websocket"
	"github.com/klauspost/compress/zstd"
)

// badUTF8Capture is a capture whose frames, raw message and marker carry
// bytes that are not UTF-8 (written \xNN below) and a lone-surrogate
// escape (\ud800, which is ASCII and valid), with a handshake so that
// serve can play it.
var badUTF8Capture = strings.NewReplacer(`\xff`, "\xff", `\xfe`, "\xfe", `\xe9`, "\xe9", `\xed\xa0\x80`, "\xed\xa0\x80", `\xc3`, "\xc3").Replace(`{"clawtap":1,"createdAt":"2026-11-22T03:23:55Z","source":{"mode":"record","gatewayVersion":"2026.9.6","protocol":4}}
{"t":1795317835000,"conn":1,"mark":"open","url":"ws://127.0.0.1:18789"}
{"t":1795317835001,"conn":1,"dir":"in","frame":{"type":"event","event":"connect.challenge","payload":{"nonce":"n","ts":1795317835001}}}
{"t":1795317835002,"conn":1,"dir":"out","frame":{"type":"req","id":"c","method":"connect","params":{"minProtocol":3,"maxProtocol":4}}}
{"t":1795317835003,"conn":1,"dir":"in","frame":{"type":"res","id":"c","ok":true,"payload":{"type":"hello-ok","protocol":4,"server":{"version":"2026.9.6","connId":"x"},"features":{"methods":[],"events":[]},"snapshot":{},"policy":{"tickIntervalMs":30000}}}}
{"t":1795317835004,"conn":1,"mark":"hello","protocol":4,"server":"2026.9.6\xff"}
{"t":1795317835010,"conn":1,"dir":"out","frame":{"type":"req","id":"s","method":"chat.send","params":{"sessionKey":"agent:main:main","message":"caf\xe9?","idempotencyKey":"r1"}}}
{"t":1795317835011,"conn":1,"dir":"in","frame":{"type":"res","id":"s","ok":true,"payload":{"runId":"r1","status":"started"}}}
{"t":1795317835020,"conn":1,"dir":"in","frame":{"type":"event","event":"agent","seq":1,"payload":{"runId":"r1","stream":"lifecycle","data":{"phase":"start","startedAt":1795317835020},"sessionKey":"agent:main:main","agentId":"main","seq":1,"ts":1795317835020}}}
{"t":1795317835030,"conn":1,"dir":"in","frame":{"type":"event","event":"agent","seq":2,"payload":{"runId":"r1","stream":"assistant","data":{"text":"Caf\xe9 \xed\xa0\x80 \ud800","delta":"Caf\xe9 \xed\xa0\x80 \ud800"},"sessionKey":"agent:main:main","agentId":"main","seq":2,"ts":1795317835030}}}
{"t":1795317835031,"conn":1,"dir":"in","frame":{"type":"event","event":"chat","seq":3,"payload":{"runId":"r1","sessionKey":"agent:main:main","agentId":"main","seq":2,"state":"delta","deltaText":"Caf\xe9 \xed\xa0\x80 \ud800","message":{"role":"assistant","content":[{"type":"text","text":"Caf\xe9 \xed\xa0\x80 \ud800"}],"timestamp":1795317835031}}}}
{"t":1795317835040,"conn":1,"dir":"in","raw":"not json \xfe\xff"}
{"t":1795317835050,"conn":1,"dir":"in","frame":{"type":"event","event":"agent","seq":4,"payload":{"runId":"r1","stream":"lifecycle","data":{"phase":"end","endedAt":1795317835050},"sessionKey":"agent:main:main","agentId":"main","seq":3,"ts":1795317835050}}}
{"t":1795317835051,"conn":1,"dir":"in","frame":{"type":"event","event":"chat","seq":5,"payload":{"runId":"r1","sessionKey":"agent:main:main","agentId":"main","seq":3,"state":"final","message":{"role":"assistant","content":[{"type":"text","text":"Caf\xe9 \xed\xa0\x80 \ud800!"}],"timestamp":1795317835051}}}}
{"t":1795317835060,"conn":1,"mark":"close","code":1000,"reason":"bye \xc3"}
`)

// badInputs writes the inputs every read command must survive: random
// bytes, a 0-byte file, a zstd stream of nothing, and a capture with
// invalid UTF-8. It returns their paths by name.
func badInputs(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(7, 7))
	random := make([]byte, 8192)
	for i := range random {
		random[i] = byte(rng.UintN(256))
	}
	enc, _ := zstd.NewWriter(nil)
	emptyZstd := enc.EncodeAll(nil, nil)
	enc.Close()
	files := map[string][]byte{
		"random.bin":           random,
		"empty.jsonl":          nil,
		"empty.jsonl.zst":      emptyZstd,
		"bad-utf8.jsonl":       []byte(badUTF8Capture),
		"bad-utf8-bare.jsonl":  []byte("{\"type\":\"event\",\"event\":\"chat\",\"payload\":{\"runId\":\"r\",\"sessionKey\":\"s\",\"state\":\"delta\",\"deltaText\":\"\xe9\"}}\n"),
		"random-text.jsonl":    []byte("hello world\nthis is not a capture\n"),
		"random-stdin.jsonl":   random[:4096],
		"empty-lines.jsonl":    []byte("\n\n  \n"),
		"empty-stdin.jsonl":    nil,
		"bad-utf8-stdin.jsonl": []byte(badUTF8Capture),
	}
	demo, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "demo.jsonl.zst"))
	if err != nil {
		t.Fatal(err)
	}
	files["cut.jsonl.zst"] = demo[:1500] // cut before its first whole line
	// The fixture is one zstd block: flipping the middle third of it makes
	// the decoder fail on that block, before any line.
	corrupt := append([]byte(nil), demo...)
	flip(corrupt[len(demo)/3 : 2*len(demo)/3])
	files["corrupt.jsonl.zst"] = corrupt
	paths := map[string]string{"adir": filepath.Join(dir, "adir")}
	if err := os.Mkdir(paths["adir"], 0o700); err != nil {
		t.Fatal(err)
	}
	for name, b := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		paths[name] = p
	}
	return paths
}

// readCommands are the commands that read a capture, with what they need
// besides it. IN stands for the input, OUT for an output file, GOOD for a
// good capture (diff's other side).
var readCommands = [][]string{
	{"classify", "IN"},
	{"classify", "--format", "text", "IN"},
	{"intents", "IN"},
	{"gaps", "IN"},
	{"replay", "IN"},
	{"check", "IN"},
	{"stats", "IN"},
	{"diff", "IN", "GOOD"},
	{"diff", "GOOD", "IN"},
	{"report", "IN", "-o", "OUT"},
	{"redact", "IN", "-o", "OUT"},
	{"reshape", "--gateway", "2026.9.7", "IN", "-o", "OUT"},
	{"serve", "--listen", "127.0.0.1:0", "--once", "IN"},
}

func badInputArgs(cmd []string, in, good, out string) []string {
	args := make([]string, len(cmd))
	for i, a := range cmd {
		switch a {
		case "IN":
			a = in
		case "GOOD":
			a = good
		case "OUT":
			a = out
		}
		args[i] = a
	}
	return args
}

// Garbage and empty inputs are exit 2 with one clear error, on every read
// command, for files and for stdin; nothing is written.
func TestBadInputEveryReadCommand(t *testing.T) {
	in := badInputs(t)
	good := fixture(t, "slash-command.jsonl.zst")
	cases := []struct {
		input string
		stdin bool
		want  func(name string) string
	}{
		{"random.bin", false, func(n string) string { return "clawtap: error: not a clawtap capture: " + n + ": no header, and " }},
		{"random-text.jsonl", false, func(n string) string {
			return "clawtap: error: not a clawtap capture: " + n + ": no header, and none of its 2 lines is a capture record or a gateway frame (line 1: not a JSON object)\n"
		}},
		{"random-stdin.jsonl", true, func(string) string { return "clawtap: error: not a clawtap capture: stdin: no header, and " }},
		{"empty.jsonl", false, func(n string) string { return "clawtap: error: " + n + " is empty: no records\n" }},
		{"empty.jsonl.zst", false, func(n string) string { return "clawtap: error: " + n + " is empty: no records\n" }},
		{"empty-lines.jsonl", false, func(n string) string { return "clawtap: error: " + n + " is empty: no records\n" }},
		{"empty-stdin.jsonl", true, func(string) string { return "clawtap: error: stdin is empty: no records\n" }},
		{"cut.jsonl.zst", false, func(n string) string {
			return "clawtap: error: " + n + " ends before its first record (the zstd stream is cut off)\n"
		}},
		{"cut.jsonl.zst", true, func(string) string {
			return "clawtap: error: stdin ends before its first record (the zstd stream is cut off)\n"
		}},
		{"corrupt.jsonl.zst", false, func(n string) string {
			return "clawtap: error: " + n + " ends before its first record (the zstd stream is corrupt: "
		}},
		{"corrupt.jsonl.zst", true, func(string) string {
			return "clawtap: error: stdin ends before its first record (the zstd stream is corrupt: "
		}},
		{"adir", false, func(n string) string { return "clawtap: error: " + n + " is a directory\n" }},
	}
	for _, c := range cases {
		for _, cmd := range readCommands {
			if c.stdin && (cmd[0] == "serve" || cmd[0] == "diff" && cmd[1] == "GOOD") {
				continue // serve reads stdin as any command does; one diff side is enough
			}
			t.Run(c.input+"/"+strings.Join(cmd, "_"), func(t *testing.T) {
				path, stdin, name := in[c.input], "", in[c.input]
				if c.stdin {
					b, _ := os.ReadFile(path)
					path, stdin, name = "-", string(b), "stdin"
				}
				out := filepath.Join(t.TempDir(), "out.jsonl.zst")
				r := run(t, stdin, badInputArgs(cmd, path, good, out)...)
				if r.code != cli.ExitTrouble {
					t.Fatalf("exit %d, want 2\nstdout: %.300s\nstderr: %s", r.code, r.stdout, r.stderr)
				}
				first, _, _ := strings.Cut(r.stderr, "clawtap: hint: ")
				if want := c.want(name); !strings.HasPrefix(first, want) || strings.Count(first, "\n") != 1 {
					t.Fatalf("stderr:\n%s\nwant one line starting %q", r.stderr, want)
				}
				if !strings.Contains(r.stderr, "clawtap: hint: ") {
					t.Errorf("no hint: %s", r.stderr)
				}
				if strings.Contains(r.stderr, "warning") || strings.Contains(r.stderr, "truncated") {
					t.Errorf("garbage gets one error, not warnings about its lines: %s", r.stderr)
				}
				if r.stdout != "" {
					t.Errorf("stdout: %.300s", r.stdout)
				}
				if _, err := os.Stat(out); err == nil {
					t.Errorf("%s written for bad input", out)
				}
			})
		}
	}
}

// Invalid UTF-8 is replaced by U+FFFD when read: every command's output is
// valid UTF-8 (and JSON where it is JSON), the summary counts the records,
// and a lone-surrogate escape passes through as written.
func TestInvalidUTF8EveryReadCommand(t *testing.T) {
	in := badInputs(t)
	good := fixture(t, "slash-command.jsonl.zst")
	for _, input := range []string{"bad-utf8.jsonl", "bad-utf8-bare.jsonl", "bad-utf8-stdin.jsonl"} {
		for _, cmd := range readCommands {
			if cmd[0] == "serve" {
				continue // played over a WebSocket below
			}
			if cmd[0] == "reshape" && input == "bad-utf8-bare.jsonl" {
				continue // its one frame, a delta without message, is the 2026.9.7 wire: refused (cmd_reshape_test)
			}
			t.Run(input+"/"+strings.Join(cmd, "_"), func(t *testing.T) {
				path, stdin, name := in[input], "", in[input]
				if input == "bad-utf8-stdin.jsonl" {
					path, stdin, name = "-", badUTF8Capture, "stdin"
				}
				dir := t.TempDir()
				out := filepath.Join(dir, "out.jsonl")
				if cmd[0] == "report" {
					out = filepath.Join(dir, "report.html")
				}
				r := run(t, stdin, badInputArgs(cmd, path, good, out)...)
				if r.code == cli.ExitTrouble {
					t.Fatalf("exit 2\nstderr: %s", r.stderr)
				}
				if !utf8.ValidString(r.stdout) || !utf8.ValidString(r.stderr) {
					t.Fatalf("invalid UTF-8 in the output:\n%q\n%q", r.stdout, r.stderr)
				}
				if cmd[0] != "classify" || len(cmd) == 2 { // every piped default is JSON, text aside
					for i, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
						if line != "" && !json.Valid([]byte(line)) && !json.Valid([]byte(r.stdout)) {
							t.Fatalf("stdout line %d is not JSON: %s", i+1, line)
						}
					}
				}
				n := "7"
				if input == "bad-utf8-bare.jsonl" {
					n = "1"
				}
				if want := name + ": "; !strings.Contains(r.stderr, "clawtap: warning: "+want) || !strings.Contains(r.stderr, n+" record(s) with invalid UTF-8, replaced by U+FFFD") {
					t.Fatalf("stderr lacks the count of %s records with invalid UTF-8:\n%s", n, r.stderr)
				}
				if cmd[0] == "redact" {
					b, err := os.ReadFile(out)
					if err != nil {
						t.Fatal(err)
					}
					if !utf8.Valid(b) || (input != "bad-utf8-bare.jsonl" && !strings.Contains(string(b), `\ud800`)) || !strings.Contains(string(b), "\uFFFD") {
						t.Fatalf("redacted capture:\n%s", b)
					}
				}
				if cmd[0] == "report" {
					b, err := os.ReadFile(out)
					if err != nil || !utf8.Valid(b) {
						t.Fatalf("report: %v, valid UTF-8 %v", err, utf8.Valid(b))
					}
				}
			})
		}
	}
}

// serve plays a capture with invalid UTF-8 as valid UTF-8 text frames.
func TestServeInvalidUTF8(t *testing.T) {
	p := badInputs(t)["bad-utf8.jsonl"]
	url, exited, stderr, _ := startServe(t, "--once", "--as-fast-as-possible", p)
	c := serveDial(t, url)
	if ch, _ := serveRead(t, c); !strings.Contains(ch, `"connect.challenge"`) {
		t.Fatalf("challenge: %s", ch)
	}
	c.WriteMessage(websocket.TextMessage, []byte(`{"type":"req","id":"1","method":"connect","params":{"minProtocol":3,"maxProtocol":4,"client":{"id":"cli","mode":"cli"}}}`))
	var got []string
	for {
		f, err := serveRead(t, c)
		if err != nil {
			break
		}
		if !utf8.ValidString(f) {
			t.Fatalf("serve sent invalid UTF-8: %q", f)
		}
		got = append(got, f)
	}
	all := strings.Join(got, "\n")
	if !strings.Contains(all, "Caf\uFFFD \uFFFD\uFFFD\uFFFD \\ud800") {
		t.Fatalf("frames:\n%s", all)
	}
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatal("serve --once did not exit")
	}
	if !strings.Contains(stderr.String(), "record(s) with invalid UTF-8, replaced by U+FFFD") {
		t.Errorf("stderr:\n%s", stderr)
	}
}

// The commands outside readCommands that take a capture say the same one
// line for a directory and for a zstd stream cut before its first record.
func TestCutAndDirectoryOtherEntryPoints(t *testing.T) {
	in := badInputs(t)
	for _, c := range []struct{ input, want string }{
		{"adir", " is a directory\n"},
		{"cut.jsonl.zst", " ends before its first record (the zstd stream is cut off)\n"},
	} {
		for _, cmd := range [][]string{
			{"import", "IN", "-o", "OUT"},
			{"shrink", "--rule", "seq-gap", "IN", "-o", "OUT"},
			{"validate", "IN"},
		} {
			t.Run(c.input+"/"+cmd[0], func(t *testing.T) {
				out := filepath.Join(t.TempDir(), "out.jsonl")
				r := run(t, "", badInputArgs(cmd, in[c.input], "", out)...)
				first, _, _ := strings.Cut(r.stderr, "clawtap: hint: ")
				if r.code != cli.ExitTrouble || first != "clawtap: error: "+in[c.input]+c.want || !strings.Contains(r.stderr, "hint: ") {
					t.Fatalf("exit %d\nstderr: %s\nwant exit 2, one line ending %q and a hint", r.code, r.stderr, c.want)
				}
			})
		}
	}
}

// flip inverts every bit of b.
func flip(b []byte) {
	for i := range b {
		b[i] ^= 0xff
	}
}

// A zstd stream that turns corrupt after whole records is read as a cut
// one is: the records before the corruption, exactly those, a warning
// naming the file that says it is corrupt, the summary saying the capture
// is truncated, and the command's usual exit (not 2).
func TestCorruptZstdAfterRecords(t *testing.T) {
	z, err := os.ReadFile(fixture(t, "demo.jsonl.zst"))
	if err != nil {
		t.Fatal(err)
	}
	dec, _ := zstd.NewReader(nil)
	plain, err := dec.DecodeAll(z, nil)
	dec.Close()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(plain), "\n")
	half := strings.Join(lines[:len(lines)/2], "")
	// Two blocks, the first ending at a line's end; the second corrupt.
	var b strings.Builder
	enc, _ := zstd.NewWriter(&b)
	enc.Write([]byte(half))
	enc.Flush()
	second := b.Len()
	enc.Write(plain[len(half):])
	enc.Close()
	data := []byte(b.String())
	flip(data[second+(len(data)-second)/3 : second+2*(len(data)-second)/3])
	dir := t.TempDir()
	corrupt, whole := filepath.Join(dir, "corrupt.jsonl.zst"), filepath.Join(dir, "half.jsonl")
	if err := os.WriteFile(corrupt, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(whole, []byte(half), 0o600); err != nil {
		t.Fatal(err)
	}
	records := strconv.Itoa(len(lines)/2 - 1) // the header is not a record
	for _, cmd := range [][]string{{"classify"}, {"replay", "--final"}, {"stats"}, {"check"}} {
		t.Run(strings.Join(cmd, "_"), func(t *testing.T) {
			r := run(t, "", append(cmd, corrupt)...)
			if r.code != 0 {
				t.Fatalf("exit %d, want 0\nstderr: %s", r.code, r.stderr)
			}
			for _, want := range []string{
				"clawtap: warning: " + corrupt + ": the zstd stream is corrupt: ",
				"; the records before it are read\n",
				"clawtap: warning: " + corrupt + ": " + records + " records read; the capture is truncated\n",
			} {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
				}
			}
			if strings.Count(r.stderr, "\n") != 2 {
				t.Errorf("want two warnings:\n%s", r.stderr)
			}
			ref := run(t, "", append(cmd, whole)...)
			got := r.stdout
			switch cmd[0] {
			case "stats":
				got = strings.Replace(got, `"truncated":true`, `"truncated":false`, 1)
			case "check":
				if !strings.Contains(got, `"rule":"capture-truncated"`) || !strings.Contains(got, "zstd stream is corrupt after record ") {
					t.Fatalf("no capture-truncated finding saying the stream is corrupt:\n%s", got)
				}
				return // the finding and the summary differ; the rest is checked above
			}
			if got != ref.stdout {
				t.Errorf("output differs from that of the records before the corruption:\n%s", firstDiff(ref.stdout, got))
			}
		})
	}
}
