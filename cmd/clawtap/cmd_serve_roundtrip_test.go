package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/gateway"
	"github.com/clawtap/clawtap/pkg/serve"
)

// serveAndRecord serves one connection of a capture with its recorded
// pacing on a fake clock, records it with pkg/gateway (the client clawtap
// record uses) on the same clock, and returns the new capture's path.
// The fake clock moves to the next frame only once the recorder has read
// every frame sent so far, so every frame is recorded at exactly its
// recorded time, without sleeping through the pauses. The clock starts at
// the capture's first record, and the time from there to the recorded
// hello passes while the recorder answers the challenge, so the new
// capture's frames carry the original's times and the same origin (replay
// aligns its animation frames to them).
func serveAndRecord(t *testing.T, path string, conn int) string {
	t.Helper()
	s, err := serve.LoadFile(path, serve.LoadOptions{Conn: conn})
	if err != nil {
		t.Fatal(err)
	}
	openT := firstTime(t, path)
	clk := serve.NewFakeClock(time.UnixMilli(openT))
	sv := serve.New(s, serve.Options{Clock: clk})
	hs := httptest.NewServer(sv)
	defer hs.Close()
	defer sv.Close(context.Background())

	out := filepath.Join(t.TempDir(), "rerecorded.jsonl.zst")
	w, err := capture.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	url := "ws" + strings.TrimPrefix(hs.URL, "http")
	w.WriteHeader(capture.NewHeader(time.UnixMilli(s.StartT), capture.Source{Tool: "test", Mode: "record", URL: url}))
	challenged := false
	opts := gateway.Options{
		Now:    clk.Now,
		OnOpen: func(tm time.Time) { w.Write(&capture.Record{T: tm.UnixMilli(), Conn: 1, Mark: capture.MarkOpen}) },
		OnFrame: func(f gateway.Frame) {
			w.WriteFrame(f.Time.UnixMilli(), 1, f.Dir, f.Data)
			if !challenged && f.Dir == gateway.DirIn { // the challenge
				challenged = true
				if s.StartT > openT {
					clk.Advance(time.Duration(s.StartT-openT) * time.Millisecond)
				}
			}
		},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	gc, err := gateway.Dial(ctx, url, opts)
	if err != nil {
		t.Fatal(err)
	}
	var got atomic.Int64
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		for {
			if _, err := gc.Read(); err != nil {
				return
			}
			got.Add(1)
		}
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		// Pending before the counts: the streamer counts a frame sent before
		// it starts the timer for the next, so a timer seen here means the
		// counts read next include every frame sent before it. Read after
		// them, a timer could follow a frame the counts missed, and the
		// clock would move before the recorder had read that frame.
		pending := clk.Pending()
		st := sv.Stats()
		if len(st.Clients) == 1 && st.Sent == got.Load() {
			if st.Clients[0].Ended {
				break
			}
			if pending > 0 {
				clk.AdvanceToNext()
				continue
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("stuck: sent %d, recorded %d", st.Sent, got.Load())
		}
		time.Sleep(50 * time.Microsecond) // wait for the network, not for pacing
	}
	gc.Close()
	<-readDone
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

// firstTime is the time of a capture's first record.
func firstTime(t *testing.T, path string) int64 {
	t.Helper()
	r, err := capture.Open(path, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for {
		rec, err := r.Next()
		if err != nil {
			t.Fatal("no record with a time")
		}
		if rec.T > 0 {
			return rec.T
		}
	}
}

// gapFindings runs `clawtap gaps -o json` and keeps, for one connection,
// what does not depend on record positions or the first seq: kind,
// missing count and run id, plus the summary's counts.
func gapFindings(t *testing.T, path string, conn int) []string {
	t.Helper()
	var res []string
	r := runMain(t, "gaps", "--format", "json", path)
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var f struct {
			Kind    string `json:"kind"`
			Conn    int    `json:"conn"`
			RunID   string `json:"runId"`
			Missing int64  `json:"missing"`
		}
		if json.Unmarshal([]byte(line), &f) != nil || f.Kind == "" || f.Conn != conn || f.Kind == "first-seq" {
			continue
		}
		res = append(res, fmt.Sprintf("%s missing=%d run=%s", f.Kind, f.Missing, f.RunID))
	}
	return res
}

type mainResult struct {
	code           int
	stdout, stderr string
}

func runMain(t *testing.T, args ...string) mainResult {
	t.Helper()
	var out, errb strings.Builder
	code := Main(args, strings.NewReader(""), &out, &errb)
	return mainResult{code, out.String(), errb.String()}
}

// finalState is replay's final UI state, as JSON. The re-recorded capture
// has the original's frame times, so it must be the same to the
// millisecond.
func finalState(t *testing.T, path string, conn int) string {
	t.Helper()
	args := []string{"replay", "--final", "--format", "json", path}
	if conn > 0 {
		args = append(args, "--conn", fmt.Sprint(conn))
	}
	r := runMain(t, args...)
	if r.code != 0 {
		t.Fatalf("replay %s: exit %d: %s", path, r.code, r.stderr)
	}
	return r.stdout
}

// The round trip: record what serve plays and check that gaps and
// replay see the same session as on the original capture.
func TestServeRecordRoundTripGapsAndReplay(t *testing.T) {
	cases := []struct {
		fixture string
		conn    int
	}{
		{"demo.jsonl.zst", 1},
		{"streamed-run.jsonl.zst", 1},
		{"tool-run.jsonl.zst", 1},
		{"abort.jsonl.zst", 1},
		{"seq-gap.jsonl.zst", 1},
		{"seq-gap.jsonl.zst", 2},
		{"exec-approval.jsonl.zst", 1},
		{"exec-approval.jsonl.zst", 2},
		{"error-run.jsonl.zst", 1},
		{"duplicate-final.jsonl.zst", 1},
		{"stale-terminal.jsonl.zst", 1},
		{"slash-command.jsonl.zst", 1},
		{"presence-burst.jsonl.zst", 1},
		{"reconnect.jsonl.zst", 2},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/conn%d", c.fixture, c.conn), func(t *testing.T) {
			orig := fixture(t, c.fixture)
			again := serveAndRecord(t, orig, c.conn)
			if a, b := strings.Join(gapFindings(t, orig, c.conn), "\n"), strings.Join(gapFindings(t, again, 1), "\n"); a != b {
				t.Errorf("gaps differ:\noriginal:\n%s\nre-recorded:\n%s", a, b)
			}
			if a, b := finalState(t, orig, c.conn), finalState(t, again, 0); a != b {
				t.Errorf("replay final state differs:\noriginal:\n%s\nre-recorded:\n%s", a, b)
			}
		})
	}
}

