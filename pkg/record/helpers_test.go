package record

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/clawtap/clawtap/pkg/capture"
)

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// newTestRecorder records into a zstd file that the test reads back.
func newTestRecorder(t *testing.T, name string) (*Recorder, *capture.Writer, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	w, err := capture.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	return &Recorder{Capture: w, Tool: "test"}, w, path
}

// quietDirect reconnects fast.
func quietDirect(url string) Direct {
	return Direct{URL: url, Backoff: Backoff{Base: 10 * time.Millisecond, Max: 50 * time.Millisecond, Rand: func() float64 { return 0.5 }}}
}
