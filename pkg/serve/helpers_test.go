package serve

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
)

// capBuilder writes a capture in memory, one record per call.
type capBuilder struct {
	t    *testing.T
	buf  bytes.Buffer
	w    *capture.Writer
	conn int
}

func newCap(t *testing.T) *capBuilder {
	t.Helper()
	b := &capBuilder{t: t, conn: 1}
	w, err := capture.NewWriter(&b.buf, false)
	if err != nil {
		t.Fatal(err)
	}
	b.w = w
	if err := w.WriteHeader(capture.Header{Source: capture.Source{Tool: "test", Mode: "record"}}); err != nil {
		t.Fatal(err)
	}
	return b
}

func (b *capBuilder) in(tms int64, frame string) *capBuilder {
	b.t.Helper()
	if err := b.w.WriteFrame(tms, b.conn, capture.DirIn, []byte(frame)); err != nil {
		b.t.Fatal(err)
	}
	return b
}

func (b *capBuilder) out(tms int64, frame string) *capBuilder {
	b.t.Helper()
	if err := b.w.WriteFrame(tms, b.conn, capture.DirOut, []byte(frame)); err != nil {
		b.t.Fatal(err)
	}
	return b
}

func (b *capBuilder) mark(tms int64, mark string) *capBuilder {
	b.t.Helper()
	if err := b.w.Write(&capture.Record{T: tms, Conn: b.conn, Mark: mark}); err != nil {
		b.t.Fatal(err)
	}
	return b
}

// handshake writes a recorded challenge, connect and hello-ok at tms.
func (b *capBuilder) handshake(tms int64) *capBuilder {
	b.mark(tms, capture.MarkOpen)
	b.in(tms, `{"type":"event","event":"connect.challenge","payload":{"nonce":"old-nonce","ts":1,"capabilities":["model-catalog-snapshot"]}}`)
	b.out(tms, `{"type":"req","id":"c1","method":"connect","params":{"minProtocol":3,"maxProtocol":4,"client":{"id":"cli","mode":"cli"},"auth":{"token":"[redacted]"}}}`)
	b.in(tms, helloFrame)
	return b
}

const helloPayload = `{"type":"hello-ok","protocol":4,"server":{"version":"2026.9.6","connId":"old-conn"},"features":{"methods":["chat.send","chat.history"],"events":["chat","agent","tick"]},"snapshot":{"presence":[],"health":{"ok":true},"stateVersion":{"presence":1,"health":1},"uptimeMs":5},"auth":{"role":"operator","scopes":["operator.read"],"deviceToken":"[redacted]","issuedAtMs":7},"policy":{"maxPayload":26214400,"maxBufferedBytes":52428800,"tickIntervalMs":30000}}`

var helloFrame = `{"type":"res","id":"c1","ok":true,"payload":` + helloPayload + `}`

func (b *capBuilder) script(conn int) *Script { return b.load(LoadOptions{Conn: conn}) }

func (b *capBuilder) load(opts LoadOptions) *Script {
	b.t.Helper()
	if err := b.w.Close(); err != nil {
		b.t.Fatal(err)
	}
	s, err := Load(BytesSource(b.buf.Bytes()), opts)
	if err != nil {
		b.t.Fatal(err)
	}
	return s
}

func (b *capBuilder) bytes() []byte {
	b.t.Helper()
	if err := b.w.Close(); err != nil {
		b.t.Fatal(err)
	}
	return b.buf.Bytes()
}

func tick(seq int, ts int64) string {
	return fmt.Sprintf(`{"type":"event","event":"tick","payload":{"ts":%d},"seq":%d}`, ts, seq)
}
