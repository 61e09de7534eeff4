package capture

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	"github.com/klauspost/compress/zstd"
)

// event is one thing a reader reported, in the order the caller saw it.
type event struct {
	warn  *Warning
	rec   *Record
	stats Stats
}

// readLogged reads src to the end (or stop records), logging every warning
// and record with the counts seen after it, and OnWarning's goroutine
// agreement with Next's (OnWarning runs inside Next, before it returns).
func readLogged(t *testing.T, src []byte, opts Options, stop int) (events []event, h *Header, warns []Warning, err error) {
	t.Helper()
	return readLoggedAhead(t, src, opts, stop, 0)
}

// readLoggedAhead is readLogged with the read-ahead's depth set (SetAhead)
// when depth > 0.
func readLoggedAhead(t *testing.T, src []byte, opts Options, stop, depth int) (events []event, h *Header, warns []Warning, err error) {
	t.Helper()
	inNext := false
	opts.OnWarning = func(w Warning) {
		if !inNext {
			t.Errorf("warning %q outside Next and NewReader", w)
		}
		events = append(events, event{warn: &w})
	}
	inNext = true
	r, err := NewReader(bytes.NewReader(src), opts)
	inNext = false
	if err != nil {
		return nil, nil, nil, err
	}
	defer r.Close()
	if depth > 0 && !r.SetAhead(depth) {
		t.Fatalf("SetAhead(%d) refused before the first Next", depth)
	}
	for i := 0; stop < 0 || i < stop; i++ {
		inNext = true
		rec, err := r.Next()
		inNext = false
		if err != nil {
			if err != io.EOF {
				t.Fatalf("Next: %v", err)
			}
			break
		}
		events = append(events, event{rec: rec.Clone(), stats: r.Stats()})
	}
	events = append(events, event{stats: r.Stats()})
	return events, r.Header(), r.Warnings(), nil
}

// sameAsSerial checks that reading src ahead gives what reading it
// serially gives: every record, warning and count, in the same order.
func sameAsSerial(t *testing.T, src []byte, maxLine, stop int) {
	t.Helper()
	want, wh, ww, werr := readLogged(t, src, Options{MaxLine: maxLine, Serial: true}, stop)
	for _, depth := range []int{0, 1} { // the default, and one batch (SetAhead)
		for _, parsers := range []int{1, 3} { // parsing on the reading goroutine, and on three of their own
			got, gh, gw, gerr := readLoggedAhead(t, src, Options{MaxLine: maxLine, Parsers: parsers}, stop, depth)
			sameEvents(t, got, want, gh, wh, gw, ww, gerr, werr)
		}
	}
}

// sameEvents compares a read ahead's events, header, warnings and error
// (got) with the serial read's (want).
func sameEvents(t *testing.T, got, want []event, gh, wh *Header, gw, ww []Warning, gerr, werr error) {
	t.Helper()
	if fmt.Sprint(werr) != fmt.Sprint(gerr) {
		t.Fatalf("error: read ahead %v, serial %v", gerr, werr)
	}
	if !reflect.DeepEqual(gh, wh) {
		t.Fatalf("header: read ahead %+v, serial %+v", gh, wh)
	}
	if !reflect.DeepEqual(gw, ww) {
		t.Fatalf("warnings: read ahead %v, serial %v", gw, ww)
	}
	if len(got) != len(want) {
		t.Fatalf("read ahead reported %d things, serial %d", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("event %d: read ahead %s, serial %s", i, describe(got[i]), describe(want[i]))
		}
	}
}

func describe(e event) string {
	switch {
	case e.warn != nil:
		return "warning " + e.warn.String()
	case e.rec != nil:
		return fmt.Sprintf("record %+v (frame %q raw %q) stats %+v", *e.rec, e.rec.Frame, e.rec.Raw, e.stats)
	}
	return fmt.Sprintf("end, stats %+v", e.stats)
}

