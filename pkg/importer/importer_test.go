package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawtap/clawtap/internal/synth"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/klauspost/compress/zstd"
)

// harOf builds a browser HAR export of a synthetic session: one entry per
// connection, with an unrelated HTTP entry first.
func harOf(t *testing.T, s *synth.Session) []byte {
	t.Helper()
	type msg struct {
		Type   string  `json:"type"`
		Time   float64 `json:"time"`
		Opcode int     `json:"opcode"`
		Data   string  `json:"data"`
	}
	byConn := map[int][]msg{}
	urls := map[int]string{}
	opened := map[int]int64{}
	var order []int
	for _, r := range s.Records() {
		if r.Mark == capture.MarkOpen {
			urls[r.Conn], opened[r.Conn] = r.URL, r.T
			order = append(order, r.Conn)
		}
		if r.Frame == nil {
			continue
		}
		typ := "receive"
		if r.Dir == capture.DirOut {
			typ = "send"
		}
		byConn[r.Conn] = append(byConn[r.Conn], msg{typ, float64(r.T) / 1000, 1, string(r.Frame)})
	}
	var entries []any
	entries = append(entries, map[string]any{"startedDateTime": "2026-11-22T03:23:54.000Z", "request": map[string]any{"method": "GET", "url": "http://127.0.0.1:18789/"}, "response": map[string]any{"status": 200}})
	for _, c := range order {
		entries = append(entries, map[string]any{
			"startedDateTime":    time.UnixMilli(opened[c]).UTC().Format(time.RFC3339Nano),
			"_resourceType":      "websocket",
			"request":            map[string]any{"method": "GET", "url": urls[c]},
			"response":           map[string]any{"status": 101},
			"_webSocketMessages": byConn[c],
		})
	}
	b, err := json.MarshalIndent(map[string]any{"log": map[string]any{"version": "1.2", "creator": map[string]any{"name": "WebInspector"}, "pages": []any{}, "entries": entries}}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func importBytes(t *testing.T, in []byte, opts Options) ([]capture.Record, Stats, []string) {
	t.Helper()
	recs, st, warns, err := importBytesErr(t, in, opts)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	return recs, st, warns
}

// importBytesErr imports in and reads back what was written, even when
// the import failed part way.
func importBytesErr(t *testing.T, in []byte, opts Options) ([]capture.Record, Stats, []string, error) {
	t.Helper()
	var out bytes.Buffer
	w, _ := capture.NewWriter(&out, false)
	var warns []string
	opts.OnWarning = func(m string) { warns = append(warns, m) }
	st, ierr := Import(bytes.NewReader(in), w, opts)
	w.Close()
	r, err := capture.NewReader(&out, capture.Options{OnWarning: func(w capture.Warning) { t.Errorf("reader: %s", w) }})
	if err != nil {
		t.Fatal(err)
	}
	if h := r.Header(); h == nil || h.Source.Mode != "import" {
		t.Fatalf("header %+v", r.Header())
	}
	var recs []capture.Record
	for {
		rec, err := r.Next()
		if err != nil {
			break
		}
		recs = append(recs, *rec.Clone())
	}
	return recs, st, warns, ierr
}

func frames(recs []capture.Record) []string {
	var out []string
	for _, r := range recs {
		if r.Frame != nil {
			out = append(out, fmt.Sprintf("%d %d %s %s", r.T, r.Conn, r.Dir, r.Frame))
		}
	}
	return out
}

func TestHARRoundTrip(t *testing.T) {
	s := synth.ToolRun() // two connections
	recs, st, warns := importBytes(t, harOf(t, s), Options{NoRedact: true})
	if len(warns) > 0 {
		t.Fatalf("warnings: %v", warns)
	}
	if st.Format != FormatHAR || st.Entries != 3 || st.Connections != 2 {
		t.Fatalf("stats %+v", st)
	}
	// The connections come back interleaved as they were recorded.
	want := frames(s.Records())
	got := frames(recs)
	if strings.Join(want, "\n") != strings.Join(got, "\n") {
		t.Fatalf("frames differ:\nwant %d\ngot %d", len(want), len(got))
	}
	var marks []string
	for _, r := range recs {
		if r.Mark != "" {
			marks = append(marks, fmt.Sprintf("%d %s %s", r.Conn, r.Mark, r.URL+r.Server))
		}
	}
	// The CLI and the UI observer were connected at the same time: their
	// markers interleave too (a HAR has no close time; the last message
	// stands for it).
	wantMarks := []string{"1 open ws://127.0.0.1:18789", "1 hello 2026.9.6", "2 open ws://127.0.0.1:18789", "2 hello 2026.9.6", "1 close ", "2 close "}
	if strings.Join(marks, "|") != strings.Join(wantMarks, "|") {
		t.Fatalf("markers %q", marks)
	}
}

func TestHARRedactsByDefault(t *testing.T) {
	s := synth.New(9)
	c := s.Open(synth.ConnOptions{})
	c.Req("", "connect", []byte(`{"auth":{"token":"sk-live-SECRET-123"},"device":{"signature":"SIGSIGSIG"}}`))
	har := harOf(t, s)
	recs, st, _ := importBytes(t, har, Options{})
	var all bytes.Buffer
	for _, r := range recs {
		all.Write(r.Frame)
	}
	if bytes.Contains(all.Bytes(), []byte("sk-live-SECRET-123")) || bytes.Contains(all.Bytes(), []byte("SIGSIGSIG")) || st.Redacted == 0 {
		t.Fatalf("credentials survived the import (%d redacted)", st.Redacted)
	}
	recs, _, _ = importBytes(t, har, Options{NoRedact: true})
	all.Reset()
	for _, r := range recs {
		all.Write(r.Frame)
	}
	if !bytes.Contains(all.Bytes(), []byte("sk-live-SECRET-123")) {
		t.Fatal("--no-redact must keep the frames as they were")
	}
}

func TestHARMinifiedAndOddMessages(t *testing.T) {
	har := `{"log":{"entries":[{"request":{"url":"ws://gw"},"_webSocketMessages":[` +
		`{"type":"send","time":1795317835.5,"opcode":1,"data":"{\"type\":\"req\",\"id\":\"1\",\"method\":\"health\"}"},` +
		`{"type":"receive","time":1795317835.75,"opcode":1,"data":"not json"},` +
		`{"type":"receive","time":1795317835.8,"opcode":2,"data":"eyJ0eXBlIjoiZXZlbnQiLCJldmVudCI6InRpY2sifQ=="},` +
		`{"type":"weird","time":1795317835.9,"opcode":1,"data":"x"},` +
		`{"type":"receive","time":1795317836,"opcode":1,"data":42}]}]}}`
	recs, st, warns := importBytes(t, []byte(har), Options{})
	got := frames(recs)
	want := []string{
		`1795317835500 1 out {"type":"req","id":"1","method":"health"}`,
		`1795317835800 1 in {"type":"event","event":"tick"}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || st.Raw != 1 || st.Skipped != 2 || len(warns) != 2 {
		t.Fatalf("frames %q stats %+v warnings %q", got, st, warns)
	}
}

func TestJSONLShapes(t *testing.T) {
	in := strings.Join([]string{
		`{"ts":1795317835000,"frame":{"type":"req","id":"1","method":"health"}}`,
		`{"time":1795317835.25,"direction":"receive","data":"{\"type\":\"res\",\"id\":\"1\",\"ok\":true}"}`,
		`{"timestamp":"2026-11-22T03:23:55.500Z","dir":"in","message":"{\"type\":\"event\",\"event\":\"tick\",\"seq\":1}"}`,
		`{"time":1795317835600000,"direction":"sent","data":"{\"type\":\"req\",\"id\":\"2\",\"method\":\"status\"}","connection":"abc"}`,
		`{"type":"event","event":"tick","payload":{"ts":1795317835700},"seq":2}`,
		`{"t":1795317835800,"frame":"not json either"}`,
		``,
		`[1,2]`,
		`{"nothing":"here"}`,
		`{"t":1795317835900,"conn":1,"mark":""}`,
	}, "\n")
	recs, st, warns := importBytes(t, []byte(in), Options{NoRedact: true})
	got := frames(recs)
	want := []string{
		`1795317835000 1 out {"type":"req","id":"1","method":"health"}`,
		`1795317835250 1 in {"type":"res","id":"1","ok":true}`,
		`1795317835500 1 in {"type":"event","event":"tick","seq":1}`,
		`1795317835600 2 out {"type":"req","id":"2","method":"status"}`,
		`1795317835700 1 in {"type":"event","event":"tick","payload":{"ts":1795317835700},"seq":2}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("frames:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if st.Format != FormatJSONL || st.Raw != 1 || st.Skipped != 3 || len(warns) != 3 {
		t.Fatalf("stats %+v warnings %q", st, warns)
	}
}

// A clawtap capture imports whole: its header gives way to the import's
// (with a word, not as a skipped line), its markers and frames pass.
func TestImportOfACapture(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "demo.jsonl.zst"))
	if err != nil {
		t.Fatal(err)
	}
	recs, st, warns := importBytes(t, b, Options{})
	if st.Skipped != 0 || len(warns) != 1 || !strings.Contains(warns[0], "header") || st.Frames != 36 {
		t.Errorf("%d records, stats %+v, warnings %q; want its 36 frames and one word about the header", len(recs), st, warns)
	}
}

func TestNothingToImport(t *testing.T) {
	for _, in := range []string{"", `{"log":{"entries":[]}}`, `{"log":{"entries":[{"request":{"url":"http://x"}}]}}`, "\n\n"} {
		var out bytes.Buffer
		w, _ := capture.NewWriter(&out, false)
		if _, err := Import(strings.NewReader(in), w, Options{}); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
	var out bytes.Buffer
	w, _ := capture.NewWriter(&out, false)
	if _, err := Import(strings.NewReader(`{"log":{"entries":[{"_webSocketMessages":[`), w, Options{}); !errors.Is(err, ErrHARCutOff) {
		t.Errorf("a HAR cut off before its first whole entry: %v, want ErrHARCutOff", err)
	}
	if _, err := Import(strings.NewReader(`{"not":"a har"}`), w, Options{Format: FormatHAR}); err == nil {
		t.Error("a JSON object without log must be an error")
	}
}

// Connections open at the same time are interleaved by time; a message
// stamped earlier than the one before it keeps its place in its own
// connection; a HAR that breaks off still gives what was read.
func TestHARInterleavesOverlappingConnections(t *testing.T) {
	entry := func(started string, msgs ...string) string {
		var ms []string
		for _, m := range msgs {
			// m is "seconds:n": a received frame numbered n.
			sec, n, _ := strings.Cut(m, ":")
			ms = append(ms, `{"type":"receive","time":`+sec+`,"opcode":1,"data":"{\"type\":\"event\",\"event\":\"tick\",\"payload\":{\"n\":\"`+n+`\"}}"}`)
		}
		return `{"startedDateTime":"` + started + `","request":{"url":"ws://127.0.0.1:18789"},"_webSocketMessages":[` + strings.Join(ms, ",") + `]}`
	}
	entries := []string{
		entry("1970-01-01T00:00:01.000Z", "1.000:a1", "1.500:a2", "1.200:a3", "3.000:a4"),
		entry("1970-01-01T00:00:02.000Z", "2.000:b1", "2.500:b2", "4.000:b3"),
		entry("1970-01-01T00:00:10.000Z", "10.000:c1"),
	}
	har := `{"log":{"entries":[` + strings.Join(entries, ",") + `]}}`
	order := func(recs []capture.Record) string {
		var out []string
		for _, r := range recs {
			if r.Frame != nil {
				n, _ := jsonxGetPayloadN(r.Frame)
				out = append(out, n)
			}
		}
		return strings.Join(out, " ")
	}
	recs, st, _ := importBytes(t, []byte(har), Options{NoRedact: true})
	if got, want := order(recs), "a1 a2 a3 b1 b2 a4 b3 c1"; got != want || st.Connections != 3 {
		t.Fatalf("frames %q (%d connections), want %q", got, st.Connections, want)
	}
	// Broken off inside the second entry: the first is written whole, and
	// the import says the input was cut.
	cut := har[:strings.Index(har, "b2")]
	recs, st, _, err := importBytesErr(t, []byte(cut), Options{NoRedact: true})
	if got := order(recs); got != "a1 a2 a3 a4" || err != nil || st.Cut != "the HAR document is cut off" {
		t.Fatalf("truncated HAR gave %q, error %v, cut %q", got, err, st.Cut)
	}
}

func jsonxGetPayloadN(frame []byte) (string, bool) {
	var f struct {
		Payload struct{ N string } `json:"payload"`
	}
	if json.Unmarshal(frame, &f) != nil {
		return "", false
	}
	return f.Payload.N, true
}

// A zstd-compressed input imports as the plain one does, HAR and JSONL.
func TestCompressedInput(t *testing.T) {
	har := harOf(t, synth.Demo())
	jsonl := []byte(`{"ts":1795317835000,"frame":{"type":"req","id":"1","method":"health"}}` + "\n")
	for _, in := range [][]byte{har, jsonl} {
		var z bytes.Buffer
		zw, _ := zstd.NewWriter(&z)
		zw.Write(in)
		zw.Close()
		plain, pst, _ := importBytes(t, in, Options{})
		packed, zst, _ := importBytes(t, z.Bytes(), Options{})
		if pst.Format != zst.Format || strings.Join(frames(plain), "\n") != strings.Join(frames(packed), "\n") || len(packed) == 0 {
			t.Errorf("%s: compressed input imports %d records as %s, plain %d as %s", pst.Format, len(packed), zst.Format, len(plain), pst.Format)
		}
	}
}

// JSON Lines whose first lines are not frames (a README, random bytes) are
// refused with one error, without a warning a line; a few junk lines
// before the frames still warn, in order, and the frames are imported.
func TestNotFramesIsOneError(t *testing.T) {
	var readme strings.Builder
	for i := range 200 {
		fmt.Fprintf(&readme, "# line %d of prose\n", i)
	}
	for _, in := range []string{readme.String(), "a\nb\n", "{\"x\":1}\n" + strings.Repeat("junk\n", 20)} {
		var out bytes.Buffer
		w, _ := capture.NewWriter(&out, false)
		var warns []string
		_, err := Import(strings.NewReader(in), w, Options{OnWarning: func(m string) { warns = append(warns, m) }})
		var nf *NotFramesError
		if !errors.As(err, &nf) || len(warns) != 0 || out.Len() != 0 {
			t.Errorf("%.20q: err %v, %d warnings, %d bytes written; want a NotFramesError alone", in, err, len(warns), out.Len())
		}
	}
	_, st, warns := importBytes(t, []byte("junk\n{\"x\":1}\n{\"t\":5,\"dir\":\"sideways\",\"data\":{\"type\":\"event\",\"event\":\"tick\"}}\n"), Options{})
	if st.Frames != 1 || st.Skipped != 2 || len(warns) != 3 || !strings.HasPrefix(warns[0], "line 1:") || !strings.HasPrefix(warns[2], "line 3:") {
		t.Fatalf("stats %+v warnings %q", st, warns)
	}
}
