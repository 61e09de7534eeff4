package serve

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/gaps"
	"github.com/clawtap/clawtap/pkg/gateway"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/runs"
)

// recordFrom connects to a serve URL with pkg/gateway (the client clawtap
// record uses), records every frame into an in-memory capture until n
// frames after the hello arrived, and returns the capture.
func recordFrom(t *testing.T, url string, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := capture.NewWriter(&buf, false)
	if err != nil {
		t.Fatal(err)
	}
	w.WriteHeader(capture.Header{Source: capture.Source{Tool: "test", Mode: "record", URL: url}})
	opts := gateway.Options{
		OnOpen: func(tm time.Time) { w.Write(&capture.Record{T: tm.UnixMilli(), Conn: 1, Mark: capture.MarkOpen}) },
		OnFrame: func(f gateway.Frame) {
			w.WriteFrame(f.Time.UnixMilli(), 1, f.Dir, f.Data)
		},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, err := gateway.Dial(ctx, url, opts)
	if err != nil {
		t.Fatalf("dial serve: %v", err)
	}
	defer conn.Close()
	for i := 0; i < n; i++ {
		conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := conn.Read(); err != nil {
			t.Fatalf("frame %d of %d: %v", i+1, n, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// served is what a client of conn sees after the handshake: the frames of
// ItemFrame items, in order.
type servedFrame struct {
	event   string
	payload string
	seq     int64
	hasSeq  bool
	text    bool
	raw     string
}

// streamOf reads the gateway→client frames of one connection of a capture,
// without the handshake (challenge and hello-ok) and responses.
func streamOf(t *testing.T, data []byte, conn int) (out []servedFrame, sum gaps.Summary) {
	t.Helper()
	r, err := capture.NewReader(bytes.NewReader(data), capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	table := runs.New(0)
	tr := gaps.NewDetector(table)
	cl := bridge.NewClassifier()
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.Conn != conn || rec.Malformed {
			continue
		}
		ev := cl.Record(rec)
		tr.Observe(nil, rec.Index, rec.T, rec.Conn, rec.Dir, &ev, table.Record(rec, &ev))
		if rec.Dir != capture.DirIn || rec.Mark != "" {
			continue
		}
		if rec.IsRaw {
			out = append(out, servedFrame{text: true, raw: string(rec.Raw)})
			continue
		}
		if ev.Kind == bridge.Response || ev.Kind == bridge.Request || ev.Event == "connect.challenge" {
			continue
		}
		out = append(out, servedFrame{event: ev.Event, payload: string(ev.Payload), seq: ev.Seq, hasSeq: ev.HasSeq, raw: string(rec.Frame)})
	}
	return out, tr.Summary()
}

// checkRoundTrip serves conn of a capture, records it with pkg/gateway and
// checks that the recording holds the same frames: the same event names,
// payloads (byte for byte) and order, with seq renumbered by the
// documented rule, and the same gap findings.
func checkRoundTrip(t *testing.T, data []byte, conn int) {
	t.Helper()
	s, err := Load(BytesSource(data), LoadOptions{Conn: conn})
	if err != nil {
		t.Fatal(err)
	}
	_, url := startServer(t, s, Options{Pacing: Pacing{Fast: true}})
	got, gotGaps := streamOf(t, recordFrom(t, url, s.Frames()), 1)
	want, wantGaps := streamOf(t, data, s.Conn)
	if len(got) != len(want) {
		t.Fatalf("recorded %d frames, capture has %d", len(got), len(want))
	}
	renum := NewRenumberer()
	for i := range want {
		w, g := want[i], got[i]
		if g.event != w.event || g.payload != w.payload || g.text != w.text || g.hasSeq != w.hasSeq {
			t.Fatalf("frame %d differs:\n got %s\nwant %s", i, g.raw, w.raw)
		}
		if w.hasSeq {
			if exp := renum.Next(w.seq); g.seq != exp {
				t.Fatalf("frame %d: seq %d, recorded %d, rule says %d", i, g.seq, w.seq, exp)
			}
		}
		if w.text && g.raw != w.raw {
			t.Fatalf("frame %d: raw message changed", i)
		}
		// Every byte but the seq value is as recorded.
		if w.hasSeq && !w.text {
			if !sameButSeq(g.raw, w.raw) {
				t.Fatalf("frame %d changed beyond its seq:\n got %s\nwant %s", i, g.raw, w.raw)
			}
		} else if !w.text && g.raw != w.raw {
			t.Fatalf("frame %d changed:\n got %s\nwant %s", i, g.raw, w.raw)
		}
	}
	// Gap findings: the same, except a first seq that was not 1 (a late
	// observer on a shared counter) now starts at 1.
	wantGaps.FirstSeq, gotGaps.FirstSeq = 0, 0
	wantGaps.Connections, gotGaps.Connections = 0, 0
	if gotGaps != wantGaps {
		t.Fatalf("gaps differ:\n got %+v\nwant %+v", gotGaps, wantGaps)
	}
}

func itoa64(n int64) string { return string(appendInt(nil, n)) }

// sameButSeq compares two frames with their top-level seq values removed.
func sameButSeq(a, b string) bool {
	return string(deleteMember([]byte(a), "seq")) == string(deleteMember([]byte(b), "seq"))
}

func TestRoundTripThroughGatewayClient(t *testing.T) {
	b := newCap(t).handshake(1000)
	b.in(1001, `{"type":"event","event":"tick","payload":{"ts":1},"seq":30}`)
	b.in(1002, `{"type":"event","event":"agent","payload":{"runId":"r","seq":1,"stream":"lifecycle","data":{"phase":"start"}},"seq":31}`)
	b.in(1003, `{"type":"event","event":"agent","payload":{"runId":"r","seq":2,"stream":"tool","data":{"phase":"start"}}}`)
	b.in(1004, `{"type":"event","event":"chat","payload":{"runId":"r","seq":5,"state":"delta"},"seq":34}`)
	b.in(1005, `{"type":"event","event":"agent","payload":{"runId":"r","stream":"error","data":{"reason":"seq gap","expected":3,"received":5}},"seq":35}`)
	b.in(1006, `{"type":"event","event":"chat","payload":{"runId":"r","seq":6,"state":"final"},"seq":35}`)
	b.in(1007, `not json {`) // a message that was not JSON is sent as recorded
	b.in(1008, `{"type":"event","event":"tick","payload":{"ts":2},"seq":36,"stateVersion":{"presence":1}}`)
	checkRoundTrip(t, b.bytes(), 0)
}

// Every fixture of the repository, every connection.
func TestRoundTripFixtures(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("..", "..", "fixtures", "*.jsonl*"))
	if len(paths) == 0 {
		t.Fatal("no fixtures: run go run ./fixtures/gen")
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Load(BytesSource(data), LoadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for _, c := range s.Conns() {
			t.Run(filepath.Base(p)+"/conn"+itoa64(int64(c)), func(t *testing.T) {
				checkRoundTrip(t, data, c)
			})
		}
	}
}

func appendInt(dst []byte, n int64) []byte { return jsonx.AppendInt(dst, n) }
