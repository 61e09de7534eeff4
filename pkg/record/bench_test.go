package record

import (
	"context"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/clawtap/clawtap/internal/capturetest"
	"github.com/clawtap/clawtap/internal/fakegw"
	"github.com/clawtap/clawtap/pkg/capture"
)

// blastServer is a synthetic fast gateway: after the handshake it sends n
// chat/agent frames with a contiguous frame seq as fast as it can, then
// closes with 1000.
func blastServer(n int) *fakegw.Server {
	return fakegw.New(fakegw.Config{OnHello: func(c *fakegw.Conn) {
		buf := make([]byte, 0, 512)
		for i := 1; i <= n; i++ {
			buf = buf[:0]
			if i%2 == 0 {
				buf = append(buf, `{"type":"event","event":"chat","payload":{"runId":"run-`...)
				buf = strconv.AppendInt(buf, int64(i/1000), 10)
				buf = append(buf, `","sessionKey":"agent:main:main","agentId":"main","seq":`...)
				buf = strconv.AppendInt(buf, int64(i), 10)
				buf = append(buf, `,"state":"delta","deltaText":" token","message":{"role":"assistant","content":[{"type":"text","text":"Hello from the fake model! This reply is streamed token by token"}],"timestamp":1795317835055}},"seq":`...)
			} else {
				buf = append(buf, `{"type":"event","event":"agent","payload":{"runId":"run-`...)
				buf = strconv.AppendInt(buf, int64(i/1000), 10)
				buf = append(buf, `","sessionKey":"agent:main:main","agentId":"main","seq":`...)
				buf = strconv.AppendInt(buf, int64(i), 10)
				buf = append(buf, `,"stream":"assistant","ts":1795317835055,"data":{"text":"Hello from the fake model","delta":" model"}},"seq":`...)
			}
			buf = strconv.AppendInt(buf, int64(i), 10)
			buf = append(buf, '}')
			if c.Raw(buf) != nil {
				return
			}
		}
		c.CloseWith(1000, "done")
	}})
}

// recordBlast records n frames from a blast server into a .zst capture,
// with the default redaction, and returns the elapsed time and the path.
func recordBlast(tb testing.TB, n int) (time.Duration, string, Stats) {
	srv := blastServer(n)
	defer srv.Close()
	path := filepath.Join(tb.TempDir(), "blast.jsonl.zst")
	w, err := capture.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	rec := &Recorder{Capture: w}
	start := time.Now()
	if err := rec.Record(context.Background(), Direct{URL: srv.URL, NoReconnect: true}); err != nil {
		tb.Fatal(err)
	}
	el := time.Since(start)
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return el, path, rec.Stats()
}

// BenchmarkRecordFastGateway: one op is one frame. Reports frames/s and
// the heap in use after the run (flat memory: it does not grow with n).
//
//	go test ./pkg/record/ -run '^$' -bench RecordFastGateway -benchmem -benchtime 500000x
func BenchmarkRecordFastGateway(b *testing.B) {
	b.ReportAllocs()
	b.ResetTimer()
	el, path, st := recordBlast(b, b.N)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/el.Seconds(), "frames/s")
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MiB")
	if got := capturetest.CountFrames(path); got != b.N+3 || st.Gaps != 0 {
		b.Fatalf("recorded %d frames (want %d sent + 3 handshake), %d gaps", got, b.N, st.Gaps)
	}
}

// TestRecordKeepsUpWithFastGateway checks nothing is lost at full speed and
// that memory does not grow with the number of frames.
func TestRecordKeepsUpWithFastGateway(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	heap := func() uint64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapInuse
	}
	n := 200000
	if raceEnabled {
		n = 20000
	}
	_, _, _ = recordBlast(t, n/10) // warm up
	h0 := heap()
	el, path, st := recordBlast(t, n)
	h1 := heap()
	got := capturetest.CountFrames(path)
	if got != n+3 || st.Gaps != 0 || st.Frames != int64(n+3) {
		t.Fatalf("recorded %d frames (stats %d) for %d sent + 3 handshake; %d gaps", got, st.Frames, n, st.Gaps)
	}
	rate := float64(n) / el.Seconds()
	t.Logf("%d frames in %v: %.0f frames/s; heap in use %.1f → %.1f MiB", n, el.Round(time.Millisecond), rate, float64(h0)/(1<<20), float64(h1)/(1<<20))
	if h1 > h0+32<<20 {
		t.Errorf("heap grew by %.1f MiB recording %d frames", float64(h1-h0)/(1<<20), n)
	}
}