// TestReadAheadSameAsSerial: every bundled fixture, plain and compressed,
// and inputs with warnings between, before and after records, read whole
// and stopped early, give the same records, warnings and counts either way.
// A stop past an input's last line reads it whole, as stop -1 does, and is
// not run again.
func TestReadAheadSameAsSerial(t *testing.T) {
	var inputs []string
	fixtures, _ := filepath.Glob("../../fixtures/*.jsonl*")
	for _, name := range fixtures {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, string(b))
	}
	if len(fixtures) == 0 {
		t.Fatal("no fixtures found")
	}
	var many strings.Builder
	many.WriteString(`{"clawtap":1,"createdAt":"2026-11-22T00:00:00Z","source":{"mode":"record"}}` + "\n")
	for i := range 2000 { // eight batches of records
		switch i % 97 {
		case 3:
			many.WriteString("not json\n")
		case 5:
			fmt.Fprintf(&many, `{"t":%d,"conn":1,"dir":"in","frame":{"type":"event","event":"x","payload":{"text":"caf%c"}}}`+"\n", i, 0xe9)
		case 7:
			many.WriteString(strings.Repeat("x", 300) + "\n") // oversized at MaxLine 256
		case 11:
			fmt.Fprintf(&many, `{"t":%d,"conn":1,"dir":"in","raw":"%s"}`+"\n", i, strings.Repeat("r", i%50))
		default:
			fmt.Fprintf(&many, `{"t":%d,"conn":1,"dir":"in","frame":{"type":"event","event":"tick","seq":%d,"payload":{"pad":"%s"}}}`+"\n", i, i, strings.Repeat("p", i%180))
		}
	}
	many.WriteString(`{"t":1,"conn":1,"dir":"in","frame":{"type":"ev`) // truncated
	inputs = append(inputs, many.String(), "junk\n"+`{"type":"event","event":"tick"}`+"\n", "", "\n\n")
	enc, _ := zstd.NewWriter(nil)
	for i, in := range inputs {
		for _, src := range [][]byte{[]byte(in), enc.EncodeAll([]byte(in), nil)} {
			for _, stop := range []int{-1, 0, 1, 700, 1500} {
				if stop > strings.Count(in, "\n")+1 {
					continue // read whole: stop -1
				}
				t.Run(fmt.Sprintf("input%d/%d/stop%d", i, len(src), stop), func(t *testing.T) {
					sameAsSerial(t, src, 256, stop)
				})
			}
		}
	}
}

