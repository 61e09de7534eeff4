package serve

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/gorilla/websocket"
)

// countingRand is a deterministic random source: 0x00, 0x01, 0x02, ...
type countingRand struct {
	mu sync.Mutex
	n  byte
}

func (r *countingRand) Read(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range p {
		p[i] = r.n
		r.n++
	}
	return len(p), nil
}

func startServer(t *testing.T, s *Script, opts Options) (*Server, string) {
	t.Helper()
	if opts.Rand == nil {
		opts.Rand = &countingRand{}
	}
	sv := New(s, opts)
	hs := httptest.NewServer(sv)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = sv.Close(ctx)
		hs.Close()
	})
	return sv, "ws" + strings.TrimPrefix(hs.URL, "http")
}

func dial(t *testing.T, url string) *websocket.Conn {
	t.Helper()
	c, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func read(t *testing.T, c *websocket.Conn) string {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, msg, err := c.ReadMessage()
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return string(msg)
}

func send(t *testing.T, c *websocket.Conn, frame string) {
	t.Helper()
	if err := c.WriteMessage(websocket.TextMessage, []byte(frame)); err != nil {
		t.Fatalf("write: %v", err)
	}
}

// expectClose reads until the server closes and returns the close code and reason.
func expectClose(t *testing.T, c *websocket.Conn) (int, string) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		_, _, err := c.ReadMessage()
		if err == nil {
			continue
		}
		if ce, ok := err.(*websocket.CloseError); ok {
			return ce.Code, ce.Text
		}
		t.Fatalf("expected a close frame, got %v", err)
	}
}

const connectReq = `{"type":"req","id":"my-connect","method":"connect","params":{"minProtocol":3,"maxProtocol":4,"client":{"id":"cli","version":"0.1.0","platform":"linux","mode":"cli"},"role":"operator","scopes":["operator.read","operator.write"],"caps":["tool-events"]}}`

// connect does the handshake and returns the hello-ok frame.
func connect(t *testing.T, c *websocket.Conn, req string) string {
	t.Helper()
	ch := read(t, c)
	if ev, _ := jsonx.GetStr([]byte(ch), "event"); ev != "connect.challenge" {
		t.Fatalf("first frame is not connect.challenge: %s", ch)
	}
	send(t, c, req)
	return read(t, c)
}

func str(t *testing.T, frame string, path ...string) string {
	t.Helper()
	v, ok := jsonx.GetPath([]byte(frame), path...)
	if !ok {
		return ""
	}
	if s, ok := jsonx.Str(v); ok {
		return s
	}
	return string(v)
}

func TestHandshake(t *testing.T) {
	b := newCap(t).handshake(1000)
	b.in(1001, tick(7, 1))
	s := b.script(0)
	clk := NewFakeClock(time.UnixMilli(1_795_317_835_055))
	_, url := startServer(t, s, Options{Clock: clk, Pacing: Pacing{Fast: true}})
	c := dial(t, url)

	ch := read(t, c)
	if want := `{"type":"event","event":"connect.challenge","payload":{"nonce":"00010203-0405-4607-8809-0a0b0c0d0e0f","ts":1795317835055,"capabilities":["model-catalog-snapshot"]}}`; ch != want {
		t.Fatalf("challenge:\n got %s\nwant %s", ch, want)
	}
	send(t, c, connectReq)
	hello := read(t, c)
	if got := str(t, hello, "id"); got != "my-connect" {
		t.Fatalf("hello id %q", got)
	}
	if str(t, hello, "ok") != "true" || str(t, hello, "payload", "type") != "hello-ok" {
		t.Fatalf("not a hello-ok: %s", hello)
	}
	if got := str(t, hello, "payload", "server", "connId"); got != "10111213-1415-4617-9819-1a1b1c1d1e1f" {
		t.Fatalf("connId %q is not fresh", got)
	}
	if got := str(t, hello, "payload", "server", "version"); got != "2026.9.6" {
		t.Fatalf("server version %q", got)
	}
	if got := str(t, hello, "payload", "protocol"); got != "4" {
		t.Fatalf("protocol %q", got)
	}
	if strings.Contains(hello, "deviceToken") {
		t.Fatalf("hello hands out the recorded (redacted) device token: %s", hello)
	}
	for _, keep := range []string{`"features":{"methods":["chat.send","chat.history"]`, `"snapshot":{"presence":[],"health":{"ok":true}`, `"policy":{"maxPayload":26214400`, `"issuedAtMs":7`} {
		if !strings.Contains(hello, keep) {
			t.Errorf("hello lost %s: %s", keep, hello)
		}
	}
	if ev := read(t, c); ev != tick(1, 1) {
		t.Fatalf("first event %s", ev)
	}
}

