package synth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
)

// readAll reads a capture from b, cloning every record.
func readAll(t *testing.T, b []byte) (*capture.Reader, []*capture.Record) {
	t.Helper()
	r, err := capture.NewReader(bytes.NewReader(b), capture.Options{})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { r.Close() })
	var recs []*capture.Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("next: %v", err)
		}
		recs = append(recs, rec.Clone())
	}
	return r, recs
}

// frameInfo is what the tests look at in a frame.
type frameInfo struct {
	typ, event, method, id string
	seq                    int64
	hasSeq                 bool
	payload                []byte
	runID, state, stream   string
	pseq                   int64
	hasPSeq                bool
	phase                  string
}

func info(f []byte) frameInfo {
	var fi frameInfo
	fi.typ, _ = jsonx.GetStr(f, "type")
	fi.event, _ = jsonx.GetStr(f, "event")
	fi.method, _ = jsonx.GetStr(f, "method")
	fi.id, _ = jsonx.GetStr(f, "id")
	fi.seq, fi.hasSeq = jsonx.GetInt(f, "seq")
	if _, ok := jsonx.Get(f, "seq"); ok && !fi.hasSeq {
		fi.hasSeq = true // present but not an integer
	}
	fi.payload, _ = jsonx.Get(f, "payload")
	p := fi.payload
	fi.runID, _ = jsonx.GetStr(p, "runId")
	fi.state, _ = jsonx.GetStr(p, "state")
	fi.stream, _ = jsonx.GetStr(p, "stream")
	fi.pseq, fi.hasPSeq = jsonx.GetInt(p, "seq")
	if d, ok := jsonx.Get(p, "data"); ok {
		fi.phase, _ = jsonx.GetStr(d, "phase")
	} else {
		fi.phase, _ = jsonx.GetStr(p, "phase")
	}
	return fi
}

func sessionFixtures() []Fixture {
	var out []Fixture
	for _, f := range Fixtures() {
		if f.Build != nil && !f.Reshaped() {
			out = append(out, f)
		}
	}
	return out
}