// TestReadAheadSlowInput: a source that returns a byte at a time (a live
// pipe) reads the same.
func TestReadAheadSlowInput(t *testing.T) {
	in := `{"clawtap":1,"createdAt":"2026-11-22T00:00:00Z","source":{}}` + "\n" +
		`{"t":1,"conn":1,"dir":"in","frame":{"type":"event","event":"tick"}}` + "\n" +
		`garbage` + "\n" +
		`{"t":2,"conn":1,"mark":"close","code":1000}` + "\n"
	r, err := NewReader(iotest.OneByteReader(strings.NewReader(in)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var got []string
	for {
		rec, err := r.Next()
		if err != nil {
			break
		}
		got = append(got, fmt.Sprintf("%d frame=%s mark=%s malformed=%v", rec.Index, rec.Frame, rec.Mark, rec.Malformed))
	}
	want := []string{
		`0 frame={"type":"event","event":"tick"} mark= malformed=false`,
		`1 frame= mark= malformed=true`,
		`2 frame= mark=close malformed=false`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// TestReadAheadCloseEarly: closing a reader mid-capture stops its
// goroutine and closes the file; Next then reports the end.
func TestReadAheadCloseEarly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.jsonl")
	var b strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&b, `{"t":%d,"conn":1,"dir":"in","frame":{"type":"event","event":"tick","seq":%d}}`+"\n", i, i)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for range 10 {
		if _, err := r.Next(); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("Next after Close: %v, want io.EOF", err)
	}
	if err := r.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

var fuzzEncoder, _ = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))

// FuzzReadAhead: any input reads the same ahead as serially.
func FuzzReadAhead(f *testing.F) {
	f.Add([]byte(`{"clawtap":1}`+"\n"+`{"t":1,"conn":1,"dir":"in","frame":{"type":"event"}}`+"\n"+"x\n"), false, 0)
	f.Add([]byte("junk\n"+`{"type":"event","event":"tick"}`+"\n"+`{"t":1,"conn":1,"raw":""}`), true, 1)
	f.Add([]byte(`{"t":1,"conn":1,"mark":"open"}`+"\n"+"caf\xe9\n"+strings.Repeat("y", 400)+"\n"), false, 2)
	f.Fuzz(func(t *testing.T, data []byte, compress bool, stop int) {
		if compress {
			data = fuzzEncoder.EncodeAll(data, nil)
		}
		sameAsSerial(t, data, 256, stop%8-1)
	})
}

// guarded is an input that fails the test when read after it was released.
type guarded struct {
	t        *testing.T
	r        io.Reader
	released atomic.Bool
}

func (g *guarded) Read(p []byte) (int, error) {
	if g.released.Load() {
		g.t.Errorf("input read after the reader released it")
		return 0, io.ErrClosedPipe
	}
	return g.r.Read(p[:min(len(p), 512)])
}

// closeEarly reads 300 records of 20,000 from a guarded input, with fn as
// the stage if given, closes the reader and waits for Options.Release.
func closeEarly(t *testing.T, stage func(*Batch)) {
	var b strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&b, `{"t":%d,"conn":1,"dir":"in","frame":{"type":"event","event":"tick","seq":%d}}`+"\n", i, i)
	}
	for range 20 {
		g := &guarded{t: t, r: strings.NewReader(b.String())}
		done := make(chan struct{})
		r, err := NewReader(g, Options{Release: func() { g.released.Store(true); close(done) }})
		if err != nil {
			t.Fatal(err)
		}
		if stage != nil {
			r.SetStage(stage)
		}
		for range 300 {
			if _, err := r.Next(); err != nil {
				t.Fatal(err)
			}
		}
		r.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("Release not called after Close")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestReadAheadRelease: after Close, the read-ahead stops reading an input
// the caller gave and says so through Options.Release, so the caller frees
// a decoder the input reads from then (the intents command does), not
// while a read is in flight.
func TestReadAheadRelease(t *testing.T) { closeEarly(t, nil) }

// TestReadAheadCloseLiveInput: Close does not wait for a read in flight
// on an input the caller gave, which may never return (a live stdin).
func TestReadAheadCloseLiveInput(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	go pw.Write([]byte(`{"t":1,"conn":1,"dir":"in","frame":{"type":"event","event":"tick"}}` + "\n"))
	r, err := NewReader(pr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	closed := make(chan error)
	go func() { closed <- r.Close() }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close waited for a read on a live input")
	}
}

// TestStage: a stage sees every record once, in order, batch by batch,
// and Next's caller finds each record's note; the records, warnings and
// counts are the serial reader's.
func TestStage(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"clawtap":1,"createdAt":"2026-11-22T00:00:00Z","source":{}}` + "\n")
	for i := range 3000 {
		if i%500 == 7 {
			b.WriteString("junk\n")
			continue
		}
		fmt.Fprintf(&b, `{"t":%d,"conn":1,"dir":"in","frame":{"type":"event","event":"tick","seq":%d}}`+"\n", i, i)
	}
	in := b.String()
	if r, _ := NewReader(strings.NewReader(in), Options{Serial: true}); r.SetStage(func(*Batch) {}) {
		t.Fatal("a serial reader took a stage")
	}
	want, _, wantWarns, _ := readLogged(t, []byte(in), Options{Serial: true}, -1)

	var warns []Warning
	r, err := NewReader(strings.NewReader(in), Options{OnWarning: func(w Warning) { warns = append(warns, w) }})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	seen := 0
	type note struct{ lines []int }
	if !r.SetStage(func(bt *Batch) {
		n, _ := bt.Note.(*note)
		if n == nil {
			n = &note{}
			bt.Note = n
		}
		n.lines = n.lines[:0]
		for i := range bt.Len() {
			rec := bt.Record(i)
			if rec.Index != seen {
				t.Errorf("stage saw record %d, want %d", rec.Index, seen)
			}
			seen++
			n.lines = append(n.lines, rec.Line)
		}
	}) {
		t.Fatal("SetStage refused before the first Next")
	}
	if r.SetStage(func(*Batch) {}) {
		t.Fatal("SetStage replaced a stage")
	}
	var got []event
	for {
		rec, err := r.Next()
		if err != nil {
			break
		}
		if r.SetStage(func(*Batch) {}) {
			t.Fatal("SetStage took a stage after Next")
		}
		n, i := r.Note()
		if nt, ok := n.(*note); !ok || nt.lines[i] != rec.Line {
			t.Fatalf("record %d (line %d): note %v at %d", rec.Index, rec.Line, n, i)
		}
		got = append(got, event{rec: rec.Clone(), stats: r.Stats()})
	}
	got = append(got, event{stats: r.Stats()})
	var recs []event
	for _, e := range want {
		if e.warn == nil {
			recs = append(recs, e)
		}
	}
	if !reflect.DeepEqual(got, recs) || !reflect.DeepEqual(warns, wantWarns) || seen != 3000 {
		t.Fatalf("with a stage: %d records, %d warnings, stage saw %d; serial: %d records, %d warnings", len(got), len(warns), seen, len(recs), len(wantWarns))
	}
}

// TestStageCloseEarly: closing mid-capture stops the stage too.
func TestStageCloseEarly(t *testing.T) { closeEarly(t, func(*Batch) {}) }

// TestReadAheadHugeLine: a frame larger than a batch's arena and the
// reader's buffer reads whole, between small ones, as serially.
func TestReadAheadHugeLine(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"clawtap":1,"createdAt":"2026-11-22T00:00:00Z","source":{}}` + "\n")
	for i := range 600 {
		pad := 10
		if i == 300 || i == 301 {
			pad = keepArena + 64<<10 // past keepArena and the 1 MiB line buffer
		}
		fmt.Fprintf(&b, `{"t":%d,"conn":1,"dir":"in","frame":{"type":"event","event":"chat","payload":{"text":"%s"}}}`+"\n", i, strings.Repeat("z", pad))
	}
	sameAsSerial(t, []byte(b.String()), 0, -1)
	sameAsSerial(t, fuzzEncoder.EncodeAll([]byte(b.String()), nil), 0, 450)
}

