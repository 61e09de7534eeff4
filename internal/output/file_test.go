package output

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func mustWrite(t *testing.T, d *Dest, s string) {
	t.Helper()
	if _, err := io.WriteString(d, s); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// leftovers lists the files in dir other than want.
func leftovers(t *testing.T, dir string, want ...string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var extra []string
next:
	for _, e := range ents {
		for _, w := range want {
			if e.Name() == w {
				continue next
			}
		}
		extra = append(extra, e.Name())
	}
	return extra
}

func TestCreateNewFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	d, err := Create(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, d, "hello")
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("target exists before Commit: %v", err)
	}
	if err := d.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, path); got != "hello" {
		t.Fatalf("content %q", got)
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", fi.Mode().Perm())
	}
	if extra := leftovers(t, dir, "out.txt"); extra != nil {
		t.Fatalf("left behind: %v", extra)
	}
}

func TestCreateExistingNeedsForce(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	os.WriteFile(path, []byte("old"), 0o644)
	if _, err := Create(path, Options{}); !errors.Is(err, ErrExists) {
		t.Fatalf("err = %v, want ErrExists", err)
	}
	d, err := Create(path, Options{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, d, "new")
	if got := readFile(t, path); got != "old" {
		t.Fatalf("target changed before Commit: %q", got)
	}
	if err := d.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, path); got != "new" {
		t.Fatalf("content %q", got)
	}
}

func TestAbortRemovesOnlyTheTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	os.WriteFile(path, []byte("old"), 0o644)
	d, err := Create(path, Options{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, d, "partial")
	d.Abort()
	if got := readFile(t, path); got != "old" {
		t.Fatalf("target %q after Abort", got)
	}
	if extra := leftovers(t, dir, "out.txt"); extra != nil {
		t.Fatalf("left behind: %v", extra)
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o644 {
		t.Fatalf("target chmodded to %v", fi.Mode().Perm())
	}
}

func TestPublishThenAbortKeepsWhatWasWritten(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cap.jsonl")
	d, err := Create(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, d, "a")
	if err := d.Publish(); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, d, "b")
	d.Abort()
	if got := readFile(t, path); got != "ab" {
		t.Fatalf("content %q", got)
	}
}

func TestCommitRefusesATargetThatAppeared(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	d, err := Create(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, d, "mine")
	os.WriteFile(path, []byte("theirs"), 0o644)
	if err := d.Commit(); !errors.Is(err, ErrExists) {
		t.Fatalf("err = %v, want ErrExists", err)
	}
	if got := readFile(t, path); got != "theirs" {
		t.Fatalf("clobbered: %q", got)
	}
	if extra := leftovers(t, dir, "out.txt"); extra != nil {
		t.Fatalf("left behind: %v", extra)
	}
}

func TestSymlinkIsWrittenThrough(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.txt")
	link := filepath.Join(dir, "link.txt")
	os.WriteFile(real, []byte("old"), 0o600)
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	d, err := Create(link, Options{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, d, "new")
	if err := d.Commit(); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the link was replaced by a file")
	}
	if got := readFile(t, real); got != "new" {
		t.Fatalf("content %q", got)
	}
}

func TestDirectoryIsRefused(t *testing.T) {
	if _, err := Create(t.TempDir(), Options{Force: true}); err == nil {
		t.Fatal("a directory was accepted as output")
	}
}

func TestStdout(t *testing.T) {
	var buf bytes.Buffer
	d, err := Create("-", Options{Stdout: &buf})
	if err != nil {
		t.Fatal(err)
	}
	if !d.IsStdout() || d.Name() != "stdout" {
		t.Fatal("not stdout")
	}
	mustWrite(t, d, "x")
	if err := d.Commit(); err != nil || buf.String() != "x" {
		t.Fatalf("%v %q", err, buf.String())
	}
}

// checkSpecial writes to a special file through Create, with and without
// Force, then aborts, and checks the file is still there, unchanged in
// mode and kind, with nothing left beside it.
func checkSpecial(t *testing.T, path string, read func() string) {
	t.Helper()
	before, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, force := range []bool{false, true} {
		d, err := Create(path, Options{Force: force})
		if err != nil {
			t.Fatalf("force=%v: %v", force, err)
		}
		mustWrite(t, d, "data")
		if force {
			d.Abort()
		} else if err := d.Commit(); err != nil {
			t.Fatal(err)
		}
		if read != nil {
			if got := read(); got != "data" {
				t.Fatalf("reader got %q", got)
			}
		}
		after, err := os.Lstat(path)
		if err != nil {
			t.Fatalf("special file gone: %v", err)
		}
		if after.Mode() != before.Mode() {
			t.Fatalf("mode changed: %v → %v", before.Mode(), after.Mode())
		}
		if sb, sa := before.Sys().(*syscall.Stat_t), after.Sys().(*syscall.Stat_t); sb.Ino != sa.Ino || sb.Rdev != sa.Rdev {
			t.Fatal("special file replaced")
		}
	}
}

