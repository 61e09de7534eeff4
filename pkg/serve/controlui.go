package serve

import (
	"fmt"
	"net/http"
	"os"
	"path"
	"path/filepath"
)

// ControlUI serves a Control UI build (the gateway's dist/control-ui) from
// dir as static files, with index.html for every path that is not a file,
// as a single-page app expects. Use it as Options.HTTP.
func ControlUI(dir string) (http.Handler, error) {
	if _, err := os.Stat(filepath.Join(dir, "index.html")); err != nil {
		return nil, fmt.Errorf("no index.html in %s: %w", dir, err)
	}
	root := http.Dir(dir)
	files := http.FileServer(root)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := path.Clean("/" + r.URL.Path)
		if fh, err := root.Open(p); err == nil {
			info, serr := fh.Stat()
			fh.Close()
			if serr == nil && (!info.IsDir() || p == "/") {
				files.ServeHTTP(w, r)
				return
			}
		}
		http.ServeFile(w, r, filepath.Join(dir, "index.html"))
	}), nil
}
