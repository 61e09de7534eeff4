package suite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestRunOrder: whatever the number of workers, results come in the
// captures' order, each once; an emit error stops the suite.
func TestRunOrder(t *testing.T) {
	d := t.TempDir()
	var caps []Capture
	for i := range 40 {
		// Not captures: each result is an error, made quickly, in any order.
		p := filepath.Join(d, fmt.Sprintf("c%02d.jsonl", i))
		if err := os.WriteFile(p, []byte(fmt.Sprintf("not a capture %d\n", i)), 0o600); err != nil {
			t.Fatal(err)
		}
		caps = append(caps, Capture{Path: p, Base: p[:len(p)-6]})
	}
	for _, jobs := range []int{1, 3, 16} {
		next := 0
		err := Run(context.Background(), caps, Config{Jobs: jobs}, func(r *Result) error {
			if r.Index != next || r.Capture.Path != caps[next].Path || r.Status() != Error {
				t.Fatalf("jobs %d: got %d (%s, %s), want %d", jobs, r.Index, r.Capture.Path, r.Status(), next)
			}
			next++
			return nil
		})
		if err != nil || next != len(caps) {
			t.Fatalf("jobs %d: %v after %d", jobs, err, next)
		}
	}
	stop := errors.New("stop")
	n := 0
	err := Run(context.Background(), caps, Config{Jobs: 4}, func(*Result) error {
		n++
		if n == 5 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 5 {
		t.Fatalf("stop: %v after %d", err, n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Run(ctx, caps, Config{Jobs: 2}, func(*Result) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}
