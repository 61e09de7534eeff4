package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/synth"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/check"
	"github.com/clawtap/clawtap/pkg/models"
	"github.com/clawtap/clawtap/pkg/shrink"
)

func TestRunShrink(t *testing.T) {
	small := filepath.Join(t.TempDir(), "small.jsonl")
	var stderr bytes.Buffer
	e := cli.NewEnv(strings.NewReader(""), &bytes.Buffer{}, &stderr)
	target := shrink.Target{Rule: "duplicate-terminal", SlowMs: check.DefaultSlowMs, IdleMs: check.DefaultIdleMs}
	if err := runShrink(e, shrinkOptions{path: "../../fixtures/duplicate-final.jsonl.zst", output: cli.Output{Path: small}, target: target, inMemory: shrinkInMemory}); err != nil {
		t.Fatal(err)
	}
	r, err := capture.Open(small, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	if !strings.Contains(stderr.String(), "→ "+small) || !strings.Contains(stderr.String(), "shrink: duplicate-terminal at record ") {
		t.Errorf("stderr %s", stderr.String())
	}
	target.Rule = "seq-gap"
	var ce *cli.Error
	err = runShrink(e, shrinkOptions{path: "../../fixtures/demo.jsonl.zst", output: cli.Output{Path: filepath.Join(t.TempDir(), "x.jsonl")}, target: target, inMemory: shrinkInMemory})
	if !errors.As(err, &ce) || ce.Code != cli.ExitTrouble || !strings.Contains(ce.Hint, "clawtap check --rule seq-gap") {
		t.Errorf("a finding the capture does not show: %v", err)
	}
}

// A capture larger than shrink holds whole is searched in a window before
// its finding, from a file or from stdin (copied to a temporary file that
// is gone afterwards), with the same small capture either way.
func TestRunShrinkWindowed(t *testing.T) {
	in := filepath.Join(t.TempDir(), "session.jsonl.zst")
	writeSession(t, in)
	inMemory := int64(3 << 20) // of 4.7 MiB of frames; the first window (4096 records, 2 MB) starts mid-capture
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	target := shrink.Target{Rule: "seq-gap", SlowMs: check.DefaultSlowMs, IdleMs: check.DefaultIdleMs}
	windowed, stderr := shrunk(t, in, nil, target, inMemory)
	if !strings.Contains(stderr, "searching a window of ") || !strings.Contains(stderr, "shrink: seq-gap at record ") {
		t.Errorf("stderr %s", stderr)
	}
	if !regexp.MustCompile(`to \d of 1000\d records that still show seq-gap`).MatchString(windowed) {
		t.Errorf("the note should count the input's records:\n%.300s", windowed)
	}
	if n := strings.Count(windowed, "\n"); n > 12 {
		t.Errorf("%d lines: the window should shrink to a handful of records", n)
	}
	data, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	if piped, _ := shrunk(t, "-", data, target, inMemory); piped != windowed {
		t.Errorf("from stdin:\n%s\nfrom the file:\n%s", piped, windowed)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("stdin's copy was left behind: %v", left)
	}
}

// A finding that needs more than a window may hold before it is searched
// with the whole capture in memory, as a small capture is, and says so.
func TestRunShrinkWindowTooSmall(t *testing.T) {
	in := "../../fixtures/stale-terminal.jsonl.zst"
	target := shrink.Target{Rule: "dropped-final", UI: models.MustLookup("clawboo@1211c16"), SlowMs: check.DefaultSlowMs, IdleMs: check.DefaultIdleMs}
	whole, _ := shrunk(t, in, nil, target, shrinkInMemory)
	// 2000 bytes of frames: the fixture holds more before its finding
	fallback, stderr := shrunk(t, in, nil, target, 2000)
	if !strings.Contains(stderr, "reading all 46 records into memory") {
		t.Errorf("stderr %s", stderr)
	}
	if recordLines(t, fallback) != recordLines(t, whole) {
		t.Errorf("kept other records:\n%s\nwhole:\n%s", fallback, whole)
	}
}

// shrunk runs shrink on path (stdin's bytes for "-"), holding at most
// inMemory bytes of frames whole, and returns the small capture,
// uncompressed, and stderr.
func shrunk(t *testing.T, path string, stdin []byte, target shrink.Target, inMemory int64) (string, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "small.jsonl")
	var stderr bytes.Buffer
	e := cli.NewEnv(bytes.NewReader(stdin), &bytes.Buffer{}, &stderr)
	if err := runShrink(e, shrinkOptions{path: path, output: cli.Output{Path: out}, target: target, inMemory: inMemory}); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), stderr.String()
}

// writeSession writes a generated session of 10,000 frames with one lost
// at the 6,000th (a seq-gap there) to path.
func writeSession(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := capture.NewWriter(f, true)
	if err == nil {
		err = w.WriteHeader(synth.NewHeader("shrink test"))
	}
	n := 0
	if err == nil {
		err = synth.LargeEach(10_001, 1, func(r *capture.Record) error {
			if n++; n == 6_000 {
				return nil // lost
			}
			return w.Write(r)
		})
	}
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// recordLines is a capture's records, without its header.
func recordLines(t *testing.T, capture string) string {
	t.Helper()
	_, rest, ok := strings.Cut(capture, "\n")
	if !ok {
		t.Fatalf("no header in %q", capture)
	}
	return rest
}