func TestHandshakeSecondClientGetsFreshIDs(t *testing.T) {
	s := newCap(t).handshake(1000).script(0)
	_, url := startServer(t, s, Options{Pacing: Pacing{Fast: true}})
	seen := map[string]bool{}
	for i := 0; i < 3; i++ {
		c := dial(t, url)
		ch := read(t, c)
		send(t, c, connectReq)
		hello := read(t, c)
		for _, v := range []string{str(t, ch, "payload", "nonce"), str(t, hello, "payload", "server", "connId")} {
			if seen[v] {
				t.Fatalf("id %s reused", v)
			}
			seen[v] = true
		}
	}
}

func TestHandshakeProtocolMismatch(t *testing.T) {
	s := newCap(t).handshake(1000).script(0)
	_, url := startServer(t, s, Options{})
	c := dial(t, url)
	res := connect(t, c, `{"type":"req","id":"x","method":"connect","params":{"minProtocol":5,"maxProtocol":6,"client":{"id":"cli","mode":"cli"}}}`)
	want := `{"type":"res","id":"x","ok":false,"error":{"code":"INVALID_REQUEST","message":"protocol mismatch","details":{"code":"PROTOCOL_MISMATCH","expectedProtocol":4,"clientMinProtocol":5,"clientMaxProtocol":6}}}`
	if res != want {
		t.Fatalf("got  %s\nwant %s", res, want)
	}
	if code, reason := expectClose(t, c); code != 1002 || reason != "protocol mismatch" {
		t.Fatalf("close %d %q", code, reason)
	}
	// A v3-only client against a v4 capture is turned away too.
	c = dial(t, url)
	res = connect(t, c, `{"type":"req","id":"y","method":"connect","params":{"minProtocol":3,"maxProtocol":3}}`)
	if str(t, res, "error", "details", "code") != "PROTOCOL_MISMATCH" {
		t.Fatalf("got %s", res)
	}
}

func TestHandshakeToken(t *testing.T) {
	s := newCap(t).handshake(1000).script(0)
	_, url := startServer(t, s, Options{Token: "s3cret", Pacing: Pacing{Fast: true}})
	for _, tc := range []struct{ auth, want string }{
		{`,"auth":{"token":"wrong"}`, `{"type":"res","id":"x","ok":false,"error":{"code":"INVALID_REQUEST","message":"unauthorized: gateway token mismatch (use this gateway's gateway.auth.token or pair the device)","details":{"code":"AUTH_TOKEN_MISMATCH","authReason":"token_mismatch","canRetryWithDeviceToken":false}}}`},
		{``, `{"type":"res","id":"x","ok":false,"error":{"code":"INVALID_REQUEST","message":"unauthorized: gateway token missing (this clawtap serve was started with --token)","details":{"code":"AUTH_TOKEN_MISSING","authReason":"token_missing","canRetryWithDeviceToken":false}}}`},
	} {
		c := dial(t, url)
		res := connect(t, c, `{"type":"req","id":"x","method":"connect","params":{"minProtocol":3,"maxProtocol":4`+tc.auth+`}}`)
		if res != tc.want {
			t.Fatalf("auth %q:\n got %s\nwant %s", tc.auth, res, tc.want)
		}
		if code, reason := expectClose(t, c); code != 1008 || !strings.HasPrefix(reason, "unauthorized: gateway token") {
			t.Fatalf("close %d %q", code, reason)
		}
	}
	c := dial(t, url)
	hello := connect(t, c, `{"type":"req","id":"x","method":"connect","params":{"minProtocol":3,"maxProtocol":4,"auth":{"token":"s3cret"}}}`)
	if str(t, hello, "payload", "type") != "hello-ok" {
		t.Fatalf("right token refused: %s", hello)
	}
}

