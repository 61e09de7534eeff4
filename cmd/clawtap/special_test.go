package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// writer is a command that writes to -o, with what it should exit with.
type writer struct {
	name string
	args []string // without -o
	code int
}

// writers lists every command that writes a file: the printing ones, and
// report, import, redact and reshape (record has its own test with a fake gateway:
// TestRecordToSpecialFiles). Failing cases check that a failure leaves the
// target alone too.
func writers(t *testing.T) []writer {
	var w []writer
	for _, c := range printing(t) {
		w = append(w, writer{c.name, append(append([]string{}, c.args...), "--format", "json"), c.code})
	}
	return append(w,
		writer{"report", []string{"report", fixture(t, "demo.jsonl.zst")}, 0},
		writer{"report-trace", []string{"report", "--format", "trace", fixture(t, "demo.jsonl.zst")}, 0},
		writer{"import", []string{"import", fixture(t, "bare-frames.jsonl")}, 0},
		writer{"redact", []string{"redact", fixture(t, "demo.jsonl.zst")}, 0},
		writer{"import-garbage", []string{"import", "--input-format", "har", fixture(t, "demo.jsonl.zst")}, 2},
		writer{"redact-garbage", []string{"redact", fixture(t, "bare-frames.jsonl") + ".missing"}, 2},
		writer{"reshape", []string{"reshape", "--gateway", "2026.9.7", fixture(t, "demo.jsonl.zst")}, 0},
		writer{"reshape-refused", []string{"reshape", "--gateway", "2026.9.7", fixture(t, "append-only.jsonl.zst")}, 2},
	)
}

// TestWritersLeaveDevicesAlone: -o naming a character device writes to it
// in place (no --force needed); the node is never replaced, removed or
// chmodded, whether the command succeeds or fails.
func TestWritersLeaveDevicesAlone(t *testing.T) {
	dir := t.TempDir()
	dev := filepath.Join(dir, "null")
	// A copy of /dev/null (1,3): mknod needs privileges, so skip without them.
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o640, 1<<8|3); err != nil {
		if errors.Is(err, syscall.EPERM) {
			t.Skip("mknod not permitted here: run as root to test a device as -o")
		}
		t.Fatal(err)
	}
	if err := os.Chmod(dev, 0o640); err != nil { // umask may have cut the mode
		t.Fatal(err)
	}
	before := statT(t, dev)
	for _, w := range writers(t) {
		t.Run(w.name, func(t *testing.T) {
			r := run(t, "", append(w.args, "-o", dev)...)
			if r.code != w.code {
				t.Errorf("exit %d, want %d: %s", r.code, w.code, r.stderr)
			}
			after := statT(t, dev)
			if after.Mode&syscall.S_IFMT != syscall.S_IFCHR || after.Mode != before.Mode || after.Rdev != before.Rdev || after.Ino != before.Ino {
				t.Errorf("the device changed: mode %o→%o rdev %d→%d inode %d→%d", before.Mode, after.Mode, before.Rdev, after.Rdev, before.Ino, after.Ino)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
				t.Errorf("temporary files left beside the device: %v", left)
			}
		})
	}
}

// TestWritersWriteIntoFIFOs: -o naming a FIFO streams into it (a reader
// gets exactly what stdout would have had) and leaves it a FIFO with its
// mode.
func TestWritersWriteIntoFIFOs(t *testing.T) {
	for _, w := range writers(t) {
		t.Run(w.name, func(t *testing.T) {
			dir := t.TempDir()
			fifo, got := readFIFO(t, filepath.Join(dir, "pipe"))
			if err := os.Chmod(fifo, 0o644); err != nil {
				t.Fatal(err)
			}
			r := run(t, "", append(w.args, "-o", fifo)...)
			if r.code != w.code {
				t.Errorf("exit %d, want %d: %s", r.code, w.code, r.stderr)
			}
			var b []byte
			for done := false; !done; {
				select {
				case b = <-got:
					done = true
				case <-time.After(10 * time.Millisecond):
					if w.code != 2 {
						continue // the command wrote and closed: the reader is finishing
					}
					// A failed command may never open the FIFO: unblock the
					// reader (once it has opened its end).
					if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
						f.Close()
					}
				}
			}
			if w.code != 2 {
				std := run(t, "", append(w.args, "-o", "-")...)
				if string(b) != std.stdout || len(b) == 0 {
					t.Errorf("the FIFO got %d bytes, stdout %d; equal: %v", len(b), len(std.stdout), string(b) == std.stdout)
				}
			}
			fi, err := os.Lstat(fifo)
			if err != nil || fi.Mode()&os.ModeNamedPipe == 0 || fi.Mode().Perm() != 0o644 {
				t.Errorf("the FIFO is now %v (%v)", fi.Mode(), err)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 1 {
				t.Errorf("files left beside the FIFO: %d entries", len(ents))
			}
		})
	}
}

func statT(t *testing.T, path string) syscall.Stat_t {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// readFIFO makes a FIFO at path and reads it whole on another goroutine:
// got receives what was written (nil when it could not be opened).
func readFIFO(t *testing.T, path string) (string, <-chan []byte) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte, 1)
	go func() {
		f, err := os.Open(path)
		if err != nil {
			got <- nil
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- b
	}()
	return path, got
}
