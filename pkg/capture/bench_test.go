package capture

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"testing"
	"time"
)

// BenchmarkNext reads a plain capture of streamed deltas (~450 bytes a
// line, some non-ASCII text) from memory: the reader's own cost per record,
// without zstd or disk.
func BenchmarkNext(b *testing.B) {
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, false)
	w.WriteHeader(NewHeader(time.Unix(1795317835, 0), Source{Mode: "bench"}))
	const n = 20000
	for i := 0; i < n; i++ {
		s := strconv.Itoa(i)
		w.WriteFrame(int64(1795317835000+i), 1, DirIn, []byte(`{"type":"event","event":"chat","seq":`+s+`,"payload":{"runId":"5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d","sessionKey":"agent:main:main","agentId":"main","seq":`+s+`,"state":"delta","deltaText":" otters — café","message":{"role":"assistant","content":[{"type":"text","text":"Two otters walk into a bar — café au lait, s'il vous plaît, said the first one"}],"timestamp":1795317836400}}}`))
	}
	w.Close()
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := NewReader(bytes.NewReader(data), Options{})
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := r.Next(); err != nil {
				if !errors.Is(err, io.EOF) {
					b.Fatal(err)
				}
				break
			}
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}
