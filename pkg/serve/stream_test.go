package serve

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/clawtap/clawtap/pkg/jsonx"
)

func TestRenumberer(t *testing.T) {
	cases := []struct {
		name string
		rec  []int64
		want []int64
	}{
		{"contiguous from 1", []int64{1, 2, 3, 4}, []int64{1, 2, 3, 4}},
		{"late observer starts at 32", []int64{32, 33, 34}, []int64{1, 2, 3}},
		{"gap kept", []int64{1, 2, 8, 9}, []int64{1, 2, 8, 9}},
		{"gaps kept after offset", []int64{30, 31, 33, 36}, []int64{1, 2, 4, 7}},
		{"duplicate kept", []int64{5, 6, 6, 7}, []int64{1, 2, 2, 3}},
		{"step back kept", []int64{5, 6, 7, 6, 8}, []int64{1, 2, 3, 2, 4}},
		{"never below 1", []int64{10, 11, 2, 3}, []int64{1, 2, 1, 1}},
		{"a step back does not shift what follows", []int64{9, 10, 1, 11, 12}, []int64{1, 2, 1, 3, 4}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := NewRenumberer()
			for i, rec := range c.rec {
				if got := r.Next(rec); got != c.want[i] {
					t.Fatalf("frame %d (recorded %d): got %d, want %d", i, rec, got, c.want[i])
				}
			}
		})
	}
	// A loop continues without a gap.
	r := NewRenumberer()
	for _, rec := range []int64{4, 5, 7} {
		r.Next(rec)
	}
	r.Restart()
	if got := r.Next(4); got != 5 {
		t.Fatalf("after restart got %d, want 5", got)
	}
	if got := r.Next(5); got != 6 {
		t.Fatalf("got %d, want 6", got)
	}
}

func TestPacingWait(t *testing.T) {
	cases := []struct {
		p    Pacing
		ms   int64
		want time.Duration
	}{
		{Pacing{}, 100, 100 * time.Millisecond},
		{Pacing{Speed: 2}, 100, 50 * time.Millisecond},
		{Pacing{Speed: 0.5}, 100, 200 * time.Millisecond},
		{Pacing{MaxGap: time.Second}, 30000, time.Second},
		{Pacing{Speed: 2, MaxGap: time.Second}, 1500, 750 * time.Millisecond},
		{Pacing{Speed: 2, MaxGap: time.Second}, 30000, time.Second},
		{Pacing{Fast: true}, 30000, 0},
		{Pacing{}, -50, 0},
	}
	for _, c := range cases {
		if got := c.p.Wait(c.ms); got != c.want {
			t.Errorf("%+v.Wait(%d) = %v, want %v", c.p, c.ms, got, c.want)
		}
	}
}

type emitted struct {
	at    time.Duration // fake time since the stream started
	frame string
}

// drive runs st on clk to the end, moving the fake clock to each timer the
// streamer waits on. No real sleeping: time moves only when the streamer
// is blocked on the fake clock.
func drive(t *testing.T, st *Streamer, clk *FakeClock, limit int) []emitted {
	t.Helper()
	start := clk.Now()
	var out []emitted
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- st.Run(ctx, func(f []byte) error {
			out = append(out, emitted{clk.Now().Sub(start), string(f)})
			if limit > 0 && len(out) >= limit {
				cancel()
			}
			return nil
		})
	}()
	guard := time.NewTimer(10 * time.Second) // only against a hang
	defer guard.Stop()
	for {
		select {
		case <-done:
			return out
		case <-clk.TimerAdded():
			clk.AdvanceToNext()
		case <-guard.C:
			t.Fatal("streamer hung")
		}
	}
}

func seqOf(t *testing.T, frame string) (int64, bool) {
	t.Helper()
	v, ok := jsonx.Get([]byte(frame), "seq")
	if !ok {
		return 0, false
	}
	n, ok := jsonx.Int(v)
	return n, ok
}

func pacingScript(t *testing.T) *Script {
	b := newCap(t).handshake(1000)
	b.in(1100, tick(1, 1))  // +100ms after hello
	b.in(1400, tick(2, 2))  // +300
	b.in(31400, tick(3, 3)) // +30s idle
	b.in(31450, tick(4, 4)) // +50
	return b.script(0)
}

func atMs(out []emitted) []int64 {
	r := make([]int64, len(out))
	for i, e := range out {
		r[i] = e.at.Milliseconds()
	}
	return r
}

func eqInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestStreamPacing(t *testing.T) {
	s := pacingScript(t)
	cases := []struct {
		name string
		p    Pacing
		want []int64
	}{
		{"recorded", Pacing{}, []int64{100, 400, 30400, 30450}},
		{"speed 2", Pacing{Speed: 2}, []int64{50, 200, 15200, 15225}},
		{"speed 0.5", Pacing{Speed: 0.5}, []int64{200, 800, 60800, 60900}},
		{"max gap 1s", Pacing{MaxGap: time.Second}, []int64{100, 400, 1400, 1450}},
		{"fast", Pacing{Fast: true}, []int64{0, 0, 0, 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			clk := NewFakeClock(time.Unix(1_800_000_000, 0))
			st := NewStreamer(s, StreamOptions{Pacing: c.p, Clock: clk})
			out := drive(t, st, clk, 0)
			if got := atMs(out); !eqInts(got, c.want) {
				t.Fatalf("frame times %v, want %v", got, c.want)
			}
		})
	}
}

func TestStreamLoop(t *testing.T) {
	s := pacingScript(t)
	clk := NewFakeClock(time.Unix(1_800_000_000, 0))
	st := NewStreamer(s, StreamOptions{Pacing: Pacing{MaxGap: time.Second}, Loop: true, Clock: clk})
	out := drive(t, st, clk, 10)
	want := []int64{100, 400, 1400, 1450, 1550, 1850, 2850, 2900, 3000, 3300}
	if got := atMs(out); !eqInts(got, want) {
		t.Fatalf("frame times %v, want %v", got, want)
	}
	for i, e := range out {
		if n, _ := seqOf(t, e.frame); n != int64(i+1) {
			t.Fatalf("frame %d has seq %d, want %d (loop continues the count)", i, n, i+1)
		}
	}
	if _, _, pass, _, _ := st.Position(); pass != 2 {
		t.Fatalf("pass %d, want 2", pass)
	}
}

func TestStreamSeqRewriteKeepsBytes(t *testing.T) {
	b := newCap(t).handshake(1000)
	frames := []string{
		`{"type":"event","event":"tick","seq":40,"payload":{"ts":1,"seq":999}}`,
		`{"type":"event", "event":"chat", "payload":{"runId":"r","seq":3,"state":"delta"}, "seq" : 41 }`,
		`{"type":"event","event":"agent","payload":{"x":"é\u00e9"}}`, // no seq
		`{"type":"event","event":"tick","seq":45,"stateVersion":{"presence":1,"health":2}}`,
	}
	for i, f := range frames {
		b.in(int64(1001+i), f)
	}
	s := b.script(0)
	clk := NewFakeClock(time.Unix(0, 0))
	out := drive(t, NewStreamer(s, StreamOptions{Pacing: Pacing{Fast: true}, Clock: clk}), clk, 0)
	want := []string{
		`{"type":"event","event":"tick","seq":1,"payload":{"ts":1,"seq":999}}`,
		`{"type":"event", "event":"chat", "payload":{"runId":"r","seq":3,"state":"delta"}, "seq" : 2 }`,
		`{"type":"event","event":"agent","payload":{"x":"é\u00e9"}}`,
		`{"type":"event","event":"tick","seq":6,"stateVersion":{"presence":1,"health":2}}`,
	}
	if len(out) != len(want) {
		t.Fatalf("got %d frames, want %d", len(out), len(want))
	}
	for i := range want {
		if out[i].frame != want[i] {
			t.Errorf("frame %d:\n got %s\nwant %s", i, out[i].frame, want[i])
		}
	}
}

// A run boundary: the stream waits for the client's chat.send, then
// streams the run with the recorded response re-addressed.
func runScript(t *testing.T) *Script {
	b := newCap(t).handshake(1000)
	b.in(1100, tick(1, 1))
	b.out(5000, `{"type":"req","id":"send-1","method":"chat.send","params":{"sessionKey":"agent:main:main","message":"hi","idempotencyKey":"run-1"}}`)
	b.in(5010, `{"type":"res","id":"send-1","ok":true,"payload":{"runId":"run-1","status":"started"}}`)
	b.in(5300, `{"type":"event","event":"chat","payload":{"runId":"run-1","state":"delta"},"seq":2}`)
	b.in(5600, `{"type":"event","event":"chat","payload":{"runId":"run-1","state":"final"},"seq":3}`)
	b.out(9000, `{"type":"req","id":"send-2","method":"chat.send","params":{"sessionKey":"agent:main:main","message":"again","idempotencyKey":"run-2"}}`)
	b.in(9020, `{"type":"res","id":"send-2","ok":true,"payload":{"runId":"run-2","status":"started"}}`)
	b.in(9500, `{"type":"event","event":"chat","payload":{"runId":"run-2","state":"final"},"seq":4}`)
	b.out(9600, `{"type":"req","id":"send-3","method":"chat.send","params":{"sessionKey":"agent:main:main","message":"late","idempotencyKey":"run-3"}}`)
	return b.script(0)
}