// inStream lists what a connection of a capture got from the gateway after
// the handshake: event names and payloads (and non-JSON messages), in
// order, with their frame seq.
type inFrame struct {
	event, payload string
	seq            int64
	hasSeq         bool
}

func inStream(t *testing.T, path string, conn int) []inFrame {
	t.Helper()
	r, err := capture.Open(path, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []inFrame
	for {
		rec, err := r.Next()
		if err != nil {
			return out
		}
		if rec.Conn != conn || rec.Dir != capture.DirIn || rec.Malformed || rec.Mark != "" {
			continue
		}
		if rec.IsRaw {
			out = append(out, inFrame{payload: string(rec.Raw)})
			continue
		}
		ev := bridge.Classify(rec.Frame, rec.T)
		if ev.Type == "res" || ev.Event == "connect.challenge" {
			continue
		}
		out = append(out, inFrame{ev.Event, string(ev.Payload), ev.Seq, ev.HasSeq})
	}
}

// The test: `clawtap record` against `clawtap serve` reproduces
// the served frames (event names, payloads, order; seq renumbered as
// documented), and gaps finds the same on both.
func TestServeThenRecordCLI(t *testing.T) {
	for _, c := range []struct {
		fixture string
		conn    int
		redact  bool // record's default credential redaction (fixtures are already redacted)
	}{
		{"seq-gap.jsonl.zst", 1, false},
		{"tool-run.jsonl.zst", 2, false},
		{"junk.jsonl", 1, false},
		{"demo.jsonl.zst", 1, true},
		{"exec-approval.jsonl.zst", 1, true},
	} {
		t.Run(fmt.Sprintf("%s/conn%d", c.fixture, c.conn), func(t *testing.T) {
			orig := fixture(t, c.fixture)
			url, exited, stderr, _ := startServe(t, "--once", "--as-fast-as-possible", "--conn", fmt.Sprint(c.conn), orig)
			out := filepath.Join(t.TempDir(), "again.jsonl.zst")
			args := []string{"record", "--url", url, "--no-device", "--no-reconnect", "-o", out}
			if !c.redact {
				args = append(args, "--no-redact")
			}
			rec := runMain(t, args...)
			if rec.code != 0 {
				t.Fatalf("record: exit %d\n%s", rec.code, rec.stderr)
			}
			if code := <-exited; code != 0 {
				t.Fatalf("serve: exit %d\n%s", code, stderr)
			}
			want, got := inStream(t, orig, c.conn), inStream(t, out, 1)
			if len(got) != len(want) {
				t.Fatalf("recorded %d frames, served connection has %d", len(got), len(want))
			}
			renum := serve.NewRenumberer()
			for i := range want {
				w, g := want[i], got[i]
				if g.event != w.event || g.payload != w.payload || g.hasSeq != w.hasSeq {
					t.Fatalf("frame %d: got %s %s, want %s %s", i, g.event, g.payload, w.event, w.payload)
				}
				if w.hasSeq {
					if n := renum.Next(w.seq); g.seq != n {
						t.Fatalf("frame %d: seq %d, want %d (recorded %d)", i, g.seq, n, w.seq)
					}
				}
			}
			if a, b := strings.Join(gapFindings(t, orig, c.conn), "\n"), strings.Join(gapFindings(t, out, 1), "\n"); a != b {
				t.Errorf("gaps differ:\noriginal:\n%s\nre-recorded:\n%s", a, b)
			}
		})
	}
}
