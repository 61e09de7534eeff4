package capture

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// demoLines is the bundled demo capture as plain JSON Lines.
func demoLines(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "demo.jsonl.zst"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := zstd.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	plain, err := io.ReadAll(d)
	if err != nil {
		t.Fatal(err)
	}
	return plain
}

func gz(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	w := gzip.NewWriter(&out)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// sameRecords fails unless got holds want's records, as their JSON.
func sameRecords(t *testing.T, want, got []*Record) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for i := range want {
		if a, b := want[i].AppendJSON(nil), got[i].AppendJSON(nil); !bytes.Equal(a, b) {
			t.Fatalf("record %d:\n got %s\nwant %s", i, b, a)
		}
	}
}

// A gzip-compressed capture reads as the capture it holds.
func TestReadsGzip(t *testing.T) {
	plain := demoLines(t)
	r0, want, _ := readWarn(t, plain, Options{})
	r, got, warns := readWarn(t, gz(t, plain), Options{})
	if len(warns) != 0 {
		t.Errorf("warnings: %v", warns)
	}
	if r.Header() == nil || r.Header().CreatedAt != r0.Header().CreatedAt {
		t.Errorf("header %+v", r.Header())
	}
	sameRecords(t, want, got)

	// Cut short: the records before the cut, and a warning that says so.
	data := gz(t, plain)
	r, got, warns = readWarn(t, data[:len(data)*2/3], Options{})
	if !r.Stats().Truncated || len(got) == 0 || len(got) >= len(want) {
		t.Errorf("cut gzip: %d records, stats %+v", len(got), r.Stats())
	}
	if len(warns) == 0 || !strings.Contains(warns[len(warns)-1].Msg, "ends") {
		t.Errorf("cut gzip: warnings %v", warns)
	}
}

// A JSON array of frames, as a browser console copies it (pretty-printed,
// or the frames' data as strings), reads as the bare frames, one record
// per element, streamed.
func TestReadsJSONArray(t *testing.T) {
	plain := demoLines(t)
	_, recs, _ := readWarn(t, plain, Options{})
	var frames []json.RawMessage
	var strs []string
	var bare bytes.Buffer
	for _, rec := range recs {
		if rec.Frame == nil {
			continue
		}
		frames = append(frames, json.RawMessage(rec.Frame))
		strs = append(strs, string(rec.Frame))
		bare.Write(rec.Frame)
		bare.WriteByte('\n')
	}
	_, want, _ := readWarn(t, bare.Bytes(), Options{})
	pretty, err := json.MarshalIndent(frames, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	asStrings, _ := json.Marshal(strs)
	for name, data := range map[string][]byte{
		"pretty":     append([]byte("\n  "), pretty...),
		"strings":    asStrings,
		"gzip":       gz(t, pretty),
		"zstd":       zst(t, pretty),
		"two arrays": append(append(append([]byte{}, pretty[:len(pretty)-1]...), "]\n["...), pretty[1:]...),
		"records":    recordsArray(t, plain),
		"crlf":       bytes.ReplaceAll(pretty, []byte("\n"), []byte("\r\n")),
	} {
		t.Run(name, func(t *testing.T) {
			r, got, warns := readWarn(t, data, Options{})
			if len(warns) != 0 {
				t.Errorf("warnings: %v", warns)
			}
			switch name {
			case "two arrays":
				sameRecords(t, append(append([]*Record{}, want...), want...), renumber(got, 0))
				return
			case "records":
				if r.Header() == nil {
					t.Error("the header element was not read as the header")
				}
				sameRecords(t, recs, got)
				return
			}
			sameRecords(t, want, got)
		})
	}

	// Cut off inside an element: the elements before it, and a warning.
	r, got, warns := readWarn(t, pretty[:len(pretty)/2], Options{})
	if !r.Stats().Truncated || len(got) == 0 || len(got) >= len(want) {
		t.Errorf("cut array: %d records, stats %+v", len(got), r.Stats())
	}
	if len(warns) != 1 || !strings.Contains(warns[0].Msg, "the JSON array ends early") {
		t.Errorf("cut array: warnings %v", warns)
	}
	// Not JSON past some point: the elements before it, and a warning
	// naming the array.
	bad := []byte(`[{"type":"event","event":"tick","payload":{},"seq":1}, garbage]`)
	r, got, warns = readWarn(t, bad, Options{})
	if !r.Stats().Corrupt || len(got) != 1 || len(warns) != 1 || !strings.Contains(warns[0].Msg, "the JSON array is corrupt") {
		t.Errorf("broken array: stats %+v, warnings %v", r.Stats(), warns)
	}
}

// An empty array is an empty input; an array of anything but frames is
// not a capture.
func TestJSONArrayEdges(t *testing.T) {
	r, err := NewReader(strings.NewReader(" [ ] "), Options{})
	if err != nil || !r.Stats().Empty {
		t.Errorf("[]: %v, stats %+v", err, r.Stats())
	}
	if _, err := NewReader(strings.NewReader(`[1, "two", [3]]`), Options{}); !errors.Is(err, ErrNotCapture) {
		t.Errorf("[1, \"two\", [3]]: %v", err)
	}
	var se *StreamError
	if _, err := NewReader(strings.NewReader(`[{"type":"event",`), Options{}); !errors.As(err, &se) || se.What() != "the JSON array" || !se.CutOff() {
		t.Errorf("an array cut before its first element: %v", err)
	}
}

func zst(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	w, err := zstd.NewWriter(&out)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write(b)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// recordsArray is a capture's lines (header included) as one JSON array.
func recordsArray(t *testing.T, plain []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("[")
	for i, line := range bytes.Split(bytes.TrimSpace(plain), []byte("\n")) {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.Write(line)
	}
	b.WriteString("]")
	return b.Bytes()
}

// renumber gives records read from several arrays their index in one run
// of the frames, as a reader of the lines gives them.
func renumber(recs []*Record, from int) []*Record {
	for i, r := range recs {
		r.Index, r.Line = from+i, from+i+1
	}
	return recs
}
