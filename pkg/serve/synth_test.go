package serve

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// synthCapture is a CLI's recording of one run in agent:main:other, with a
// hello that names the main session.
func synthCapture(t *testing.T) *Script {
	b := newCap(t)
	b.mark(1000, "open")
	b.in(1000, `{"type":"event","event":"connect.challenge","payload":{"nonce":"n","ts":1}}`)
	b.out(1001, `{"type":"req","id":"c1","method":"connect","params":{"minProtocol":4,"maxProtocol":4,"client":{"id":"cli","mode":"cli"}}}`)
	b.in(1002, `{"type":"res","id":"c1","ok":true,"payload":{"type":"hello-ok","protocol":4,"server":{"version":"2026.9.6","connId":"x"},"snapshot":{"sessionDefaults":{"defaultAgentId":"main","mainKey":"main","mainSessionKey":"agent:main:main"}}}}`)
	b.out(1100, `{"type":"req","id":"s1","method":"chat.send","params":{"sessionKey":"agent:main:other","message":"Hello there","idempotencyKey":"r1"}}`)
	b.in(1101, `{"type":"res","id":"s1","ok":true,"payload":{"runId":"r1","status":"started"}}`)
	b.in(1200, `{"type":"event","event":"chat","seq":1,"payload":{"runId":"r1","sessionKey":"agent:main:other","state":"delta","deltaText":"Hi"}}`)
	b.in(1300, `{"type":"event","event":"chat","seq":2,"payload":{"runId":"r1","sessionKey":"agent:main:other","state":"final","message":{"role":"assistant","content":[{"type":"text","text":"Hi!"}]}}}`)
	b.in(1400, `{"type":"event","event":"chat","seq":3,"payload":{"runId":"r2","sessionKey":"agent:main:main","state":"final","message":{"role":"assistant","content":[{"type":"text","text":"elsewhere"}],"__openclaw":{"id":"m9"}}}}`)
	return b.script(0)
}

// The Control UI's start-up requests that a CLI's capture never holds are
// answered from what it shows: sessions.resolve for a session it shows,
// chat.startup with the transcript so far (none at the start).
func TestSynthesizedStartupAnswers(t *testing.T) {
	var mu sync.Mutex
	var log []string
	_, url := startServer(t, synthCapture(t), Options{Pacing: Pacing{Fast: true}, Logf: func(f string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		log = append(log, fmt.Sprintf(f, a...))
	}})
	c := dial(t, url)
	connect(t, c, connectAs("ui-1"))
	for _, req := range []struct{ frame, want string }{
		{`{"type":"req","id":"a","method":"sessions.resolve","params":{"reference":{"key":"AGENT:main:other"},"agentId":"main","allowMissing":true}}`,
			`{"type":"res","id":"a","ok":true,"payload":{"ok":true,"key":"agent:main:other","agentId":"main"}}`},
		{`{"type":"req","id":"b","method":"sessions.resolve","params":{"reference":{"key":"main"},"allowMissing":true}}`,
			`{"type":"res","id":"b","ok":true,"payload":{"ok":true,"key":"agent:main:main","agentId":"main"}}`},
		{`{"type":"req","id":"c","method":"sessions.resolve","params":{"reference":{"key":"agent:main:nowhere"},"allowMissing":true}}`,
			`{"type":"res","id":"c","ok":true,"payload":{"ok":false}}`},
		{`{"type":"req","id":"d","method":"sessions.resolve","params":{"key":"agent:main:nowhere"}}`,
			`{"type":"res","id":"d","ok":false,"error":{"code":"UNAVAILABLE","message":"not in capture"}}`},
	} {
		send(t, c, req.frame)
		if got := answer(t, c, str(t, req.frame, "id")); got != req.want {
			t.Errorf("%s:\n got %s\nwant %s", req.frame, got, req.want)
		}
	}
	// At the start (a lead, or before the first frame), nothing yet.
	c2 := dial(t, url)
	connect(t, c2, connectAs("ui-2"))
	send(t, c2, `{"type":"req","id":"s","method":"chat.startup","params":{"sessionKey":"agent:main:other","limit":80}}`)
	if f := answer(t, c2, "s"); str(t, f, "payload", "sessionKey") != "agent:main:other" || !strings.Contains(f, `"thinkingLevel":null`) || !strings.HasPrefix(str(t, f, "payload", "sessionId"), "clawtap-serve-") {
		t.Fatalf("chat.startup: %s", f)
	}
	// After the run: the user's message and the run's final, with its run.
	time.Sleep(100 * time.Millisecond) // the whole stream is sent
	send(t, c, `{"type":"req","id":"s2","method":"chat.startup","params":{"sessionKey":"agent:main:other","limit":80}}`)
	res := answer(t, c, "s2")
	want := `"messages":[{"role":"user","content":[{"type":"text","text":"Hello there"}],"timestamp":1100},{"role":"assistant","content":[{"type":"text","text":"Hi!"}],"__openclaw":{"runId":"r1"}}]`
	if !strings.Contains(res, want) {
		t.Fatalf("chat.startup after the run:\n%s\nwant %s", res, want)
	}
	send(t, c, `{"type":"req","id":"s3","method":"chat.startup","params":{"sessionKey":"main"}}`)
	if f := answer(t, c, "s3"); !strings.Contains(f, `"messages":[{"role":"assistant","content":[{"type":"text","text":"elsewhere"}],"__openclaw":{"id":"m9","runId":"r2"}}]`) {
		t.Fatalf("chat.startup of the main alias: %s", f)
	}
	mu.Lock()
	defer mu.Unlock()
	synth := 0
	for _, l := range log {
		if strings.Contains(l, "synthesized from the capture") {
			synth++
		}
	}
	if synth != 6 {
		t.Errorf("%d log lines say synthesized, want 6:\n%s", synth, strings.Join(log, "\n"))
	}
}

// answer reads c's frames until the response to the request id, skipping
// the stream's frames.
func answer(t *testing.T, c *websocket.Conn, id string) string {
	t.Helper()
	for {
		if f := read(t, c); str(t, f, "type") == "res" && str(t, f, "id") == id {
			return f
		}
	}
}
