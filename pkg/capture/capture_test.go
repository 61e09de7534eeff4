package capture

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func writeCapture(t *testing.T, compress bool, recs []*Record) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, compress)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteHeader(NewHeader(time.Unix(1795317835, 0), Source{Mode: "test", URL: "ws://127.0.0.1:18789"})); err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func readAll(t *testing.T, data []byte) (*Reader, []*Record) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out []*Record
	eachRecord(t, r, func(rec *Record) { out = append(out, rec.Clone()) })
	return r, out
}

var sample = []*Record{
	{T: 1000, Conn: 1, Mark: MarkOpen, URL: "ws://127.0.0.1:18789"},
	{T: 1001, Conn: 1, Dir: DirIn, Frame: []byte(`{"type":"event","event":"connect.challenge","payload":{"nonce":"n","ts":1001}}`)},
	{T: 1002, Conn: 1, Dir: DirOut, Frame: []byte(`{"type":"req","id":"1","method":"connect","params":{}}`)},
	{T: 1003, Conn: 1, Mark: MarkHello, Protocol: 4, Server: "2026.9.6", ConnID: "c1", BootID: "b1"},
	{T: 1004, Conn: 1, Dir: DirIn, Frame: []byte(`{ "type" : "event", "event":"tick","payload":{"ts":1004},"seq":1 }`)},
	{T: 1005, Conn: 1, Dir: DirIn, Frame: []byte("not json at all \x00 \"quoted\"")},
	{T: 1006, Conn: 1, Dir: DirOut, Mark: MarkOversize, Size: 70_000_000, Reason: "larger than the proxy buffer"},
	{T: 1006, Conn: 1, Mark: MarkClose, Code: 1012, Reason: "service restart"},
	{T: 1007, Conn: 2, Mark: MarkError, Err: "dial tcp: connection refused"},
}

func TestRoundTripPlainAndZstd(t *testing.T) {
	for _, compress := range []bool{false, true} {
		data := writeCapture(t, compress, sample)
		if compress != bytes.HasPrefix(data, zstdMagic) {
			t.Fatalf("compress=%v but magic presence differs", compress)
		}
		r, recs := readAll(t, data)
		if h := r.Header(); h == nil || h.Version != Version || h.Source.Mode != "test" || h.CreatedAt != "2026-11-22T03:23:55Z" {
			t.Fatalf("header = %+v", h)
		}
		if len(recs) != len(sample) {
			t.Fatalf("got %d records, want %d", len(recs), len(sample))
		}
		for i, got := range recs {
			want := sample[i]
			if got.Index != i || got.T != want.T || got.Conn != want.Conn || got.Dir != want.Dir || got.Mark != want.Mark ||
				got.Code != want.Code || got.Reason != want.Reason || got.Protocol != want.Protocol || got.Server != want.Server ||
				got.ConnID != want.ConnID || got.BootID != want.BootID || got.Err != want.Err || got.URL != want.URL || got.Size != want.Size {
				t.Errorf("record %d = %+v, want %+v", i, got, want)
			}
		}
		// Frames come back byte for byte, spacing included.
		if string(recs[4].Frame) != string(sample[4].Frame) {
			t.Errorf("frame re-encoded: %s", recs[4].Frame)
		}
		// A message that is not JSON is kept as raw text, not dropped.
		if !recs[5].IsRaw || string(recs[5].Raw) != string(sample[5].Frame) || recs[5].Frame != nil {
			t.Errorf("raw record = %+v", recs[5])
		}
		if st := r.Stats(); st.Frames != 3 || st.Raw != 1 || st.Marks != 5 || st.Malformed != 0 || st.Truncated {
			t.Errorf("stats = %+v", st)
		}
	}
}

func TestMultiLineFrameIsCompactedToOneLine(t *testing.T) {
	pretty := []byte("{\n  \"type\": \"event\",\n  \"event\": \"tick\"\n}")
	data := writeCapture(t, false, []*Record{{T: 1, Conn: 1, Dir: DirIn, Frame: pretty}})
	_, recs := readAll(t, data)
	if len(recs) != 1 || string(recs[0].Frame) != `{"type":"event","event":"tick"}` {
		t.Fatalf("got %+v", recs)
	}
}

func TestHugeLine(t *testing.T) {
	big := `{"type":"event","event":"chat","payload":{"text":"` + strings.Repeat("x", 30<<20) + `"}}`
	data := writeCapture(t, true, []*Record{{T: 1, Conn: 1, Dir: DirIn, Frame: []byte(big)}, {T: 2, Conn: 1, Dir: DirIn, Frame: []byte(`{"type":"event","event":"tick"}`)}})
	_, recs := readAll(t, data)
	if len(recs) != 2 || len(recs[0].Frame) != len(big) || string(recs[1].Frame) != `{"type":"event","event":"tick"}` {
		t.Fatalf("huge line not read whole: %d records", len(recs))
	}
}

