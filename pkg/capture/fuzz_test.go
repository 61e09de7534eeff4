package capture

import (
	"bytes"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/klauspost/compress/zstd"
)

func FuzzReader(f *testing.F) {
	seeds := []string{
		`{"clawtap":1,"createdAt":"2026-11-22T00:00:00Z","source":{"mode":"record"}}` + "\n" + `{"t":1,"conn":1,"dir":"in","frame":{"type":"event","event":"tick","seq":1}}` + "\n",
		`{"t":1,"conn":1,"mark":"close","code":1012,"reason":"restart"}`,
		`{"t":1,"conn":1,"dir":"in","mark":"oversize","size":70000000,"reason":"larger than the proxy buffer"}`,
		`{"t":1,"conn":1,"mark":"oversize","size":"big"}`,
		`{"type":"event","event":"chat","payload":{"ts":5}}` + "\n" + `garbage` + "\n",
		`{"t":1,"conn":1,"dir":"in","raw":"\u0000x"}`,
		`{"clawtap":"x"}`,
		`{"t":1e400,"conn":-1,"frame":[1]}`,
		"\n\n\r\n",
		// Found by fuzzing: a record with both a mark and a frame was
		// counted as a marker and its frame lost.
		`{"t":1,"conn":1,"mark":"open","frame":{"type":"event","event":"tick"}}` + "\n",
		`{"t":1,"conn":1,"raw":"x","frame":{}}` + "\n" + `{"t":2,"frame":{},"frame":{}}` + "\n",
		"{\"t\":1,\"conn\":1,\"dir\":\"in\",\"frame\":{\"type\":\"event\",\"event\":\"chat\",\"payload\":{\"text\":\"caf\xe9 \\ud800\"}}}\n",
		"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
		"junk\n{\"type\":\"event\",\"event\":\"tick\"}\n",
		`{"clawtap":1,"createdAt":"2026-11-2`,
	}
	for _, s := range seeds {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, compress bool) {
		plain := data
		if compress {
			enc, _ := zstd.NewWriter(nil)
			full := enc.EncodeAll(data, nil)
			// Cut the stream anywhere: a killed recorder.
			data = full[:len(full)*len(data)%(len(full)+1)]
		}
		r, err := NewReader(bytes.NewReader(data), Options{MaxLine: 1 << 16})
		if err != nil {
			var se *StreamError
			stream := errors.As(err, &se)
			// A JSON array of frames (a foreign log) cut off or broken
			// before its first element is a StreamError too.
			array := stream && se.Stream == "JSON array" && bytes.HasPrefix(bytes.TrimLeft(plain, " \t\r\n\ufeff"), []byte("["))
			if !errors.Is(err, ErrNotCapture) && !(compress && stream) && !array {
				t.Fatalf("the only errors for bytes in memory are ErrNotCapture and, for a cut zstd stream or JSON array, a StreamError; got %v", err)
			}
			if !compress && firstLineIsHeader(plain, 1<<16) {
				t.Fatalf("an input that starts with a header is a capture: %v", err)
			}
			return
		}
		defer r.Close()
		if len(plain)%2 == 0 { // every other input read as the pipeline does: indexed
			r.IndexMembers(testSchema)
		}
		n := 0
		for {
			rec, err := r.Next()
			if err != nil {
				break
			}
			kinds := 0
			for _, b := range []bool{rec.Frame != nil, rec.IsRaw, rec.Mark != "", rec.Malformed} {
				if b {
					kinds++
				}
			}
			if kinds != 1 {
				t.Fatalf("record %d is %d things at once: %+v", n, kinds, rec)
			}
			if rec.Conn < 1 {
				t.Fatalf("record %d has conn %d", n, rec.Conn)
			}
			if rec.Index != n {
				t.Fatalf("index %d, want %d", rec.Index, n)
			}
			for _, b := range [][]byte{rec.Frame, rec.Raw, []byte(rec.Mark), []byte(rec.Dir), []byte(rec.URL), []byte(rec.Reason), []byte(rec.Err)} {
				if !utf8.Valid(b) {
					t.Fatalf("record %d holds invalid UTF-8: %q", n, b)
				}
			}
			n++
		}
		st := r.Stats()
		if st.Records != n || st.Frames+st.Raw+st.Marks+st.Malformed != n {
			t.Fatalf("stats %+v disagree with %d records", st, n)
		}
		if st.Empty && (n != 0 || r.Header() != nil) {
			t.Fatalf("empty, yet %d records and header %v", n, r.Header())
		}
		if (st.Oversized > 0 || st.Truncated || st.Malformed > 0 || st.InvalidUTF8 > 0) && len(r.Warnings()) == 0 {
			t.Fatalf("stats %+v without a warning", st)
		}
		// Nothing dropped: every non-blank line of a plain input is the
		// header, a record, an oversized line or a truncated last line,
		// each of the last two with a warning. (A JSON array's elements
		// are its records, however many a line holds.)
		if compress || bytes.HasPrefix(bytes.TrimLeft(plain, " \t\r\n\ufeff"), []byte("[")) {
			return
		}
		want := nonBlankLines(plain) - st.Oversized
		if r.Header() != nil {
			want--
		}
		if st.Truncated {
			want--
		}
		if n != want {
			t.Fatalf("%d records from %d non-blank lines (header %v, stats %+v)", n, nonBlankLines(plain), r.Header() != nil, st)
		}
	})
}

func nonBlankLines(b []byte) int {
	n := 0
	for _, l := range bytes.Split(b, []byte("\n")) {
		if len(jsonx.TrimSpace(l)) > 0 {
			n++
		}
	}
	return n
}

// firstLineIsHeader reports whether the first non-blank line of b is a
// whole header line within maxLine bytes.
func firstLineIsHeader(b []byte, maxLine int) bool {
	segs := bytes.Split(b, []byte("\n"))
	for i, l := range segs {
		if len(jsonx.TrimSpace(l)) == 0 {
			continue
		}
		last := i == len(segs)-1
		if len(l) > maxLine || last && !jsonx.Valid(l) {
			return false
		}
		v, ok := jsonx.Get(l, "clawtap")
		return ok && jsonx.KindOf(v) == jsonx.Number
	}
	return false
}
