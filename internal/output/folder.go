package output

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// CreateIn opens name, a path inside the folder dir, for replacing: a file
// clawtap keeps in a folder it did not make (a suite's goldens and
// expectations). Unlike Create it never follows a link, in the name or on
// the way to it: the bytes go to a temporary file created in the folder
// (through an os.Root of it, so no link leads out), and Commit renames it
// onto name, replacing what is there — a link is replaced by the file, its
// target left alone; a folder is not replaced. display is the path to name
// it by in errors.
func CreateIn(dir, name, display string) (*Dest, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	prefix := filepath.Join(filepath.Dir(name), "."+filepath.Base(name)+".tmp-")
	for range 10 {
		var r [6]byte
		_, _ = rand.Read(r[:])
		tmp := prefix + hex.EncodeToString(r[:])
		f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			root.Close()
			return nil, fmt.Errorf("cannot create a file beside %s: %w", display, unwrapPath(err))
		}
		return track(&Dest{w: f, f: f, target: display, tmp: tmp, force: true, root: root, name: name}), nil
	}
	root.Close()
	return nil, fmt.Errorf("cannot create a file beside %s: %w", display, fs.ErrExist)
}

// OpenIn opens name, a path inside the folder dir, for reading, when it is
// a regular file: through an os.Root of dir, so that a link out of the
// folder (or a "..") is refused, and without waiting, so that a FIFO is
// refused rather than waited on. A file that does not exist is
// fs.ErrNotExist; display names it in other errors.
func OpenIn(dir, name, display string) (*os.File, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		if fi, lerr := root.Lstat(name); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s is a link out of the folder %s: refused", display, dir)
		}
		return nil, fmt.Errorf("%s: %w", display, unwrapPath(err))
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file (%s): refused", display, kind(fi.Mode()))
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadIn reads a regular file of dir (OpenIn) of at most limit bytes; a
// larger one is an error after limit+1 bytes are read.
func ReadIn(dir, name, display string, limit int64) ([]byte, error) {
	f, err := OpenIn(dir, name, display)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", display, unwrapPath(err))
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: larger than %s", display, sizeLimit(limit))
	}
	return b, nil
}

// unwrapPath is a path error's cause, the path being said by the caller.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// kind names a file's type for a refusal.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return m.Type().String()
}

// sizeLimit says a limit in MiB when it is whole ones.
func sizeLimit(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
