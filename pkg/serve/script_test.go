package serve

import (
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
)

// chat.send marks outside the served connection's life are dropped: a
// stream never waits for a run it does not hold.
func TestSendsOfOtherConnections(t *testing.T) {
	b := newCap(t)
	b.conn = 1
	b.handshake(1000)
	b.out(1100, `{"type":"req","id":"s1","method":"chat.send","params":{}}`)
	b.in(1101, `{"type":"res","id":"s1","ok":true,"payload":{"runId":"a","status":"started"}}`)
	b.in(1200, tick(1, 1))
	b.mark(1300, capture.MarkClose)
	b.conn = 2
	b.handshake(2000)
	b.in(2100, tick(1, 2))
	b.out(2200, `{"type":"req","id":"s2","method":"chat.send","params":{}}`)
	b.in(2201, `{"type":"res","id":"s2","ok":true,"payload":{"runId":"b","status":"started"}}`)
	b.in(2300, tick(2, 3))
	b.conn = 1 // a send on the first connection after the second opened, and its run
	b.out(2400, `{"type":"req","id":"s3","method":"chat.send","params":{}}`)
	b.conn = 2
	b.in(2500, tick(3, 4))
	b.conn = 1
	b.out(2600, `{"type":"req","id":"s4","method":"chat.send","params":{}}`) // nothing after it
	s := b.script(2)
	var kinds []ItemKind
	var sends []int
	for _, it := range s.Items {
		kinds = append(kinds, it.Kind)
		if it.Kind != ItemFrame {
			sends = append(sends, it.Send)
		}
	}
	want := []ItemKind{ItemFrame, ItemSend, ItemSendResponse, ItemFrame, ItemSend, ItemFrame}
	if len(kinds) != len(want) {
		t.Fatalf("items %v, want %v", kinds, want)
	}
	for i := range want {
		if kinds[i] != want[i] {
			t.Fatalf("items %v, want %v", kinds, want)
		}
	}
	if s.Sends != 2 || sends[0] != 0 || sends[1] != 0 || sends[2] != 1 {
		t.Fatalf("sends %d numbered %v", s.Sends, sends)
	}
	if s.Conn != 2 || len(s.Conns) != 2 || s.HelloFromConn != 2 {
		t.Fatalf("conn %d conns %v hello from %d", s.Conn, s.Conns, s.HelloFromConn)
	}
}

// A run boundary knows the recorded run's id: the chat.send's
// idempotencyKey, or the runId its response names when that differs.
func TestSendRunIDs(t *testing.T) {
	b := newCap(t).handshake(1000)
	b.out(2000, `{"type":"req","id":"s1","method":"chat.send","params":{"sessionKey":"agent:main:main","idempotencyKey":"key-1"}}`)
	b.in(2010, `{"type":"res","id":"s1","ok":true,"payload":{"runId":"key-1","status":"started"}}`)
	b.in(2100, `{"type":"event","event":"chat","payload":{"runId":"key-1","state":"final"},"seq":1}`)
	b.out(3000, `{"type":"req","id":"s2","method":"chat.send","params":{"sessionKey":"agent:main:main","idempotencyKey":"key-2"}}`)
	b.in(3010, `{"type":"res","id":"s2","ok":true,"payload":{"runId":"run-2","status":"started"}}`)
	b.in(3100, `{"type":"event","event":"chat","payload":{"runId":"run-2","state":"final"},"seq":2}`)
	b.out(4000, `{"type":"req","id":"s3","method":"chat.send","params":{"sessionKey":"agent:main:main"}}`)
	b.in(4100, `{"type":"event","event":"tick","payload":{},"seq":3}`)
	s := b.script(0)
	var got []string
	for _, it := range s.Items {
		if it.Kind == ItemSend {
			got = append(got, it.RunID)
		}
	}
	if want := []string{"key-1", "run-2", ""}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("run ids %q, want %q", got, want)
	}
}
