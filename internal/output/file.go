// Package output is where everything clawtap writes goes: the one safe
// file writer every command uses, the choice of output format, size and
// duration parsing and formatting, and the renderers commands share.
package output

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Stdout is the path that means standard output.
const Stdout = "-"

// ErrExists is returned by Create for an existing regular file when
// Options.Force is not set.
var ErrExists = errors.New("file exists")

// ErrNotWritable is returned by Create for a target that is neither a
// regular file, a character device nor a FIFO (a directory, a socket, a
// block device): clawtap never writes to those.
var ErrNotWritable = errors.New("not a regular file, character device or FIFO")

// Options tune Create.
type Options struct {
	// Force allows replacing an existing regular file.
	Force bool
	// Stdout receives the output when the path is "-".
	Stdout io.Writer
}

// Dest is an output destination opened by Create. Bytes written to a
// regular file go to a temporary file beside it (created 0600) that
// Commit renames into place; a character device or FIFO (/dev/null, a
// named pipe) is opened and written in place and is never replaced,
// removed or chmodded; "-" is standard output.
//
// A Dest must end with Commit or Abort. Abort removes the temporary file
// and nothing else: the target is untouched unless Publish or Commit
// already put the new file in its place.
type Dest struct {
	w      io.Writer
	f      *os.File // the temporary or special file; nil for stdout
	target string   // the path written ("" for stdout)
	tmp    string   // the temporary file while it is not yet in place
	force  bool
	closed bool

	// In a folder (CreateIn): tmp and name are names in root.
	root *os.Root
	name string
}

// Create opens path for writing under clawtap's output rules. See Dest.
func Create(path string, opts Options) (*Dest, error) {
	return create(path, opts, true)
}

// CheckPath refuses what Create would refuse, leaving nothing behind: for a
// command that works a long time before it writes (shrink), so that a
// wrong -o is said at once, not at the end. A device or FIFO is not opened
// (a FIFO would wait for its reader).
func CheckPath(path string, opts Options) error {
	d, err := create(path, opts, false)
	if err != nil {
		return err
	}
	if d != nil && d.f != nil {
		d.Abort()
	}
	return nil
}

func create(path string, opts Options, open bool) (*Dest, error) {
	if path == Stdout || path == "" {
		w := opts.Stdout
		if w == nil {
			w = os.Stdout
		}
		return &Dest{w: w}, nil
	}
	// Write through a link to what it names, never over the link.
	target, fi, err := resolve(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && target != path:
		if _, derr := os.Stat(filepath.Dir(target)); derr != nil {
			return nil, fmt.Errorf("%s: a symbolic link to %s, whose directory does not exist", path, target)
		}
		return createTemp(target, opts.Force)
	case errors.Is(err, fs.ErrNotExist):
		return createTemp(target, opts.Force)
	case err != nil:
		return nil, err
	}
	switch m := fi.Mode(); {
	case m.IsRegular():
		if !opts.Force {
			return nil, fmt.Errorf("%s: %w", path, ErrExists)
		}
		return createTemp(target, true)
	case m&fs.ModeCharDevice != 0 || m&fs.ModeNamedPipe != 0:
		// Written in place: no temporary file, no truncation, no chmod.
		if !open {
			return nil, nil
		}
		f, err := os.OpenFile(target, os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		return &Dest{w: f, f: f, target: target}, nil
	case m.IsDir():
		return nil, fmt.Errorf("%s: is a directory", path)
	default:
		return nil, fmt.Errorf("%s: %w", path, ErrNotWritable)
	}
}

// resolve follows path's symbolic links to the file they name, which need
// not exist: a dangling link is written through, creating the file it
// points to, as the shell's > does (Create refuses it when the directory
// it points into does not exist).
func resolve(path string) (string, fs.FileInfo, error) {
	target := path
	for hops := 0; ; hops++ {
		fi, err := os.Lstat(target)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return target, fi, err
		}
		if hops == 40 {
			return "", nil, fmt.Errorf("%s: too many levels of symbolic links", path)
		}
		link, err := os.Readlink(target)
		if err != nil {
			return "", nil, err
		}
		if !filepath.IsAbs(link) {
			// Relative to the link's directory as the kernel finds it,
			// not as the path spells it (a ".." after a linked directory).
			dir, err := filepath.EvalSymlinks(filepath.Dir(target))
			if err != nil {
				return "", nil, err
			}
			link = filepath.Join(dir, link)
		}
		target = link
	}
}

