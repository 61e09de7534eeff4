package bench

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/clawtap/clawtap/internal/synth"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/serve"
)

// TestServeMemoryFlat: serving a capture keeps memory bounded by the
// largest frame and the readers, not by the capture's length (held in
// memory, these 200,000 frames took about 300 MB). The capture is played as
// fast as possible, requests are answered from it, and the heap in use is
// sampled as it goes.
func TestServeMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a large capture")
	}
	const n = 200_000
	path := filepath.Join(t.TempDir(), "serve.jsonl.zst")
	w, err := capture.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := synth.Large(w, n, 5); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	heap := func() uint64 { return afterGC().HeapInuse }
	s, err := serve.LoadFile(path, serve.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var peak uint64
	frames, answered := 0, 0
	st := serve.NewStreamer(s, serve.StreamOptions{Pacing: serve.Pacing{Fast: true}})
	err = st.Run(context.Background(), func(frame []byte) error {
		if frames++; frames%40_000 == 0 {
			peak = max(peak, heap())
			q, err := s.Match("chat.send", []byte(`{"sessionKey":"agent:main:main"}`), st.Pos())
			if err != nil {
				return err
			}
			if q != nil {
				answered++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	peak = max(peak, heap())
	if frames != s.Frames() || frames < n*9/10 || answered == 0 {
		t.Fatalf("served %d frames of %d, %d requests answered", frames, s.Frames(), answered)
	}
	mib := float64(peak) / (1 << 20)
	if peak > 40<<20 {
		t.Fatalf("heap in use peaked at %.1f MiB serving %d frames; serving must not hold the capture", mib, frames)
	}
	t.Logf("heap in use peaked at %.1f MiB serving %d frames", mib, frames)
}
