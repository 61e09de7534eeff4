package suite

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/clawtap/clawtap/pkg/capture"
)

// hostileSuite is a suite folder beside a folder of secrets: suite/demo
// (a real capture) and outside/secret, which nothing may read or write.
func hostileSuite(t *testing.T) (suiteDir, outside string) {
	t.Helper()
	d := t.TempDir()
	suiteDir, outside = filepath.Join(d, "suite"), filepath.Join(d, "outside")
	for _, dir := range []string{suiteDir, outside} {
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "demo.jsonl.zst"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(suiteDir, "demo.jsonl.zst"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("[credential]\n\ttoken = SECRET-IN-GIT-CONFIG\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return suiteDir, outside
}

// testOne discovers the suite and tests its one capture, failing the test
// (rather than hanging it) when that takes more than a few seconds.
func testOne(t *testing.T, dir string, cfg Config) *Result {
	t.Helper()
	caps, err := Discover([]string{dir})
	if err != nil || len(caps) != 1 {
		t.Fatalf("discover: %v %v", caps, err)
	}
	got := make(chan *Result, 1)
	go func() { got <- Test(context.Background(), caps[0], &cfg) }()
	select {
	case r := <-got:
		return r
	case <-time.After(20 * time.Second):
		t.Fatalf("%s: still testing after 20 s", caps[0].Path)
		return nil
	}
}

// mentions reports whether anything the result would print holds s.
func mentions(r *Result, s string) bool {
	text := strings.Join(append(append([]string{}, r.Notes...), r.Info...), "\n")
	if r.Err != nil {
		text += r.Err.Error()
	}
	for _, u := range r.Runs {
		text += u.Golden.Diff
	}
	return strings.Contains(text, s)
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// TestSuiteLinksOutAreRefused: a suite folder is data from strangers. A
// NAME.golden, NAME.expect.json or capture that links out of the folder
// is never read (its target would land in the diff, the reports and the
// annotations), and --update never writes through a link nor creates a
// file where a link points: it replaces the link by the file.
func TestSuiteLinksOutAreRefused(t *testing.T) {
	t.Run("golden read", func(t *testing.T) {
		dir, outside := hostileSuite(t)
		symlink(t, filepath.Join("..", "outside", "secret"), filepath.Join(dir, "demo.golden"))
		os.WriteFile(filepath.Join(dir, "demo.expect.json"), []byte(`{"ui":{}}`), 0o600)
		r := testOne(t, dir, Config{})
		if r.Status() != Error || mentions(r, "SECRET") || !mentions(r, "link") {
			t.Fatalf("status %s err %v; the secret shown: %v", r.Status(), r.Err, mentions(r, "SECRET"))
		}
		_ = outside
	})
	t.Run("golden update", func(t *testing.T) {
		dir, outside := hostileSuite(t)
		golden := filepath.Join(dir, "demo.golden")
		symlink(t, filepath.Join("..", "outside", "secret"), golden)
		symlink(t, filepath.Join(outside, "authorized_keys"), filepath.Join(dir, "demo.expect.json"))
		r := testOne(t, dir, Config{Update: true})
		if r.Status() != Updated || mentions(r, "SECRET") {
			t.Fatalf("status %s err %v notes %q", r.Status(), r.Err, r.Notes)
		}
		if b, _ := os.ReadFile(filepath.Join(outside, "secret")); !strings.Contains(string(b), "SECRET-IN-GIT-CONFIG") || len(b) > 60 {
			t.Fatalf("written through the link: %d bytes", len(b))
		}
		if _, err := os.Lstat(filepath.Join(outside, "authorized_keys")); err == nil {
			t.Fatal("a file was created where a link points")
		}
		for _, p := range []string{golden, filepath.Join(dir, "demo.expect.json")} {
			if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
				t.Fatalf("%s is not a regular file now: %v %v", p, fi, err)
			}
		}
		if r := testOne(t, dir, Config{}); r.Status() != Pass {
			t.Fatalf("after --update: %s %v", r.Status(), r.Err)
		}
	})
	t.Run("expectations read", func(t *testing.T) {
		dir, outside := hostileSuite(t)
		os.WriteFile(filepath.Join(outside, "x.json"), []byte(`{"ui":{"clawboo":{"findings":[]}}}`), 0o600)
		symlink(t, filepath.Join(outside, "x.json"), filepath.Join(dir, "demo.expect.json"))
		r := testOne(t, dir, Config{})
		if r.Status() != Error || !mentions(r, "link") {
			t.Fatalf("status %s err %v", r.Status(), r.Err)
		}
	})
	t.Run("capture", func(t *testing.T) {
		dir, outside := hostileSuite(t)
		os.Rename(filepath.Join(dir, "demo.jsonl.zst"), filepath.Join(outside, "demo.jsonl.zst"))
		symlink(t, filepath.Join("..", "outside", "demo.jsonl.zst"), filepath.Join(dir, "demo.jsonl.zst"))
		r := testOne(t, dir, Config{})
		if r.Status() != Error || !mentions(r, "link") {
			t.Fatalf("status %s err %v", r.Status(), r.Err)
		}
	})
	t.Run("links inside", func(t *testing.T) {
		// A link that stays in the folder is followed for reading.
		dir, _ := hostileSuite(t)
		os.Mkdir(filepath.Join(dir, "shared"), 0o755)
		if r := testOne(t, dir, Config{Update: true}); r.Status() != Updated {
			t.Fatalf("update: %s %v", r.Status(), r.Err)
		}
		os.Rename(filepath.Join(dir, "demo.golden"), filepath.Join(dir, "shared", "demo.golden"))
		symlink(t, filepath.Join("shared", "demo.golden"), filepath.Join(dir, "demo.golden"))
		if r := testOne(t, dir, Config{}); r.Status() != Pass {
			t.Fatalf("a link inside: %s %v", r.Status(), r.Err)
		}
	})
}

// TestSuiteSpecialFiles: only regular files are read from a suite. A FIFO
// as NAME.golden or NAME.expect.json is refused at once instead of
// waiting for a writer, and a link to /dev/zero is refused too.
func TestSuiteSpecialFiles(t *testing.T) {
	for _, name := range []string{"demo.golden", "demo.expect.json"} {
		t.Run("fifo "+name, func(t *testing.T) {
			dir, _ := hostileSuite(t)
			fifo := filepath.Join(dir, name)
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skipf("no FIFOs here: %v", err)
			}
			// Should the test fail, a writer frees the reader it blocked.
			t.Cleanup(func() {
				if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					f.Close()
				}
			})
			r := testOne(t, dir, Config{})
			if r.Status() != Error || !mentions(r, "not a regular file") {
				t.Fatalf("status %s err %v", r.Status(), r.Err)
			}
		})
	}
	t.Run("dev zero", func(t *testing.T) {
		dir, _ := hostileSuite(t)
		symlink(t, "/dev/zero", filepath.Join(dir, "demo.expect.json"))
		if r := testOne(t, dir, Config{}); r.Status() != Error {
			t.Fatalf("status %s err %v", r.Status(), r.Err)
		}
	})
}

// TestSuiteLargeExpectations: a 1 GiB NAME.expect.json is refused after
// reading past the 64 MiB limit, not read whole first.
func TestSuiteLargeExpectations(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 64 MiB")
	}
	dir, _ := hostileSuite(t)
	p := filepath.Join(dir, "demo.expect.json")
	if err := os.WriteFile(p, []byte(`{"ui":{}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, 1<<30); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r := testOne(t, dir, Config{})
	runtime.ReadMemStats(&after)
	if r.Status() != Error || !mentions(r, "larger than 64 MiB") {
		t.Fatalf("status %s err %v", r.Status(), r.Err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 400<<20 {
		t.Fatalf("allocated %d MiB to refuse it", alloc>>20)
	}
}

// TestSuiteLoneSurrogateRoundTrips: test --update then test passes for a
// capture whose run id holds a lone surrogate (\ud800 in its JSON): the
// golden, written as valid UTF-8, and the expectations read back as what
// the replay and check make of the capture.
func TestSuiteLoneSurrogateRoundTrips(t *testing.T) {
	dir, _ := hostileSuite(t)
	os.Remove(filepath.Join(dir, "demo.jsonl.zst"))
	b, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "stale-terminal.jsonl.zst"))
	if err != nil {
		t.Fatal(err)
	}
	zr, release, err := capture.Decompress(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(zr)
	release()
	if err != nil {
		t.Fatal(err)
	}
	text := string(plain)
	ids := regexp.MustCompile(`"runId":"([^"]+)"`).FindAllStringSubmatch(text, -1)
	if len(ids) == 0 {
		t.Fatal("no run id")
	}
	text = strings.ReplaceAll(text, `"`+ids[0][1]+`"`, `"`+ids[0][1]+`\ud800"`)
	if err := os.WriteFile(filepath.Join(dir, "lone.jsonl"), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := testOne(t, dir, Config{Update: true}); r.Status() != Updated {
		t.Fatalf("update: %s %v", r.Status(), r.Err)
	}
	if g, _ := os.ReadFile(filepath.Join(dir, "lone.golden")); !utf8.Valid(g) {
		t.Error("the golden is not UTF-8")
	}
	if r := testOne(t, dir, Config{}); r.Status() != Pass {
		t.Fatalf("after --update: %s %v %+v", r.Status(), r.Err, r.Runs)
	}
}