func TestHandshakeFirstFrameMustBeConnect(t *testing.T) {
	s := newCap(t).handshake(1000).script(0)
	_, url := startServer(t, s, Options{})
	c := dial(t, url)
	res := connect(t, c, `{"type":"req","id":"r1-health","method":"health"}`)
	if want := `{"type":"res","id":"r1-health","ok":false,"error":{"code":"INVALID_REQUEST","message":"invalid handshake: first request must be connect"}}`; res != want {
		t.Fatalf("got %s", res)
	}
	if code, reason := expectClose(t, c); code != 1008 || reason != "invalid handshake: first request must be connect" {
		t.Fatalf("close %d %q", code, reason)
	}
	// Garbage has no id to answer: just the close.
	c = dial(t, url)
	read(t, c)
	send(t, c, `not json at all`)
	if code, _ := expectClose(t, c); code != 1008 {
		t.Fatalf("close %d", code)
	}
}

func TestSynthesizedHello(t *testing.T) {
	b := newCap(t)
	b.in(1000, tick(1, 1))
	b.out(1100, `{"type":"req","id":"h","method":"health","params":{}}`)
	b.in(1101, `{"type":"res","id":"h","ok":true,"payload":{"ok":true}}`)
	s := b.script(0)
	if s.Hello != nil || s.Protocol != 0 {
		t.Fatalf("hello %s protocol %d", s.Hello, s.Protocol)
	}
	_, url := startServer(t, s, Options{Pacing: Pacing{Fast: true}})
	for _, c := range []struct {
		min, max int
		want     string
	}{{3, 4, "4"}, {3, 3, "3"}} {
		conn := dial(t, url)
		hello := connect(t, conn, fmt.Sprintf(`{"type":"req","id":"c","method":"connect","params":{"minProtocol":%d,"maxProtocol":%d,"role":"operator","scopes":["operator.read"]}}`, c.min, c.max))
		if str(t, hello, "payload", "protocol") != c.want {
			t.Fatalf("protocol: %s", hello)
		}
		for _, want := range []string{`"type":"hello-ok"`, `"methods":["health"]`, `"events":["tick"]`, `"scopes":["operator.read"]`, `"maxPayload":26214400`, `"version":"clawtap-serve"`} {
			if !strings.Contains(hello, want) {
				t.Errorf("synthesized hello lacks %s: %s", want, hello)
			}
		}
		if !jsonx.Valid([]byte(hello)) {
			t.Fatalf("invalid JSON: %s", hello)
		}
	}
}

func gapScript(t *testing.T, seqs ...int) *Script {
	b := newCap(t).handshake(1000)
	for i, n := range seqs {
		b.in(int64(1001+i), tick(n, int64(i)))
	}
	// A frame without seq (a targeted send on an older gateway) stays without.
	b.in(2000, `{"type":"event","event":"agent","payload":{"stream":"tool"}}`)
	return b.script(0)
}

func TestSeqRenumberingOverTheWire(t *testing.T) {
	cases := []struct {
		name string
		rec  []int
		want []int64
	}{
		{"contiguous", []int{1, 2, 3}, []int64{1, 2, 3}},
		{"global counter, late start", []int{32, 33, 34}, []int64{1, 2, 3}},
		{"capture gap kept", []int{1, 2, 8, 9}, []int64{1, 2, 8, 9}},
		{"scope holes kept", []int{4, 6, 7, 30, 32}, []int64{1, 3, 4, 27, 29}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, url := startServer(t, gapScript(t, tc.rec...), Options{Pacing: Pacing{Fast: true}})
			// Two clients, one after the other: each starts at 1.
			for k := 0; k < 2; k++ {
				c := dial(t, url)
				connect(t, c, connectReq)
				for i, want := range tc.want {
					f := read(t, c)
					if n, _ := seqOf(t, f); n != want {
						t.Fatalf("client %d frame %d: seq %d, want %d", k, i, n, want)
					}
				}
				if f := read(t, c); strings.Contains(f, `"seq"`) {
					t.Fatalf("frame without seq got one: %s", f)
				}
			}
		})
	}
}

