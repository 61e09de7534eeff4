package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/clawtap/clawtap/pkg/replay"
)

// Golden compares out, the output of what ("replay"), with the golden
// file at path: equal is fine, a difference is printed as a unified diff
// on stdout and is a finding. With update it rewrites the file instead.
// cmd is the command line, for hints.
func (e *Env) Golden(cmd, what, path string, out []byte, update bool) error {
	if update {
		if dir := filepath.Dir(path); dir != "." {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return &Error{Code: ExitTrouble, Err: fmt.Errorf("create %s: %w", dir, err)}
			}
		}
		// --update is the consent to replace the golden file.
		d, err := e.Create(Output{Path: path, Force: true, Cmd: cmd})
		if err != nil {
			return err
		}
		if _, err := d.Write(out); err != nil {
			d.Abort()
			return &Error{Code: ExitTrouble, Err: fmt.Errorf("write golden: %w", err)}
		}
		if err := d.Commit(); err != nil {
			return &Error{Code: ExitTrouble, Err: fmt.Errorf("write golden: %w", err)}
		}
		e.Infof("golden %s updated (%d bytes)", path, len(out))
		return nil
	}
	want, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Usage("create it with --update, review it, and commit it", "golden file %s does not exist", path)
		}
		return &Error{Code: ExitTrouble, Err: fmt.Errorf("read golden: %w", err)}
	}
	d := replay.UnifiedDiff(path, what, want, out)
	if d == "" {
		e.Infof("golden %s matches", path)
		return nil
	}
	bw, flush := e.Out()
	bw.WriteString(d)
	if err := flush(); err != nil {
		return err
	}
	fmt.Fprintf(e.Stderr, "clawtap: golden %s differs from the %s\n", path, what)
	fmt.Fprintf(e.Stderr, "clawtap: hint: if the new behaviour is right, rerun with --update and commit the file\n")
	return ErrFinding
}
