// Package capturetest reads captures back in tests: the records a test
// wrote, their markers and their seqs.
package capturetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
)

// Read reads every record of a capture (copies).
func Read(t testing.TB, path string) (*capture.Header, []*capture.Record, capture.Stats) {
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

// Parse reads every record of a capture's bytes, compressed or not
// (copies, in order), serially.
func Parse(t testing.TB, b []byte) (*capture.Header, []capture.Record) {
	t.Helper()
	r, err := capture.NewReader(bytes.NewReader(b), capture.Options{Serial: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var recs []capture.Record
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return r.Header(), recs
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, *rec.Clone())
	}
}

// CountFrames counts the frames a capture holds so far; -1 when it cannot
// be opened yet (a recording that has not written its header).
func CountFrames(path string) int {
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

// Marks lists the markers, as "conn:mark".
func Marks(recs []*capture.Record) []string {
	var out []string
	for _, r := range recs {
		if r.Mark != "" {
			out = append(out, fmt.Sprintf("%d:%s", r.Conn, r.Mark))
		}
	}
	return out
}

// FrameSeqs returns the seqs of the frames received, per connection.
func FrameSeqs(recs []*capture.Record) map[int][]int64 {
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

// Str is the string member key of a JSON object.
func Str(b []byte, key string) (string, bool) {
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