func createTemp(target string, force bool) (*Dest, error) {
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*") // created 0600
	if err != nil {
		// Say what the user named, not the hidden temporary file: "no such
		// directory" for a folder that is not there.
		if st, serr := os.Stat(dir); errors.Is(serr, fs.ErrNotExist) {
			return nil, fmt.Errorf("the folder %s does not exist", filepath.Clean(dir))
		} else if serr == nil && !st.IsDir() {
			return nil, fmt.Errorf("%s is not a folder", filepath.Clean(dir))
		}
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("cannot create a file in %s: %w", dir, pe.Err)
		}
		return nil, err
	}
	return track(&Dest{w: f, f: f, target: target, tmp: f.Name(), force: force}), nil
}

// Write writes to the destination.
func (d *Dest) Write(p []byte) (int, error) { return d.w.Write(p) }

// IsStdout reports whether the destination is standard output.
func (d *Dest) IsStdout() bool { return d.f == nil }

// Writer is where bytes go: standard output, or the opened file.
func (d *Dest) Writer() io.Writer { return d.w }

// Name is the path written, or "stdout".
func (d *Dest) Name() string {
	if d.f == nil {
		return "stdout"
	}
	return d.target
}

// Publish puts the new file in its place now, before it is complete, for a
// writer that runs for long (a recorder): later writes land in the target,
// so a killed process leaves a readable file where the user asked for it.
// It does nothing for stdout, a special file, or a file already published.
func (d *Dest) Publish() error {
	if d.tmp == "" {
		return nil
	}
	if err := d.place(); err != nil {
		return err
	}
	d.settled()
	return nil
}

// place moves the temporary file onto the target: without Force, only if
// the target still does not exist (a link cannot replace a file).
func (d *Dest) place() error {
	if d.root != nil {
		return d.root.Rename(d.tmp, d.name)
	}
	if !d.force {
		if err := os.Link(d.tmp, d.target); err == nil {
			return os.Remove(d.tmp)
		} else if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%s: %w", d.target, ErrExists)
		}
		// No hard links on this file system: check, then rename.
		if _, err := os.Lstat(d.target); err == nil {
			return fmt.Errorf("%s: %w", d.target, ErrExists)
		}
	}
	return os.Rename(d.tmp, d.target)
}

// Commit completes the output: a regular file is synced, closed and
// renamed into place; a special file is closed; stdout is left open.
func (d *Dest) Commit() error {
	if d.closed || d.f == nil {
		d.closed = true
		return nil
	}
	d.closed = true
	var err error
	if d.tmp != "" || d.isRegular() {
		err = d.f.Sync()
	}
	if cerr := d.f.Close(); err == nil {
		err = cerr
	}
	if err == nil && d.tmp != "" {
		err = d.place()
	}
	if err != nil && d.tmp != "" {
		d.remove()
	}
	d.settled()
	d.closeRoot()
	return err
}

// remove removes the temporary file.
func (d *Dest) remove() {
	if d.root != nil {
		d.root.Remove(d.tmp)
		return
	}
	os.Remove(d.tmp)
}

func (d *Dest) closeRoot() {
	if d.root != nil {
		d.root.Close()
		d.root = nil
	}
}

func (d *Dest) isRegular() bool {
	fi, err := d.f.Stat()
	return err == nil && fi.Mode().IsRegular()
}

// Abort ends the output after a failure: it closes the file and removes
// the temporary file, never the target or a special file.
func (d *Dest) Abort() {
	if d.closed || d.f == nil {
		d.closed = true
		return
	}
	d.closed = true
	d.f.Close()
	if d.tmp != "" {
		d.remove()
		d.settled()
	}
	d.closeRoot()
}
