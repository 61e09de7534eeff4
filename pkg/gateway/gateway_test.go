package gateway_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawtap/clawtap/internal/fakegw"
	"github.com/clawtap/clawtap/pkg/gateway"
	"github.com/gorilla/websocket"
	"net/http"
	"net/http/httptest"
)

const testToken = "tok-s3cret-value"

func dial(t *testing.T, url string, o gateway.Options) (*gateway.Conn, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return gateway.Dial(ctx, url, o)
}

func TestHandshakeSignatureVerifiedByServer(t *testing.T) {
	srv := fakegw.New(fakegw.Config{Token: testToken, RequireDevice: true})
	defer srv.Close()
	store := &gateway.Store{Dir: t.TempDir()}
	id, err := store.Identity()
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var frames []gateway.Frame
	opened := false
	c, err := dial(t, srv.URL, gateway.Options{
		Token: testToken, Identity: id, Store: store, ClientVersion: "1.2.3",
		Platform: " Linux ", DeviceFamily: "Desktop",
		Scopes: []string{"operator.read", "operator.write"},
		OnOpen: func(time.Time) { opened = true },
		OnFrame: func(f gateway.Frame) {
			mu.Lock()
			frames = append(frames, gateway.Frame{Dir: f.Dir, Time: f.Time, Data: bytes.Clone(f.Data)})
			mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cs := srv.Connects()
	if len(cs) != 1 || !cs[0].Accepted || !cs[0].SignatureOK {
		t.Fatalf("connect not accepted with a verified signature: %+v", cs)
	}
	got := cs[0]
	if got.MinProtocol != 3 || got.MaxProtocol != 4 || got.ClientID != "cli" || got.ClientMode != "cli" {
		t.Errorf("connect params: %+v", got)
	}
	if strings.Join(got.Caps, ",") != "tool-events" {
		t.Errorf("caps = %v", got.Caps)
	}
	// Rebuild the signed string independently from the raw params.
	var p struct {
		Client struct{ ID, Mode, Platform, DeviceFamily string }
		Role   string
		Scopes []string
		Auth   struct{ Token string }
		Device struct {
			ID, PublicKey, Signature, Nonce string
			SignedAt                        int64
		}
	}
	if err := json.Unmarshal(got.Params, &p); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("v3|%s|cli|cli|operator|operator.read,operator.write|%d|%s|%s|linux|desktop",
		p.Device.ID, p.Device.SignedAt, testToken, p.Device.Nonce)
	if got.SignedPayload != want {
		t.Errorf("signed payload\n got %q\nwant %q", got.SignedPayload, want)
	}
	pub, _ := base64.RawURLEncoding.DecodeString(p.Device.PublicKey)
	sig, _ := base64.RawURLEncoding.DecodeString(p.Device.Signature)
	if !ed25519.Verify(pub, []byte(want), sig) {
		t.Error("signature does not verify over the independently built string")
	}
	sum := sha256.Sum256(pub)
	if hex.EncodeToString(sum[:]) != p.Device.ID || p.Device.ID != id.DeviceID {
		t.Error("device id is not sha256(raw public key)")
	}
	if p.Client.Platform != " Linux " {
		t.Errorf("platform sent as %q; only the signed copy is normalised", p.Client.Platform)
	}
	if c.Hello.Protocol != 4 || c.Hello.ServerVersion != "2026.9.6-fake" || c.Hello.ConnID != "conn-1" || c.Hello.BootID != "boot-1" {
		t.Errorf("hello = %+v", c.Hello)
	}
	if !opened {
		t.Error("OnOpen not called")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(frames) != 3 {
		t.Fatalf("hook saw %d frames, want challenge, connect, hello-ok", len(frames))
	}
	for i, want := range []struct{ dir, has string }{{"in", `"connect.challenge"`}, {"out", `"method":"connect"`}, {"in", `"hello-ok"`}} {
		if frames[i].Dir != want.dir || !strings.Contains(string(frames[i].Data), want.has) || frames[i].Time.IsZero() {
			t.Errorf("frame %d = %s %s", i, frames[i].Dir, frames[i].Data)
		}
	}
}

func TestSignedTokenIsDeviceTokenWithoutSharedSecret(t *testing.T) {
	srv := fakegw.New(fakegw.Config{Token: testToken, RequireDevice: true, IssueDeviceTokens: true})
	defer srv.Close()
	store := &gateway.Store{Dir: t.TempDir()}
	id, _ := store.Identity()
	c, err := dial(t, srv.URL, gateway.Options{Token: testToken, Identity: id, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Hello.HasDeviceToken() {
		t.Fatal("no device token issued")
	}
	c.Close()
	tok, _ := store.DeviceToken(srv.URL, "operator", id.DeviceID)
	if tok == "" {
		t.Fatal("device token not stored")
	}
	fi, err := os.Stat(filepath.Join(store.Dir, "device-tokens.json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file mode: %v %v", fi, err)
	}
	// Second connect without the shared token reuses the stored one.
	c2, err := dial(t, srv.URL, gateway.Options{Identity: id, Store: store})
	if err != nil {
		t.Fatalf("reconnect with stored device token: %v", err)
	}
	c2.Close()
	cs := srv.Connects()
	last := cs[len(cs)-1]
	if last.DeviceToken != tok || last.Token != "" || !last.SignatureOK || !strings.Contains(last.SignedPayload, "|"+tok+"|") {
		t.Errorf("second connect: %+v", last)
	}
}

func TestIdentityCreatedOnceWith0600(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cfg", "clawtap")
	s1 := &gateway.Store{Dir: dir}
	a, err := s1.Identity()
	if err != nil {
		t.Fatal(err)
	}
	b, err := (&gateway.Store{Dir: dir}).Identity()
	if err != nil {
		t.Fatal(err)
	}
	if a.DeviceID != b.DeviceID || !a.PrivateKey.Equal(b.PrivateKey) {
		t.Fatal("identity changed between loads")
	}
	fi, _ := os.Stat(s1.Path())
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("identity file mode %v", fi.Mode().Perm())
	}
	di, _ := os.Stat(dir)
	if di.Mode().Perm() != 0o700 {
		t.Errorf("identity dir mode %v", di.Mode().Perm())
	}
	// Deterministic with an injected random source.
	seed := bytes.Repeat([]byte{7}, 64)
	x, _ := (&gateway.Store{Dir: t.TempDir(), Rand: bytes.NewReader(seed)}).Identity()
	y, _ := (&gateway.Store{Dir: t.TempDir(), Rand: bytes.NewReader(seed)}).Identity()
	if x.DeviceID != y.DeviceID {
		t.Error("same randomness gave different identities")
	}
}

func TestConcurrentIdentityCreationAgrees(t *testing.T) {
	dir := t.TempDir()
	ids := make([]string, 8)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id, err := (&gateway.Store{Dir: dir}).Identity()
			if err == nil {
				ids[i] = id.DeviceID
			}
		}()
	}
	wg.Wait()
	for _, id := range ids {
		if id == "" || id != ids[0] {
			t.Fatalf("identities differ: %v", ids)
		}
	}
}

func TestSignaturePayloadV3(t *testing.T) {
	got := gateway.SignaturePayloadV3(gateway.SignatureFields{DeviceID: "d", ClientID: "cli", ClientMode: "cli", Role: "operator",
		Scopes: []string{"a", "b"}, SignedAtMs: 12, Token: "t", Nonce: "n", Platform: " MacOS ", DeviceFamily: ""})
	if got != "v3|d|cli|cli|operator|a,b|12|t|n|macos|" {
		t.Errorf("%q", got)
	}
}

func TestErrorMapping(t *testing.T) {
	cases := []struct {
		name  string
		cfg   fakegw.Config
		opts  func(*gateway.Options)
		kind  gateway.Kind
		is    error
		retry bool
		text  string
		hint  string
	}{
		{"token mismatch", fakegw.Config{Token: testToken}, func(o *gateway.Options) { o.Token = "wrong" },
			gateway.KindTokenMismatch, gateway.ErrTokenMismatch, false, "rejected the token", "--token-file"},
		{"token missing", fakegw.Config{Token: testToken}, func(o *gateway.Options) {},
			gateway.KindTokenMismatch, gateway.ErrTokenMismatch, false, "needs a token or password", "OPENCLAW_GATEWAY_TOKEN"},
		{"password mismatch", fakegw.Config{Password: "pw"}, func(o *gateway.Options) { o.Password = "nope" },
			gateway.KindTokenMismatch, gateway.ErrTokenMismatch, false, "rejected the password", "--password-file"},
		{"pairing", fakegw.Config{Token: testToken, PairingRequired: true}, func(o *gateway.Options) { o.Token = testToken },
			gateway.KindPairingRequired, gateway.ErrPairingRequired, false, "pairing required", "openclaw devices approve req-"},
		{"protocol", fakegw.Config{Protocol: 5}, func(o *gateway.Options) {},
			gateway.KindProtocolMismatch, gateway.ErrProtocolMismatch, false, "speaks protocol 5", "upgrade"},
		{"scope", fakegw.Config{RequiredScope: "operator.admin"}, func(o *gateway.Options) {},
			gateway.KindMissingScope, gateway.ErrMissingScope, false, "operator.admin", "--scopes"},
		{"starting", fakegw.Config{Unavailable: 5}, func(o *gateway.Options) {},
			gateway.KindUnavailable, gateway.ErrUnavailable, true, "starting", "wait"},
		{"device required", fakegw.Config{RequireDevice: true}, func(o *gateway.Options) { o.Identity = nil },
			gateway.KindDeviceAuth, gateway.ErrDeviceAuth, false, "DEVICE_IDENTITY_REQUIRED", "clock"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakegw.New(tc.cfg)
			defer srv.Close()
			id, _ := gateway.NewIdentity(nil)
			o := gateway.Options{Identity: id}
			tc.opts(&o)
			_, err := dial(t, srv.URL, o)
			var ge *gateway.Error
			if !errors.As(err, &ge) {
				t.Fatalf("err = %v (%T)", err, err)
			}
			if ge.Kind != tc.kind || !errors.Is(err, tc.is) || ge.Retryable() != tc.retry {
				t.Errorf("kind %v retry %v, want %v %v", ge.Kind, ge.Retryable(), tc.kind, tc.retry)
			}
			if !strings.Contains(err.Error(), tc.text) || !strings.Contains(ge.Hint(), tc.hint) {
				t.Errorf("text %q / hint %q", err.Error(), ge.Hint())
			}
			if strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), testToken) || strings.Contains(ge.Hint(), testToken) {
				t.Errorf("error must be one line without secrets: %q", err.Error())
			}
			if tc.kind != gateway.KindUnavailable && ge.CloseCode == 0 {
				t.Errorf("close code not captured")
			}
			if tc.kind == gateway.KindUnavailable && ge.RetryAfter != 50*time.Millisecond {
				t.Errorf("retryAfter = %v", ge.RetryAfter)
			}
		})
	}
}

