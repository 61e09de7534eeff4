package redact

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/clawtap/clawtap/internal/synth"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
)

// Redaction on read: every command redacts a capture that was written
// without redaction as it reads it (OnRead). BenchmarkReadRedact reads a
// capture plainly and with the redactor as the reader's transform, so the
// two can be compared (docs/redaction.md, "Speed"):
//
//	go test -run '^$' -bench ReadRedact -benchtime 3x ./pkg/redact/
//
// Each capture is read serially (one goroutine: the CPU cost) and with the
// read-ahead (as commands read: the redaction on a goroutine of its own).
// The bench capture is internal/synth.Large (CLAWTAP_BENCH_FRAMES frames,
// 200,000 unless set; CLAWTAP_BENCH_CAPTURE names a capture to read
// instead, such as the million-frame one `clawtap-bench -generate` writes).
// The big-frame capture holds frames of about 2 MB: long assistant text
// (streamed and final), a big tool result and a big config.schema
// response; CLAWTAP_BENCH_BIG names a file to write it to and keep (or to
// read it from, when it exists), for `clawtap-bench -read`
// (bench/README.md).

var (
	benchCapOnce sync.Once
	benchCapPath string
	benchCapErr  error
	bigCapOnce   sync.Once
	bigCapPath   string
	bigCapErr    error
)

func benchDir() (string, error) { return os.MkdirTemp("", "clawtap-redact-bench-") }

func largeBenchCapture(tb testing.TB) string {
	benchCapOnce.Do(func() {
		if p := os.Getenv("CLAWTAP_BENCH_CAPTURE"); p != "" {
			benchCapPath = p
			return
		}
		n := 200_000
		if s := os.Getenv("CLAWTAP_BENCH_FRAMES"); s != "" {
			if n, benchCapErr = strconv.Atoi(s); benchCapErr != nil {
				return
			}
		}
		dir, err := benchDir()
		if err != nil {
			benchCapErr = err
			return
		}
		benchCapPath = filepath.Join(dir, "large.jsonl.zst")
		w, err := capture.Create(benchCapPath)
		if err != nil {
			benchCapErr = err
			return
		}
		if err := synth.Large(w, n, 1); err != nil {
			benchCapErr = err
			return
		}
		benchCapErr = w.Close()
	})
	if benchCapErr != nil {
		tb.Fatal(benchCapErr)
	}
	return benchCapPath
}

// bigCapture writes a capture of frames of about 2 MB each (8 of each
// kind), between ordinary small frames.
func bigCapture(tb testing.TB) string {
	bigCapOnce.Do(func() {
		bigCapPath = os.Getenv("CLAWTAP_BENCH_BIG")
		if _, err := os.Stat(bigCapPath); bigCapPath != "" && err == nil {
			return // written by an earlier run
		}
		if bigCapPath == "" {
			dir, err := benchDir()
			if err != nil {
				bigCapErr = err
				return
			}
			bigCapPath = filepath.Join(dir, "big.jsonl.zst")
		}
		w, err := capture.Create(bigCapPath)
		if err != nil {
			bigCapErr = err
			return
		}
		if err := w.WriteHeader(capture.NewHeader(timeZero, capture.Source{Mode: "record"})); err != nil {
			bigCapErr = err
			return
		}
		t := int64(1795317835000)
		write := func(f []byte) {
			t++
			if bigCapErr == nil {
				bigCapErr = w.Write(&capture.Record{T: t, Conn: 1, Dir: capture.DirIn, Frame: f})
			}
		}
		for i := range 8 {
			write([]byte(chatDelta))
			write(bigAssistantFrame(int64(i), 2<<20))
			write(bigChatFinal(int64(i), 2<<20))
			write(bigToolResult(int64(i), 2<<20))
			write(bigConfigSchema(int64(i), 2<<20))
			write([]byte(agentText))
		}
		if err := w.Close(); bigCapErr == nil {
			bigCapErr = err
		}
	})
	if bigCapErr != nil {
		tb.Fatal(bigCapErr)
	}
	return bigCapPath
}

