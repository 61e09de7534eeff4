package serve

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path"
)

// ControlUI serves a Control UI build (the gateway's dist/control-ui) from
// dir as static files, with index.html for every path that is not a file,
// as a single-page app expects. Use it as Options.HTTP.
//
// Files are opened through an os.Root of dir: no path, "../" or link leads
// out of the folder (a link inside it that stays inside is followed), and
// only regular files are handed out — a link out, a device or a FIFO is as
// if it were not there.
func ControlUI(dir string) (http.Handler, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	fsys := uiFS{root.FS()}
	if fi, err := fs.Stat(fsys, "index.html"); err != nil || fi.IsDir() {
		root.Close()
		if err == nil {
			err = errors.New("it is a directory")
		}
		return nil, fmt.Errorf("no index.html in %s: %w", dir, err)
	}
	files := http.FileServerFS(fsys)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := path.Clean("/" + r.URL.Path)
		if fi, err := fs.Stat(fsys, uiName(p)); err == nil && (!fi.IsDir() || p == "/") {
			files.ServeHTTP(w, r)
			return
		}
		http.ServeFileFS(w, r, fsys, "index.html")
	}), nil
}

// uiName is the name in the folder of a cleaned URL path.
func uiName(p string) string {
	if p == "/" {
		return "."
	}
	return p[1:]
}

// uiFS is the folder as an fs.FS that shows only directories and regular
// files: anything else (a FIFO, a device, a socket) does not exist. The
// os.Root under it refuses links out of the folder.
type uiFS struct{ fsys fs.FS }

func (u uiFS) Open(name string) (fs.File, error) {
	fi, err := fs.Stat(u.fsys, name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() && !fi.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	f, err := u.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	// What was opened is what was looked at (not swapped meanwhile).
	if fi2, err := f.Stat(); err != nil || fi2.Mode().Type() != fi.Mode().Type() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return f, nil
}