func TestFixtureList(t *testing.T) {
	want := []string{"demo", "streamed-run", "tool-run", "abort", "error-run", "slash-command", "exec-approval",
		"presence-burst", "reconnect", "seq-gap", "junk", "bare-frames", "truncated", "stale-terminal", "duplicate-final",
		"append-only", "plan-continuation", "abort-not-saved", "retraction", "status-mid-turn", "announce-double-answer", "idempotency-conflict"}
	var got []string
	files := map[string]bool{}
	for _, f := range Fixtures() {
		got = append(got, f.Name)
		if files[f.File] {
			t.Errorf("file %s used twice", f.File)
		}
		files[f.File] = true
		if f.Notes == "" {
			t.Errorf("%s has no notes", f.Name)
		}
		wantFile := f.Name + ".jsonl.zst"
		if f.Name == "junk" || f.Name == "bare-frames" {
			wantFile = f.Name + ".jsonl"
		}
		if f.File != wantFile {
			t.Errorf("%s: file %s, want %s", f.Name, f.File, wantFile)
		}
		if g, ok := Lookup(f.Name); !ok || g.File != f.File {
			t.Errorf("Lookup(%q) failed", f.Name)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("fixtures %v, want %v", got, want)
	}
}

// Every session fixture reads back cleanly, with a generate header whose
// notes are the fixture's, and holds exactly the Session's records.
func TestFixturesReadBack(t *testing.T) {
	for _, f := range sessionFixtures() {
		t.Run(f.Name, func(t *testing.T) {
			b, err := f.Bytes()
			if err != nil {
				t.Fatal(err)
			}
			if f.Compressed() != bytes.HasPrefix(b, []byte{0x28, 0xB5, 0x2F, 0xFD}) {
				t.Errorf("compressed=%v but magic says otherwise", f.Compressed())
			}
			r, recs := readAll(t, b)
			if w := r.Warnings(); len(w) > 0 {
				t.Fatalf("warnings: %v", w)
			}
			st := r.Stats()
			if st.Malformed != 0 || st.Raw != 0 || st.Bare != 0 || st.Truncated || st.Oversized != 0 {
				t.Errorf("stats %+v", st)
			}
			checkHeader(t, r.Header(), f.Notes)
			want := f.Build().Records()
			if len(recs) != len(want) {
				t.Fatalf("%d records, want %d", len(recs), len(want))
			}
			if len(recs) < 9 || len(recs) > 400 {
				t.Errorf("%d records: fixtures should be small", len(recs))
			}
			var prevT int64
			for i, rec := range recs {
				w := want[i]
				if rec.T != w.T || rec.Conn != w.Conn || rec.Dir != w.Dir || rec.Mark != w.Mark || !bytes.Equal(rec.Frame, w.Frame) {
					t.Fatalf("record %d differs:\n got %+v\nwant %+v", i, rec, w)
				}
				if rec.T < prevT {
					t.Errorf("record %d: time goes backwards", i)
				}
				prevT = rec.T
				if rec.Frame != nil && !json.Valid(rec.Frame) {
					t.Errorf("record %d: invalid JSON frame", i)
				}
			}
		})
	}
}

func checkHeader(t *testing.T, h *capture.Header, notes string) {
	t.Helper()
	if h == nil {
		t.Fatal("no header")
	}
	if h.Version != capture.Version || h.Source.Mode != "generate" || h.Source.GatewayVersion != GatewayVersion || h.Source.Protocol != 4 {
		t.Errorf("header %+v", h)
	}
	if h.Redaction == nil || !h.Redaction.Credentials || h.Redaction.Marker != Redacted {
		t.Errorf("redaction %+v", h.Redaction)
	}
	var got string
	if err := json.Unmarshal(h.Notes, &got); err != nil || got != notes {
		t.Errorf("notes %s, want %q", h.Notes, notes)
	}
}

// Frame-level seq: absent on connect.challenge, req and res; on every
// other event it starts at 1 after hello on each connection and is
// contiguous, except for the one planted gap in seq-gap.
func TestSeqPerConnection(t *testing.T) {
	for _, f := range sessionFixtures() {
		t.Run(f.Name, func(t *testing.T) {
			gaps := seqGaps(t, f.Build().Records())
			if f.Name == "seq-gap" {
				want := []string{"conn 1: expected 16, received 21"}
				if !slices.Equal(gaps, want) {
					t.Errorf("gaps %q, want %q", gaps, want)
				}
				return
			}
			if len(gaps) > 0 {
				t.Errorf("gaps: %q", gaps)
			}
		})
	}
}

func seqGaps(t *testing.T, recs []capture.Record) []string {
	t.Helper()
	last := map[int]int64{}
	state := map[int]string{} // "", open, hello, closed
	var gaps []string
	for i, rec := range recs {
		switch rec.Mark {
		case capture.MarkOpen:
			if state[rec.Conn] != "" {
				t.Fatalf("record %d: conn %d opened twice", i, rec.Conn)
			}
			state[rec.Conn] = "open"
			continue
		case capture.MarkHello:
			if state[rec.Conn] != "open" {
				t.Fatalf("record %d: hello on conn %d in state %q", i, rec.Conn, state[rec.Conn])
			}
			state[rec.Conn] = "hello"
			last[rec.Conn] = 0
			continue
		case capture.MarkClose:
			state[rec.Conn] = "closed"
			continue
		case "":
		default:
			t.Fatalf("record %d: unexpected mark %q", i, rec.Mark)
		}
		fi := info(rec.Frame)
		st := state[rec.Conn]
		if st != "open" && st != "hello" {
			t.Fatalf("record %d: frame on conn %d in state %q", i, rec.Conn, st)
		}
		wantSeq := fi.typ == "event" && fi.event != "connect.challenge"
		if fi.hasSeq != wantSeq {
			t.Errorf("record %d (%s %s): has seq %v", i, fi.typ, fi.event, fi.hasSeq)
		}
		if !fi.hasSeq {
			continue
		}
		if st != "hello" {
			t.Errorf("record %d: seq before hello", i)
		}
		if fi.seq != last[rec.Conn]+1 {
			gaps = append(gaps, fmt.Sprintf("conn %d: expected %d, received %d", rec.Conn, last[rec.Conn]+1, fi.seq))
		}
		last[rec.Conn] = fi.seq
	}
	return gaps
}

// The junk fixture yields exactly the planted warnings and counts.
func TestJunk(t *testing.T) {
	f, _ := Lookup("junk")
	b, err := f.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	_, wantWarns, err := junkCapture(f.Notes)
	if err != nil {
		t.Fatal(err)
	}
	r, recs := readAll(t, b)
	checkHeader(t, r.Header(), f.Notes)
	got := r.Warnings()
	if !slices.Equal(got, wantWarns) {
		t.Errorf("warnings:\n got %v\nwant %v", got, wantWarns)
	}
	st := r.Stats()
	if st.Malformed != 9 || len(got) != 9 || st.Raw != 1 || st.Marks != 4 || st.Truncated || st.Oversized != 0 {
		t.Errorf("stats %+v", st)
	}
	if st.Records != len(recs) || st.Records != st.Frames+st.Raw+st.Marks+st.Malformed {
		t.Errorf("stats %+v for %d records", st, len(recs))
	}
	var big, backwards, conn2, errMark, dup bool
	var prevT int64
	for _, rec := range recs {
		if len(rec.Frame) > 64<<10 {
			big = true
		}
		if rec.T < prevT && !rec.Malformed {
			backwards = true
		}
		if !rec.Malformed {
			prevT = rec.T
		}
		if rec.Conn == 2 && rec.Frame != nil {
			conn2 = true
		}
		if rec.Mark == capture.MarkError && rec.Err != "" {
			errMark = true
		}
		if bytes.Contains(rec.Frame, []byte(`"event":"tick","event":"chat"`)) {
			dup = true
		}
	}
	if !big || !backwards || !conn2 || !errMark || !dup {
		t.Errorf("missing planted junk: big=%v backwards=%v conn2=%v errMark=%v dupKey=%v", big, backwards, conn2, errMark, dup)
	}
	if bytes.HasPrefix(b, []byte{0x28, 0xB5, 0x2F, 0xFD}) {
		t.Error("junk must be plain JSON Lines")
	}
}

func TestBareFrames(t *testing.T) {
	f, _ := Lookup("bare-frames")
	b, err := f.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	r, recs := readAll(t, b)
	if r.Header() != nil {
		t.Error("bare frames must have no header")
	}
	if w := r.Warnings(); len(w) > 0 {
		t.Fatalf("warnings: %v", w)
	}
	st := r.Stats()
	if st.Bare != len(recs) || st.Frames != len(recs) || len(recs) != 23 {
		t.Errorf("stats %+v for %d records", st, len(recs))
	}
	for i, rec := range recs {
		fi := info(rec.Frame)
		if (fi.typ == "req") != (rec.Dir == capture.DirOut) {
			t.Errorf("record %d: %s read as dir %s", i, fi.typ, rec.Dir)
		}
	}
	if n := bytes.Count(b, []byte("\n")); n != len(recs) {
		t.Errorf("%d lines for %d records", n, len(recs))
	}
}

// truncatedRecords is how many records survive the cut (golden).
const truncatedRecords = 24

func TestTruncated(t *testing.T) {
	f, _ := Lookup("truncated")
	b, err := f.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	r, recs := readAll(t, b)
	checkHeader(t, r.Header(), f.Notes)
	st := r.Stats()
	if !st.Truncated || st.Malformed != 0 {
		t.Errorf("stats %+v", st)
	}
	w := r.Warnings()
	if len(w) != 1 || !strings.Contains(w[0].Msg, "records before it are complete") {
		t.Errorf("warnings %v, want exactly one truncation warning", w)
	}
	if len(recs) != truncatedRecords || len(recs)%truncatedFlushEvery != 0 {
		t.Errorf("%d records survive, want %d (whole blocks of %d)", len(recs), truncatedRecords, truncatedFlushEvery)
	}
	full := truncatedSession().Records()
	if len(full) <= 2*len(recs) {
		t.Errorf("cut keeps %d of %d records: not mid-way", len(recs), len(full))
	}
	for i, rec := range recs {
		if rec.T != full[i].T || !bytes.Equal(rec.Frame, full[i].Frame) || rec.Mark != full[i].Mark {
			t.Fatalf("record %d differs from the uncut capture", i)
		}
	}
}

func TestDeterministic(t *testing.T) {
	if testing.Short() { // the generators run on one goroutine; make test's long stage runs it, without the race detector
		t.Skip("large")
	}
	for _, f := range Fixtures() {
		a, err := f.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		b, err := f.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two builds differ", f.Name)
		}
	}
	for _, compress := range []bool{false, true} {
		var a, b bytes.Buffer
		for _, buf := range []*bytes.Buffer{&a, &b} {
			w, err := capture.NewWriter(buf, compress)
			if err != nil {
				t.Fatal(err)
			}
			if err := Large(w, 5000, 42); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("Large (compress=%v): two runs differ", compress)
		}
	}
	var c bytes.Buffer
	w, _ := capture.NewWriter(&c, false)
	if err := Large(w, 5000, 43); err != nil {
		t.Fatal(err)
	}
	w.Close()
	var d bytes.Buffer
	w, _ = capture.NewWriter(&d, false)
	Large(w, 5000, 42)
	w.Close()
	if bytes.Equal(c.Bytes(), d.Bytes()) {
		t.Error("Large: different seeds give the same capture")
	}
}