// readAll reads path to its end, through the redactor when red is set,
// serially (on one goroutine: CPU cost) unless ahead. It returns the bytes
// of frames read.
func readAll(tb testing.TB, path string, red *Redactor) int64 { return readWith(tb, path, red, false) }

func readWith(tb testing.TB, path string, red *Redactor, ahead bool) int64 {
	r, err := capture.Open(path, capture.Options{Serial: !ahead})
	if err != nil {
		tb.Fatal(err)
	}
	defer r.Close()
	if red != nil {
		r.SetTransform(red.Record)
	}
	var n int64
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return n
		}
		if err != nil {
			tb.Fatal(err)
		}
		n += int64(len(rec.Frame))
	}
}

func BenchmarkReadRedact(b *testing.B) {
	for _, c := range []struct {
		name string
		path func(testing.TB) string
	}{{"bench-capture", largeBenchCapture}, {"2MB-frames", bigCapture}} {
		path := c.path(b)
		size := readAll(b, path, nil)
		for _, ahead := range []bool{false, true} {
			read := "serial"
			if ahead {
				read = "ahead" // the read-ahead: the redaction on a goroutine of its own
			}
			for _, mode := range []string{"plain", "redact"} {
				b.Run(c.name+"/"+read+"/"+mode, func(b *testing.B) {
					b.SetBytes(size)
					for b.Loop() {
						var red *Redactor
						if mode == "redact" {
							red = New(Options{})
						}
						readWith(b, path, red, ahead)
					}
				})
			}
		}
	}
}

// Words for generated prose: what an assistant writes about code, with
// the words that make the pre-scan look closer (token, key, auth,
// password, secret) at their usual rate.
var proseWords = strings.Fields(`the a to of and in is it that for you this with on as be
are can or not your if we will use function return value error file code
config token tokens key keys auth password secret API request response
server client model run session agent stream message text data result
first then next when each which from by an all set get new one more
should would could need make sure check test build install update change
string number object array map list type name id path line output input
example note: see also: step 1. step 2. import export const let var
https://docs.example.com/guide the user's settings. (optional) e.g.
–—“quoted” café naïve 日本語 😀`)

func prose(rng *rand.Rand, size int) string {
	var b strings.Builder
	b.Grow(size + 64)
	line := 0
	for b.Len() < size {
		w := proseWords[rng.IntN(len(proseWords))]
		b.WriteString(w)
		line += len(w) + 1
		switch {
		case line > 70 && rng.IntN(6) == 0:
			b.WriteString("\n\n")
			line = 0
		case line > 80:
			b.WriteByte('\n')
			line = 0
		default:
			b.WriteByte(' ')
		}
		if rng.IntN(400) == 0 {
			fmt.Fprintf(&b, "\n```go\nfunc f%d(ctx context.Context) error {\n\tkey := cfg.Get(%q)\n\treturn nil\n}\n```\n", rng.IntN(1000), "models.default")
		}
	}
	return b.String()
}

func bigAssistantFrame(seed int64, size int) []byte {
	rng := rand.New(rand.NewPCG(uint64(seed), 1))
	text := prose(rng, size)
	f := jsonx.AppendString([]byte(`{"type":"event","event":"agent","payload":{"runId":"5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d","stream":"assistant","data":{"text":`), text)
	f = append(f, `,"delta":`...)
	f = jsonx.AppendString(f, text[len(text)-40:])
	return append(f, `},"sessionKey":"agent:main:main","seq":42,"ts":1795317837000}}`...)
}

func bigChatFinal(seed int64, size int) []byte {
	rng := rand.New(rand.NewPCG(uint64(seed), 2))
	f := jsonx.AppendString([]byte(`{"type":"event","event":"chat","payload":{"runId":"5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d","sessionKey":"agent:main:main","seq":9,"state":"final","message":{"role":"assistant","content":[{"type":"text","text":`), prose(rng, size))
	return append(f, `}],"timestamp":1795317837000,"stopReason":"stop","usage":{"input":812,"output":17,"totalTokens":829}}}}`...)
}

