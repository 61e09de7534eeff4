package importer

import (
	"bytes"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
)

// FuzzImport: any input either fails cleanly or yields a capture that reads
// back without an unreadable record. The seed corpus is in
// testdata/fuzz/FuzzImport.
func FuzzImport(f *testing.F) {
	f.Add([]byte(`{"log":{"entries":[{"request":{"url":"ws://gw"},"_webSocketMessages":[{"type":"send","time":1795317835.5,"opcode":1,"data":"{\"type\":\"req\",\"id\":\"1\",\"method\":\"connect\",\"params\":{\"auth\":{\"token\":\"t\"}}}"}]}]}}`))
	f.Add([]byte("{\"ts\":1,\"frame\":{\"type\":\"event\",\"event\":\"tick\"}}\n{\"time\":\"2026-11-22T03:23:55Z\",\"direction\":\"in\",\"data\":\"x\"}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range []string{FormatAuto, FormatJSONL} {
			var out bytes.Buffer
			w, _ := capture.NewWriter(&out, false)
			_, err := Import(bytes.NewReader(data), w, Options{Format: format})
			w.Close()
			if err != nil {
				continue
			}
			r, err := capture.NewReader(&out, capture.Options{})
			if err != nil {
				t.Fatalf("output unreadable: %v", err)
			}
			for {
				rec, err := r.Next()
				if err != nil {
					break
				}
				if rec.Malformed {
					t.Fatalf("import wrote an unreadable line: %q", rec.Raw)
				}
			}
		}
	})
}
