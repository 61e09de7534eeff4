package suite

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/clawtap/clawtap/pkg/models"
	"github.com/clawtap/clawtap/pkg/replay"
)

// Capture is one capture of a suite and the files beside it that hold its
// expectations.
type Capture struct {
	// Path is the capture file, as found (relative paths stay relative).
	Path string
	// Base is Path without its capture extension: the golden files are
	// named after it (Golden), the expectations Base+".expect.json".
	Base string
	// Dir is the folder the capture's goldens and expectations are opened
	// in, without leaving it: the folder searched when the capture was
	// found in one, else the capture's own folder ("" is Path's folder).
	Dir string
	// Found says the capture was found (in a folder searched, or by a
	// glob) rather than named: it is opened inside Dir too. A file named
	// on the command line is opened as named.
	Found bool
}

// dir is the folder the capture's files are opened in.
func (c *Capture) dir() string {
	if c.Dir == "" {
		return filepath.Dir(c.Path)
	}
	return c.Dir
}

// in is the name of path, one of the capture's files, inside its folder.
func (c *Capture) in(path string) string {
	if rel, err := filepath.Rel(c.dir(), path); err == nil {
		return rel
	}
	return path
}

// Golden is the golden file of ui, one of the UIs the capture is tested
// under: NAME.golden for the default model, NAME.<ui>.golden for another,
// and NAME.<ui>@<version>.golden when several versions of one model are
// tested. The file itself names the version it was made with.
func (c *Capture) Golden(ui replay.UI, uis []replay.UI) string {
	versions := 0
	for _, u := range uis {
		if u.Version.UI == ui.Version.UI {
			versions++
		}
	}
	switch {
	case versions > 1:
		return c.Base + "." + ui.String() + ".golden"
	case ui.Version.UI == models.Default().Version.UI:
		return c.Base + ".golden"
	}
	return c.Base + "." + ui.Version.UI + ".golden"
}

// ExpectPath is the capture's expectation file.
func (c *Capture) ExpectPath() string { return c.Base + ".expect.json" }

// captureExts are the names a folder's captures end in, longest first.
var captureExts = []string{".jsonl.zst", ".jsonl"}

// isCaptureName reports whether a file in a folder is taken as a capture.
func isCaptureName(name string) bool {
	for _, ext := range captureExts {
		if strings.HasSuffix(name, ext) && len(name) > len(ext) {
			return true
		}
	}
	return false
}

// baseName strips a capture extension; a file named on the command line
// with another name loses its last extension (and a .zst before it).
func baseName(path string) string {
	for _, ext := range captureExts {
		if s, ok := strings.CutSuffix(path, ext); ok && !strings.HasSuffix(s, string(filepath.Separator)) && s != "" {
			return s
		}
	}
	s := strings.TrimSuffix(path, ".zst")
	if ext := filepath.Ext(s); ext != "" && len(ext) < len(filepath.Base(s)) {
		s = strings.TrimSuffix(s, ext)
	}
	return s
}

// DefaultDirs are where a suite is looked for when no argument is given:
// testdata/ when it exists, else the current folder.
func DefaultDirs() []string {
	if fi, err := os.Stat("testdata"); err == nil && fi.IsDir() {
		return []string{"testdata"}
	}
	return []string{"."}
}

// Discover finds the captures the arguments name: a folder is searched
// recursively for *.jsonl.zst and *.jsonl files (folders whose name starts
// with a dot are skipped), a file is taken whatever its name, and an
// argument holding *, ? or [ that names no file is a glob (the shell's
// job, done here too for CI configs that quote it) whose files count only
// when they are named like captures, so that a glob over a suite does not
// take its goldens and expectations; "**" is refused, a folder being
// searched recursively already. The result is sorted
// by path and without duplicates. An argument that matches nothing, or two
// captures that would share a golden file, is an error.
//
// A capture found in a folder keeps that folder as its Dir; one named or
// matched by a glob, its own folder.
func Discover(args []string) ([]Capture, error) {
	seen := make(map[string]Capture)
	var paths []string
	add := func(p, dir string, found bool) {
		p = filepath.Clean(p)
		if _, ok := seen[p]; !ok {
			seen[p] = Capture{Path: p, Base: baseName(p), Dir: filepath.Clean(dir), Found: found}
			paths = append(paths, p)
		}
	}
	for _, arg := range args {
		if arg == "-" {
			return nil, errors.New("a suite reads capture files, not stdin: name a folder, files or a glob")
		}
		matches, glob := []string{arg}, false
		if _, err := os.Lstat(arg); err != nil && strings.ContainsAny(arg, "*?[") {
			if strings.Contains(arg, "**") {
				return nil, fmt.Errorf("%s: ** is not a pattern here; name the folder, which is searched recursively (clawtap test %s)", arg, globRoot(arg))
			}
			m, gerr := filepath.Glob(arg)
			if gerr != nil {
				return nil, fmt.Errorf("bad pattern %q: %w", arg, gerr)
			}
			m = slices.DeleteFunc(m, func(p string) bool {
				fi, err := os.Stat(p)
				return err == nil && !fi.IsDir() && !isCaptureName(filepath.Base(p))
			})
			if len(m) == 0 {
				return nil, fmt.Errorf("%s matches no capture (*.jsonl.zst or *.jsonl) or folder", arg)
			}
			matches, glob = m, true
		}
		for _, p := range matches {
			fi, err := os.Stat(p)
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil, fmt.Errorf("%s: no such file or folder", p)
				}
				return nil, err
			}
			if !fi.IsDir() {
				add(p, filepath.Dir(p), glob)
				continue
			}
			found := 0
			err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if d.IsDir() {
					if path != p && strings.HasPrefix(d.Name(), ".") {
						return filepath.SkipDir
					}
					return nil
				}
				if isCaptureName(d.Name()) && (d.Type().IsRegular() || d.Type()&fs.ModeSymlink != 0) {
					add(path, p, true)
					found++
				}
				return nil
			})
			if err != nil {
				return nil, fmt.Errorf("search %s: %w", p, err)
			}
			if found == 0 {
				return nil, fmt.Errorf("%s holds no capture (*.jsonl.zst or *.jsonl)", p)
			}
		}
	}
	slices.Sort(paths)
	caps := make([]Capture, 0, len(paths))
	owner := make(map[string]string)
	for _, p := range paths {
		c := seen[p]
		if other, ok := owner[c.Base]; ok {
			return nil, fmt.Errorf("%s and %s would share the golden file %s: rename one", other, p, c.Base+".golden")
		}
		owner[c.Base] = p
		caps = append(caps, c)
	}
	return caps, nil
}

// globRoot is the folder part of a pattern before its first wildcard.
func globRoot(pattern string) string {
	i := strings.IndexAny(pattern, "*?[")
	dir := filepath.Dir(pattern[:i+1])
	if dir == "" {
		return "."
	}
	return dir
}
