package report

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
)

// The spool gives back what was put, in a file or in memory, across
// window boundaries, for spans larger than its window, and after
// compactions that moved them.
func TestSpoolKeepsWhatWasPut(t *testing.T) {
	for _, dir := range []string{t.TempDir(), filepath.Join(t.TempDir(), "missing")} {
		s := &spool{dir: dir}
		var spans []*span
		var want [][]byte
		for k := 0; k < 3000; k++ {
			n := 1 + k*97%4000
			if k%500 == 0 {
				n = spoolChunk + 3 // larger than the window
			}
			p := bytes.Repeat([]byte{byte('a' + k%26)}, n)
			p = append(p, fmt.Sprint(k)...)
			sp := s.put(p)
			spans = append(spans, &sp)
			want = append(want, p)
			if k%3 != 0 { // evict two thirds, as the budget would
				s.drop(sp)
				spans[k].n = 0
			}
			if k%700 == 699 {
				var live []*span
				for _, sp := range spans {
					if sp.n > 0 {
						live = append(live, sp)
					}
				}
				s.compact(live)
				if s.end != s.live {
					t.Fatalf("%s: after compaction %d bytes for %d live", dir, s.end, s.live)
				}
			}
		}
		// In the order they were put, then interleaved from three places
		// and in a scattered order, as findings' messages are read.
		n := len(spans)
		var order []int
		for k := range spans {
			order = append(order, k)
		}
		for k := 0; k < n/3; k++ {
			order = append(order, k, n/3+k, 2*n/3+k)
		}
		for k := 0; k < n; k++ {
			order = append(order, k*7919%n)
		}
		for k := n - 1; k >= 0; k-- { // from the last, as the end of the pass reads runs
			order = append(order, k)
		}
		for _, k := range order {
			sp := spans[k]
			if sp.n == 0 {
				continue
			}
			if got := s.appendTo([]byte("x"), *sp); !bytes.Equal(got[1:], want[k]) || got[0] != 'x' {
				t.Fatalf("%s: span %d read back %d bytes that differ from the %d put", dir, k, len(got)-1, len(want[k]))
			}
		}
		if s.err != nil {
			t.Fatal(s.err)
		}
		_, inMemory := s.f.(*memFile)
		if inMemory != (filepath.Base(dir) == "missing") {
			t.Errorf("%s: in memory %v", dir, inMemory)
		}
		if err := s.close(); err != nil {
			t.Fatal(err)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) > 0 {
			t.Errorf("the spool left %v behind", left)
		}
	}
}

// countedFile counts its reads and writes.
type countedFile struct {
	spoolFile
	reads, writes int
}

func (c *countedFile) ReadAt(p []byte, off int64) (int, error) {
	c.reads++
	return c.spoolFile.ReadAt(p, off)
}

func (c *countedFile) WriteAt(p []byte, off int64) (int, error) {
	c.writes++
	return c.spoolFile.WriteAt(p, off)
}