func matchScript(t *testing.T) *Script {
	b := newCap(t).handshake(1000)
	b.out(1010, `{"type":"req","id":"h1","method":"chat.history","params":{"sessionKey":"agent:main:main","limit":200}}`)
	b.in(1020, `{"type":"res","id":"h1","ok":true,"payload":{"messages":[],"n":1}}`)
	b.in(1100, tick(1, 1))
	b.out(1200, `{"type":"req","id":"a1","method":"agent","params":{"message":"go","idempotencyKey":"k"}}`)
	b.in(1210, `{"type":"res","id":"a1","ok":true,"payload":{"runId":"k","status":"accepted","acceptedAt":1}}`)
	b.in(1300, tick(2, 2))
	b.in(1900, `{"type":"res","id":"a1","ok":true,"payload":{"runId":"k","status":"ok"}}`)
	b.out(2000, `{"type":"req","id":"h2","method":"chat.history","params":{"sessionKey":"agent:main:main","limit":200}}`)
	b.in(2020, `{"type":"res","id":"h2","ok":true,"payload":{"messages":[{"role":"user"}],"n":2}}`)
	b.out(2100, `{"type":"req","id":"s1","method":"sessions.list","params":{}}`)
	b.in(2110, `{"type":"res","id":"s1","ok":false,"error":{"code":"FORBIDDEN","message":"missing scope"}}`)
	b.out(2200, `{"type":"req","id":"lost","method":"models.list","params":{}}`) // never answered
	return b.script(0)
}

