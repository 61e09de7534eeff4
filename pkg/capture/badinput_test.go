package capture

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/klauspost/compress/zstd"
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
	eachRecord(t, r, func(rec *Record) { recs = append(recs, rec.Clone()) })
	return r, recs, warns
}

// eachRecord calls fn with each record r reads, to the end; an error
// other than the end fails the test.
func eachRecord(t *testing.T, r *Reader, fn func(*Record)) {
	t.Helper()
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		fn(rec)
	}
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

func randomBytes(n int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.UintN(256))
	}
	return b
}

func zstdOf(b []byte) []byte {
	enc, _ := zstd.NewWriter(nil)
	defer enc.Close()
	return enc.EncodeAll(b, nil)
}

func TestNotACapture(t *testing.T) {
	junk := strings.Repeat("just some text\n", sniffLines)
	cases := []struct {
		name string
		data []byte
		why  string
	}{
		{"random bytes", randomBytes(4096, 1), "binary data"},
		{"random bytes, compressed", zstdOf(randomBytes(4096, 2)), "binary data"},
		{"random bytes, one line", bytes.ReplaceAll(randomBytes(300, 3), []byte("\n"), []byte(" ")), "its only line is cut off"},
		{"a PNG", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01"), "binary data"},
		{"text lines", []byte("hello\nworld\n"), "none of its 2 lines is a capture record or a gateway frame (line 1: not a JSON object)"},
		{"one JSON object", []byte(`{"hello":"world"}` + "\n"), "no header, and its only line is neither a capture record nor a gateway frame"},
		{"a JSON array", []byte("[1,2,3]\n"), "not a JSON object"},
		{"too much junk before a frame", []byte(junk + `{"type":"event","event":"tick"}` + "\n"), "none of its first 16 lines"},
		{"a huge junk line before a frame", []byte(strings.Repeat("x", sniffBytes) + "\n" + `{"type":"event","event":"tick"}` + "\n"), "none of its first 1 lines"},
		{"only oversized lines", []byte(strings.Repeat("y", 2000) + "\n"), "longer than 1000 bytes"},
		// A classified marker has the "t", "conn" and "mark" of a record.
		{"classify output", []byte(`{"i":0,"t":1,"conn":1,"kind":"marker","mark":"open"}` + "\n" + `{"i":1,"t":2,"conn":1,"dir":"in","kind":"unknown","event":"x"}` + "\n"), "its first line is an event as 'clawtap classify' prints it"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var warns []Warning
			r, err := NewReader(bytes.NewReader(c.data), Options{MaxLine: 1000 + sniffBytes*boolInt(c.name == "a huge junk line before a frame"), OnWarning: func(w Warning) { warns = append(warns, w) }})
			if err == nil {
				r.Close()
				t.Fatalf("read as a capture; stats %+v", r.Stats())
			}
			var nc *NotCaptureError
			if !errors.Is(err, ErrNotCapture) || !errors.As(err, &nc) {
				t.Fatalf("error %v does not match ErrNotCapture", err)
			}
			if !strings.Contains(err.Error(), c.why) || !strings.HasPrefix(err.Error(), "not a clawtap capture: no header") {
				t.Fatalf("error %q, want it to say %q", err, c.why)
			}
			if len(warns) != 0 {
				t.Fatalf("an input that is not a capture gets an error, not warnings too: %v", warns)
			}
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Inputs without a header that are captures all the same: bare frames, a
// few junk lines before the first record, a headerless plain capture.
func TestHeaderlessCaptures(t *testing.T) {
	frame := `{"type":"event","event":"tick","payload":{"ts":5}}`
	junk := strings.Repeat("noise\n", sniffLines-1)
	r, recs, warns := readWarn(t, []byte(junk+frame+"\n"+frame+"\n"), Options{})
	if len(recs) != sniffLines+1 || r.Stats().Malformed != sniffLines-1 || r.Stats().Bare != 2 || len(warns) != sniffLines-1 {
		t.Fatalf("%d records, stats %+v, %d warnings", len(recs), r.Stats(), len(warns))
	}
	for i, w := range warns {
		if w.Line != i+1 {
			t.Fatalf("warnings out of order: %v", warns)
		}
	}
	// A record without a header, and a cut-off line before any record
	// needs a newline to count.
	_, recs, _ = readWarn(t, []byte(`{"t":1,"conn":2,"dir":"in","frame":{}}`), Options{})
	if len(recs) != 1 || recs[0].Conn != 2 {
		t.Fatalf("headerless record: %+v", recs)
	}
	for _, name := range []string{"bare-frames.jsonl", "junk.jsonl"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "fixtures", name))
		if err != nil {
			t.Fatal(err)
		}
		if _, recs, _ := readWarn(t, data, Options{}); len(recs) < 20 {
			t.Fatalf("%s: %d records", name, len(recs))
		}
	}
}

// Warnings about lines read while deciding whether the input is a capture
// come out in file order, when Next reaches them.
func TestSniffedWarningsInOrder(t *testing.T) {
	data := "junk one\n" + strings.Repeat("z", 3000) + "\n" + "junk three\n" + `{"type":"event","event":"tick"}` + "\n"
	r, recs, warns := readWarn(t, []byte(data), Options{MaxLine: 1000})
	if len(recs) != 3 || r.Stats().Oversized != 1 || r.Stats().Malformed != 2 {
		t.Fatalf("%d records, stats %+v", len(recs), r.Stats())
	}
	var lines []int
	for _, w := range warns {
		lines = append(lines, w.Line)
	}
	if len(lines) != 3 || lines[0] != 1 || lines[1] != 2 || lines[2] != 3 || recs[2].Line != 4 {
		t.Fatalf("warnings %v, records on lines %d %d %d", warns, recs[0].Line, recs[1].Line, recs[2].Line)
	}
}

func TestEmptyInputs(t *testing.T) {
	header := `{"clawtap":1,"createdAt":"2026-11-22T00:00:00Z","source":{"mode":"record"}}`
	cases := []struct {
		name      string
		data      []byte
		truncated bool
	}{
		{"0 bytes", nil, false},
		{"blank lines", []byte("\n \r\n\t\n"), false},
		{"zstd of nothing", zstdOf(nil), false},
		// A zstd stream cut before its first block is truncated, not
		// empty: TestZstdCutBeforeFirstRecord.
		{"a header cut off", []byte(header[:30]), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, recs, warns := readWarn(t, c.data, Options{})
			st := r.Stats()
			if len(recs) != 0 || !st.Empty || r.Header() != nil || st.Truncated != c.truncated || (len(warns) > 0) != c.truncated {
				t.Fatalf("stats %+v, %d records, warnings %v", st, len(recs), warns)
			}
		})
	}
	// A header alone is a capture with no records, not an empty input.
	r, recs, _ := readWarn(t, []byte(header+"\n"), Options{})
	if len(recs) != 0 || r.Stats().Empty || r.Header() == nil {
		t.Fatalf("header only: %+v", r.Stats())
	}
}

// TestInvalidUTF8WhereverItIs: a line is parsed first and checked for
// invalid UTF-8 after, at once when the indexing walk saw only ASCII; an
// invalid byte at any offset (each place in a block of 64, the last block
// padded) is still found and replaced, by every reader, and a line of
// valid UTF-8 beyond ASCII is kept as it is.
func TestInvalidUTF8WhereverItIs(t *testing.T) {
	var in strings.Builder
	in.WriteString(`{"clawtap":1,"createdAt":"x","source":{}}` + "\n")
	const n = 200
	for i := range n {
		text := []byte(strings.Repeat("x", n))
		text[i] = 0xff
		if i%2 == 1 { // and some with a \u escape, left to the Go code
			text = append([]byte(`\u00e9`), text...)
		}
		fmt.Fprintf(&in, `{"t":%d,"conn":1,"dir":"in","frame":{"type":"event","event":"tick","payload":{"runId":"r","text":"%s"}}}`+"\n", i, text)
	}
	fmt.Fprintf(&in, `{"t":%d,"conn":1,"dir":"in","frame":{"type":"event","event":"tick","payload":{"text":"caf\u00e9 %s"}}}`+"\n", n, "caf\xc3\xa9")
	for _, serial := range []bool{false, true} {
		for _, index := range []bool{true, false} {
			r, err := NewReader(strings.NewReader(in.String()), Options{Serial: serial})
			if err != nil {
				t.Fatal(err)
			}
			if index {
				r.IndexMembers(testSchema)
			}
			var recs int
			eachRecord(t, r, func(rec *Record) {
				if !utf8.Valid(rec.Frame) || rec.T < n && strings.Count(string(rec.Frame), "\uFFFD") != 1 {
					t.Fatalf("serial %v, index %v: record %d not repaired: %q", serial, index, rec.T, rec.Frame)
				}
				if rec.T == n && !strings.Contains(string(rec.Frame), "caf\xc3\xa9") {
					t.Fatalf("serial %v, index %v: valid UTF-8 changed: %q", serial, index, rec.Frame)
				}
				recs++
			})
			if st := r.Stats(); recs != n+1 || st.InvalidUTF8 != n {
				t.Errorf("serial %v, index %v: %d records, %d with invalid UTF-8, want %d and %d", serial, index, recs, st.InvalidUTF8, n+1, n)
			}
			r.Close()
		}
	}
}

func TestInvalidUTF8IsReplaced(t *testing.T) {
	data := "{\"clawtap\":1,\"createdAt\":\"x\",\"source\":{},\"notes\":\"caf\xe9\"}\n" +
		"{\"t\":1,\"conn\":1,\"dir\":\"in\",\"frame\":{\"type\":\"event\",\"event\":\"chat\",\"payload\":{\"text\":\"caf\xe9 \xed\xa0\x80 \xf0\x9f\x90\"}}}\n" +
		`{"t":2,"conn":1,"dir":"in","frame":{"type":"event","event":"chat","payload":{"text":"\ud800 lone \udfff escapes stay"}}}` + "\n" +
		"{\"t\":3,\"conn\":1,\"dir\":\"in\",\"raw\":\"bad \xff raw\"}\n" +
		"{\"t\":4,\"conn\":1,\"mark\":\"close\",\"reason\":\"bye \xc3\"}\n" +
		"not json \xfe\n" +
		"{\"t\":5,\"conn\":1,\"dir\":\"in\",\"frame\":{\"type\":\"event\",\"event\":\"tick\",\"payload\":{\"t\":\"fine \xc3\xa9\"}}}\n"
	for _, compress := range []bool{false, true} {
		in := []byte(data)
		if compress {
			in = zstdOf(in)
		}
		r, recs, warns := readWarn(t, in, Options{})
		if len(recs) != 6 {
			t.Fatalf("%d records", len(recs))
		}
		for i, rec := range recs {
			for _, b := range [][]byte{rec.Frame, rec.Raw, []byte(rec.Reason)} {
				if !utf8.Valid(b) {
					t.Fatalf("record %d: invalid UTF-8 left: %q", i, b)
				}
			}
		}
		if got := string(recs[0].Frame); got != `{"type":"event","event":"chat","payload":{"text":"caf� ��� ���"}}` {
			t.Errorf("frame: %s", got)
		}
		if got := string(recs[1].Frame); got != `{"type":"event","event":"chat","payload":{"text":"\ud800 lone \udfff escapes stay"}}` {
			t.Errorf("a lone surrogate escape is ASCII and must stay as it is: %s", got)
		}
		if string(recs[2].Raw) != "bad � raw" || recs[3].Reason != "bye �" || !recs[4].Malformed || string(recs[4].Raw) != "not json �" {
			t.Errorf("raw %q reason %q malformed %q", recs[2].Raw, recs[3].Reason, recs[4].Raw)
		}
		if string(recs[5].Frame) != "{\"type\":\"event\",\"event\":\"tick\",\"payload\":{\"t\":\"fine \xc3\xa9\"}}" {
			t.Errorf("valid UTF-8 changed: %q", recs[5].Frame)
		}
		if h := r.Header(); h == nil || string(h.Notes) != `"caf�"` {
			t.Errorf("header notes %q", h.Notes)
		}
		if st := r.Stats(); st.InvalidUTF8 != 4 {
			t.Errorf("stats %+v: 4 records had invalid UTF-8", st)
		}
		n := 0
		for _, w := range warns {
			if strings.Contains(w.Msg, "U+FFFD") {
				n++
			}
		}
		if n != 2 { // the header's, and the first record's
			t.Errorf("warnings %v", warns)
		}
	}
}

// A zstd stream cut before its first whole line is truncated, not empty:
// NewReader returns a StreamError and no warning.
func TestZstdCutBeforeFirstRecord(t *testing.T) {
	header := `{"clawtap":1,"createdAt":"2026-11-22T00:00:00Z","source":{"mode":"record"}}`
	var many bytes.Buffer
	for i := 0; i < 200; i++ {
		many.WriteString(`{"t":1,"conn":1,"dir":"in","frame":{"type":"event","event":"tick","payload":{"n":` + strings.Repeat("1", i%17+1) + `}}}` + "\n")
	}
	whole := zstdOf(many.Bytes())
	for name, data := range map[string][]byte{
		"before its first block": zstdOf([]byte(header + "\n"))[:6],
		"in its first block":     whole[:len(whole)/2],
	} {
		var warns []Warning
		_, err := NewReader(bytes.NewReader(data), Options{OnWarning: func(w Warning) { warns = append(warns, w) }})
		var se *StreamError
		if !errors.As(err, &se) || !se.CutOff() || len(warns) != 0 {
			t.Fatalf("%s: err %v (%T), warnings %v; want a cut-off StreamError and no warning", name, err, err, warns)
		}
	}
}

// A zstd stream that fails after whole lines gives those lines and one
// warning that says whether the stream was cut off or is corrupt, and
// whether it broke off at a line's end or inside a line.
func TestZstdCutOrCorruptAfterRecords(t *testing.T) {
	var lines strings.Builder
	lines.WriteString(`{"clawtap":1,"createdAt":"2026-11-22T00:00:00Z","source":{"mode":"record"}}` + "\n")
	for i := 0; i < 50; i++ {
		lines.WriteString(`{"t":1,"conn":1,"dir":"in","frame":{"type":"event","event":"tick","payload":{"n":` + strings.Repeat("1", i%17+1) + `}}}` + "\n")
	}
	plain := lines.String()
	end := len(strings.Join(strings.SplitAfter(plain, "\n")[:3], "")) // the header and two records
	for _, c := range []struct {
		name         string
		split        int  // the first block's end, in plain
		corrupt      bool // the second block corrupt, else cut off
		line         int  // the warning's line (0: about the stream)
		prefix, tail string
	}{
		{"cut at a line's end", end, false, 0, "capture stream ends early: ", "; records before it are complete"},
		{"cut inside a line", end + 9, false, 4, "capture ends mid-line (9 bytes): ", "; records before it are complete"},
		{"corrupt at a line's end", end, true, 0, "the zstd stream is corrupt: ", "; the records before it are read"},
		{"corrupt inside a line", end + 9, true, 4, "the zstd stream is corrupt mid-line (9 bytes): ", "; the records before it are read"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			enc, _ := zstd.NewWriter(&b)
			enc.Write([]byte(plain[:c.split]))
			enc.Flush()
			second := b.Len()
			enc.Write([]byte(plain[c.split:]))
			enc.Close()
			data := b.Bytes()
			if c.corrupt {
				for i := second + (len(data)-second)/3; i < second+2*(len(data)-second)/3; i++ {
					data[i] ^= 0xff
				}
			} else {
				data = data[:second+(len(data)-second)/2]
			}
			r, recs, warns := readWarn(t, data, Options{})
			if len(recs) != 2 || !r.Stats().Truncated || len(warns) != 1 {
				t.Fatalf("%d records, stats %+v, warnings %v; want 2, truncated, one warning", len(recs), r.Stats(), warns)
			}
			if w := warns[0]; w.Line != c.line || !strings.HasPrefix(w.Msg, c.prefix) || !strings.HasSuffix(w.Msg, c.tail) {
				t.Fatalf("warning %+v; want line %d, %q…%q", w, c.line, c.prefix, c.tail)
			}
		})
	}
}