// A compaction reads the spool and writes it down a chunk at a time, not
// a read and a write for every span it moves.
func TestSpoolCompactsByChunks(t *testing.T) {
	s := &spool{dir: t.TempDir()}
	var spans []*span
	var want [][]byte
	live := 0
	for k := range 20_000 {
		p := []byte(fmt.Sprintf("body %d %s", k, bytes.Repeat([]byte{'y'}, k%300)))
		sp := s.put(p)
		if k%3 == 0 {
			spans, want = append(spans, &sp), append(want, p)
			live += len(p)
		} else {
			s.drop(sp)
		}
	}
	total := s.end
	s.flush()
	c := &countedFile{spoolFile: s.f}
	s.f = c
	s.compact(spans)
	if s.end != int64(live) {
		t.Fatalf("compacted to %d bytes, %d live", s.end, live)
	}
	if limit := int(total)/windowSize + 2; c.reads > limit {
		t.Errorf("%d file reads to compact %d bytes; a window at a time is at most %d", c.reads, total, limit)
	}
	if limit := live/spoolChunk + 2; c.writes > limit {
		t.Errorf("%d file writes to keep %d bytes; a chunk at a time is at most %d", c.writes, live, limit)
	}
	for k, sp := range spans {
		if got := s.appendTo(nil, *sp); !bytes.Equal(got, want[k]) {
			t.Fatalf("span %d after compaction: %q, want %q", k, got, want[k])
		}
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
}

// spooledSpans puts 4000 spans of name and k%longest x's in a spool on
// file, and counts its file reads from then on.
func spooledSpans(t *testing.T, name string, longest int) (s *spool, spans []span, want [][]byte, total int, c *countedFile) {
	t.Helper()
	s = &spool{dir: t.TempDir()}
	t.Cleanup(func() {
		if err := s.close(); err != nil {
			t.Error(err)
		}
	})
	for k := range 4000 {
		p := []byte(fmt.Sprintf("%s %d %s", name, k, bytes.Repeat([]byte{'x'}, k%longest)))
		spans = append(spans, s.put(p))
		want = append(want, p)
		total += len(p)
	}
	s.flush()
	c = &countedFile{spoolFile: s.f}
	s.f = c
	return s, spans, want, total, c
}

// Spans read from the last to the first are read a window at a time, as
// they are in the order they were put, not one file read each.
func TestSpoolReadsBackwardsByWindows(t *testing.T) {
	s, spans, want, total, c := spooledSpans(t, "run", 150)
	for _, forward := range []bool{true, false} {
		c.reads = 0
		for i := range spans {
			k := i
			if !forward {
				k = len(spans) - 1 - i
			}
			if got := s.appendTo(nil, spans[k]); !bytes.Equal(got, want[k]) {
				t.Fatalf("span %d: read %q, want %q", k, got, want[k])
			}
		}
		if limit := 2*total/windowSize + 2; c.reads > limit {
			t.Errorf("forward %v: %d file reads for %d bytes in %d spans; a window at a time is at most %d", forward, c.reads, total, len(spans), limit)
		}
	}
}

// Spans read as two walks forwards at once, far apart (findings made as
// the pass goes, and those made late, sorted together), take a window
// each, not one file read per step back to the walk behind.
func TestSpoolReadsTwoWalksByWindows(t *testing.T) {
	s, spans, want, total, c := spooledSpans(t, "finding", 600)
	half := len(spans) / 2
	for i := range half {
		for _, k := range []int{i, half + i} {
			if got := s.appendTo(nil, spans[k]); !bytes.Equal(got, want[k]) {
				t.Fatalf("span %d: read %q, want %q", k, got, want[k])
			}
		}
	}
	if limit := total/windowSize + 2; c.reads > limit {
		t.Errorf("%d file reads for %d bytes in two walks; a window at a time is at most %d", c.reads, total, limit)
	}
}

// While a report is built its spool file is already gone from the
// directory (on systems that allow it), so a killed clawtap leaves
// nothing; and the pages built with a file, in memory, compacting early
// and never compacting are the same bytes.
func TestSpoolDoesNotChangeThePage(t *testing.T) {
	skipLarge(t) // five passes over 8,000 frames; the spool is used on one goroutine at a time
	capt := large(t, 8000)
	dir := t.TempDir()
	defer func(n int64) { minHoles = n }(minHoles)
	build := func(holes int64, dir string) *Report {
		minHoles = holes
		return buildBytes(t, capt, Options{Name: "large", MaxBytes: 256 << 10, TempDir: dir})
	}
	file := build(4<<20, dir)
	if _, ok := file.spool.f.(*os.File); !ok {
		t.Fatalf("the spool is a %T, not a file in %s", file.spool.f, dir)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) > 0 && runtime.GOOS != "windows" {
		t.Errorf("the spool file is still in the directory: %v", left)
	}
	if file.Summary.Bodies == 0 || file.Summary.BodiesElided == 0 {
		t.Fatalf("the test needs kept and elided bodies: %+v", file.Summary)
	}
	mem := build(4<<20, filepath.Join(dir, "missing"))
	if _, ok := mem.spool.f.(*memFile); !ok {
		t.Fatalf("with no directory the spool is a %T", mem.spool.f)
	}
	never := build(1<<62, dir)
	early := build(0, dir) // once the holes pass the limit and the live bytes
	if early.spool.end >= never.spool.end {
		t.Errorf("compacting early left %d bytes, never compacting %d", early.spool.end, never.spool.end)
	}
	// Each body and timer step reads back as its own object.
	whole := buildBytes(t, capt, Options{Name: "large", TempDir: dir})
	if whole.Summary.BodiesElided > 0 || len(whole.Bodies) == 0 || len(whole.Timers) == 0 {
		t.Fatalf("the default limit should keep every body and timer step: %+v", whole.Summary)
	}
	for _, b := range whole.Bodies {
		if js, err := whole.BodyJSON(b); err != nil || !bytes.HasPrefix(js, []byte(`{"i":`+strconv.Itoa(b.I)+`,`)) {
			t.Fatalf("body of record %d read back as %.40q (%v)", b.I, js, err)
		}
	}
	for _, x := range whole.Timers {
		if js, err := whole.TimerJSON(x); err != nil || !bytes.HasPrefix(js, []byte(`{"after":`+strconv.Itoa(x.After)+`,`)) {
			t.Fatalf("timer step after record %d read back as %.40q (%v)", x.After, js, err)
		}
	}
	want := AppendHTML(nil, file)
	for name, r := range map[string]*Report{"in memory": mem, "never compacted": never, "compacted early": early} {
		if got := AppendHTML(nil, r); !bytes.Equal(got, want) {
			t.Errorf("%s: the page differs from the one spooled to a file", name)
		}
	}
}

// A spool that cannot be read back fails the page's writing rather than
// writing a page without its details.
func TestSpoolReadErrorFailsThePage(t *testing.T) {
	r := buildFile(t, fixturePath(t, "stale-terminal.jsonl.zst"), Options{})
	if len(r.Bodies) == 0 {
		t.Fatal("no bodies kept")
	}
	r.spool.flush() // what waits to be written is read from memory
	r.spool.f = brokenFile{r.spool.f}
	r.spool.forgetWindows()
	var page bytes.Buffer
	if err := WriteHTML(&page, r); !errors.Is(err, errBroken) {
		t.Errorf("WriteHTML: %v, want the spool's read error", err)
	}
	if _, err := r.BodyJSON(r.Bodies[0]); !errors.Is(err, errBroken) {
		t.Errorf("BodyJSON: %v", err)
	}
}

var errBroken = errors.New("broken disk")

type brokenFile struct{ spoolFile }

func (brokenFile) ReadAt([]byte, int64) (int, error) { return 0, errBroken }