func TestOversizedLineIsSkippedWithWarning(t *testing.T) {
	data := []byte(`{"t":1,"conn":1,"dir":"in","frame":{"type":"event","event":"a","payload":"` + strings.Repeat("y", 5000) + `"}}` + "\n" +
		`{"t":2,"conn":1,"dir":"in","frame":{"type":"event","event":"b"}}` + "\n")
	var warns []Warning
	r, err := NewReader(bytes.NewReader(data), Options{MaxLine: 1000, OnWarning: func(w Warning) { warns = append(warns, w) }})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := r.Next()
	if err != nil || !strings.Contains(string(rec.Frame), `"b"`) {
		t.Fatalf("want the second record, got line %d, %v", rec.Line, err)
	}
	if _, err := r.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("want EOF, got %v", err)
	}
	if r.Stats().Oversized != 1 || len(warns) != 1 || warns[0].Line != 1 {
		t.Fatalf("stats %+v warnings %v", r.Stats(), warns)
	}
}

func TestTruncatedZstdKeepsCompleteRecords(t *testing.T) {
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, true)
	w.WriteHeader(NewHeader(time.Unix(0, 0), Source{Mode: "test"}))
	for i := 0; i < 100; i++ {
		w.WriteFrame(int64(i), 1, DirIn, []byte(`{"type":"event","event":"tick","seq":`+itoa(i)+`}`))
	}
	w.Flush() // what the recorder does on its interval
	flushedAt := buf.Len()
	for i := 100; i < 200; i++ {
		w.WriteFrame(int64(i), 1, DirIn, []byte(`{"type":"event","event":"tick","seq":`+itoa(i)+`}`))
	}
	w.Flush()
	// A killed recorder: the stream stops somewhere after the first flush,
	// with no end-of-frame.
	cut := buf.Bytes()[:flushedAt+(buf.Len()-flushedAt)/2]
	var warns []Warning
	r, err := NewReader(bytes.NewReader(cut), Options{OnWarning: func(w Warning) { warns = append(warns, w) }})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		rec, err := r.Next()
		if err != nil {
			break
		}
		if rec.T != int64(n) {
			t.Fatalf("record %d has t=%d", n, rec.T)
		}
		n++
	}
	if n < 100 {
		t.Fatalf("only %d records survived; everything flushed (100) must", n)
	}
	if !r.Stats().Truncated || len(warns) == 0 {
		t.Fatalf("truncation must be reported: stats %+v warnings %v", r.Stats(), warns)
	}
}

func TestTruncatedLastLine(t *testing.T) {
	data := []byte(`{"clawtap":1,"createdAt":"x","source":{}}` + "\n" +
		`{"t":1,"conn":1,"dir":"in","frame":{"type":"event","event":"a"}}` + "\n" +
		`{"t":2,"conn":1,"dir":"in","frame":{"type":"ev`)
	r, recs := readAll(t, data)
	if len(recs) != 1 || !r.Stats().Truncated || len(r.Warnings()) != 1 {
		t.Fatalf("recs=%d stats=%+v warns=%v", len(recs), r.Stats(), r.Warnings())
	}
	// A complete last line without a newline is fine.
	_, recs = readAll(t, data[:bytes.LastIndexByte(data, '\n')])
	if len(recs) != 1 {
		t.Fatalf("want the one complete record, got %d", len(recs))
	}
}

func TestBareFramesAndMalformedLines(t *testing.T) {
	data := []byte(strings.Join([]string{
		`{"type":"event","event":"chat","seq":1,"payload":{"ts":1795317835000,"state":"delta"}}`,
		``,
		`{"type":"req","id":"1","method":"chat.send","params":{}}`,
		`{"broken json`,
		`[1,2,3]`,
		`{"hello":"world"}`,
		`{"t":"soon","conn":1,"frame":{}}`,
		`{"type":"event","event":"tick","payload":{"ts":"nope"}}`,
	}, "\n") + "\n")
	r, recs := readAll(t, data)
	if r.Header() != nil {
		t.Fatal("bare frames have no header")
	}
	if len(recs) != 7 {
		t.Fatalf("got %d records, want 7 (blank line skipped, nothing else dropped)", len(recs))
	}
	if !recs[0].Bare || recs[0].T != 1795317835000 || recs[0].Conn != 1 || recs[0].Dir != DirIn {
		t.Errorf("bare event: %+v", recs[0])
	}
	if recs[1].Dir != DirOut {
		t.Errorf("a bare req was sent by the client: dir %q", recs[1].Dir)
	}
	for _, i := range []int{2, 3, 4, 5} {
		if !recs[i].Malformed || recs[i].Raw == nil {
			t.Errorf("record %d should be malformed with its text kept: %+v", i, recs[i])
		}
	}
	if recs[6].T != 0 || !recs[6].Bare {
		t.Errorf("a non-numeric payload ts gives t=0: %+v", recs[6])
	}
	if st := r.Stats(); st.Malformed != 4 || st.Bare != 3 || st.Records != 7 {
		t.Errorf("stats %+v", st)
	}
	if recs[3].Line != 5 {
		t.Errorf("line numbers count blank lines: got %d", recs[3].Line)
	}
}

