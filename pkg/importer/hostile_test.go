package importer

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/klauspost/compress/zstd"
)

// peakHeap runs fn and returns the most heap in use while it ran, sampled,
// above what was in use before.
func peakHeap(fn func()) uint64 {
	runtime.GC()
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	fn()
	close(stop)
	wg.Wait()
	if p := peak.Load(); p > base.HeapInuse {
		return p - base.HeapInuse
	}
	return 0
}

// sharedTimestampHAR is a zstd-compressed HAR of entries WebSocket
// entries of 5 messages each, all at one time.
func sharedTimestampHAR(entries int) []byte {
	var har bytes.Buffer
	zw, _ := zstd.NewWriter(&har, zstd.WithEncoderLevel(zstd.SpeedBestCompression))
	fmt.Fprint(zw, `{"log":{"version":"1.2","entries":[`)
	for i := range entries {
		if i > 0 {
			fmt.Fprint(zw, ",")
		}
		fmt.Fprint(zw, `{"startedDateTime":"2026-11-22T03:23:55.000Z","request":{"url":"ws://127.0.0.1:18789/"},"_resourceType":"websocket","_webSocketMessages":[`)
		for k := range 5 {
			if k > 0 {
				fmt.Fprint(zw, ",")
			}
			fmt.Fprintf(zw, `{"type":"receive","time":1795317835.0,"opcode":1,"data":"{\"type\":\"event\",\"event\":\"tick\",\"seq\":%d,\"payload\":{\"ts\":1795317835000}}"}`, k+1)
		}
		fmt.Fprint(zw, `]}`)
	}
	fmt.Fprint(zw, `]}}`)
	zw.Close()
	return har.Bytes()
}

// A HAR whose WebSocket entries all share one timestamp (a tool's export,
// or a hostile file of a few KB compressed) imports in memory that does
// not grow with it, and in linear time: the merge of connections by time
// held every entry until the end and looked through all of them for every
// record (80,000 entries: minutes and hundreds of MB).
func TestHARSharedTimestamp(t *testing.T) {
	if testing.Short() {
		// The import runs on one goroutine, and the race detector leaves
		// the time and memory unchecked: make test's long stage runs it,
		// without the detector, with both checked.
		t.Skip("large")
	}
	var peaks [2]uint64
	sizes := []int{5000, 40000}
	if raceEnabled {
		sizes = []int{1000, 4000}
	}
	for i, entries := range sizes {
		har := sharedTimestampHAR(entries)
		var st Stats
		var ierr error
		start := time.Now()
		peaks[i] = peakHeap(func() {
			w, _ := capture.NewWriter(io.Discard, false)
			st, ierr = Import(bytes.NewReader(har), w, Options{NoRedact: true})
			w.Close()
		})
		took := time.Since(start)
		if ierr != nil || st.Connections != entries || st.Frames != entries*5 {
			t.Fatalf("import: %v, %d connections, %d frames", ierr, st.Connections, st.Frames)
		}
		if took > 45*time.Second && !raceEnabled { // 93 s before the fix; about 2 s after, on a busy machine up to 15
			t.Errorf("%d entries took %v", entries, took)
		}
		t.Logf("%d entries (%d bytes compressed): %v, peak heap %.1f MB", entries, len(har), took, float64(peaks[i])/(1<<20))
	}
	if peaks[1] > peaks[0]+16<<20 && !raceEnabled {
		t.Errorf("peak heap grew from %d MB to %d MB with 8 times the entries", peaks[0]>>20, peaks[1]>>20)
	}
}