// bigToolResult is an exec tool's result: a directory listing, logs and
// some JSON, as a tool prints them.
func bigToolResult(seed int64, size int) []byte {
	rng := rand.New(rand.NewPCG(uint64(seed), 3))
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		switch rng.IntN(4) {
		case 0:
			fmt.Fprintf(&b, "-rw-r--r--  1 alice staff  %6d Nov 22 03:%02d src/pkg/file_%d.go\n", rng.IntN(99999), rng.IntN(60), i)
		case 1:
			fmt.Fprintf(&b, "2026-11-22T03:23:%02d.%03dZ INFO [gateway] request id=%d method=chat.send durationMs=%d tokens=%d\n", rng.IntN(60), rng.IntN(1000), i, rng.IntN(900), rng.IntN(4000))
		case 2:
			fmt.Fprintf(&b, `{"level":"debug","msg":"session row updated","sessionKey":"agent:main:main","inputTokens":%d,"outputTokens":%d,"authMode":"token"}`+"\n", rng.IntN(5000), rng.IntN(900))
		default:
			b.WriteString(prose(rng, 120))
			b.WriteByte('\n')
		}
	}
	f := []byte(`{"type":"event","event":"agent","payload":{"runId":"r7","stream":"tool","data":{"phase":"result","name":"exec","toolCallId":"call_1","isError":false,"result":{"content":[{"type":"text","text":`)
	f = jsonx.AppendString(f, b.String())
	return append(f, `}],"details":{"exitCode":0}}},"sessionKey":"agent:main:main","seq":8,"ts":1795317837100}}`...)
}

// bigConfigSchema is a config.schema response: a JSON Schema whose
// property names include the credential words (token, password, apiKey,
// secrets) with schema objects as their values, and ui hints keyed by
// config paths.
func bigConfigSchema(seed int64, size int) []byte {
	rng := rand.New(rand.NewPCG(uint64(seed), 4))
	var b strings.Builder
	b.WriteString(`{"type":"res","id":"cs1","ok":true,"payload":{"version":"2026.9.6","schema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{`)
	for i := 0; b.Len() < size*9/10; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(configSchemaSection(rng, i))
	}
	b.WriteString(`},"definitions":{"SecretRef":{"type":"object","properties":{"source":{"type":"string","enum":["env","file","exec"]},"id":{"type":"string"}},"required":["source","id"]}}},"uiHints":{`)
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"models.providers.p%d.apiKey":{"label":"API key","sensitive":true,"placeholder":"sk-...","help":"The key for provider p%d; a SecretRef keeps it out of the file."},"channels.c%d.botToken":{"label":"Bot token","sensitive":true},"gateway.auth.password":{"label":"Password","sensitive":true}`, i, i, i)
	}
	b.WriteString(`}}}`)
	return []byte(b.String())
}

func configSchemaSection(rng *rand.Rand, i int) string {
	secret := `{"anyOf":[{"type":"string","minLength":1},{"$ref":"#/definitions/SecretRef"}],"description":"API key, or a SecretRef (env, file or exec) that resolves to one."}`
	return fmt.Sprintf(`"section%d":{"type":"object","additionalProperties":false,"properties":{`+
		`"auth":{"type":"object","properties":{"mode":{"type":"string","enum":["token","password","none","trusted-proxy"],"default":"token"},"token":%s,"password":%s,"allowTailscale":{"type":"boolean"}}},`+
		`"apiKey":%s,"secrets":{"type":"object","description":"Secret providers.","properties":{"providers":{"type":"object","additionalProperties":{"type":"object","properties":{"source":{"type":"string","enum":["env","file","exec"]},"path":{"type":"string","pattern":"^[^\\u0000]+$"},"timeoutMs":{"type":"integer","minimum":%d}}}}}},`+
		`"botToken":%s,"webhookSecret":%s,"signingSecret":%s,"headers":{"type":"object","additionalProperties":{"type":"string"},"description":"Extra headers, e.g. Authorization: Bearer <token>."},`+
		`"model":{"type":"string","default":"anthropic/claude-opus-4-5","examples":["openai/gpt-5.1","anthropic/claude-sonnet-4-5"]},"maxTokens":{"type":"integer","minimum":1,"maximum":%d}}}`,
		i, secret, secret, secret, rng.IntN(100), secret, secret, secret, 1000+rng.IntN(200000))
}