func TestDeviceIsWrittenInPlace(t *testing.T) {
	dir := t.TempDir()
	dev := filepath.Join(dir, "null")
	// A character device like /dev/null (1, 3) of our own, so the test can
	// look at it without touching the system's.
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, int(1<<8|3)); err != nil {
		t.Skipf("mknod not permitted here (%v); /dev/null checked instead", err)
	}
	checkSpecial(t, dev, nil)
	if extra := leftovers(t, dir, "null"); extra != nil {
		t.Fatalf("left behind: %v", extra)
	}
}

func TestDevNull(t *testing.T) {
	checkSpecial(t, os.DevNull, nil)
}

func TestFIFOIsWrittenInPlace(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	reader := func() string {
		return <-got
	}
	// One reader per write: open, read to EOF.
	go func() {
		for range 2 {
			f, err := os.Open(fifo)
			if err != nil {
				got <- err.Error()
				return
			}
			b, _ := io.ReadAll(f)
			f.Close()
			got <- string(b)
		}
	}()
	checkSpecial(t, fifo, reader)
	if extra := leftovers(t, dir, "pipe"); extra != nil {
		t.Fatalf("left behind: %v", extra)
	}
}

// CheckPath refuses what Create refuses and leaves nothing behind; a FIFO
// is not opened (it would wait for a reader).
func TestCheckPathCreatesNothing(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "a")
	if err := os.WriteFile(existing, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := CheckPath(existing, Options{}); !errors.Is(err, ErrExists) {
		t.Errorf("existing: %v", err)
	}
	if err := CheckPath(existing, Options{Force: true}); err != nil {
		t.Errorf("existing with Force: %v", err)
	}
	if err := CheckPath(filepath.Join(dir, "new"), Options{}); err != nil {
		t.Errorf("new: %v", err)
	}
	if err := CheckPath(dir, Options{}); err == nil {
		t.Error("a directory passed")
	}
	if err := CheckPath(filepath.Join(dir, "no", "x"), Options{}); err == nil {
		t.Error("a missing directory passed")
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := CheckPath(fifo, Options{}); err != nil {
		t.Errorf("fifo: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("left behind: %v", ents)
	}
}

// A dangling link is written through, as the shell's > does: the file it
// names is created and the link stays; a link into a directory that does
// not exist is refused, and a loop of links too.
func TestDanglingSymlinkIsWrittenThrough(t *testing.T) {
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	link := filepath.Join(dir, "link.txt")
	must(os.Symlink("sub/target.txt", link)) // relative, as ln -s makes them
	for _, force := range []bool{false, true} {
		d, err := Create(link, Options{Force: force})
		must(err)
		mustWrite(t, d, "new")
		must(d.Commit())
		if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
			t.Fatal("the link was replaced by a file")
		}
		if got := readFile(t, filepath.Join(dir, "sub", "target.txt")); got != "new" {
			t.Fatalf("force %v: target holds %q", force, got)
		}
		if !force {
			if _, err := Create(link, Options{}); !errors.Is(err, ErrExists) {
				t.Fatalf("the target now exists: %v", err)
			}
		}
	}
	nowhere := filepath.Join(dir, "nowhere.txt")
	must(os.Symlink(filepath.Join(dir, "missing", "x.txt"), nowhere))
	if _, err := Create(nowhere, Options{Force: true}); err == nil || !bytes.Contains([]byte(err.Error()), []byte("whose directory does not exist")) {
		t.Errorf("link into a missing directory: %v", err)
	}
	loop := filepath.Join(dir, "loop")
	must(os.Symlink("loop", loop))
	if _, err := Create(loop, Options{Force: true}); err == nil {
		t.Error("a loop of links was accepted")
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "sub")); len(ents) != 1 {
		t.Errorf("left behind: %v", ents)
	}
}

// A folder that is not there is named, not the hidden temporary file the
// writer would have made in it.
func TestCreateInAMissingFolderNamesIt(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	_, err := Create(filepath.Join(missing, "out.json"), Options{})
	if err == nil || !strings.Contains(err.Error(), "the folder "+missing+" does not exist") || strings.Contains(err.Error(), ".tmp-") {
		t.Fatalf("%v", err)
	}
}