func TestNetworkErrorAndURLHandling(t *testing.T) {
	srv := fakegw.New(fakegw.Config{})
	addr := strings.TrimPrefix(srv.URL, "ws://")
	srv.Close()
	_, err := dial(t, "ws://user:pw@"+addr+"/?token=abc", gateway.Options{})
	if !errors.Is(err, gateway.ErrNetwork) {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(err.Error(), "abc") || strings.Contains(err.Error(), "pw@") {
		t.Errorf("secret in error: %v", err)
	}
	if _, err := gateway.NormalizeURL("ftp://x"); err == nil {
		t.Error("ftp accepted")
	}
	if u, _ := gateway.NormalizeURL("127.0.0.1:18789"); u != "ws://127.0.0.1:18789" {
		t.Errorf("normalize = %q", u)
	}
	if u, _ := gateway.NormalizeURL("https://gw.example/x"); u != "wss://gw.example/x" {
		t.Errorf("normalize = %q", u)
	}
	if s := gateway.SafeURL("wss://a:b@h/p?token=x#token=y"); s != "wss://h/p?…" {
		t.Errorf("SafeURL = %q", s)
	}
}

func TestHandshakeTimeoutAndCancel(t *testing.T) {
	// A server that upgrades but never sends a challenge.
	srv := fakegw.New(fakegw.Config{})
	defer srv.Close()
	blocker := newSilentServer(t)
	_, err := gateway.Dial(context.Background(), blocker, gateway.Options{HandshakeTimeout: 300 * time.Millisecond})
	if !errors.Is(err, gateway.ErrNetwork) || !strings.Contains(err.Error(), "no handshake within") {
		t.Errorf("timeout err = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err = gateway.Dial(ctx, blocker, gateway.Options{})
	if !errors.Is(err, context.Canceled) || time.Since(start) > 5*time.Second {
		t.Errorf("cancel err = %v after %v", err, time.Since(start))
	}
}

func TestClientCallAndWait(t *testing.T) {
	srv := fakegw.New(fakegw.Config{
		OnRequest: func(c *fakegw.Conn, r fakegw.Request) {
			if r.Method == "chat.send" {
				_ = c.Respond(r.ID, true, map[string]any{"runId": "r1", "status": "started"}, nil)
				_ = c.Event("chat", map[string]any{"runId": "r1", "state": "final"})
				return
			}
			_ = c.Respond(r.ID, false, nil, map[string]any{"code": "INVALID_REQUEST", "message": "unknown method"})
		},
	})
	defer srv.Close()
	conn, err := dial(t, srv.URL, gateway.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cl := gateway.NewClient(conn)
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res, err := cl.Call(ctx, "chat.send", map[string]any{"message": "hi"})
	if err != nil || !res.OK {
		t.Fatalf("call: %v %+v", err, res)
	}
	m, err := cl.Wait(ctx, func(m gateway.Message) bool { return m.Event == "chat" })
	if err != nil || !m.HasSeq || m.Seq != 1 {
		t.Fatalf("wait: %v %+v", err, m)
	}
	res, err = cl.Call(ctx, "nope", nil)
	if err != nil || res.Err() == nil {
		t.Fatalf("error response: %v %+v", err, res)
	}
}

// newSilentServer upgrades WebSockets and then says nothing.
func newSilentServer(t *testing.T) string {
	up := websocket.Upgrader{}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		for {
			if _, _, err := ws.ReadMessage(); err != nil {
				return
			}
		}
	}))
	t.Cleanup(hs.Close)
	return "ws" + strings.TrimPrefix(hs.URL, "http")
}
