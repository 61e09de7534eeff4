package capture

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// Captures are written with a small zstd window, so that reading one holds
// little memory: a decoder limited to windowSize reads them whole.
func TestWriterWindowIsSmall(t *testing.T) {
	var recs []*Record
	for i := range 4000 { // well past one window of frames
		recs = append(recs, &Record{T: int64(i), Conn: 1, Dir: DirIn, Frame: []byte(fmt.Sprintf(`{"type":"event","event":"tick","seq":%d,"payload":{"n":"%0500d"}}`, i+1, i))})
	}
	data := writeCapture(t, true, recs)
	if len(data) < windowSize/64 {
		t.Fatalf("capture of %d bytes: too small to tell", len(data))
	}
	d, err := zstd.NewReader(bytes.NewReader(data), zstd.WithDecoderMaxWindow(windowSize), zstd.WithDecoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	n, err := io.Copy(io.Discard, d)
	if err != nil || n < 2*windowSize {
		t.Fatalf("decoded %d bytes with a %d-byte window: %v", n, windowSize, err)
	}
}