func TestMatchByPosition(t *testing.T) {
	s := matchScript(t)
	p := []byte(`{"sessionKey":"agent:main:main","limit":5}`)
	match := func(method string, params []byte, pos int) *Recorded {
		t.Helper()
		q, err := s.Match(method, params, pos)
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	first := match("chat.history", p, -1)
	if first == nil || !bytes.Contains(first.Responses[0], []byte(`"n":1`)) {
		t.Fatal("before the stream: want the first history")
	}
	// The first history was asked before the first tick, so once the tick
	// was sent the next recorded one is h2.
	tickIdx := firstFrameIndex(t, s)
	if q := match("chat.history", p, tickIdx); q == nil || !bytes.Contains(q.Responses[0], []byte(`"n":2`)) {
		t.Fatal("after the tick: want the second history")
	}
	if q := match("chat.history", p, 1<<30); q == nil || !bytes.Contains(q.Responses[0], []byte(`"n":2`)) {
		t.Fatal("at the end: want the last history")
	}
	if q := match("chat.history", []byte(`{"sessionKey":"agent:other:main"}`), -1); q != nil {
		t.Fatal("another session matched")
	}
	if q := match("models.list", nil, -1); q != nil {
		t.Fatal("a request with no recorded response matched")
	}
}

func TestRequestMatchingOverTheWire(t *testing.T) {
	s := matchScript(t)
	_, url := startServer(t, s, Options{Pacing: Pacing{Fast: true}})
	c := dial(t, url)
	connect(t, c, connectReq)
	read(t, c) // tick 1
	read(t, c) // tick 2: the stream is over
	send(t, c, `{"type":"req","id":"mine-h","method":"chat.history","params":{"sessionKey":"agent:main:main","limit":50}}`)
	if got, want := read(t, c), `{"type":"res","id":"mine-h","ok":true,"payload":{"messages":[{"role":"user"}],"n":2}}`; got != want {
		t.Fatalf("history:\n got %s\nwant %s", got, want)
	}
	send(t, c, `{"type":"req","id":7,"method":"agent","params":{"message":"x","idempotencyKey":"other"}}`)
	if got, want := read(t, c), `{"type":"res","id":7,"ok":true,"payload":{"runId":"k","status":"accepted","acceptedAt":1}}`; got != want {
		t.Fatalf("agent accepted:\n got %s\nwant %s", got, want)
	}
	if got, want := read(t, c), `{"type":"res","id":7,"ok":true,"payload":{"runId":"k","status":"ok"}}`; got != want {
		t.Fatalf("agent final:\n got %s\nwant %s", got, want)
	}
	send(t, c, `{"type":"req","id":"sl","method":"sessions.list","params":{"limit":3}}`)
	if got, want := read(t, c), `{"type":"res","id":"sl","ok":false,"error":{"code":"FORBIDDEN","message":"missing scope"}}`; got != want {
		t.Fatalf("recorded error: %s", got)
	}
	for _, req := range []string{
		`{"type":"req","id":"u1","method":"models.list","params":{}}`,
		`{"type":"req","id":"u2","method":"chat.history","params":{"sessionKey":"agent:other:main"}}`,
		`{"type":"req","id":"u3","method":"logs.tail"}`,
		`{"type":"req","id":"u4","method":"chat.send","params":{"sessionKey":"agent:main:main","message":"hi","idempotencyKey":"z"}}`,
	} {
		send(t, c, req)
		id := str(t, req, "id")
		want := `{"type":"res","id":"` + id + `","ok":false,"error":{"code":"UNAVAILABLE","message":"not in capture"}}`
		if got := read(t, c); got != want {
			t.Fatalf("got %s\nwant %s", got, want)
		}
	}
	// A second connect is refused but the client stays.
	send(t, c, connectReq)
	if got := read(t, c); str(t, got, "error", "code") != "INVALID_REQUEST" {
		t.Fatalf("second connect: %s", got)
	}
}

func TestOnSendNextRunOverTheWire(t *testing.T) {
	s := runScript(t)
	_, url := startServer(t, s, Options{OnSend: OnSendNextRun, Pacing: Pacing{Fast: true}})
	c := dial(t, url)
	connect(t, c, connectReq)
	if f := read(t, c); f != tick(1, 1) {
		t.Fatalf("got %s", f)
	}
	// The stream now waits for chat.send: nothing comes.
	_ = c.SetReadDeadline(time.Now().Add(150 * time.Millisecond))
	if _, msg, err := c.ReadMessage(); err == nil {
		t.Fatalf("stream did not wait for chat.send: %s", msg)
	}
	c = dial(t, url) // a read timeout breaks a gorilla conn; use a fresh client
	connect(t, c, connectReq)
	read(t, c)
	send(t, c, `{"type":"req","id":"ui-send-1","method":"chat.send","params":{"sessionKey":"agent:main:main","message":"anything","idempotencyKey":"ui-key"}}`)
	want := []string{
		`{"type":"res","id":"ui-send-1","ok":true,"payload":{"runId":"ui-key","status":"started"}}`,
		`{"type":"event","event":"chat","payload":{"runId":"ui-key","state":"delta"},"seq":2}`,
		`{"type":"event","event":"chat","payload":{"runId":"ui-key","state":"final"},"seq":3}`,
	}
	for _, w := range want {
		if got := read(t, c); got != w {
			t.Fatalf("got %s\nwant %s", got, w)
		}
	}
	send(t, c, `{"type":"req","id":"ui-send-2","method":"chat.send","params":{"sessionKey":"agent:main:main","message":"more","idempotencyKey":"k2"}}`)
	if got := read(t, c); str(t, got, "id") != "ui-send-2" || str(t, got, "payload", "runId") != "k2" {
		t.Fatalf("got %s", got)
	}
	read(t, c)
	send(t, c, `{"type":"req","id":"ui-send-3","method":"chat.send","params":{}}`)
	if got := read(t, c); str(t, got, "error", "code") != "UNAVAILABLE" {
		t.Fatalf("a send past the last run: %s", got)
	}
}

func longScript(t *testing.T, n int, stepMs int64) *Script {
	b := newCap(t).handshake(1000)
	for i := 1; i <= n; i++ {
		b.in(1000+int64(i)*stepMs, tick(100+i, int64(i)))
	}
	return b.script(0)
}

func readStream(t *testing.T, c *websocket.Conn, n int) error {
	for i := 1; i <= n; i++ {
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, msg, err := c.ReadMessage()
		if err != nil {
			return fmt.Errorf("frame %d: %v", i, err)
		}
		if want := tick(i, int64(i)); string(msg) != want {
			return fmt.Errorf("frame %d: got %s, want %s", i, msg, want)
		}
	}
	return nil
}

func TestManyClients(t *testing.T) {
	const n, clients = 50, 8
	sv, url := startServer(t, longScript(t, n, 2), Options{})
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for k := 0; k < clients; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, _, err := websocket.DefaultDialer.Dial(url, nil)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			c.ReadMessage() // challenge
			c.WriteMessage(websocket.TextMessage, []byte(connectReq))
			c.ReadMessage() // hello
			errs <- readStream(t, c, n)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if st := sv.Stats(); st.Total != clients {
		t.Fatalf("stats: %+v", st)
	}
}

func TestBadClientsDoNotDisturbOthers(t *testing.T) {
	const n = 40
	sv, url := startServer(t, longScript(t, n, 5), Options{HandshakeTimeout: 300 * time.Millisecond})
	good := dial(t, url)
	connect(t, good, connectReq)
	done := make(chan error, 1)
	go func() { done <- readStream(t, good, n) }()

	// No connect at all: closed after the handshake timeout.
	silent := dial(t, url)
	read(t, silent)
	// Garbage as the first frame.
	garbage := dial(t, url)
	read(t, garbage)
	send(t, garbage, "\x00\xff garbage")
	// Binary first frame.
	bin := dial(t, url)
	read(t, bin)
	bin.WriteMessage(websocket.BinaryMessage, []byte{1, 2, 3})
	// A pre-auth frame over 64 KiB.
	big := dial(t, url)
	read(t, big)
	big.WriteMessage(websocket.TextMessage, bytes.Repeat([]byte("x"), MaxPreauthPayload+1))
	// Early close, before and after the handshake.
	early := dial(t, url)
	early.Close()
	quitter := dial(t, url)
	connect(t, quitter, connectReq)
	read(t, quitter)
	quitter.Close()
	// Garbage after the handshake is ignored (and answered when it has an id).
	noisy := dial(t, url)
	connect(t, noisy, connectReq)
	send(t, noisy, `{{{{`)
	send(t, noisy, `{"type":"req","id":"q"}`)
	send(t, noisy, `[1,2,3]`)
	noisy.WriteMessage(websocket.BinaryMessage, []byte("bin"))
	// A client that never reads.
	stuck := dial(t, url)
	connect(t, stuck, connectReq)

	if code, reason := expectClose(t, silent); code != 1008 || reason != "handshake timeout" {
		t.Errorf("silent client: close %d %q", code, reason)
	}
	if code, _ := expectClose(t, garbage); code != 1008 {
		t.Errorf("garbage client: close %d", code)
	}
	if code, _ := expectClose(t, bin); code != 1008 {
		t.Errorf("binary client: close %d", code)
	}
	if code, _ := expectClose(t, big); code != websocket.CloseMessageTooBig {
		t.Errorf("big client: close %d", code)
	}
	if err := <-done; err != nil {
		t.Fatalf("good client disturbed: %v", err)
	}
	// The noisy client got an error for the frame with an id, and the rest
	// of its stream.
	for {
		f := read(t, noisy)
		if str(t, f, "type") == "res" {
			if str(t, f, "id") != "q" || str(t, f, "error", "code") != "INVALID_REQUEST" {
				t.Fatalf("noisy: %s", f)
			}
			break
		}
	}
	st := sv.Stats()
	if st.Rejected < 4 {
		t.Errorf("rejected %d, want at least 4: %+v", st.Rejected, st)
	}
}

func TestOnceDoneAfterFirstStream(t *testing.T) {
	sv, url := startServer(t, longScript(t, 3, 1), Options{Once: true, Pacing: Pacing{Fast: true}})
	select {
	case <-sv.Done():
		t.Fatal("done before any client")
	default:
	}
	c := dial(t, url)
	connect(t, c, connectReq)
	if err := readStream(t, c, 3); err != nil {
		t.Fatal(err)
	}
	select {
	case <-sv.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("not done after the first client's stream")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	go sv.CloseWith(ctx, websocket.CloseNormalClosure, "end of capture")
	if code, reason := expectClose(t, c); code != 1000 || reason != "end of capture" {
		t.Fatalf("close %d %q", code, reason)
	}
}

func TestConfiguredUIHello(t *testing.T) {
	b := newCap(t)
	b.mark(1000, "open")
	b.in(1000, `{"type":"event","event":"connect.challenge","payload":{"nonce":"n","ts":1}}`)
	b.out(1001, `{"type":"req","id":"c","method":"connect","params":{"minProtocol":4,"maxProtocol":4}}`)
	b.in(1002, `{"type":"res","id":"c","ok":true,"payload":{"type":"hello-ok","protocol":4,"server":{"version":"2026.9.6","buildId":"b1","controlUiBuildSource":"bundled","connId":"old"}}}`)
	s := b.script(0)
	_, url := startServer(t, s, Options{ConfiguredUI: true})
	c := dial(t, url)
	hello := connect(t, c, connectReq)
	if got := str(t, hello, "payload", "server", "controlUiBuildSource"); got != "configured" {
		t.Fatalf("controlUiBuildSource %q: %s", got, hello)
	}
	if got := str(t, hello, "payload", "server", "buildId"); got != "b1" {
		t.Fatalf("buildId %q", got)
	}
	// A v3 hello (no build fields) is left alone.
	_, url = startServer(t, newCap(t).handshake(1000).script(0), Options{ConfiguredUI: true})
	c = dial(t, url)
	if hello := connect(t, c, connectReq); strings.Contains(hello, "controlUiBuildSource") {
		t.Fatalf("added to a hello without build fields: %s", hello)
	}
}
