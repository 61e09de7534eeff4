package capture

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// readWarn reads data to the end and returns the records, the warnings in
// the order they were reported, and the reader.
func readWarn(t *testing.T, data []byte, opts Options) (*Reader, []*Record, []Warning) {
	t.Helper()
	var warns []Warning
	opts.OnWarning = func(w Warning) { warns = append(warns, w) }
	r, err := NewReader(bytes.NewReader(data), opts)
	if err != nil {
		t.Fatalf("NewReader: %v", err)
	}
	var recs []*Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec.Clone())
	}
	return r, recs, warns
}

// A record that holds more than one of frame, raw and mark, or an envelope
// key twice, is an invalid record with a warning, not a marker that
// silently loses its frame.
func TestAmbiguousRecordsAreInvalid(t *testing.T) {
	lines := []struct{ line, warn string }{
		{`{"t":1,"conn":1,"mark":"open","frame":{"type":"event","event":"tick"}}`, `holds "frame" and "mark" at once`},
		{`{"t":2,"conn":1,"dir":"in","raw":"x","frame":{}}`, `holds "frame" and "raw" at once`},
		{`{"t":3,"conn":1,"raw":"x","frame":{},"mark":"m"}`, `holds "frame", "raw" and "mark" at once`},
		{`{"t":4,"conn":1,"dir":"in","frame":{"a":1},"frame":{"b":2}}`, `has "frame" twice`},
		{`{"t":5,"t":6,"conn":1,"dir":"in","frame":{}}`, `has "t" twice`},
	}
	var data []byte
	for _, l := range lines {
		data = append(data, l.line+"\n"...)
	}
	data = append(data, `{"t":7,"conn":1,"dir":"in","frame":{"type":"event","event":"tick"}}`+"\n"...)
	r, recs, warns := readWarn(t, data, Options{})
	if len(recs) != len(lines)+1 {
		t.Fatalf("%d records, want %d", len(recs), len(lines)+1)
	}
	for i, l := range lines {
		if !recs[i].Malformed || string(recs[i].Raw) != l.line || recs[i].Frame != nil || recs[i].Mark != "" || recs[i].IsRaw {
			t.Errorf("line %d: %+v", i+1, recs[i])
		}
		if i >= len(warns) || warns[i].Line != i+1 || !strings.Contains(warns[i].Msg, l.warn) || !strings.Contains(warns[i].Msg, "kept as an invalid record") {
			t.Errorf("line %d: warnings %v, want %q", i+1, warns, l.warn)
		}
	}
	if st := r.Stats(); st.Malformed != len(lines) || st.Frames != 1 || st.Marks != 0 || st.Raw != 0 {
		t.Errorf("stats %+v", st)
	}
}