func TestCreateIsPrivate(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cap.jsonl.zst")
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w.WriteHeader(NewHeader(time.Unix(0, 0), Source{}))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", fi.Mode().Perm())
	}
	r, err := Open(path, Options{})
	if err != nil || r.Header() == nil {
		t.Fatalf("reopen: %v", err)
	}
	r.Close()
}

// TestCreateRefusesExistingPaths: Create never truncates, replaces or
// chmods what is there, a regular file or a special one.
func TestCreateRefusesExistingPaths(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cap.jsonl")
	os.WriteFile(path, []byte("keep"), 0o644)
	if _, err := Create(path); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("Create over an existing file: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "keep" {
		t.Errorf("the file was changed: %q", b)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("the file was chmodded: %v", fi.Mode())
	}
	if _, err := Create(os.DevNull); err == nil {
		t.Fatal("Create over a device succeeded")
	}
	if fi, _ := os.Stat(os.DevNull); fi.Mode()&os.ModeCharDevice == 0 || fi.Mode().Perm() != 0o666 {
		t.Errorf("%s is now %v", os.DevNull, fi.Mode())
	}
}

func TestEmptyInput(t *testing.T) {
	r, recs := readAll(t, nil)
	if len(recs) != 0 || r.Header() != nil || r.Stats().Truncated || !r.Stats().Empty {
		t.Fatalf("empty input is an empty capture: %+v", r.Stats())
	}
}

func itoa(i int) string {
	return strings.TrimSpace(strings.Repeat(" ", 0) + string(rune('0'+i/100)) + string(rune('0'+i/10%10)) + string(rune('0'+i%10)))
}

// TestBigFramesAreWrittenAsAppendJSONWritesThem: Write sends a big frame's
// bytes on without copying them, and the line is the same as AppendJSON's,
// for a frame on one line, a pretty-printed one and one that is not JSON.
func TestBigFramesAreWrittenAsAppendJSONWritesThem(t *testing.T) {
	text := strings.Repeat("x", bigFrame)
	recs := []*Record{
		{T: 1, Conn: 1, Dir: DirIn, Frame: []byte(` {"type":"event","payload":{"text":"` + text + `"}}` + "\t")},
		{T: 2, Conn: 1, Dir: DirOut, Frame: []byte("{\n  \"text\": \"" + text + "\"\n}")},
		{T: 3, Conn: 2, Dir: DirIn, Frame: []byte(`{"text":"` + text)},
	}
	var want bytes.Buffer
	for _, r := range recs {
		want.Write(r.AppendJSON(nil))
	}
	var got bytes.Buffer
	w, _ := NewWriter(&got, false)
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("Write and AppendJSON differ:\n%.200q\n%.200q", got.Bytes(), want.Bytes())
	}
	if w.Records() != 3 || w.Bytes() != int64(want.Len()) {
		t.Errorf("records %d bytes %d, want 3 and %d", w.Records(), w.Bytes(), want.Len())
	}
	_, back := readAll(t, got.Bytes())
	if len(back) != 3 || string(back[0].Frame) != string(bytes.TrimSpace(recs[0].Frame)) || !back[2].IsRaw {
		t.Errorf("read back %d records", len(back))
	}
}

// TestRecordWithTwoShapesIsInvalid: a line with more than one of frame,
// raw and mark is kept as an invalid record, not read as two things at
// once (found by FuzzReader).
func TestRecordWithTwoShapesIsInvalid(t *testing.T) {
	data := []byte(strings.Join([]string{
		`{"t":1,"conn":1,"mark":"open","frame":{}}`,
		`{"t":2,"conn":1,"frame":{},"raw":"x"}`,
		`{"t":3,"conn":1,"mark":"close","raw":"x"}`,
		`{"t":4,"conn":1,"mark":"oversize","size":5}`,
	}, "\n") + "\n")
	r, recs := readAll(t, data)
	for i, rec := range recs[:3] {
		if !rec.Malformed || rec.Frame != nil || rec.Mark != "" || rec.IsRaw || string(rec.Raw) == "" {
			t.Errorf("record %d: %+v", i, rec)
		}
	}
	if recs[3].Malformed || recs[3].Mark != MarkOversize || recs[3].Size != 5 {
		t.Errorf("oversize marker: %+v", recs[3])
	}
	if st := r.Stats(); st.Malformed != 3 || st.Marks != 1 {
		t.Errorf("stats %+v", st)
	}
}
