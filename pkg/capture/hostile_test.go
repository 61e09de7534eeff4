package capture

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// readAllRecords reads path to its end (serially and with the read-ahead)
// and returns its records and warnings.
func readAllRecords(t *testing.T, path string) ([]*Record, []Warning, Stats) {
	t.Helper()
	var out []*Record
	var warns []Warning
	var st Stats
	for _, serial := range []bool{true, false} {
		r, err := Open(path, Options{Serial: serial})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
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
		out, warns, st = recs, r.Warnings(), r.Stats()
		r.Close()
	}
	return out, warns, st
}

// Captures compressed with zstd --long=31 ask for a 2 GiB window (the
// largest the zstd tool writes, and what docs/capture-format.md
// promises): they read whole. The fixture is fixtures/demo.jsonl.zst
// recompressed with `zstd --long=31 -19` from a pipe, so that its header
// asks for the whole 2 GiB.
func TestZstdLongWindow(t *testing.T) {
	recs, warns, st := readAllRecords(t, "testdata/demo-long31.jsonl.zst")
	if len(warns) > 0 || st.Truncated || st.Corrupt {
		t.Fatalf("warnings %v, stats %+v", warns, st)
	}
	if len(recs) != 38 {
		t.Fatalf("%d records, want the demo's 38", len(recs))
	}
}

// A window beyond what clawtap reads is an error that says how large it
// is, not a stream cut short (the fixture is the one above with its
// window descriptor raised to 4 GiB).
func TestZstdWindowTooLarge(t *testing.T) {
	_, err := Open("testdata/demo-window4g.jsonl.zst", Options{})
	var we *WindowError
	if !errors.As(err, &we) {
		t.Fatalf("error %v (%T), want a *WindowError", err, err)
	}
	var se *StreamError
	if errors.As(err, &se) {
		t.Errorf("a window too large is not a damaged stream: %v", err)
	}
	if we.Window != 4<<30 || !strings.Contains(err.Error(), "4 GiB") || !strings.Contains(err.Error(), "2 GiB") {
		t.Errorf("message %q (window %d)", err, we.Window)
	}
}

// A stream that begins with a skippable frame (pzstd writes one before
// its frames) is zstd, not binary junk. The fixture is
// fixtures/demo.jsonl.zst recompressed with pzstd.
func TestZstdSkippableFrame(t *testing.T) {
	recs, warns, _ := readAllRecords(t, "testdata/demo-pzstd.jsonl.zst")
	if len(warns) > 0 || len(recs) != 38 {
		t.Fatalf("%d records, warnings %v", len(recs), warns)
	}
	// Several skippable frames, of every magic number, before and
	// between the frames.
	plain, err := os.ReadFile("testdata/demo-long31.jsonl.zst")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for m := byte(0x50); m <= 0x5F; m++ {
		b.Write([]byte{m, 0x2A, 0x4D, 0x18, 3, 0, 0, 0, 'a', 'b', 'c'})
	}
	b.Write(plain)
	r, err := NewReader(&b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		if _, err := r.Next(); err != nil {
			break
		}
		n++
	}
	if n != 38 || len(r.Warnings()) > 0 {
		t.Fatalf("%d records, warnings %v", n, r.Warnings())
	}
}

// With the real tools, when they are installed: zstd --long=31 and pzstd
// of a capture read back the same records.
func TestZstdToolsRoundTrip(t *testing.T) {
	var recs []*Record
	for i := range 500 {
		recs = append(recs, &Record{T: int64(1795317835000 + i), Conn: 1, Dir: DirIn, Frame: []byte(fmt.Sprintf(`{"type":"event","event":"tick","seq":%d}`, i+1))})
	}
	plain := writeCapture(t, false, recs)
	for _, cmd := range [][]string{{"zstd", "-q", "-c", "--long=31"}, {"pzstd", "-q", "-c", "-p", "2"}} {
		if _, err := exec.LookPath(cmd[0]); err != nil {
			t.Logf("%s not installed", cmd[0])
			continue
		}
		c := exec.Command(cmd[0], cmd[1:]...)
		c.Stdin = bytes.NewReader(plain)
		out, err := c.Output()
		if err != nil {
			t.Fatalf("%v: %v", cmd, err)
		}
		r, err := NewReader(bytes.NewReader(out), Options{})
		if err != nil {
			t.Fatalf("%v: %v", cmd, err)
		}
		n := 0
		for {
			if _, err := r.Next(); err != nil {
				break
			}
			n++
		}
		if n != len(recs) || len(r.Warnings()) > 0 {
			t.Errorf("%v: %d records, warnings %v", cmd, n, r.Warnings())
		}
	}
}

// A time out of int64's range (1e300, -1e999999, a huge integer) is
// warned about, counted, and clamped; the record is kept.
func TestTimeOutOfRange(t *testing.T) {
	in := `{"t":1e300,"conn":1,"dir":"in","frame":{"type":"event","event":"tick","seq":1}}
{"t":-1e999999,"conn":1,"dir":"in","frame":{"type":"event","event":"tick","seq":2}}
{"t":123456789012345678901234567890,"conn":1,"dir":"in","frame":{"type":"event","event":"tick","seq":3}}
{"t":-99999999999999999999,"conn":1,"dir":"in","frame":{"type":"event","event":"tick","seq":4}}
{"t":1795317835000.9,"conn":1,"dir":"in","frame":{"type":"event","event":"tick","seq":5}}
{"t":9223372036854775807,"conn":1,"dir":"in","frame":{"type":"event","event":"tick","seq":6}}
`
	for _, serial := range []bool{true, false} {
		r, err := NewReader(strings.NewReader(in), Options{Serial: serial})
		if err != nil {
			t.Fatal(err)
		}
		var ts []int64
		for {
			rec, err := r.Next()
			if err != nil {
				break
			}
			if rec.Malformed || rec.Frame == nil {
				t.Fatalf("record %d not kept as a frame: %+v", rec.Index, rec)
			}
			ts = append(ts, rec.T)
		}
		want := []int64{math.MaxInt64, math.MinInt64, math.MaxInt64, math.MinInt64, 1795317835000, math.MaxInt64}
		if fmt.Sprint(ts) != fmt.Sprint(want) {
			t.Errorf("times %v, want %v", ts, want)
		}
		st := r.Stats()
		if st.BadTime != 4 {
			t.Errorf("BadTime %d, want 4", st.BadTime)
		}
		if len(r.Warnings()) != 4 || !strings.Contains(r.Warnings()[0].String(), "line 1: time 1e300 is out of range") {
			t.Errorf("warnings %v", r.Warnings())
		}
		if !strings.Contains(st.Summary(), "4 record(s) with a time out of range") {
			t.Errorf("summary %q", st.Summary())
		}
	}
}
