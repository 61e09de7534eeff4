package record

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/clawtap/clawtap/internal/fakegw"
	"github.com/clawtap/clawtap/pkg/capture"
)

// readCapture reads every record of a capture (copies).
func readCapture(t *testing.T, path string) (*capture.Header, []*capture.Record, capture.Stats) {
	t.Helper()
	r, err := capture.Open(path, capture.Options{})
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer r.Close()
	var recs []*capture.Record
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec.Clone())
	}
	return r.Header(), recs, r.Stats()
}

// countFrames counts the frames a capture holds so far; -1 when it cannot
// be opened yet.
func countFrames(path string) int {
	r, err := capture.Open(path, capture.Options{})
	if err != nil {
		return -1
	}
	defer r.Close()
	for {
		if _, err := r.Next(); err != nil {
			return r.Stats().Frames
		}
	}
}

func marks(recs []*capture.Record) []string {
	var out []string
	for _, r := range recs {
		if r.Mark != "" {
			out = append(out, fmt.Sprintf("%d:%s", r.Conn, r.Mark))
		}
	}
	return out
}

// frameSeqs returns the frame seqs of "in" events per conn.
func frameSeqs(recs []*capture.Record) map[int][]int64 {
	out := map[int][]int64{}
	for _, r := range recs {
		if r.Frame == nil || r.Dir != capture.DirIn {
			continue
		}
		var f struct {
			Seq *int64 `json:"seq"`
		}
		if json.Unmarshal(r.Frame, &f) == nil && f.Seq != nil {
			out[r.Conn] = append(out[r.Conn], *f.Seq)
		}
	}
	return out
}

func jsonGetStr(b []byte, key string) (string, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil {
		return "", false
	}
	var s string
	if json.Unmarshal(m[key], &s) != nil {
		return "", false
	}
	return s, true
}

// chatBurst sends a small streamed run.
func chatBurst(c *fakegw.Conn, run string) {
	_ = c.Event("agent", map[string]any{"runId": run, "stream": "lifecycle", "data": map[string]any{"phase": "start"}})
	_ = c.Event("chat", map[string]any{"runId": run, "sessionKey": "agent:main:main", "state": "delta", "deltaText": "Hel"})
	_ = c.Event("chat", map[string]any{"runId": run, "sessionKey": "agent:main:main", "state": "delta", "deltaText": "lo"})
	_ = c.Event("chat", map[string]any{"runId": run, "sessionKey": "agent:main:main", "state": "final",
		"message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "Hello"}}}})
}

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