// Ids differ between fixtures (each has its own seed).
func TestIDsDifferAcrossSeeds(t *testing.T) {
	seen := map[string]string{}
	for _, f := range sessionFixtures() {
		s := f.Build()
		if other, ok := seen[s.BootID()]; ok {
			t.Errorf("%s and %s share boot id %s", f.Name, other, s.BootID())
		}
		seen[s.BootID()] = f.Name
	}
}

func TestLargeReadBack(t *testing.T) {
	if testing.Short() { // the generator runs on one goroutine; make test's long stage runs it, without the race detector
		t.Skip("large")
	}
	const n = 20_000
	var buf bytes.Buffer
	w, err := capture.NewWriter(&buf, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := Large(w, n, 7); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, recs := readAll(t, buf.Bytes())
	if w := r.Warnings(); len(w) > 0 {
		t.Fatalf("warnings: %v", w[:min(len(w), 5)])
	}
	if r.Header() == nil || r.Header().Source.Mode != "generate" {
		t.Errorf("header %+v", r.Header())
	}
	st := r.Stats()
	if st.Frames != n || st.Malformed != 0 || st.Raw != 0 {
		t.Errorf("stats %+v, want %d frames", st, n)
	}
	var plain []capture.Record
	for _, rec := range recs {
		plain = append(plain, *rec)
	}
	if gaps := seqGaps(t, plain); len(gaps) > 0 {
		t.Errorf("gaps: %q", gaps[:min(len(gaps), 5)])
	}
}

// Large gives the frame count asked for, ~500-byte frames dominated by
// assistant/chat delta pairs, with everything else in the mix, and a
// restart every 250,000 frames.
func TestLargeMix(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	const n = 300_000
	var frames, bytesTotal, pairs int
	kinds := map[string]int{}
	last := map[int]int64{}
	var hellos, closes1012, gaps int
	boots := map[string]bool{}
	err := LargeEach(n, 1, func(rec *capture.Record) error {
		switch rec.Mark {
		case capture.MarkHello:
			hellos++
			boots[rec.BootID] = true
			last[rec.Conn] = 0
			return nil
		case capture.MarkClose:
			if rec.Code == 1012 {
				closes1012++
			}
			return nil
		case "":
		default:
			return nil
		}
		frames++
		bytesTotal += len(rec.Frame)
		typ, _ := jsonx.GetStr(rec.Frame, "type")
		ev, _ := jsonx.GetStr(rec.Frame, "event")
		p, _ := jsonx.Get(rec.Frame, "payload")
		var sub string
		if ev == "agent" {
			sub, _ = jsonx.GetStr(p, "stream")
		} else if ev == "chat" {
			sub, _ = jsonx.GetStr(p, "state")
		}
		k := typ + " " + ev + " " + sub
		kinds[k]++
		if k == "event agent assistant" || k == "event chat delta" {
			pairs++
		}
		if seq, ok := jsonx.GetInt(rec.Frame, "seq"); ok {
			if seq != last[rec.Conn]+1 {
				gaps++
			}
			last[rec.Conn] = seq
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if frames != n {
		t.Fatalf("%d frames, want %d", frames, n)
	}
	avg := bytesTotal / frames
	if avg < 400 || avg > 600 {
		t.Errorf("average frame %d bytes, want 400-600", avg)
	}
	if pairs*100/frames < 70 {
		t.Errorf("assistant/delta frames are %d%% of the mix, want most", pairs*100/frames)
	}
	for _, k := range []string{"event agent lifecycle", "event agent tool", "event agent item", "event chat final",
		"event chat aborted", "event chat error", "event exec.approval.requested ", "event exec.approval.resolved ",
		"event presence ", "event heartbeat ", "event tick ", "event health ", "req  ", "res  ", "event agent thinking"} {
		if kinds[k] == 0 {
			t.Errorf("no %q frames in the mix", k)
		}
	}
	if hellos != 2 || closes1012 != 1 || len(boots) != 2 {
		t.Errorf("hellos %d, 1012 closes %d, boot ids %d; want 2, 1, 2", hellos, closes1012, len(boots))
	}
	if gaps != 0 {
		t.Errorf("%d seq gaps", gaps)
	}
	agents := map[string]bool{}
	_ = LargeEach(5000, 1, func(rec *capture.Record) error {
		if p, ok := jsonx.Get(rec.Frame, "payload"); ok {
			if a, ok := jsonx.GetStr(p, "agentId"); ok {
				agents[a] = true
			}
		}
		return nil
	})
	if len(agents) != 3 {
		t.Errorf("agents %v, want 3 interleaved", agents)
	}
}

func TestLargeStopsOnError(t *testing.T) {
	boom := errors.New("boom")
	calls := 0
	err := LargeEach(1000, 1, func(*capture.Record) error {
		calls++
		if calls == 10 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) || calls != 10 {
		t.Errorf("err %v after %d calls", err, calls)
	}
}

func BenchmarkLargeEach(b *testing.B) {
	const n = 100_000
	var size int64
	for b.Loop() {
		size = 0
		_ = LargeEach(n, 1, func(rec *capture.Record) error { size += int64(len(rec.Frame)); return nil })
	}
	b.SetBytes(size)
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "frames/s")
}
