package capture

import (
	"bytes"
	"testing"

	"github.com/klauspost/compress/zstd"
)

func FuzzReader(f *testing.F) {
	seeds := []string{
		`{"clawtap":1,"createdAt":"2026-11-22T00:00:00Z","source":{"mode":"record"}}` + "\n" + `{"t":1,"conn":1,"dir":"in","frame":{"type":"event","event":"tick","seq":1}}` + "\n",
		`{"t":1,"conn":1,"mark":"close","code":1012,"reason":"restart"}`,
		`{"type":"event","event":"chat","payload":{"ts":5}}` + "\n" + `garbage` + "\n",
		`{"t":1,"conn":1,"dir":"in","raw":"\u0000x"}`,
		`{"clawtap":"x"}`,
		`{"t":1e400,"conn":-1,"frame":[1]}`,
		"\n\n\r\n",
		// Found by fuzzing: a record with both a mark and a frame was
		// counted as a marker and its frame lost.
		`{"t":1,"conn":1,"mark":"open","frame":{"type":"event","event":"tick"}}` + "\n",
		`{"t":1,"conn":1,"raw":"x","frame":{}}` + "\n" + `{"t":2,"frame":{},"frame":{}}` + "\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, compress bool) {
		if compress {
			enc, _ := zstd.NewWriter(nil)
			full := enc.EncodeAll(data, nil)
			// Cut the stream anywhere: a killed recorder.
			data = full[:len(full)*len(data)%(len(full)+1)]
		}
		r, err := NewReader(bytes.NewReader(data), Options{MaxLine: 1 << 16})
		if err != nil {
			return
		}
		defer r.Close()
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
			n++
		}
		if st := r.Stats(); st.Records != n || st.Frames+st.Raw+st.Marks+st.Malformed != n {
			t.Fatalf("stats %+v disagree with %d records", st, n)
		}
	})
}
