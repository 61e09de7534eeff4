package serve

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

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
	for _, it := range items(t, s, true) {
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
	if s.Sends() != 2 || sends[0] != 0 || sends[1] != 0 || sends[2] != 1 {
		t.Fatalf("sends %d numbered %v", s.Sends(), sends)
	}
	if s.Items(true) != len(want) || s.Items(false) != s.Frames() || s.Frames() != 3 {
		t.Fatalf("the pre-pass counts %d items (%d frames), the timeline has %d", s.Items(true), s.Frames(), len(want))
	}
	if s.Conn != 2 || len(s.Conns()) != 2 || s.HelloFromConn != 2 {
		t.Fatalf("conn %d conns %v hello from %d", s.Conn, s.Conns(), s.HelloFromConn)
	}
}

// A run boundary knows the recorded run's id: the chat.send's
// idempotencyKey; its response, the runId it names, which wins when it
// differs: the client's key replaces both.
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
	var sends, answers []string
	for _, it := range items(t, s, true) {
		switch it.Kind {
		case ItemSend:
			sends = append(sends, it.RunID)
		case ItemSendResponse:
			answers = append(answers, it.RunID)
		}
	}
	if want := []string{"key-1", "key-2", ""}; strings.Join(sends, ",") != strings.Join(want, ",") {
		t.Fatalf("boundary run ids %q, want %q", sends, want)
	}
	if want := []string{"key-1", "run-2"}; strings.Join(answers, ",") != strings.Join(want, ",") {
		t.Fatalf("response run ids %q, want %q", answers, want)
	}
	clk := NewFakeClock(time.Unix(0, 0))
	st := NewStreamer(s, StreamOptions{OnSend: OnSendNextRun, Clock: clk, Pacing: Pacing{Fast: true}})
	for _, k := range []string{"mine-1", "mine-2", "mine-3"} {
		if !st.Send([]byte(`"`+k+`"`), k) {
			t.Fatal("send refused")
		}
	}
	var got []string
	for _, e := range drive(t, st, clk, 0) {
		got = append(got, e.frame)
	}
	joined := strings.Join(got, "\n")
	if strings.Contains(joined, "key-") || strings.Contains(joined, "run-2") || strings.Count(joined, `"runId":"mine-2"`) != 2 {
		t.Fatalf("the recorded runs were not renamed to the client's keys:\n%s", joined)
	}
}

// items reads a script's whole timeline, as a client would be served it.
func items(t *testing.T, s *Script, runs bool) []Item {
	t.Helper()
	tl, err := s.openTimeline(runs, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tl.close()
	var out []Item
	for {
		it, err := tl.next()
		if err != nil {
			return out
		}
		c := *it
		c.Frame = append([]byte(nil), it.Frame...)
		out = append(out, c)
	}
}

// firstFrameIndex is the capture index of the first frame a script streams.
func firstFrameIndex(t *testing.T, s *Script) int {
	t.Helper()
	for _, it := range items(t, s, false) {
		return it.Index
	}
	t.Fatal("the script streams nothing")
	return -1
}

// The pre-pass's counts are what a client's timeline holds, for every
// connection of every fixture: the status line and "no runs left" rest on
// them.
func TestPrePassCountsMatchTimelines(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("..", "..", "fixtures", "*.jsonl*"))
	if len(paths) == 0 {
		t.Fatal("no fixtures: run go run ./fixtures/gen")
	}
	for _, p := range paths {
		first, err := LoadFile(p, LoadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for _, conn := range first.Conns() {
			s, err := first.c.Script(LoadOptions{Conn: conn})
			if err != nil {
				t.Fatal(err)
			}
			all := items(t, s, true)
			frames, sends := 0, 0
			for _, it := range all {
				switch it.Kind {
				case ItemFrame:
					frames++
				case ItemSend:
					sends++
				}
			}
			if len(items(t, s, false)) != frames || s.Frames() != frames || s.Sends() != sends || s.Items(true) != len(all) {
				t.Errorf("%s conn %d: pre-pass %d frames, %d sends, %d items; timeline %d, %d, %d",
					filepath.Base(p), conn, s.Frames(), s.Sends(), s.Items(true), frames, sends, len(all))
			}
		}
	}
}