func TestStreamOnSendNextRun(t *testing.T) {
	s := runScript(t)
	if s.Sends() != 2 {
		t.Fatalf("sends %d, want 2 (the trailing send has nothing after it)", s.Sends())
	}
	clk := NewFakeClock(time.Unix(1_800_000_000, 0))
	st := NewStreamer(s, StreamOptions{OnSend: OnSendNextRun, Clock: clk})
	waits := 0
	st.onWait = func() {
		waits++
		clk.Advance(time.Minute) // the person takes a minute to type
		n := string(rune('0' + waits))
		if !st.Send([]byte(`"mine-`+n+`"`), "ui-key-"+n) {
			t.Error("send refused")
		}
	}
	out := drive(t, st, clk, 0)
	if waits != 2 {
		t.Fatalf("waited %d times, want 2", waits)
	}
	wantAt := []int64{100, 60000 + 100 + 10, 60000 + 100 + 300, 60000 + 100 + 600, 120700 + 20, 120700 + 500}
	if got := atMs(out); !eqInts(got, wantAt) {
		t.Fatalf("frame times %v, want %v", got, wantAt)
	}
	// The response is re-addressed to the client's id and, like every frame
	// of the run, names the run by the client's idempotencyKey.
	if out[1].frame != `{"type":"res","id":"mine-1","ok":true,"payload":{"runId":"ui-key-1","status":"started"}}` {
		t.Fatalf("response not re-addressed: %s", out[1].frame)
	}
	for i, want := range []string{2: `"runId":"ui-key-1"`, 3: `"runId":"ui-key-1"`, 4: `"runId":"ui-key-2"`, 5: `"runId":"ui-key-2"`} {
		if want != "" && !strings.Contains(out[i].frame, want) {
			t.Errorf("frame %d: %s, want %s", i, out[i].frame, want)
		}
	}
	if !strings.Contains(out[4].frame, `"id":"mine-2"`) {
		t.Fatalf("second response: %s", out[4].frame)
	}
	if st.Send([]byte(`"x"`), "") {
		t.Fatal("a third chat.send was accepted; the capture has two runs")
	}
}

func TestStreamReplyModeDoesNotWait(t *testing.T) {
	s := runScript(t)
	clk := NewFakeClock(time.Unix(1_800_000_000, 0))
	st := NewStreamer(s, StreamOptions{Clock: clk})
	out := drive(t, st, clk, 0)
	if len(out) != 4 { // the three chat events and the tick; no responses
		t.Fatalf("got %d frames, want 4", len(out))
	}
	if got := atMs(out); !eqInts(got, []int64{100, 4300, 4600, 8500}) {
		t.Fatalf("frame times %v", got)
	}
	if st.Send([]byte(`"x"`), "k") {
		t.Fatal("Send accepted without --on-send next-run")
	}
}

func TestStreamSendBeforeBoundaryIsQueued(t *testing.T) {
	s := runScript(t)
	clk := NewFakeClock(time.Unix(1_800_000_000, 0))
	st := NewStreamer(s, StreamOptions{OnSend: OnSendNextRun, Clock: clk, Pacing: Pacing{Fast: true}})
	if !st.Send([]byte(`1`), "") || !st.Send([]byte(`2`), "") {
		t.Fatal("early sends refused")
	}
	if st.Send([]byte(`3`), "") {
		t.Fatal("third send accepted")
	}
	st.onWait = func() {}
	out := drive(t, st, clk, 0)
	if len(out) != 6 {
		t.Fatalf("got %d frames, want 6", len(out))
	}
	if !strings.Contains(out[1].frame, `"id":1,`) || !strings.Contains(out[4].frame, `"id":2,`) {
		t.Fatalf("responses: %s / %s", out[1].frame, out[4].frame)
	}
	// A chat.send without an idempotencyKey leaves the recorded runId.
	if !strings.Contains(out[2].frame, `"runId":"run-1"`) {
		t.Fatalf("run renamed without a key: %s", out[2].frame)
	}
}