// SetAhead takes a depth before the first Next only, and never on a serial
// reader or below one batch.
func TestSetAhead(t *testing.T) {
	in := `{"t":1,"conn":1,"dir":"in","frame":{"type":"event","event":"tick"}}` + "\n"
	if r, _ := NewReader(strings.NewReader(in), Options{Serial: true}); r.SetAhead(1) {
		t.Error("a serial reader took a depth")
	}
	r, _ := NewReader(strings.NewReader(in), Options{})
	defer r.Close()
	if r.SetAhead(0) {
		t.Error("SetAhead(0) taken")
	}
	if !r.SetAhead(3) {
		t.Fatal("SetAhead(3) refused before the first Next")
	}
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	if r.SetAhead(1) {
		t.Error("SetAhead taken after Next")
	}
	if got := cap(r.ahead.batches); got != 3 {
		t.Errorf("the read-ahead holds %d batches for Next, want 3", got)
	}
}

// Batches go round: however the reading, the stage and the caller take
// turns being the slowest, no more batches are made than can exist at
// once (one filling, those waiting for the stage, one in it, those
// waiting for the caller, one read; with parsers, for each one waiting,
// one in it and one waiting for the sequencer, and one in the sequencer),
// so none is thrown away to be made again.
func TestBatchesAreReused(t *testing.T) {
	var b strings.Builder
	for i := range 60_000 {
		fmt.Fprintf(&b, `{"t":%d,"conn":1,"dir":"in","frame":{"type":"event","event":"tick","seq":%d}}`+"\n", i, i)
	}
	for _, c := range []struct{ depth, parsers int }{{1, 1}, {2, 1}, {3, 1}, {1, 2}, {2, 3}} {
		depth := c.depth
		r, err := NewReader(strings.NewReader(b.String()), Options{Parsers: c.parsers})
		if err != nil {
			t.Fatal(err)
		}
		r.SetAhead(depth)
		n := 0
		r.SetStage(func(bt *Batch) {
			n++
			if n/20%2 == 0 { // slow stage for a while, then a slow caller
				time.Sleep(50 * time.Microsecond)
			}
		})
		for i := 0; ; i++ {
			if _, err := r.Next(); err == io.EOF {
				break
			} else if err != nil {
				t.Fatal(err)
			}
			if i%256 == 0 && i/256/20%2 == 1 {
				time.Sleep(50 * time.Microsecond)
			}
		}
		made := r.ahead.made
		r.Close()
		limit := 2*depth + 3
		if p := r.parsers(); p > 0 {
			limit += 3*p + 1
		}
		if made > limit {
			t.Errorf("depth %d, %d parsers: %d batches made, at most %d can exist at once", depth, c.parsers, made, limit)
		}
	}
}