// Equal times keep the order a recorder would have given them: the
// connection opened first first, each connection's own order kept.
func TestHARSharedTimestampOrder(t *testing.T) {
	entry := func(n string) string {
		return `{"startedDateTime":"1970-01-01T00:00:01.000Z","request":{"url":"ws://gw"},"_webSocketMessages":[` +
			`{"type":"receive","time":1.0,"opcode":1,"data":"{\"type\":\"event\",\"event\":\"tick\",\"payload\":{\"n\":\"` + n + `1\"}}"},` +
			`{"type":"receive","time":1.0,"opcode":1,"data":"{\"type\":\"event\",\"event\":\"tick\",\"payload\":{\"n\":\"` + n + `2\"}}"}]}`
	}
	har := `{"log":{"entries":[` + entry("a") + "," + entry("b") + "," + entry("c") + `]}}`
	recs, _, _ := importBytes(t, []byte(har), Options{NoRedact: true})
	var got []string
	for _, r := range recs {
		if n, ok := jsonxGetPayloadN(r.Frame); ok && r.Frame != nil {
			got = append(got, n)
		}
	}
	if strings.Join(got, " ") != "a1 a2 b1 b2 c1 c2" {
		t.Fatalf("order %v", got)
	}
}

// One entry nested 20,000 deep is skipped with a warning that names it;
// the entries around it are imported.
func TestHARDeepEntrySkipped(t *testing.T) {
	ok := func(n string) string {
		return `{"startedDateTime":"1970-01-01T00:00:0` + n + `.000Z","request":{"url":"ws://gw"},"_webSocketMessages":[` +
			`{"type":"receive","time":` + n + `.0,"opcode":1,"data":"{\"type\":\"event\",\"event\":\"tick\",\"payload\":{\"n\":\"` + n + `\"}}"}]}`
	}
	deep := `{"_initiator":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `,"request":{"url":"ws://gw"},"_webSocketMessages":[{"type":"receive","time":2.0,"opcode":1,"data":"{}"}]}`
	har := `{"log":{"entries":[` + ok("1") + "," + deep + "," + ok("3") + `]}}`
	recs, st, warns, err := importBytesErr(t, []byte(har), Options{NoRedact: true})
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	if st.Connections != 2 || st.Skipped != 1 || st.Entries != 2 {
		t.Errorf("stats %+v", st)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "HAR entry 1:") || !strings.Contains(warns[0], "skipped") {
		t.Errorf("warnings %q", warns)
	}
	var got []string
	for _, r := range recs {
		if n, ok := jsonxGetPayloadN(r.Frame); ok && r.Frame != nil {
			got = append(got, n)
		}
	}
	if strings.Join(got, " ") != "1 3" {
		t.Errorf("frames %v", got)
	}
}

// Connections that all stay open (each entry's messages span the whole
// time) are held for the merge only up to maxHeld: past it the earliest
// are written, with one warning.
func TestHARHeldBounded(t *testing.T) {
	defer func(m int) { maxHeld = m }(maxHeld)
	maxHeld = 64 << 10
	var entries []string
	for i := range 200 {
		var ms []string
		for k := range 20 {
			ms = append(ms, fmt.Sprintf(`{"type":"receive","time":%d.0,"opcode":1,"data":"{\"type\":\"event\",\"event\":\"tick\",\"payload\":{\"n\":\"%d-%d\",\"pad\":\"%s\"}}"}`, 1000+i+k*100, i, k, strings.Repeat("x", 100)))
		}
		entries = append(entries, fmt.Sprintf(`{"startedDateTime":"1970-01-01T00:16:%02d.%03dZ","request":{"url":"ws://gw"},"_webSocketMessages":[%s]}`, (40+i/1000)%60, i%1000, strings.Join(ms, ",")))
	}
	har := `{"log":{"entries":[` + strings.Join(entries, ",") + `]}}`
	recs, st, warns, err := importBytesErr(t, []byte(har), Options{NoRedact: true})
	if err != nil || st.Frames != 200*20 {
		t.Fatalf("import: %v, %d frames", err, st.Frames)
	}
	n := 0
	for _, w := range warns {
		if strings.Contains(w, "hold more than") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d warnings about the merge, want 1: %q", n, warns)
	}
	if len(recs) < 200*20 {
		t.Errorf("%d records", len(recs))
	}
}
